// The RocksDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/rocksdb.h"

#include <rocksdb/env.h>
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

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "src/policy/policy_access.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/learned_plan.h"
#include "src/rocksdb/policy_id.h"
#include "src/rocksdb/probe_counters.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom {
namespace {

using internal::LearnedPlan;
using internal::LevelObservation;

std::atomic<uint64_t> batch_probe_calls{0};

// Test hooks (rocksdb_internal.h). Set before a DB runs and cleared after;
// the atomic flags keep the common path to one relaxed load.
std::mutex hooks_mutex;
std::function<void(uint64_t*)> hash_hook;
std::function<void(const internal::RocksDBBuiltFilter&)> build_observer;
std::atomic<bool> have_hash_hook{false};
std::atomic<bool> have_build_observer{false};

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

// The origin's group of a column family: 10 bits of its name's hash.
int GroupOf(const std::string& column_family) {
  return static_cast<int>(HashKey(column_family, 0) &
                          static_cast<uint64_t>(FilterOrigin::kMaxGroup));
}

// Counter slots of a policy's range: kGroups column families (by the group
// recorded in the blocks; more share the last) x kLevelSlots levels of
// creation (the last: blocks without an origin, written before format 4.1).
constexpr int kGroups = 8;
constexpr int kLevelSlots = 16;
constexpr int kUnknownLevel = kLevelSlots - 1;
static_assert(kGroups * kLevelSlots <= internal::kSlotsPerRange);
static_assert(LearnedPlan::kLevels <= kUnknownLevel);

// What a policy and its readers share: the counters, the live filters by
// level of creation, and the plans. Readers keep it alive (RocksDB may keep
// a reader after the policy object is gone).
class PolicyState {
 public:
  PolicyState() {
    for (auto& a : keys_) a.store(0);
    for (auto& a : bytes_) a.store(0);
    for (auto& a : tables_) a.store(0);
  }

  // The dense index of an origin's group (a new one takes the next free
  // index; the last is shared by the rest).
  int DenseGroup(int group) {
    std::lock_guard<std::mutex> lock(groups_mu_);
    for (size_t i = 0; i < groups_.size(); ++i) {
      if (groups_[i] == group) return static_cast<int>(i);
    }
    if (groups_.size() + 1 < kGroups) {
      groups_.push_back(group);
      return static_cast<int>(groups_.size() - 1);
    }
    return kGroups - 1;
  }
  // The groups seen, by dense index.
  std::vector<int> Groups() {
    std::lock_guard<std::mutex> lock(groups_mu_);
    return groups_;
  }
  static int SlotIndex(int dense_group, int level) {
    const int l =
        level < 0 ? kUnknownLevel : std::min(level, LearnedPlan::kLevels - 1);
    return dense_group * kLevelSlots + l;
  }
  int Slot(int index) const { return counters_.slot(index); }

  void AddLive(int index, int64_t keys, int64_t bytes, int64_t tables) {
    keys_[index].fetch_add(keys, std::memory_order_relaxed);
    bytes_[index].fetch_add(bytes, std::memory_order_relaxed);
    tables_[index].fetch_add(tables, std::memory_order_relaxed);
  }

  // By level of creation (LearnedPlan::kLevels; blocks without an origin
  // are not in it): probes and positives since the policy was made, live
  // keys, bytes and tables now.
  std::vector<LevelObservation> Observe(int dense_group) const {
    const std::vector<internal::ProbeCount> counts = counters_.Read();
    std::vector<LevelObservation> out(LearnedPlan::kLevels);
    for (int l = 0; l < LearnedPlan::kLevels; ++l) {
      const int i = SlotIndex(dense_group, l);
      out[l] = {counts[i].probes, counts[i].positives,
                static_cast<uint64_t>(std::max<int64_t>(keys_[i].load(), 0)),
                static_cast<uint64_t>(std::max<int64_t>(bytes_[i].load(), 0)),
                static_cast<uint64_t>(std::max<int64_t>(tables_[i].load(), 0))};
    }
    return out;
  }
  // The same for the blocks without an origin (all groups).
  LevelObservation ObserveUnknown() const {
    const std::vector<internal::ProbeCount> counts = counters_.Read();
    LevelObservation out;
    for (int g = 0; g < kGroups; ++g) {
      const int i = SlotIndex(g, -1);
      out.probes += counts[i].probes;
      out.positives += counts[i].positives;
      out.keys += std::max<int64_t>(keys_[i].load(), 0);
      out.bytes += std::max<int64_t>(bytes_[i].load(), 0);
      out.tables += std::max<int64_t>(tables_[i].load(), 0);
    }
    return out;
  }

 private:
  internal::CounterRange counters_;
  std::mutex groups_mu_;
  std::vector<int> groups_;
  std::atomic<int64_t> keys_[kGroups * kLevelSlots];
  std::atomic<int64_t> bytes_[kGroups * kLevelSlots];
  std::atomic<int64_t> tables_[kGroups * kLevelSlots];
};

class Builder final : public rocksdb::FilterBitsBuilder {
 public:
  Builder(const blockbloom::FilterPolicy& policy, const LevelHint& hint,
          const LevelAllocator::Choice& choice, bool verify,
          std::string column_family)
      : policy_(policy),
        builder_(policy.NewBuilderWithBits(choice.bits_per_key, choice.kind)),
        bits_per_key_(choice.bits_per_key),
        verify_(verify),
        hint_(hint),
        column_family_(std::move(column_family)) {
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
  // Counts its probes in `slot_index` of `state`'s range and its filter
  // among the live ones there.
  Reader(Filter filter, std::shared_ptr<PolicyState> state, int slot_index,
         uint64_t bytes)
      : filter_(std::move(filter)),
        state_(std::move(state)),
        slot_index_(slot_index),
        slot_(state_->Slot(slot_index)),
        bytes_(bytes) {
    state_->AddLive(slot_index_, static_cast<int64_t>(filter_.num_keys()),
                    static_cast<int64_t>(bytes_), 1);
  }
  ~Reader() override {
    state_->AddLive(slot_index_, -static_cast<int64_t>(filter_.num_keys()),
                    -static_cast<int64_t>(bytes_), -1);
  }

  bool MayMatch(const rocksdb::Slice& key) override {
    // Sampled first: the other probes return the filter's answer as it is
    // (probe_counters.h, SampleThisProbe).
    if (!internal::SampleThisProbe()) return filter_.MayContain(View(key));
    return CountedMayMatch(key);
  }

  // The sampled probe, out of line: the common path above stays small.
  [[gnu::noinline]] bool CountedMayMatch(const rocksdb::Slice& key) {
    const bool may = filter_.MayContain(View(key));
    internal::CountSampledProbe(slot_, may);
    return may;
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
    for (int i = 0; i < num_keys; ++i) {
      internal::CountProbe(slot_, may_match[i]);
    }
  }

 private:
  const Filter filter_;
  const std::shared_ptr<PolicyState> state_;
  const int slot_index_;
  const int slot_;
  const uint64_t bytes_;
};

class RocksDBFilterPolicy final : public rocksdb::FilterPolicy {
 public:
  explicit RocksDBFilterPolicy(blockbloom::FilterPolicy policy)
      : policy_(std::move(policy)),
        id_(internal::RocksDBPolicyId(policy_.options())),
        state_(std::make_shared<PolicyState>()) {
    // The policy's own plan: the same budget and kinds.
    if (const LevelAllocator* a = internal::PolicyAccess::Allocator(policy_)) {
      allocator_ = std::make_unique<LevelAllocator>(*a);
    }
  }

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
    return new Builder(policy_, hint, ChoiceFor(hint, context),
                       context.table_options.detect_filter_construct_corruption,
                       context.column_family_name);
  }

  // `contents` stays alive as long as the reader (RocksDB keeps both in the
  // same cache entry), so the filter is probed in place.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override {
    const absl::Span<const uint8_t> bytes = AsBytes(View(contents));
    // The origin from the footer alone (the filter's own open verifies the
    // checksum); blocks without one count as of unknown level.
    ReadOptions footer_only;
    footer_only.verify_checksum = false;
    footer_only.seed = policy_.options().seed;
    const absl::StatusOr<FilterInfo> info = InspectFilter(bytes, footer_only);
    int index = PolicyState::SlotIndex(0, -1);
    if (info.ok() && info->origin.recorded()) {
      index = PolicyState::SlotIndex(state_->DenseGroup(info->origin.group),
                                     info->origin.level);
    }
    return new Reader(policy_.NewReader(bytes), state_, index, contents.size());
  }

  const blockbloom::FilterPolicy& policy() const { return policy_; }

  // The report of RocksDBFilterReport.
  std::vector<RocksDBLevelReport> Report() const {
    std::vector<RocksDBLevelReport> out;
    std::lock_guard<std::mutex> lock(mutex_);
    // Every group seen, by dense index: named if this process built its
    // tables (a reader-only process, such as `blockbloom rocksdb`, names
    // them from the OPTIONS file with RocksDBColumnFamilyGroup).
    std::map<std::string, int> names, group_of;
    const std::vector<int> groups = state_->Groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      std::string name = absl::StrCat("group ", groups[i]);
      for (const auto& [cf, depth] : depth_) {
        (void)depth;
        if (GroupOf(cf) == groups[i]) name = cf;
      }
      names[name] = static_cast<int>(i);
      group_of[name] = groups[i];
    }
    for (const auto& [cf, depth] : depth_) {
      (void)depth;
      if (names.count(cf) == 0) {
        names[cf] = state_->DenseGroup(GroupOf(cf));
        group_of[cf] = GroupOf(cf);
      }
    }
    const auto add = [&](const std::string& cf, int level,
                         const LevelObservation& o, FilterKind kind,
                         double bits, double planned_fpr, const char* source) {
      RocksDBLevelReport r;
      r.column_family = cf;
      r.group = cf.empty() ? -1 : group_of[cf];
      r.level = level;
      r.kind = std::string(FilterKindName(kind));
      r.bits_per_key = bits;
      r.planned_fp_rate = planned_fpr;
      r.plan = source;
      r.tables = o.tables;
      r.keys = o.keys;
      r.filter_bytes = o.bytes;
      r.probes = o.probes;
      r.positives = o.positives;
      out.push_back(r);
    };
    for (const auto& [name, dense] : names) {
      const std::vector<LevelObservation> observed = state_->Observe(dense);
      const auto plan = plans_.find(name);
      const auto known = depth_.find(name);
      const Depth depth = known != depth_.end() ? known->second : Depth{};
      for (int l = 0; l < LearnedPlan::kLevels; ++l) {
        const LevelObservation& o = observed[l];
        const bool in_tree =
            l == 0 || (depth.first > 0 && l >= depth.first && l <= depth.last);
        if (!in_tree && o.tables == 0 && o.probes == 0) continue;
        LevelHint hint;
        hint.level = l;
        hint.first_level = depth.first > 0 ? depth.first : -1;
        hint.last_level = depth.last > 0 ? depth.last : -1;
        // The kind new tables get: the plan's when it chooses kinds
        // (ribbon_saves kFalseReads), otherwise the policy's rule.
        const bool plan_kinds =
            allocator_ && !allocator_->options().kinds.empty();
        if (plan != plans_.end()) {
          const LevelAllocator::Choice c = plan->second->ChoiceFor(l);
          add(name, l, o, plan_kinds ? c.kind : policy_.KindFor(hint),
              c.bits_per_key, c.fp_rate, "learned");
        } else if (allocator_) {
          const LevelAllocator::Choice c = allocator_->Choose(hint);
          // A learned policy that has built nothing in this process (e.g.
          // `blockbloom rocksdb`): its plan is still the prior, the model.
          add(name, l, o, plan_kinds ? c.kind : policy_.KindFor(hint),
              c.bits_per_key, c.fp_rate,
              policy_.options().level_learned ? "prior" : "model");
        } else {
          add(name, l, o, policy_.KindFor(hint), policy_.options().bits_per_key,
              BlockedFpRate(policy_.options().bits_per_key), "uniform");
        }
      }
    }
    const LevelObservation unknown = state_->ObserveUnknown();
    if (unknown.tables > 0 || unknown.probes > 0) {
      add("", -1, unknown, FilterKind::kBlocked, 0, 0, "unknown origin");
    }
    return out;
  }

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

  // The kind and bits/key of a new table: the learned plan's (updated first
  // from the counters), the model's, or the budget.
  LevelAllocator::Choice ChoiceFor(
      const LevelHint& hint,
      const rocksdb::FilterBuildingContext& context) const {
    if (!allocator_ || !policy_.options().level_learned ||
        hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
      return {.kind = policy_.KindFor(hint),
              .bits_per_key = policy_.BitsPerKey(hint)};
    }
    const std::string& cf = context.column_family_name;
    const int dense = state_->DenseGroup(GroupOf(cf));
    const std::vector<LevelObservation> observed = state_->Observe(dense);
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<LearnedPlan>& plan = plans_[cf];
    if (!plan) {
      LearnedPlan::Options o;
      o.budget = policy_.options().bits_per_key;
      plan = std::make_unique<LearnedPlan>(*allocator_, o);
    }
    const Depth& depth = depth_[cf];
    const int first = depth.first > 0 ? depth.first : 1;
    const int last = std::max(depth.last, first);
    if (plan->Update(observed, first, last) && context.info_log != nullptr) {
      // One line per change: what the plan is now, and why (the probes).
      rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, context.info_log,
                   "[%s] blockbloom learned filter plan, update %d "
                   "(levels %d..%d):\n%s",
                   cf.c_str(), plan->updates(), first, last,
                   plan->Describe().c_str());
    }
    // The plan chooses the kind when its allocator has several
    // (ribbon_saves kFalseReads); otherwise the policy's rule does.
    LevelAllocator::Choice choice = plan->ChoiceFor(hint.level);
    if (allocator_->options().kinds.empty())
      choice.kind = policy_.KindFor(hint);
    return choice;
  }

  struct Depth {
    int first = 0;  // shallowest populated level below L0 seen; 0: none yet
    int last = 0;   // deepest level data is known to reach; 0: none yet
  };

  const blockbloom::FilterPolicy policy_;
  const std::string id_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Depth> depth_;  // by column family name
  const std::shared_ptr<PolicyState> state_;
  std::unique_ptr<const LevelAllocator> allocator_;  // when level_aware
  // By column family name, when level_learned.
  mutable std::map<std::string, std::unique_ptr<LearnedPlan>> plans_;
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

int RocksDBColumnFamilyGroup(const std::string& column_family) {
  return GroupOf(column_family);
}

std::vector<RocksDBLevelReport> RocksDBFilterReport(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = dynamic_cast<const RocksDBFilterPolicy*>(policy);
  return ours ? ours->Report() : std::vector<RocksDBLevelReport>{};
}

std::string RocksDBFilterReportText(const rocksdb::FilterPolicy* policy,
                                    uint64_t gets) {
  std::string out;
  for (const RocksDBLevelReport& r : RocksDBFilterReport(policy)) {
    const double per_get =
        gets > 0 ? static_cast<double>(r.probes) / static_cast<double>(gets)
                 : 0;
    const double rate = r.probes > 0 ? static_cast<double>(r.positives) /
                                           static_cast<double>(r.probes)
                                     : 0;
    absl::StrAppendFormat(
        &out,
        "cf=%s level=%d plan=%s kind=%s bits_per_key=%.2f planned_fpr=%.3g "
        "tables=%u keys=%u filter_bytes=%u probes=%u probes_per_get=%.3f "
        "positive_rate=%.4g\n",
        r.column_family.empty() ? "-" : r.column_family, r.level, r.plan,
        r.kind, r.bits_per_key, r.planned_fp_rate, r.tables, r.keys,
        r.filter_bytes, r.probes, per_get, rate);
  }
  return out;
}

const FilterPolicy::Options* RocksDBFilterPolicyOptions(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = dynamic_cast<const RocksDBFilterPolicy*>(policy);
  return ours ? &ours->policy().options() : nullptr;
}

}  // namespace blockbloom
