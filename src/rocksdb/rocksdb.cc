// The RocksDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/rocksdb.h"

#include <rocksdb/table.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/policy_id.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom {
namespace {

std::atomic<uint64_t> batch_probe_calls{0};

// Test hooks (rocksdb_internal.h). Set before a DB runs and cleared after;
// the atomic flags keep the common path to one relaxed load.
std::mutex hooks_mutex;
std::function<void(uint64_t*)> hash_hook;
std::function<void(const internal::RocksDBBuiltFilter&)> build_observer;
std::atomic<bool> have_hash_hook{false};
std::atomic<bool> have_build_observer{false};

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

class Builder final : public rocksdb::FilterBitsBuilder {
 public:
  Builder(const blockbloom::FilterPolicy& policy, const LevelHint& hint,
          bool verify, std::string column_family)
      : policy_(policy),
        builder_(policy.NewBuilder(hint)),
        bits_per_key_(policy.BitsPerKey(hint)),
        verify_(verify),
        hint_(hint),
        column_family_(std::move(column_family)) {}

  void AddKey(const rocksdb::Slice& key) override {
    if (!verify_ && !have_hash_hook.load(std::memory_order_relaxed)) {
      builder_.AddKey(View(key));
      return;
    }
    uint64_t h = HashKey(View(key), policy_.options().seed);
    // Adjacent duplicates are counted once, as the builder does.
    if (verify_ && (hashes_.empty() || hashes_.back() != h)) {
      hashes_.push_back(h);
    }
    if (have_hash_hook.load(std::memory_order_relaxed)) {
      std::lock_guard<std::mutex> lock(hooks_mutex);
      if (hash_hook) hash_hook(&h);
    }
    builder_.AddHash(h);
  }

  size_t EstimateEntriesAdded() override { return builder_.num_keys(); }

  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override {
    const uint64_t num_keys = builder_.num_keys();
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
    if (have_build_observer.load(std::memory_order_relaxed)) {
      std::lock_guard<std::mutex> lock(hooks_mutex);
      if (build_observer) {
        build_observer({column_family_, hint_.level, hint_.is_bottommost,
                        hint_.first_level, hint_.last_level, bits_per_key_,
                        num_keys, block.size()});
      }
    }
    return rocksdb::Slice(out, block.size());
  }

  // detect_filter_construct_corruption: every key added must be in the
  // finished filter. Memory corrupted while building (a flipped bit in the
  // filter, a damaged hash) shows up as a key the filter rejects, or as a
  // block that does not open (its checksum).
  rocksdb::Status MaybePostVerify(const rocksdb::Slice& contents) override {
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

  // How many keys a filter of `bytes` bytes holds at this file's density
  // (RocksDB uses it to size partitioned filters): bytes minus the 56-byte
  // trailer of a full encoding.
  size_t ApproximateNumEntries(size_t bytes) override {
    const double bits = 8.0 * static_cast<double>(bytes > 56 ? bytes - 56 : 0);
    return static_cast<size_t>(bits / bits_per_key_);
  }

 private:
  const blockbloom::FilterPolicy& policy_;  // outlives its builders
  blockbloom::FilterPolicy::Builder builder_;
  const double bits_per_key_;
  const bool verify_;
  const LevelHint hint_;
  const std::string column_family_;
  std::vector<uint64_t> hashes_;         // since the last Finish, if verify_
  std::vector<uint64_t> verify_hashes_;  // of the last finished filter
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
      : policy_(std::move(policy)),
        id_(internal::RocksDBPolicyId(policy_.options())) {}

  static const char* kClassName() {
    return blockbloom::FilterPolicy::kName.data();
  }
  // The class name, as RocksDB's Customizable expects; also what RocksDB
  // writes to each table's "filter_policy" property.
  const char* Name() const override { return kClassName(); }
  // What RocksDB writes to OPTIONS files: the name with every setting.
  std::string GetId() const override { return id_; }
  // RocksDB stores full filters under "fullfilter." + CompatibilityName():
  // it must never change, or existing DBs lose their filters.
  const char* CompatibilityName() const override { return kClassName(); }

  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override {
    const LevelHint hint = HintFor(context);
    return new Builder(policy_, hint,
                       context.table_options.detect_filter_construct_corruption,
                       context.column_family_name);
  }

  // `contents` stays alive as long as the reader (RocksDB keeps both in the
  // same cache entry), so the filter is probed in place.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override {
    return new Reader(policy_.NewReader(AsBytes(View(contents))));
  }

  const blockbloom::FilterPolicy& policy() const { return policy_; }

 private:
  // The level hint for a table, and what it teaches about the tree. The
  // populated levels are not in the context, so they are learned per column
  // family from the tables built: a table at level L >= 1 means data reaches
  // L (the first populated level is at most L), and below L if the table is
  // not bottommost. Before anything is learned (a new or reopened DB), a
  // table at L assumes that it and the level below it are all there is: the
  // fewest bits consistent with what is known, so memory stays within the
  // budget.
  LevelHint HintFor(const rocksdb::FilterBuildingContext& context) const {
    LevelHint hint;
    hint.level = context.level_at_creation;
    hint.is_bottommost = context.is_bottommost;
    switch (context.compaction_style) {
      case rocksdb::kCompactionStyleLevel:
        hint.compaction = LevelHint::Compaction::kLeveled;
        break;
      case rocksdb::kCompactionStyleUniversal:
        hint.compaction = LevelHint::Compaction::kUniversal;
        break;
      case rocksdb::kCompactionStyleFIFO:
        hint.compaction = LevelHint::Compaction::kFifo;
        break;
      default:  // kCompactionStyleNone: levels chosen by the application
        hint.level = -1;
        break;
    }
    // One level only: every table is an L0 file, each probed, all alike.
    if (context.num_levels == 1) hint.level = -1;
    if (!policy_.options().level_aware ||
        hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
      return hint;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Depth& depth = depth_[context.column_family_name];
    hint.first_level = depth.first > 0 ? depth.first : -1;
    hint.last_level = depth.last > 0 ? depth.last : -1;
    if (hint.level > 0) {
      depth.first =
          depth.first > 0 ? std::min(depth.first, hint.level) : hint.level;
      int reaches = hint.level + (hint.is_bottommost ? 0 : 1);
      if (context.num_levels > 1) {
        reaches = std::min(reaches, context.num_levels - 1);
      }
      depth.last = std::max(depth.last, reaches);
    }
    return hint;
  }

  struct Depth {
    int first = 0;  // shallowest populated level below L0 seen; 0: none yet
    int last = 0;   // deepest level data is known to reach; 0: none yet
  };

  const blockbloom::FilterPolicy policy_;
  const std::string id_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Depth> depth_;  // by column family name
};

// The ObjectLibrary factory: any id that starts with "blockbloom.v1".
rocksdb::FilterPolicy* FromId(
    const std::string& id, std::unique_ptr<const rocksdb::FilterPolicy>* guard,
    std::string* errmsg) {
  absl::StatusOr<FilterPolicy::Options> options =
      internal::ParseRocksDBPolicyId(id);
  absl::StatusOr<FilterPolicy> policy =
      options.ok() ? FilterPolicy::Create(*options) : options.status();
  if (!policy.ok()) {
    *errmsg = std::string(policy.status().message());
    return nullptr;
  }
  auto* p = new RocksDBFilterPolicy(*std::move(policy));
  guard->reset(p);
  return p;
}

// Registration when this object file is linked in. Safe at static
// initialization: ObjectLibrary::Default() is a function-local static of
// librocksdb, built on first use whatever the order of initialization.
const bool registered_at_load = [] {
  RegisterRocksDBFilterPolicy();
  return true;
}();

}  // namespace

namespace internal {
uint64_t RocksDBBatchProbeCalls() {
  return batch_probe_calls.load(std::memory_order_relaxed);
}

void SetRocksDBHashHookForTest(std::function<void(uint64_t*)> hook) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  have_hash_hook.store(static_cast<bool>(hook));
  hash_hook = std::move(hook);
}

void SetRocksDBBuildObserverForTest(
    std::function<void(const RocksDBBuiltFilter&)> observer) {
  std::lock_guard<std::mutex> lock(hooks_mutex);
  have_build_observer.store(static_cast<bool>(observer));
  build_observer = std::move(observer);
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

int AddRocksDBFilterPolicyFactory(rocksdb::ObjectLibrary& library,
                                  const std::string& /*arg*/) {
  // "blockbloom.v1" alone (written by earlier versions) or followed by ":...".
  library.AddFactory<const rocksdb::FilterPolicy>(
      rocksdb::ObjectLibrary::PatternEntry(FilterPolicy::kName.data(),
                                           /*optional=*/true)
          .AddSeparator(":"),
      FromId);
  return 1;
}

void RegisterRocksDBFilterPolicy() {
  static std::once_flag once;
  std::call_once(once, [] {
    AddRocksDBFilterPolicyFactory(*rocksdb::ObjectLibrary::Default(), "");
  });
}

const FilterPolicy::Options* RocksDBFilterPolicyOptions(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = dynamic_cast<const RocksDBFilterPolicy*>(policy);
  return ours ? &ours->policy().options() : nullptr;
}

}  // namespace blockbloom
