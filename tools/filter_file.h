// Reading a filter file for the commands that use one (info, query, redis
// publish), with bounded memory whatever the input:
//   - a regular file is mapped, not read: only the pages the reader touches
//     are read (the footer first), so a huge sparse file costs nothing and
//     a real filter of any size is probed in place;
//   - standard input, a pipe or a device is read into memory, at most
//     `max_memory` bytes (/dev/zero or an endless pipe stops there);
//   - a zstd filter's bits are decompressed only within `max_memory` and
//     the reader's ratio cap against decompression bombs (docs/FORMAT.md).
// Every refusal is a status whose message names the file and the flag that
// lifts the limit.
#ifndef BLOCKBLOOM_TOOLS_FILTER_FILE_H_
#define BLOCKBLOOM_TOOLS_FILTER_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"

namespace blockbloom::cli {

struct FilterFileLimits {
  // The most a filter may take in memory when it cannot be probed where it
  // is: bytes read from a pipe or device, bits decompressed from zstd.
  uint64_t max_memory = uint64_t{1} << 30;
  // The user gave --max_memory, vouching for the file: the reader's
  // compression-ratio cap is lifted (max_memory still applies).
  bool max_memory_given = false;
};

// A filter file, read and opened. Not movable: the filter points into the
// mapping or the buffer (uncompressed filters are probed where they are).
class FilterFile {
 public:
  FilterFile() = default;
  ~FilterFile();
  FilterFile(const FilterFile&) = delete;
  FilterFile& operator=(const FilterFile&) = delete;

  std::string path;                 // for messages ("standard input" for -)
  absl::Span<const uint8_t> bytes;  // the file's bytes
  FilterInfo info;
  std::optional<Filter> filter;  // always set once loaded

 private:
  friend absl::StatusOr<std::unique_ptr<FilterFile>> LoadFilterFile(
      const std::string& path, const FilterFileLimits& limits);
  std::string buffer_;       // read from a pipe or device
  void* mapping_ = nullptr;  // or mapped from a regular file
  size_t mapping_bytes_ = 0;
};

// Reads `path` ("-": standard input) and opens the filter in it (checksum
// verified). On failure, the status keeps the reader's code and says
// "PATH: not a valid blockbloom filter: " and the reader's status, why the
// file could not be read, or which limit it is over and how to lift it.
absl::StatusOr<std::unique_ptr<FilterFile>> LoadFilterFile(
    const std::string& path, const FilterFileLimits& limits);

// "1G", "256M", "3M", "4096": `bytes` rounded UP to a whole unit of 1024^k
// when it is at least 1 MiB, for messages that suggest a --max_memory.
std::string SizeForFlag(uint64_t bytes);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_FILTER_FILE_H_
