// The filter of one RocksDB table (or partition), as RocksDB's block-based
// table builder asks for it: a rocksdb::FilterBitsBuilder over
// FilterPolicy::Builder, at the kind and bits/key its policy chose
// (src/rocksdb/rocksdb.cc), recording where the table is written (its
// origin) for the readers' counters.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_BUILDER_H_
#define BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_BUILDER_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blockbloom/filter_policy.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/level_allocation.h"
#include "src/levels/policy_state.h"
#include "src/levels/range_heat.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom::internal {

inline std::string_view View(const rocksdb::Slice& s) {
  return {s.data(), s.size()};
}

class TableFilterBuilder final : public rocksdb::FilterBitsBuilder {
 public:
  TableFilterBuilder(const blockbloom::FilterPolicy& policy,
                     const LevelHint& hint,
                     const LevelAllocator::Choice& choice, bool verify,
                     std::string column_family, const HotRangeContext& hot = {})
      : policy_(policy),
        builder_(policy.NewBuilderWithBits(choice.bits_per_key, choice.kind)),
        bits_per_key_(choice.bits_per_key),
        planned_bits_per_key_(choice.bits_per_key),
        verify_(verify),
        hint_(hint),
        column_family_(std::move(column_family)),
        hot_(hot) {
    // Where the table is written, for the readers' counters and for anyone
    // who reads the block later (format 4.1).
    if (hint.level >= 0) {
      builder_.set_origin(
          {.level = std::min(hint.level, FilterOrigin::kMaxLevel),
           .bottommost = hint.is_bottommost,
           .group = GroupOf(column_family_)});
    }
  }

  void AddKey(const rocksdb::Slice& key) override {
    if (hot_.heat != nullptr) ExtendRange(View(key));
#if BLOCKBLOOM_ROCKSDB_LAYOUT < 96
    // Without AddKeyAndAlt nothing needs the last hash.
    if (!verify_ && !rocksdb_have_hash_hook.load(std::memory_order_relaxed)) {
      builder_.AddKey(View(key));
      return;
    }
#endif
    // From 9.6 the last entry's hash is kept: an AddKeyAndAlt after this
    // key de-duplicates its key and alt against it.
    AddKeyHash(HashKey(View(key), policy_.options().seed));
  }

#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 96
  // RocksDB 9.6+, whole-key filtering with a prefix extractor: the key and
  // its prefix, both added (a prefix seek probes the prefix), de-duplicated
  // as RocksDB's own builder does (filter_policy_internal.h): the alt
  // against the previous alt, this key and the previous entry; the key
  // against the previous entry and the previous alt. Only hashes already in
  // the filter are skipped, so no key or prefix is ever missing.
  void AddKeyAndAlt(const rocksdb::Slice& key,
                    const rocksdb::Slice& alt) override;
#endif

  size_t EstimateEntriesAdded() override { return builder_.num_keys(); }

  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;

  // detect_filter_construct_corruption: every key added must be in the
  // finished filter. Memory corrupted while building (a flipped bit in the
  // filter, a damaged hash) shows up as a key the filter rejects, or as a
  // block that does not open (its checksum).
  rocksdb::Status MaybePostVerify(const rocksdb::Slice& contents) override;

  // How many keys a filter of `bytes` bytes holds (RocksDB cuts partitioned
  // filters by it): the most whose block, of the kind and bits this builder
  // makes, fits, so that it inverts CalculateSpace (a ribbon takes fewer
  // bytes per key than its Bloom-equivalent bits/key).
  size_t ApproximateNumEntries(size_t bytes) override;

#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 109
  // RocksDB 10.9+: the size of the block Finish() would write for
  // num_entries keys (the table builder's file-size estimate) and the rate
  // of a block of `bytes`: FilterPolicy::Builder's estimates, at the bits/key
  // this table is planned at.
  size_t CalculateSpace(size_t num_entries) override {
    return static_cast<size_t>(builder_.EstimatedBytes(num_entries));
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) override {
    return builder_.EstimatedFpRate(num_entries, bytes);
  }
#endif

 private:
  const blockbloom::FilterPolicy& policy_;  // outlives its builders
  blockbloom::FilterPolicy::Builder builder_;
  // The smallest and largest key added since the last Finish (their first
  // RangeHeat::kKeyBytes bytes), for hot ranges. Keys come in the
  // comparator's order, which need not be bytewise: both ends are kept.
  void ExtendRange(std::string_view key) {
    const std::string_view k =
        key.substr(0, static_cast<size_t>(RangeHeat::kKeyBytes));
    if (!have_range_ || k < std::string_view(low_, low_length_)) {
      std::memcpy(low_, k.data(), k.size());
      low_length_ = k.size();
    }
    if (!have_range_ || k > std::string_view(high_, high_length_)) {
      std::memcpy(high_, k.data(), k.size());
      high_length_ = k.size();
    }
    have_range_ = true;
  }
  // The hot ranges' change of this table's bits/key (0 without).
  double HotRangeDelta();

  double bits_per_key_;  // the plan's, then with the hot ranges' change
  const double planned_bits_per_key_;
  const bool verify_;
  const LevelHint hint_;
  const std::string column_family_;
  const HotRangeContext hot_;
  bool have_range_ = false;
  char low_[RangeHeat::kKeyBytes];
  char high_[RangeHeat::kKeyBytes];
  size_t low_length_ = 0, high_length_ = 0;
  // Add a hash (AddKeyAndAlt), kept for verify_ and the hash hook as
  // AddKey keeps them.
  void AddKeyHash(uint64_t h);
  // AddKeyAndAlt's de-duplication state since the last Finish: the last
  // hash added and the previous alt's hash.
  bool have_last_ = false, have_alt_ = false;
  uint64_t last_hash_ = 0;
#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 96
  uint64_t alt_hash_ = 0;
#endif
  std::vector<uint64_t> hashes_;         // since the last Finish, if verify_
  std::vector<uint64_t> verify_hashes_;  // of the last finished filter
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_BUILDER_H_
