// The RocksDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/rocksdb.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "blockbloom/format.h"
#include "src/engines/rocksdb_filter_bits.h"
#include "src/engines/rocksdb_internal.h"

namespace blockbloom {
namespace {

std::atomic<uint64_t> batch_probe_calls{0};

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

class Builder final : public rocksdb::FilterBitsBuilder {
 public:
  Builder(blockbloom::FilterPolicy::Builder builder, double bits_per_key)
      : builder_(std::move(builder)), bits_per_key_(bits_per_key) {}

  void AddKey(const rocksdb::Slice& key) override {
    builder_.AddKey(View(key));
  }

  size_t EstimateEntriesAdded() override { return builder_.num_keys(); }

  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override {
    std::string block;
    // On failure Finish() has written a filter that matches everything.
    builder_.Finish(&block).IgnoreError();
    char* out = new char[block.size()];
    std::memcpy(out, block.data(), block.size());
    buf->reset(out);
    return rocksdb::Slice(out, block.size());
  }

  // How many keys a filter of `bytes` bytes holds at this policy's density
  // (RocksDB uses it to size partitioned filters).
  size_t ApproximateNumEntries(size_t bytes) override {
    const double bits = 8.0 * static_cast<double>(bytes > 56 ? bytes - 56 : 0);
    return static_cast<size_t>(bits / bits_per_key_);
  }

 private:
  blockbloom::FilterPolicy::Builder builder_;
  const double bits_per_key_;
};

class Reader final : public rocksdb::FilterBitsReader {
 public:
  explicit Reader(Filter filter) : filter_(std::move(filter)) {}

  bool MayMatch(const rocksdb::Slice& key) override {
    return filter_.MayContain(View(key));
  }

  // MultiGet: up to 32 keys at a time.
  void MayMatch(int num_keys, rocksdb::Slice** keys, bool* may_match) override {
    batch_probe_calls.fetch_add(1, std::memory_order_relaxed);
    constexpr int kChunk = 64;
    std::string_view views[kChunk];
    for (int start = 0; start < num_keys; start += kChunk) {
      const int n = num_keys - start < kChunk ? num_keys - start : kChunk;
      for (int i = 0; i < n; ++i) views[i] = View(*keys[start + i]);
      filter_.MayContainBatch(absl::MakeConstSpan(views, n),
                              absl::MakeSpan(may_match + start, n));
    }
  }

 private:
  const Filter filter_;
};

class RocksDBFilterPolicy final : public rocksdb::FilterPolicy {
 public:
  explicit RocksDBFilterPolicy(blockbloom::FilterPolicy policy)
      : policy_(std::move(policy)) {}

  const char* Name() const override {
    return blockbloom::FilterPolicy::kName.data();
  }
  // RocksDB stores full filters under "fullfilter." + CompatibilityName().
  const char* CompatibilityName() const override {
    return blockbloom::FilterPolicy::kName.data();
  }

  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& /*context*/) const override {
    return new Builder(policy_.NewBuilder(), policy_.options().bits_per_key);
  }

  // `contents` stays alive as long as the reader (RocksDB keeps both in the
  // same cache entry), so the filter is probed in place.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override {
    return new Reader(policy_.NewReader(AsBytes(View(contents))));
  }

 private:
  const blockbloom::FilterPolicy policy_;
};

}  // namespace

namespace internal {
uint64_t RocksDBBatchProbeCalls() {
  return batch_probe_calls.load(std::memory_order_relaxed);
}
}  // namespace internal

std::shared_ptr<const rocksdb::FilterPolicy> NewRocksDBFilterPolicy(
    double bits_per_key) {
  FilterPolicy::Options options;
  options.bits_per_key =
      std::isnan(bits_per_key) || bits_per_key < 1 ? 1 : bits_per_key;
  return std::make_shared<RocksDBFilterPolicy>(*FilterPolicy::Create(options));
}

absl::StatusOr<std::shared_ptr<const rocksdb::FilterPolicy>>
NewRocksDBFilterPolicy(const FilterPolicy::Options& options) {
  absl::StatusOr<FilterPolicy> policy = FilterPolicy::Create(options);
  if (!policy.ok()) return policy.status();
  return std::shared_ptr<const rocksdb::FilterPolicy>(
      std::make_shared<RocksDBFilterPolicy>(*std::move(policy)));
}

}  // namespace blockbloom
