// The LevelDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/leveldb.h"

#include <leveldb/slice.h>

#include <cmath>
#include <memory>
#include <string>

#include "blockbloom/format.h"
#include "src/probe_cache.h"

namespace blockbloom {
namespace {

class LevelDBFilterPolicy final : public leveldb::FilterPolicy {
 public:
  explicit LevelDBFilterPolicy(blockbloom::FilterPolicy policy)
      : policy_(std::move(policy)), cache_(policy_.probe_cache_config()) {}

  // LevelDB stores filters under "filter." + Name().
  const char* Name() const override {
    return blockbloom::FilterPolicy::kName.data();
  }

  // Appends to *dst (LevelDB concatenates all filters of a table there).
  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override {
    blockbloom::FilterPolicy::Builder builder = policy_.NewBuilder();
    for (int i = 0; i < n; ++i) {
      builder.AddKey(std::string_view(keys[i].data(), keys[i].size()));
    }
    // On failure Finish() has appended a filter that matches everything.
    builder.Finish(dst).IgnoreError();
  }

  // LevelDB's contract: an empty filter matches nothing. CreateFilter never
  // writes one (no keys still make a packed block that matches nothing), so
  // an empty filter is LevelDB's own "no keys in this range", not damage.
  // This is the hot path of every LevelDB read: the cache lookup is inlined
  // here (src/probe_cache.h), so a probe of a block seen before is a lookup
  // and the kernel, with no call in between.
  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    // (With probe_cache_bytes = 0 every block is a miss, opened and
    // verified anew: CachedMayContain covers that too.)
    if (filter.empty()) return false;
    return internal::CachedMayContain(AsBytes({filter.data(), filter.size()}),
                                      cache_,
                                      std::string_view(key.data(), key.size()));
  }

 private:
  const blockbloom::FilterPolicy policy_;
  const internal::ProbeCacheConfig cache_;
};

}  // namespace

const leveldb::FilterPolicy* NewLevelDBFilterPolicy(double bits_per_key) {
  FilterPolicy::Options options;
  options.bits_per_key =
      std::isnan(bits_per_key) || bits_per_key < 1 ? 1 : bits_per_key;
  options.packed = true;
  return new LevelDBFilterPolicy(*FilterPolicy::Create(options));
}

absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>>
NewLevelDBFilterPolicy(const FilterPolicy::Options& options) {
  FilterPolicy::Options packed = options;
  packed.packed = true;
  absl::StatusOr<FilterPolicy> policy = FilterPolicy::Create(packed);
  if (!policy.ok()) return policy.status();
  return std::make_unique<LevelDBFilterPolicy>(*std::move(policy));
}

}  // namespace blockbloom
