// The LevelDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/leveldb.h"

#include <leveldb/slice.h>

#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "blockbloom/format.h"
#include "src/core/key_hash.h"
#include "src/policy/key_may_match.h"

namespace blockbloom {
namespace {

// LevelDB stores filters under "filter." + Name() and ignores those of
// another name. In-place blocks do not store the seed and cannot detect a
// reader with another one (it would see false negatives), so a seeded
// policy writing them names a 32-bit check of its seed: a DB reopened with
// another seed ignores those filters instead of misreading them. Seed 0, and
// the accurate encoding (whose CRC covers the seed), keep the name every
// earlier version used, so existing databases keep their filters.
std::string PolicyName(const blockbloom::FilterPolicy::Options& options) {
  std::string name(blockbloom::FilterPolicy::kName);
  if (options.seed != 0 && !options.fewer_false_positives) {
    const uint64_t check =
        internal::Hash64("blockbloom.leveldb.seed", options.seed);
    absl::StrAppendFormat(&name, ".seed-%08x",
                          static_cast<uint32_t>(check >> 32));
  }
  return name;
}

class LevelDBFilterPolicy final : public leveldb::FilterPolicy {
 public:
  explicit LevelDBFilterPolicy(blockbloom::FilterPolicy policy)
      : policy_(std::move(policy)), name_(PolicyName(policy_.options())) {}

  const char* Name() const override { return name_.c_str(); }

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

  // The hot path of every LevelDB read: FilterPolicy::KeyMayMatch, inlined
  // (src/policy/key_may_match.h). Its empty-block rule is LevelDB's: an
  // empty filter is a range with no keys and matches nothing.
  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    return internal::PolicyKeyMayMatch(
        policy_, std::string_view(key.data(), key.size()),
        {reinterpret_cast<const uint8_t*>(filter.data()), filter.size()});
  }

 private:
  const blockbloom::FilterPolicy policy_;
  const std::string name_;
};

}  // namespace

const leveldb::FilterPolicy* NewLevelDBFilterPolicy(double bits_per_key) {
  FilterPolicy::Options options;
  options.bits_per_key =
      std::isnan(bits_per_key) || bits_per_key < 1 ? 1 : bits_per_key;
  options.exact_size = true;
  return new LevelDBFilterPolicy(*FilterPolicy::Create(options));
}

absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>>
NewLevelDBFilterPolicy(const FilterPolicy::Options& options) {
  FilterPolicy::Options exact_size_options = options;
  exact_size_options.exact_size = true;
  absl::StatusOr<FilterPolicy> policy =
      FilterPolicy::Create(exact_size_options);
  if (!policy.ok()) return policy.status();
  return std::make_unique<LevelDBFilterPolicy>(*std::move(policy));
}

}  // namespace blockbloom
