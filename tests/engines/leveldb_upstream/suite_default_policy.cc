// The default filter policy of every leveldb::Options in a program of
// LevelDB's test suite (suite.cmake edits Options() to call this). One of
// LU_SUITE_POLICY_{BLOCKBLOOM,BUILTIN,NONE} picks it.
//
// The policy is wrapped in a counter, printed at exit, so that a run shows
// the default was not only set but used: a suite that passes because no
// filter was ever built or probed would prove nothing. The wrapper only
// forwards (same Name(), same bytes, same answers).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

#if defined(LU_SUITE_POLICY_BLOCKBLOOM)
#include "blockbloom/leveldb.h"
#endif

namespace leveldb {
namespace {

std::atomic<uint64_t> filters_created{0};
std::atomic<uint64_t> keys_added{0};
std::atomic<uint64_t> probes{0};
std::atomic<uint64_t> probes_matched{0};
const char* policy_name = "none";

class CountingPolicy final : public FilterPolicy {
 public:
  explicit CountingPolicy(const FilterPolicy* policy) : policy_(policy) {}
  const char* Name() const override { return policy_->Name(); }
  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    filters_created.fetch_add(1, std::memory_order_relaxed);
    keys_added.fetch_add(n, std::memory_order_relaxed);
    policy_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const Slice& key, const Slice& filter) const override {
    const bool match = policy_->KeyMayMatch(key, filter);
    probes.fetch_add(1, std::memory_order_relaxed);
    if (match) probes_matched.fetch_add(1, std::memory_order_relaxed);
    return match;
  }

 private:
  const FilterPolicy* const policy_;
};

void Report() {
  std::fprintf(stderr,
               "leveldb_upstream suite: default filter policy %s: %llu filters "
               "created (%llu keys), %llu probes (%llu may match)\n",
               policy_name,
               static_cast<unsigned long long>(filters_created.load()),
               static_cast<unsigned long long>(keys_added.load()),
               static_cast<unsigned long long>(probes.load()),
               static_cast<unsigned long long>(probes_matched.load()));
}

const FilterPolicy* Make() {
#if defined(LU_SUITE_POLICY_BLOCKBLOOM)
  const FilterPolicy* policy = blockbloom::NewLevelDBFilterPolicy(10);
#elif defined(LU_SUITE_POLICY_BUILTIN)
  const FilterPolicy* policy = NewBloomFilterPolicy(10);
#elif defined(LU_SUITE_POLICY_NONE)
  const FilterPolicy* policy = nullptr;
#else
#error "define one of LU_SUITE_POLICY_{BLOCKBLOOM,BUILTIN,NONE}"
#endif
  if (policy != nullptr) policy_name = policy->Name();
  std::atexit(Report);
  return policy == nullptr ? nullptr : new CountingPolicy(policy);
}

}  // namespace

const FilterPolicy* SuiteDefaultFilterPolicy() {
  // Made on first use, when the first Options is constructed (no static
  // initialisation order to get wrong), and never deleted: Options copies
  // held by a DB, a Table or a static may outlive main().
  static const FilterPolicy* const policy = Make();
  return policy;
}

}  // namespace leveldb
