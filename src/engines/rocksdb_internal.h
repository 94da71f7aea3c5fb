// Test hooks of the RocksDB adapter; not part of the API.
#ifndef BLOCKBLOOM_SRC_ENGINES_ROCKSDB_INTERNAL_H_
#define BLOCKBLOOM_SRC_ENGINES_ROCKSDB_INTERNAL_H_

#include <cstdint>

namespace blockbloom::internal {

// How many times RocksDB has called the batch MayMatch (MultiGet) of any
// blockbloom reader in this process.
uint64_t RocksDBBatchProbeCalls();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ENGINES_ROCKSDB_INTERNAL_H_
