#include "src/rocksdb/library_version.h"

#include <rocksdb/version.h>

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/rocksdb/filter_bits.h"

namespace blockbloom::internal {

int RocksDBLayoutOf(int major, int minor) {
  const int version = major * 100 + minor;
  if (version < 708 || version >= 1200) return 0;
  if (version >= 1009) return 109;
  if (version >= 906) return 96;
  return 70;
}

absl::Status CheckRocksDBVersion(std::string_view running_version) {
  // Debian's Abseil has its own string_view.
  const absl::string_view running(running_version.data(),
                                  running_version.size());
  const std::vector<absl::string_view> parts = absl::StrSplit(running, '.');
  int major = 0, minor = 0;
  const bool parsed = parts.size() >= 2 && absl::SimpleAtoi(parts[0], &major) &&
                      absl::SimpleAtoi(parts[1], &minor);
  const int layout = parsed ? RocksDBLayoutOf(major, minor) : 0;
  if (layout == BLOCKBLOOM_ROCKSDB_LAYOUT) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "blockbloom's RocksDB adapter was compiled against RocksDB ",
      ROCKSDB_MAJOR, ".", ROCKSDB_MINOR, ".", ROCKSDB_PATCH,
      " but runs with librocksdb ", running,
      ", whose internal filter classes have another layout; blockbloom "
      "filters are off (tables are written without them). Rebuild "
      "blockbloom against the RocksDB the program runs with."));
}

const absl::Status& CheckRocksDBLibrary() {
  static const absl::Status* const status =
      new absl::Status(CheckRocksDBVersion(rocksdb::GetRocksVersionAsString()));
  return *status;
}

}  // namespace blockbloom::internal
