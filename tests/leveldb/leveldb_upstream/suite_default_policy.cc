// The default filter policy of every leveldb::Options in a program of
// LevelDB's test suite (suite.cmake edits Options() to call this). One of
// LU_SUITE_POLICY_{BLOCKBLOOM,ACCURATE,BUILTIN,NONE} picks it.
//
// The policy is wrapped in a counter, printed at exit, so that a run shows
// the default was not only set but used: a suite that passes because no
// filter was ever built or probed would prove nothing. The wrapper only
// forwards (same Name(), same bytes, same answers). blockbloom's two modes
// share one Name(), so the report also names the mode and counts the
// encodings the filters were written in (in-place for the default mode,
// accurate with fewer_false_positives): a run of one mode cannot pass as the
// other's.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

#if defined(LU_SUITE_POLICY_BLOCKBLOOM) || defined(LU_SUITE_POLICY_ACCURATE)
#define LU_SUITE_BLOCKBLOOM 1
#include "blockbloom/format.h"
#include "blockbloom/leveldb.h"
#endif
#if defined(LU_SUITE_POLICY_ACCURATE)
#include "accurate_policy.h"
#endif

namespace leveldb {
namespace {

std::atomic<uint64_t> filters_created{0};
std::atomic<uint64_t> keys_added{0};
std::atomic<uint64_t> probes{0};
std::atomic<uint64_t> probes_matched{0};
std::atomic<uint64_t> in_place{0};  // blockbloom's encodings
std::atomic<uint64_t> accurate{0};
std::atomic<uint64_t> other_encoding{0};
const char* policy_name = "none";
const char* policy_mode = "";

// The encoding blockbloom wrote one filter in (nothing to count for the
// other policies). In-place blocks have no checksum and are read only when
// allowed (as the policy itself does: LevelDB checksums its blocks).
void CountEncoding(std::string_view filter) {
#if defined(LU_SUITE_BLOCKBLOOM)
  blockbloom::ReadOptions options;
  options.allow_in_place = true;
  const auto info =
      blockbloom::InspectFilter(blockbloom::AsBytes(filter), options);
  std::atomic<uint64_t>* count = &other_encoding;
  if (info.ok() && info->encoding == blockbloom::Encoding::kInPlace) {
    count = &in_place;
  } else if (info.ok() && info->encoding == blockbloom::Encoding::kAccurate) {
    count = &accurate;
  }
  count->fetch_add(1, std::memory_order_relaxed);
#else
  static_cast<void>(filter);
#endif
}

class CountingPolicy final : public FilterPolicy {
 public:
  explicit CountingPolicy(const FilterPolicy* policy) : policy_(policy) {}
  const char* Name() const override { return policy_->Name(); }
  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    filters_created.fetch_add(1, std::memory_order_relaxed);
    keys_added.fetch_add(n, std::memory_order_relaxed);
    const size_t before = dst->size();
    policy_->CreateFilter(keys, n, dst);
    CountEncoding(std::string_view(*dst).substr(before));
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
  char encodings[128] = "";
#if defined(LU_SUITE_BLOCKBLOOM)
  std::snprintf(encodings, sizeof(encodings),
                "; %llu in-place, %llu accurate, %llu other",
                static_cast<unsigned long long>(in_place.load()),
                static_cast<unsigned long long>(accurate.load()),
                static_cast<unsigned long long>(other_encoding.load()));
#endif
  std::fprintf(stderr,
               "leveldb_upstream suite: default filter policy %s%s: %llu "
               "filters created (%llu keys%s), %llu probes (%llu may match)\n",
               policy_name, policy_mode,
               static_cast<unsigned long long>(filters_created.load()),
               static_cast<unsigned long long>(keys_added.load()), encodings,
               static_cast<unsigned long long>(probes.load()),
               static_cast<unsigned long long>(probes_matched.load()));
}

const FilterPolicy* Make() {
#if defined(LU_SUITE_POLICY_BLOCKBLOOM)
  const FilterPolicy* policy = blockbloom::NewLevelDBFilterPolicy(10);
  policy_mode = " (default mode)";
#elif defined(LU_SUITE_POLICY_ACCURATE)
  const FilterPolicy* policy =
      leveldb_upstream::NewAccurateLevelDBFilterPolicy(10);
  policy_mode = " (accurate encoding, fewer_false_positives)";
#elif defined(LU_SUITE_POLICY_BUILTIN)
  const FilterPolicy* policy = NewBloomFilterPolicy(10);
#elif defined(LU_SUITE_POLICY_NONE)
  const FilterPolicy* policy = nullptr;
#else
#error "define one of LU_SUITE_POLICY_{BLOCKBLOOM,ACCURATE,BUILTIN,NONE}"
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
