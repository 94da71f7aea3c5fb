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
