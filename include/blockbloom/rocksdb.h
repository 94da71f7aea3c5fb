// blockbloom as a RocksDB filter policy (RocksDB 7.8, Debian's librocksdb).
//
//   rocksdb::BlockBasedTableOptions table;
//   table.filter_policy = blockbloom::NewRocksDBFilterPolicy(10);
//   options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
//
// Full (per-SSTable) filters in blockbloom's full encoding, probed in place.
// MultiGet's batches go to the batch probe (block addresses computed and
// prefetched first). Filters are stored under "fullfilter.blockbloom.v1": a DB
// reopened with another policy or none simply does not use them. A filter
// that cannot be read answers "may match" (fails open).
//
// Only RocksDB 7.8 is supported: the adapter must mirror RocksDB-internal
// classes (src/engines/rocksdb_filter_bits.h), and building it against another
// version stops with an #error that says so.
#ifndef BLOCKBLOOM_ROCKSDB_H_
#define BLOCKBLOOM_ROCKSDB_H_

#include <rocksdb/filter_policy.h>

#include <memory>

#include "absl/status/statusor.h"
#include "blockbloom/filter_policy.h"

namespace blockbloom {

// A policy with `bits_per_key` bits of filter per key (fractional values
// allowed; values below 1, and NaN, are taken as 1).
std::shared_ptr<const rocksdb::FilterPolicy> NewRocksDBFilterPolicy(
    double bits_per_key);

// The same with every option; InvalidArgument for invalid options.
absl::StatusOr<std::shared_ptr<const rocksdb::FilterPolicy>>
NewRocksDBFilterPolicy(const FilterPolicy::Options& options);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_ROCKSDB_H_
