// Reading a filter file for the commands that use one (info, query).
#ifndef BLOCKBLOOM_TOOLS_FILTER_FILE_H_
#define BLOCKBLOOM_TOOLS_FILTER_FILE_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"

namespace blockbloom::cli {

// All of `path` ("-": standard input). Errors name the file and the
// system's reason.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// A filter file, read and opened. Not movable: the filter may point into
// `bytes` (uncompressed filters are probed where they are).
struct FilterFile {
  std::string path;
  std::string bytes;
  FilterInfo info;
  std::optional<Filter> filter;  // always set once loaded
};

// Reads `path` and opens the filter in it (checksum verified). On failure,
// the status keeps the reader's code and says "PATH: not a valid blockbloom
// filter: " and the reader's status, or why the file could not be read.
absl::StatusOr<std::unique_ptr<FilterFile>> LoadFilterFile(
    const std::string& path);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_FILTER_FILE_H_
