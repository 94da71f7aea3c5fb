// Whether the librocksdb this process runs with has the vtable layout the
// adapter was compiled for (filter_bits.h). A program built against one
// release's headers and run with another release's library would otherwise
// call our builders through the wrong slots (from 9.6 on, the slot after
// AddKey is AddKeyAndAlt, not EstimateEntriesAdded): wrong answers or a
// crash. On a mismatch the policy fails open: it hands RocksDB no builder and
// no reader, so tables are written without blockbloom filters and read as
// "may match".
#ifndef BLOCKBLOOM_SRC_ROCKSDB_LIBRARY_VERSION_H_
#define BLOCKBLOOM_SRC_ROCKSDB_LIBRARY_VERSION_H_

#include <string_view>

#include "absl/status/status.h"

namespace blockbloom::internal {

// The FilterBitsBuilder layout (70, 96 or 109: filter_bits.h) of RocksDB
// major.minor, or 0 outside the verified range.
int RocksDBLayoutOf(int major, int minor);

// OK if a library reporting `running` ("11.8.1", as GetRocksVersionAsString
// prints it) has the layout compiled in; else FailedPrecondition naming
// both versions and what to do.
absl::Status CheckRocksDBVersion(std::string_view running);

// CheckRocksDBVersion of the library this process runs with, computed once
// (or of the version set by SetRocksDBRunningVersionForTest).
const absl::Status& CheckRocksDBLibrary();

// Tests: CheckRocksDBLibrary answers for a library reporting `running`
// instead of the real one, so that the fail-open path can run against the
// library the test has; empty: the real library again. Not thread-safe
// against policies in use.
void SetRocksDBRunningVersionForTest(std::string_view running);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_LIBRARY_VERSION_H_
