#include "src/rocksdb/test_hooks.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>

namespace blockbloom::internal {
namespace {

// Set before a DB runs and cleared after.
std::mutex hooks_mutex;
std::function<void(uint64_t*)> hash_hook;
std::function<void(const RocksDBBuiltFilter&)> build_observer;

}  // namespace

std::atomic<bool> rocksdb_have_hash_hook{false};
std::atomic<bool> rocksdb_have_build_observer{false};

void RunRocksDBHashHook(uint64_t* hash) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  if (hash_hook) hash_hook(hash);
}

void RunRocksDBBuildObserver(const RocksDBBuiltFilter& built) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  if (build_observer) build_observer(built);
}

uint64_t RocksDBBatchProbeCalls() { return rocksdb_batch_probe_calls; }

void SetRocksDBHashHookForTest(std::function<void(uint64_t*)> hook) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  rocksdb_have_hash_hook.store(static_cast<bool>(hook));
  hash_hook = std::move(hook);
}

void SetRocksDBBuildObserverForTest(
    std::function<void(const RocksDBBuiltFilter&)> observer) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  rocksdb_have_build_observer.store(static_cast<bool>(observer));
  build_observer = std::move(observer);
}

}  // namespace blockbloom::internal
