#include "tools/flags.h"

#include <algorithm>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "blockbloom/sizing.h"
#include "src/format/registry.h"

// Help texts are shown under each command by `blockbloom help` (usage.cc).
ABSL_FLAG(double, bits_per_key, 10,
          "Filter bits per distinct key; fractional values are fine. The "
          "default sizing (10 bits/key: about 0.96% false positives).");
ABSL_FLAG(double, fp_rate, 0,
          "Instead of --bits_per_key: the smallest filter whose expected "
          "false-positive rate is at most this, 0 < P < 1.");
ABSL_FLAG(std::string, kind, "blocked",
          "blocked or ribbon. blocked: one 64-byte block per key, the "
          "fastest to build and probe. ribbon: the same false-positive rate "
          "in about 30% less memory (6.8 bits/key for 1%, 10 for 0.1%), "
          "built and probed a few times slower; written in its own encoding "
          "(--encoding=auto, no compression). Below about a thousand keys, "
          "where a ribbon would be the larger filter, the blocked kind is "
          "built instead (info says which).");
ABSL_FLAG(bool, compact_small_filters, true,
          "Filters of at most 1 KiB of bits get narrower lanes (one block, "
          "no rounding up to 64 bytes). --nocompact_small_filters keeps "
          "64-byte blocks of 32-bit lanes at every size, as a shared filter "
          "in Redis needs (blockbloom redis publish).");
ABSL_FLAG(uint64_t, seed, 0,
          "Hash seed, stored in the filter file (Redis keeps only a "
          "fingerprint: redis download, query and info take the seed the "
          "filter was built with). Use a secret random one where other "
          "people choose the keys.");
ABSL_FLAG(std::string, compression, "none",
          "none or zstd. zstd implies the full encoding; a well-sized "
          "filter's bits are random and do not shrink, a sparse one's do.");
ABSL_FLAG(int, zstd_level, 3, "zstd level, 1 (fast) to 19 (small).");
ABSL_FLAG(
    std::string, encoding, "auto",
    "auto, compact or full. compact: a trailer of a few bytes (8 more "
    "with a seed), no key count, no compression. full: a 56-byte footer with "
    "the key count and a checksum. auto: compact for uncompressed "
    "filters under 1 KiB of bits, full otherwise.");
ABSL_FLAG(std::string, input_format, "lines",
          "lines: one key per line, the bytes before each '\\n' (a '\\r' is "
          "part of the key; an empty line is the empty key). lenprefixed: "
          "each key is a 4-byte little-endian length, then that many bytes.");
ABSL_FLAG(std::string, o, "",
          "The filter file to write (required). A file is written to a "
          "temporary file in the same directory, then renamed: a failed "
          "build leaves nothing behind, and a file replaced keeps its mode "
          "and owner (new files: 0666 minus the umask). A symbolic link is "
          "followed; a character device or a FIFO (/dev/null, a pipe) is "
          "written into. A directory, a block device, a socket, a link to "
          "nothing and the INPUT itself are refused before any key is "
          "read.");
ABSL_FLAG(bool, quiet, false,
          "No progress bar (it is shown only when stderr is a terminal).");
ABSL_FLAG(bool, json, false,
          "Print one JSON object with stable field names instead of text.");
ABSL_FLAG(bool, count, false,
          "Print only {\"queried\": N, \"may_contain\": M} instead of a line "
          "per key.");
ABSL_FLAG(uint64_t, keys, 1'000'000,
          "Keys to build the filter from; as many absent keys are probed.");

ABSL_FLAG(std::string, url, "redis://127.0.0.1:6379",
          "The Redis server (or any node of a cluster): "
          "redis://[[user]:password@]host[:port][/db] with query options "
          "?cluster=yes|no|auto, timeout=<ms> (per command, default 1000) "
          "and connect_timeout=<ms>.");
ABSL_FLAG(std::string, password_file, "",
          "A file whose first line is the Redis password, instead of putting "
          "it in --url (where ps shows it). Without --password_file or a "
          "password in --url, the environment variable "
          "BLOCKBLOOM_REDIS_PASSWORD is used if set (as redis-cli's "
          "REDISCLI_AUTH). For an ACL user: --url=redis://USER:@host.");
ABSL_FLAG(std::string, name, "",
          "The shared filter's name in Redis (required; its keys are "
          "bb:{NAME} and bb:{NAME}:...).");
ABSL_FLAG(blockbloom::cli::ByteSize, shard_bytes,
          blockbloom::cli::ByteSize{uint64_t{32} << 20},
          "Bytes of filter per Redis key (whole 64-byte blocks, at most 512 "
          "MiB - 8; suffixes K, M: 256K, 32M): big filters are split so that "
          "no single key blocks the server when it is created, moved or "
          "freed.");
ABSL_FLAG(absl::Duration, expire, absl::InfiniteDuration(),
          "Expire every key of the shared filter after this long (e.g. 24h, "
          "90m); inf: never.");
ABSL_FLAG(bool, replace, false,
          "Replace a shared filter of the same name (readers switch from the "
          "old one to the new one at once, never see a mix).");

ABSL_FLAG(blockbloom::cli::ByteSize, max_memory,
          blockbloom::cli::ByteSize{uint64_t{1} << 30},
          "The most memory a filter file may take when it cannot be probed "
          "where it is: the bits of a zstd filter once decompressed, a "
          "filter read from standard input, a pipe or a device (regular "
          "files are mapped, not read: their size does not count), a filter "
          "downloaded from Redis; and the longest key read (an input that is "
          "not a list of keys, such as /dev/zero, stops there). A bigger "
          "filter or key is refused (exit 2) before it is allocated. Giving "
          "it also lifts the reader's cap on the compression ratio (1024x "
          "past 64 MiB of bits, against decompression bombs): you vouch for "
          "the file, and the size is the only limit. Suffixes K, M, G, T "
          "(powers of 1024).");

namespace blockbloom::cli {

bool AbslParseFlag(absl::string_view text, ByteSize* size, std::string* error) {
  const absl::string_view original = text;
  size_t digits = 0;
  while (digits < text.size() && absl::ascii_isdigit(text[digits])) ++digits;
  uint64_t number = 0;
  if (digits == 0 || !absl::SimpleAtoi(text.substr(0, digits), &number)) {
    *error = absl::StrCat("'", original,
                          "' is not a size: expected a number of bytes, "
                          "optionally with K, M, G or T (e.g. 512M, 4G)");
    return false;
  }
  const std::string unit = absl::AsciiStrToUpper(text.substr(digits));
  int shift = -1;
  for (const auto& [name, bits] : {std::pair<const char*, int>{"", 0},
                                   {"B", 0},
                                   {"K", 10},
                                   {"KB", 10},
                                   {"KIB", 10},
                                   {"M", 20},
                                   {"MB", 20},
                                   {"MIB", 20},
                                   {"G", 30},
                                   {"GB", 30},
                                   {"GIB", 30},
                                   {"T", 40},
                                   {"TB", 40},
                                   {"TIB", 40}}) {
    if (unit == name) shift = bits;
  }
  if (shift < 0) {
    *error = absl::StrCat("'", original, "': unknown unit '", unit,
                          "' (K, M, G or T: powers of 1024)");
    return false;
  }
  if (shift > 0 && number > (~uint64_t{0} >> shift)) {
    *error = absl::StrCat("'", original, "' is too large");
    return false;
  }
  size->bytes = number << shift;
  return true;
}

std::string AbslUnparseFlag(ByteSize size) {
  for (const auto& [suffix, shift] : {std::pair<const char*, int>{"T", 40},
                                      {"G", 30},
                                      {"M", 20},
                                      {"K", 10}}) {
    const uint64_t unit = uint64_t{1} << shift;
    if (size.bytes >= unit && size.bytes % unit == 0) {
      return absl::StrCat(size.bytes >> shift, suffix);
    }
  }
  return absl::StrCat(size.bytes);
}

FilterFileLimits FilterFileLimitsFromFlags() {
  FilterFileLimits limits;
  limits.max_memory = absl::GetFlag(FLAGS_max_memory).bytes;
  limits.max_memory_given = FlagGiven("max_memory");
  return limits;
}

absl::StatusOr<InputFormat> InputFormatFlag() {
  const std::string value = absl::GetFlag(FLAGS_input_format);
  if (value == "lines") return InputFormat::kLines;
  if (value == "lenprefixed") return InputFormat::kLengthPrefixed;
  return absl::InvalidArgumentError(absl::StrCat(
      "--input_format=", value, ": expected lines or lenprefixed"));
}

absl::StatusOr<Compression> CompressionFlag() {
  const std::string value = absl::GetFlag(FLAGS_compression);
  if (value == "none") return Compression::kNone;
  if (value == "zstd") return Compression::kZstd;
  return absl::InvalidArgumentError(
      absl::StrCat("--compression=", value, ": expected none or zstd"));
}

absl::StatusOr<Encoding> EncodingFlag() {
  const std::string value = absl::GetFlag(FLAGS_encoding);
  if (value == "auto") return Encoding::kAuto;
  if (value == "compact") return Encoding::kCompact;
  if (value == "full") return Encoding::kFull;
  return absl::InvalidArgumentError(
      absl::StrCat("--encoding=", value, ": expected auto, compact or full"));
}

namespace {
std::vector<std::string>& GivenFlags() {
  static auto* names = new std::vector<std::string>;
  return *names;
}
}  // namespace

void SetGivenFlags(std::vector<std::string> names) {
  GivenFlags() = std::move(names);
}

bool FlagGiven(std::string_view name) {
  const std::vector<std::string>& names = GivenFlags();
  return std::find(names.begin(), names.end(), name) != names.end();
}

absl::StatusOr<FilterOptions> FilterOptionsFromFlags() {
  if (FlagGiven("bits_per_key") && FlagGiven("fp_rate")) {
    return absl::InvalidArgumentError(
        "give --bits_per_key or --fp_rate, not both");
  }
  FilterOptions options;
  options.bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
  options.fp_rate = absl::GetFlag(FLAGS_fp_rate);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.compact_small_filters = absl::GetFlag(FLAGS_compact_small_filters);
  const std::string kind = absl::GetFlag(FLAGS_kind);
  const internal::KindPlugin* plugin = internal::FindBuildKind(kind);
  if (plugin == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kind=", kind, ": expected one of ", internal::BuildKindNames()));
  }
  options.kind = plugin->kind;
  if (FlagGiven("fp_rate") && !(options.fp_rate > 0 && options.fp_rate < 1)) {
    // FilterOptions reads 0 as "not set"; on the command line it is an error.
    return absl::InvalidArgumentError(
        absl::StrCat("--fp_rate=", options.fp_rate, ": expected 0 < P < 1"));
  }
  // A filter that answers "may be present" for half the keys it does not
  // hold, or more, saves less than it costs: refuse it rather than build it
  // silently. The rate of a bits-per-key sizing hardly depends on n; it is
  // taken at a million keys (small filters round up to a block: a bit
  // better).
  constexpr double kUselessFpRate = 0.5;
  constexpr uint64_t kProbeKeys = 1'000'000;
  if (FlagGiven("fp_rate")) {
    if (options.fp_rate >= kUselessFpRate) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--fp_rate=", options.fp_rate,
          ": a false-positive rate of 50% or more makes a useless filter "
          "(every other key that is not in it would answer \"may be "
          "present\"); ask for less, e.g. --fp_rate=0.01"));
    }
  } else if (options.bits_per_key > 0) {
    absl::StatusOr<FilterShape> shape =
        ShapeForBitsPerKey(kProbeKeys, options.bits_per_key,
                           /*compact_small_filters=*/false);
    // (A bits per key the sizing rejects is reported by the builder.)
    const double rate =
        shape.ok() ? EstimatedFpRate(*shape, kProbeKeys).value_or(0.0) : 0.0;
    if (rate >= kUselessFpRate) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--bits_per_key=%g gives an estimated false-positive rate of "
          "%.0f%%: a useless filter (at least every other key that is not "
          "in it would answer \"may be present\"); give --bits_per_key=2 "
          "or more (10 gives about 1%%)",
          options.bits_per_key, 100 * rate));
    }
  }
  return options;
}

absl::StatusOr<WriteOptions> WriteOptionsFromFlags() {
  WriteOptions options;
  absl::StatusOr<Encoding> encoding = EncodingFlag();
  if (!encoding.ok()) return encoding.status();
  absl::StatusOr<Compression> compression = CompressionFlag();
  if (!compression.ok()) return compression.status();
  options.encoding = *encoding;
  options.compression = *compression;
  options.zstd_level = absl::GetFlag(FLAGS_zstd_level);
  if (options.zstd_level < 1 || options.zstd_level > 19) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--zstd_level=", options.zstd_level, ": expected 1 to 19"));
  }
  if (options.compression == Compression::kZstd &&
      options.encoding == Encoding::kCompact) {
    return absl::InvalidArgumentError(
        "--compression=zstd needs the full encoding (--encoding=full or "
        "auto); the compact one stores the bits as they are");
  }
  return options;
}

}  // namespace blockbloom::cli
