#include "src/rocksdb/table_filter_builder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/status/status.h"

namespace blockbloom::internal {

double TableFilterBuilder::HotRangeDelta() {
  if (hot_.heat == nullptr || !have_range_) return 0;
  return hot_.heat->Delta(hot_.group, hot_.plan_group, builder_.num_keys(),
                          hot_.level_keys, std::string_view(low_, low_length_),
                          std::string_view(high_, high_length_), hot_.slope);
}

void TableFilterBuilder::AddKeyHash(uint64_t h) {
  // Adjacent duplicates are counted once, as the builder does.
  if (verify_ && (hashes_.empty() || hashes_.back() != h)) {
    hashes_.push_back(h);
  }
  if (rocksdb_have_hash_hook.load(std::memory_order_relaxed)) {
    RunRocksDBHashHook(&h);
  }
  builder_.AddHash(h);
  last_hash_ = h;
  have_last_ = true;
}

size_t TableFilterBuilder::ApproximateNumEntries(size_t bytes) {
  // EstimatedBytes grows with the keys: the largest n with
  // EstimatedBytes(n) <= bytes, by doubling then bisecting (RocksDB asks
  // once per table builder).
  uint64_t low = 0, high = 1;
  while (builder_.EstimatedBytes(high) <= bytes) {
    low = high;
    if (high > (uint64_t{1} << 40)) return static_cast<size_t>(high);
    high *= 2;
  }
  while (high - low > 1) {
    const uint64_t middle = low + (high - low) / 2;
    (builder_.EstimatedBytes(middle) <= bytes ? low : high) = middle;
  }
  return static_cast<size_t>(low);
}

#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 96
void TableFilterBuilder::AddKeyAndAlt(const rocksdb::Slice& key,
                                      const rocksdb::Slice& alt) {
  if (hot_.heat != nullptr) ExtendRange(View(key));
  const uint64_t seed = policy_.options().seed;
  const uint64_t key_hash = HashKey(View(key), seed);
  const uint64_t alt_hash = HashKey(View(alt), seed);
  const bool had_alt = have_alt_;
  const uint64_t previous_alt = alt_hash_;
  const bool had_last = have_last_;
  const uint64_t previous = last_hash_;
  // The alt first, so that the last entry is the key (a new alt implies a
  // new key, in the comparator's order).
  if (!(had_alt && alt_hash == previous_alt) && alt_hash != key_hash &&
      !(had_last && alt_hash == previous)) {
    AddKeyHash(alt_hash);
  }
  have_alt_ = true;
  alt_hash_ = alt_hash;
  // Not against the previous alt either: a key that is its own prefix at the
  // end of a prefix group (a reverse bytewise comparator).
  if (!(had_last && key_hash == previous) &&
      !(had_alt && key_hash == previous_alt)) {
    AddKeyHash(key_hash);
  }
}
#endif

rocksdb::Slice TableFilterBuilder::Finish(std::unique_ptr<const char[]>* buf) {
  const uint64_t num_keys = builder_.num_keys();
  // Hot ranges: this table's (or partition's) bits, from the probes its key
  // range saw (bottommost tables only: HotRangeContext is empty otherwise).
  const double delta = HotRangeDelta();
  have_range_ = false;
  const double bits =
      std::clamp(planned_bits_per_key_ + delta, LevelAllocator::kMinBitsPerKey,
                 LevelAllocator::kMaxBitsPerKey);
  if (bits != bits_per_key_) builder_.set_bits_per_key(bits);
  bits_per_key_ = bits;
  std::string block;
  // On failure Finish() has written a filter that matches everything.
  builder_.Finish(&block).IgnoreError();
  char* out = new char[block.size()];
  std::memcpy(out, block.data(), block.size());
  buf->reset(out);
  // The hashes of THIS filter wait for MaybePostVerify (with partitioned
  // filters, Finish is called once per partition).
  verify_hashes_.swap(hashes_);
  hashes_.clear();
  have_last_ = have_alt_ = false;
  if (rocksdb_have_build_observer.load(std::memory_order_relaxed)) {
    RunRocksDBBuildObserver({column_family_, hint_.level, hint_.is_bottommost,
                             hint_.first_level, hint_.last_level, bits_per_key_,
                             num_keys, block.size()});
  }
  return rocksdb::Slice(out, block.size());
}

rocksdb::Status TableFilterBuilder::MaybePostVerify(
    const rocksdb::Slice& contents) {
  if (!verify_) return rocksdb::Status::OK();
  std::vector<uint64_t> hashes;
  hashes.swap(verify_hashes_);
  absl::Status error;
  const Filter filter = policy_.NewReader(AsBytes(View(contents)), &error);
  if (!error.ok()) {
    return rocksdb::Status::Corruption(
        "blockbloom filter just built does not open",
        std::string(error.message()));
  }
  for (uint64_t h : hashes) {
    if (!filter.MayContainHash(h)) {
      return rocksdb::Status::Corruption(
          "blockbloom filter just built rejects a key that was added to it "
          "(detect_filter_construct_corruption)");
    }
  }
  return rocksdb::Status::OK();
}

}  // namespace blockbloom::internal
