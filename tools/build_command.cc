// blockbloom build: keys in, filter file out.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "tools/commands.h"
#include "tools/fill_estimate.h"
#include "tools/flags.h"
#include "tools/info_lines.h"
#include "tools/key_reader.h"
#include "tools/output_file.h"
#include "tools/progress_bar.h"
#include "tools/report.h"

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "build";

void PrintSummary(uint64_t keys_read, const Filter& filter,
                  const std::string& output, const WriteStats& stats,
                  Compression compression, std::FILE* out) {
  // What the builder counts (and sized the filter for) is the keys added,
  // adjacent duplicates once; repeats further apart count again. The bits
  // tell how many distinct keys there really were.
  const uint64_t keys = filter.num_keys();
  // Only a blocked filter's bits are Bloom bits (lanes, probes, a fill):
  // not those of another kind the builder makes (a ribbon).
  const bool blocked = filter.kind() == FilterKind::kBlocked;
  std::string text = absl::StrFormat(
      "keys read:      %d (%d added; adjacent duplicates count once)\n",
      keys_read, keys);
  // A ribbon's bits are a solution of equations, half of them set whatever
  // the keys: they tell nothing of how many there were.
  const KeyEstimate distinct =
      !blocked ? KeyEstimate{}
               : EstimateDistinctKeys(filter.shape(),
                                      CountSetBits(filter.bits()).set_bits);
  if (blocked) {
    absl::StrAppend(
        &text, "distinct keys:  ",
        distinct.saturated()
            ? std::string("unknown (every bit is set)")
            : absl::StrFormat(
                  "about %.0f +- %.0f (estimated from the bits set)",
                  distinct.keys, distinct.std_error),
        "\n");
  }
  absl::StrAppendFormat(
      &text, "bytes written:  %d to %s (%s encoding, %s, %d bytes of bits)\n",
      stats.total_bytes, output, EncodingName(stats.encoding),
      compression == Compression::kZstd
          ? absl::StrFormat("zstd %d -> %d bytes", stats.bits_bytes,
                            stats.payload_bytes)
          : std::string("uncompressed"),
      stats.bits_bytes);
  if (keys == 0) {
    text += "bits per key:   - (no keys)\n";
  } else {
    absl::StrAppendFormat(
        &text, "bits per key:   %.2f (%.2f with the %d-byte %s)\n",
        8.0 * static_cast<double>(stats.bits_bytes) / static_cast<double>(keys),
        8.0 * static_cast<double>(stats.total_bytes) /
            static_cast<double>(keys),
        stats.overhead_bytes,
        stats.encoding == Encoding::kCompact  ? "trailer"
        : stats.encoding == Encoding::kRibbon ? "layer table and footer"
                                              : "footer");
  }
  if (!blocked) {
    // The kind's own estimate (a ribbon's: exact, from its layers).
    absl::StrAppendFormat(&text, "estimated FPR:  %.4g%% (kind %s)\n",
                          100 * filter.EstimatedFpRate(),
                          FilterKindName(filter.kind()));
  } else {
    absl::StrAppendFormat(
        &text,
        "estimated FPR:  %.4g%% (k = %d, %d block%s of 16 x %d-bit lanes)\n",
        100 * filter.EstimatedFpRate(), filter.num_probes(),
        filter.num_blocks(), filter.num_blocks() == 1 ? "" : "s",
        filter.lane_bits());
  }
  Print(text, out);
  // Many more keys added than distinct ones (beyond the estimate's noise):
  // the input repeats keys, and the filter is bigger than it needs to be.
  const double added = static_cast<double>(keys);
  if (blocked && !distinct.saturated() &&
      distinct.keys + 4 * distinct.std_error + 1 < 0.9 * added) {
    std::fputs(
        absl::StrFormat(
            "blockbloom build: note: the input repeats keys: about %.0f "
            "distinct of %d added, so the filter is sized for %.1fx as many "
            "keys as it holds (a repeat counts as a key unless it follows "
            "itself). Deduplicate the keys first for a filter sized for the "
            "distinct ones: sort -u KEYS | blockbloom build - -o %s\n",
            distinct.keys, keys, added / std::max(distinct.keys, 1.0), output)
            .c_str(),
        stderr);
  }
}

}  // namespace

int RunBuild(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(
        kCommand, absl::StrCat("expected one INPUT (a file, or - for standard "
                               "input), got ",
                               args.size(), " arguments"));
  }
  const std::string& input = args[0];
  const std::string output = absl::GetFlag(FLAGS_o);
  if (output.empty()) return UsageError(kCommand, "-o OUTPUT is required");
  if (output == "-") {
    return UsageError(kCommand,
                      "-o - (standard output) is not supported: -o names the "
                      "filter file (or a device or pipe, e.g. -o /dev/stdout "
                      "to pipe the filter on)");
  }
  absl::StatusOr<InputFormat> format = InputFormatFlag();
  if (!format.ok()) return UsageError(kCommand, format.status());
  absl::StatusOr<FilterOptions> options = FilterOptionsFromFlags();
  if (!options.ok()) return UsageError(kCommand, options.status());
  absl::StatusOr<WriteOptions> write_options = WriteOptionsFromFlags();
  if (!write_options.ok()) {
    return UsageError(kCommand, write_options.status());
  }
  if (options->kind != FilterKind::kBlocked &&
      (write_options->encoding != Encoding::kAuto ||
       write_options->compression != Compression::kNone)) {
    return UsageError(
        kCommand,
        absl::StrCat("--kind=", FilterKindName(options->kind),
                     " is written in its own encoding (docs/FORMAT.md): "
                     "leave --encoding at auto and --compression at none"));
  }
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(*options);
  if (!builder.ok()) return UsageError(kCommand, builder.status());

  // Where the filter goes is settled before any key is read: a directory,
  // a block device or a socket is refused, and so is the input itself.
  absl::StatusOr<OutputFile> out = OutputFile::Resolve(output);
  if (!out.ok()) return Fail(kCommand, kExitWriteError, out.status());
  absl::StatusOr<std::unique_ptr<KeyReader>> reader =
      KeyReader::Open(input, *format);
  if (!reader.ok()) return Fail(kCommand, kExitBadInput, reader.status());
  (*reader)->set_max_key_bytes(absl::GetFlag(FLAGS_max_memory).bytes,
                               "--max_memory");
  struct stat input_stat;
  if (::fstat((*reader)->fd(), &input_stat) == 0 &&
      out->IsSameRegularFile(input_stat)) {
    return UsageError(
        kCommand,
        absl::StrCat("INPUT (", (*reader)->name(), ") and -o ", output,
                     " are the same file: the filter would replace the "
                     "keys; give another OUTPUT"));
  }
  // The summary goes to stdout, unless stdout is where the filter goes
  // (-o /dev/stdout): then to stderr, not into the filter's bytes.
  struct stat stdout_stat;
  std::FILE* summary =
      ::fstat(STDOUT_FILENO, &stdout_stat) == 0 && out->IsSameFile(stdout_stat)
          ? stderr
          : stdout;
  ProgressBar bar(::isatty(STDERR_FILENO) && !absl::GetFlag(FLAGS_quiet),
                  (*reader)->total_bytes());
  std::string_view key;
  uint64_t keys_read = 0;
  while ((*reader)->Next(&key)) {
    builder->Add(key);
    ++keys_read;
    bar.Update(keys_read, (*reader)->bytes_consumed());
  }
  if (!(*reader)->status().ok()) {
    bar.Clear();
    Fail(kCommand, kExitBadInput, (*reader)->status());
    std::fprintf(stderr, "nothing written to %s\n", output.c_str());
    return kExitBadInput;
  }

  bar.Finish(keys_read, (*reader)->bytes_consumed());
  bar.SetPhase("building the filter");
  absl::StatusOr<Filter> filter = builder->Finish();
  if (!filter.ok()) {
    bar.Clear();
    return Fail(
        kCommand, kExitUsage,
        absl::StrCat("cannot build the filter: ", filter.status().ToString()));
  }
  bar.SetPhase("writing " + output);
  std::string block;
  WriteStats stats;
  absl::Status status = AppendFilter(*filter, *write_options, &block, &stats);
  if (status.ok()) status = out->Write(block);
  bar.Clear();
  if (!status.ok()) {
    Fail(kCommand, kExitWriteError, status);
    std::fprintf(stderr, "nothing written to %s\n", output.c_str());
    return kExitWriteError;
  }
  PrintSummary(keys_read, *filter, output, stats, write_options->compression,
               summary);
  return FinishOutput(kCommand, summary,
                      absl::StrCat("the filter was written to ", output,
                                   "; only this summary was lost"));
}

}  // namespace blockbloom::cli
