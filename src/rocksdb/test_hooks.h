// Test hooks of the RocksDB adapter; not part of the API.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_TEST_HOOKS_H_
#define BLOCKBLOOM_SRC_ROCKSDB_TEST_HOOKS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace blockbloom::internal {

// How many times RocksDB has called the batch MayMatch (MultiGet) of any
// blockbloom reader on this thread (RocksDB's MultiGet probes on the
// caller's thread).
uint64_t RocksDBBatchProbeCalls();

// Called with each key's hash on its way into a filter builder, after the
// builder has kept it for MaybePostVerify: a test changes it to simulate
// memory corrupted while the filter is built. Empty function: no hook.
void SetRocksDBHashHookForTest(std::function<void(uint64_t* hash)> hook);

// What a builder was asked for and made: one call per finished filter (per
// partition with partitioned filters).
struct RocksDBBuiltFilter {
  std::string column_family;
  int level = -1;  // FilterBuildingContext::level_at_creation
  bool is_bottommost = false;
  int first_level = -1;  // the populated levels the policy knew of
  int last_level = -1;
  double bits_per_key = 0;  // what the policy chose
  uint64_t num_keys = 0;    // distinct keys in the filter
  uint64_t bytes = 0;       // the filter block's size
};
void SetRocksDBBuildObserverForTest(
    std::function<void(const RocksDBBuiltFilter&)> observer);

// For the adapter's builders and readers (test_hooks.cc): the flags keep the
// common path to one relaxed load; the Run functions call the hook set, if
// any.
extern std::atomic<bool> rocksdb_have_hash_hook;
extern std::atomic<bool> rocksdb_have_build_observer;
void RunRocksDBHashHook(uint64_t* hash);
void RunRocksDBBuildObserver(const RocksDBBuiltFilter& built);

// RocksDBBatchProbeCalls' count. Per thread: a counter every MultiGet
// thread shared was one contended cache line on the batch path. Inline
// and initial-exec (as thread_probe_countdown, src/levels/
// probe_counters.h): an out-of-line function reaching a global-dynamic
// thread-local through __tls_get_addr cost 9 instructions per key of
// db_bench's MultiGet (docs/BENCHMARKS.md, "The single Get's cost").
[[gnu::tls_model(
    "initial-exec")]] inline thread_local uint64_t rocksdb_batch_probe_calls =
    0;
inline void CountRocksDBBatchProbeCall() { ++rocksdb_batch_probe_calls; }

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_TEST_HOOKS_H_
