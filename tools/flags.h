// The tool's flags (absl). One set for all commands; each command lists the
// ones it takes (commands.cc), and giving another is a usage error.
#ifndef BLOCKBLOOM_TOOLS_FLAGS_H_
#define BLOCKBLOOM_TOOLS_FLAGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "tools/filter_file.h"
#include "tools/key_reader.h"

namespace blockbloom::cli {

// A size in bytes on the command line: a number, optionally followed by K,
// M, G or T (powers of 1024; "KiB", "MB" ... are read the same): 1G, 512M,
// 4096.
struct ByteSize {
  uint64_t bytes = 0;
};
bool AbslParseFlag(absl::string_view text, ByteSize* size, std::string* error);
std::string AbslUnparseFlag(ByteSize size);

}  // namespace blockbloom::cli

ABSL_DECLARE_FLAG(double, bits_per_key);
ABSL_DECLARE_FLAG(double, fp_rate);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(bool, compact_small_filters);
ABSL_DECLARE_FLAG(std::string, compression);
ABSL_DECLARE_FLAG(int, zstd_level);
ABSL_DECLARE_FLAG(std::string, encoding);
ABSL_DECLARE_FLAG(std::string, input_format);
ABSL_DECLARE_FLAG(std::string, o);
ABSL_DECLARE_FLAG(bool, quiet);
ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(bool, count);
ABSL_DECLARE_FLAG(uint64_t, keys);
ABSL_DECLARE_FLAG(std::string, url);
ABSL_DECLARE_FLAG(std::string, name);
ABSL_DECLARE_FLAG(std::string, password_file);
ABSL_DECLARE_FLAG(blockbloom::cli::ByteSize, shard_bytes);
ABSL_DECLARE_FLAG(absl::Duration, expire);
ABSL_DECLARE_FLAG(bool, replace);
ABSL_DECLARE_FLAG(blockbloom::cli::ByteSize, max_memory);

namespace blockbloom::cli {

// The values of the string-valued flags; InvalidArgument naming the flag and
// the values it takes.
absl::StatusOr<InputFormat> InputFormatFlag();
absl::StatusOr<Compression> CompressionFlag();
absl::StatusOr<Encoding> EncodingFlag();

// Which flags the command line gave (names without dashes; "nofoo" is
// recorded as "foo"), set by main before a command runs.
void SetGivenFlags(std::vector<std::string> names);
bool FlagGiven(std::string_view name);

// FilterOptions from --bits_per_key, --fp_rate, --seed, --kind and
// --compact_small_filters. InvalidArgument if both --bits_per_key and
// --fp_rate are given, or for a --kind other than blocked and ribbon (the
// builder checks the values themselves).
absl::StatusOr<FilterOptions> FilterOptionsFromFlags();

// The limits on reading a filter file, from --max_memory.
FilterFileLimits FilterFileLimitsFromFlags();

// WriteOptions from --encoding, --compression and --zstd_level.
// InvalidArgument for a bad value, or zstd with the compact encoding.
absl::StatusOr<WriteOptions> WriteOptionsFromFlags();

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_FLAGS_H_
