// A RocksDB helper shared by the tests and examples/rocksdb_levels_demo.cc
// (as tests/leveldb/leveldb_counting_env.h is for LevelDB): measurement
// plumbing, not a use of blockbloom, so it lives beside the tests.
#ifndef BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_COMPACTIONS_H_
#define BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_COMPACTIONS_H_

#include <rocksdb/db.h>

#include <chrono>
#include <cstdint>
#include <thread>

namespace blockbloom::internal {

// Returns once `db` has no compaction pending or running, polling every
// 20 ms (RocksDB 7.8 has no DB::WaitForCompact). Universal compaction may
// report a pending compaction indefinitely: for leveled trees.
inline void WaitForCompactions(rocksdb::DB* db) {
  for (;;) {
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_COMPACTIONS_H_
