#include "src/rocksdb/library_version.h"

#include <rocksdb/version.h>

#include <atomic>
#include <deque>
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

namespace {
// The answer SetRocksDBRunningVersionForTest set, if any. Each one set is
// kept (never freed): a caller may still hold a reference to the previous.
std::atomic<const absl::Status*> test_status{nullptr};
}  // namespace

const absl::Status& CheckRocksDBLibrary() {
  if (const absl::Status* s = test_status.load(std::memory_order_acquire)) {
    return *s;
  }
  static const absl::Status* const status =
      new absl::Status(CheckRocksDBVersion(rocksdb::GetRocksVersionAsString()));
  return *status;
}

void SetRocksDBRunningVersionForTest(std::string_view running) {
  static auto* const kept = new std::deque<absl::Status>;
  if (running.empty()) {
    test_status.store(nullptr, std::memory_order_release);
    return;
  }
  kept->push_back(CheckRocksDBVersion(running));
  test_status.store(&kept->back(), std::memory_order_release);
}

}  // namespace blockbloom::internal
