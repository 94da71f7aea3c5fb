// blockbloom info: what a filter file holds.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/sizing.h"
#include "src/core/simd_target.h"
#include "tools/commands.h"
#include "tools/fill_estimate.h"
#include "tools/filter_file.h"
#include "tools/flags.h"
#include "tools/info_lines.h"
#include "tools/json_writer.h"
#include "tools/report.h"

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "info";

// Everything `info` reports, computed once for both output forms.
struct Report {
  const FilterFile* file;
  FillStats fill;
  KeyEstimate estimate;
  double expected_fill = NAN;  // for the stored key count, if any
  double fp_rate = 0;
  bool fp_rate_from_estimate = false;
  double bits_per_key = NAN;  // of filter bits, if the key count is known
};

Report Compute(const FilterFile& file) {
  Report r;
  r.file = &file;
  const FilterInfo& info = file.info;
  r.fill = CountSetBits(file.filter->bits());
  if (info.kind == FilterKind::kRibbon) {
    // A ribbon's bits are a solution of equations, about half of them set
    // whatever the keys: no fill to expect, no keys to estimate from them.
    // Its rate is exact, from its layers (it stores its key count).
    r.estimate = {NAN, NAN};
    r.fp_rate = file.filter->EstimatedFpRate();
    if (info.num_keys > 0) {
      r.bits_per_key = 8.0 * static_cast<double>(info.bits_bytes) /
                       static_cast<double>(info.num_keys);
    }
    return r;
  }
  r.estimate = EstimateDistinctKeys(info.shape, r.fill.set_bits);
  uint64_t keys_for_fp = info.num_keys;
  if (info.num_keys_known) {
    r.expected_fill =
        ExpectedFillRatio(info.shape, static_cast<double>(info.num_keys));
    if (info.num_keys > 0) {
      r.bits_per_key = 8.0 * static_cast<double>(info.bits_bytes) /
                       static_cast<double>(info.num_keys);
    }
  } else {
    r.fp_rate_from_estimate = true;
    keys_for_fp = r.estimate.saturated()
                      ? 0
                      : static_cast<uint64_t>(std::llround(r.estimate.keys));
  }
  if (r.fp_rate_from_estimate && r.estimate.saturated()) {
    r.fp_rate = 1;  // every bit set: every key "may be present"
  } else {
    // The shape was validated by the reader, so this cannot fail.
    r.fp_rate = EstimatedFpRate(info.shape, keys_for_fp).value_or(NAN);
  }
  return r;
}

const char* CompressionName(Compression compression) {
  return compression == Compression::kZstd ? "zstd" : "none";
}

std::string Json(const Report& r) {
  const FilterInfo& info = r.file->info;
  JsonObject json;
  json.Add("file", r.file->path);
  json.Add("encoding_version",
           absl::StrCat(info.major_version, ".", info.minor_version));
  json.Add("major_version", info.major_version);
  json.Add("minor_version", info.minor_version);
  json.Add("encoding", EncodingName(info.encoding));
  json.Add("kind", FilterKindName(info.kind));
  json.Add("simd_target", ActiveSimdTarget());
  json.Add("simd_target_source", internal::SimdTargetSource());
  if (info.kind == FilterKind::kRibbon) {
    // No lanes, blocks or probes: a ribbon's geometry is its layers.
    for (const char* name :
         {"lanes_per_block", "lane_bits", "block_bytes", "num_probes"}) {
      json.AddNull(name);
    }
  } else {
    json.Add("lanes_per_block", 16);
    json.Add("lane_bits", info.shape.lane_bits);
    json.Add("block_bytes", uint64_t{2} * info.shape.lane_bits);
    json.Add("num_probes", info.shape.num_probes);
  }
  json.Add("seed", info.seed);
  if (info.kind == FilterKind::kRibbon) {
    json.AddNull("num_blocks");
  } else {
    json.Add("num_blocks", info.shape.num_blocks);
  }
  if (info.num_keys_known) {
    json.Add("num_keys", info.num_keys);
  } else {
    json.AddNull("num_keys");
  }
  json.Add("num_keys_known", info.num_keys_known);
  json.Add("compression", CompressionName(info.compression));
  json.Add("bits_bytes", info.bits_bytes);
  json.Add("payload_bytes", info.payload_bytes);
  json.Add("overhead_bytes", info.overhead_bytes);
  json.Add("size_on_disk_bytes", static_cast<uint64_t>(r.file->bytes.size()));
  json.Add("bits_per_key", r.bits_per_key);
  json.Add("set_bits", r.fill.set_bits);
  json.Add("total_bits", r.fill.total_bits);
  json.Add("fill_ratio", r.fill.fill_ratio());
  json.Add("expected_fill_ratio", r.expected_fill);
  json.Add("estimated_fp_rate", r.fp_rate);
  json.Add("fp_rate_basis",
           r.fp_rate_from_estimate ? "estimated_keys" : "num_keys");
  json.Add("estimated_keys", r.estimate.keys);
  json.Add("estimated_keys_stderr", r.estimate.std_error);
  // Where an engine built the filter (format 4.1; the RocksDB adapter): the
  // level its table was written at, null if none is recorded.
  if (info.origin.recorded()) {
    json.Add("origin_level", info.origin.level);
  } else {
    json.AddNull("origin_level");
  }
  json.Add("origin_bottommost", info.origin.bottommost);
  json.Add("origin_group", info.origin.group);
  return json.str() + "\n";
}

std::string Text(const Report& r) {
  const FilterInfo& info = r.file->info;
  const FilterShape& shape = info.shape;
  std::string out;
  const auto line = [&out](const char* name, const std::string& value) {
    AppendInfoLine(&out, name, value);
  };
  line("file", r.file->path);
  line("encoding version",
       absl::StrCat(info.major_version, ".", info.minor_version));
  const bool ribbon = info.kind == FilterKind::kRibbon;
  const char* compact = info.num_keys_known
                            ? "compact (trailer with key count and origin)"
                            : "compact (trailer without key count)";
  line("encoding", info.encoding == Encoding::kCompact ? compact
                   : ribbon ? "ribbon (layer table and footer with key count)"
                   : info.encoding == Encoding::kFull
                       ? "full (footer with key count)"
                       : std::string(EncodingName(info.encoding)));
  line("kind", FilterKindName(info.kind));
  AppendSimdTargetLine(&out);
  if (ribbon) {
    line("block", "64 slots, in layers (docs/FORMAT.md)");
    line("seed", absl::StrFormat("%d (0x%016x)", info.seed, info.seed));
  } else {
    AppendShapeLines(&out, shape, info.seed);
    line("lane bits", absl::StrCat(shape.lane_bits));
  }
  line("keys", info.num_keys_known
                   ? absl::StrCat(info.num_keys)
                   : std::string("not stored (compact encoding)"));
  line("compression",
       info.compression == Compression::kZstd
           ? absl::StrFormat("zstd (%d bytes of bits stored in %d)",
                             info.bits_bytes, info.payload_bytes)
           : std::string("none"));
  line("size on disk",
       absl::StrFormat("%d bytes (%d of payload, %d of %s)",
                       r.file->bytes.size(), info.payload_bytes,
                       info.overhead_bytes,
                       info.encoding == Encoding::kCompact ? "trailer"
                       : ribbon ? "layer table and footer"
                                : "footer"));
  if (!std::isnan(r.bits_per_key)) {
    line("bits per key", absl::StrFormat("%.2f", r.bits_per_key));
  }
  std::string fill =
      absl::StrFormat("%.4f (%d of %d bits set)", r.fill.fill_ratio(),
                      r.fill.set_bits, r.fill.total_bits);
  if (!std::isnan(r.expected_fill)) {
    absl::StrAppendFormat(&fill, "; %.4f expected for %d keys", r.expected_fill,
                          info.num_keys);
  }
  line("fill ratio", fill);
  if (ribbon) {
    line("estimated FPR",
         absl::StrFormat("%.4g%% (exact, from its layers)", 100 * r.fp_rate));
    return out;
  }
  line("estimated FPR",
       absl::StrFormat("%.4g%% (for %s)", 100 * r.fp_rate,
                       r.fp_rate_from_estimate ? "the estimated keys"
                                               : "the stored key count"));
  line("estimated distinct keys",
       r.estimate.saturated()
           ? std::string("unknown: every bit is set")
           : absl::StrFormat("%.0f +- %.0f (from the fill ratio)",
                             r.estimate.keys, r.estimate.std_error));
  if (info.origin.recorded()) {
    line("origin", absl::StrFormat("level %d%s, group %d (where an engine "
                                   "built it)",
                                   info.origin.level,
                                   info.origin.bottommost ? ", bottommost" : "",
                                   info.origin.group));
  }
  return out;
}

}  // namespace

int RunInfo(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand,
                      absl::StrCat("expected one FILTER (a file, or - for "
                                   "standard input), got ",
                                   args.size(), " arguments"));
  }
  absl::StatusOr<std::unique_ptr<FilterFile>> file =
      LoadFilterFile(args[0], FilterFileLimitsFromFlags());
  if (!file.ok()) return Fail(kCommand, kExitBadInput, file.status());
  const Report report = Compute(**file);
  const std::string out =
      absl::GetFlag(FLAGS_json) ? Json(report) : Text(report);
  Print(out);
  return FinishOutput(kCommand);
}

}  // namespace blockbloom::cli
