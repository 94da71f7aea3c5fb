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
#include "src/levels/learned_plan.h"
#include "src/levels/policy_state.h"
#include "src/policy/policy_access.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/library_version.h"
#include "src/rocksdb/policy_id.h"
#include "src/rocksdb/table_filter_builder.h"
#include "src/rocksdb/table_filter_reader.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom {
namespace {

using internal::LearnedPlan;
using internal::LevelObservation;

using internal::PolicyState;
using internal::TableFilterBuilder;
using internal::TableFilterReader;
using internal::View;

class RocksDBFilterPolicy final : public rocksdb::FilterPolicy {
 public:
  explicit RocksDBFilterPolicy(blockbloom::FilterPolicy policy)
      : policy_(std::move(policy)),
        id_(internal::RocksDBPolicyId(policy_.options())),
        state_(std::make_shared<PolicyState>(
            policy_.options().levels.level_aware &&
            policy_.options().levels.level_learned &&
            policy_.options().levels.hot_ranges)) {
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
    // A library of another layout would call the builder through the wrong
    // slots: no filter (library_version.h), and the reason in the DB's LOG.
    if (const absl::Status& s = internal::CheckRocksDBLibrary(); !s.ok()) {
      if (context.info_log != nullptr) {
        rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, context.info_log, "%s",
                     std::string(s.message()).c_str());
      }
      return nullptr;
    }
    const LevelHint hint = HintFor(context);
    const LevelAllocator::Choice choice = ChoiceFor(hint, context);
    return new TableFilterBuilder(
        policy_, hint, choice,
        context.table_options.detect_filter_construct_corruption,
        context.column_family_name, HotRangesFor(hint, choice, context));
  }

  // `contents` stays alive as long as the reader (RocksDB keeps both in the
  // same cache entry), so the filter is probed in place.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override {
    // No reader from a library of another layout: RocksDB reads "may match".
    if (!internal::CheckRocksDBLibrary().ok()) return nullptr;
    const absl::Span<const uint8_t> bytes = AsBytes(View(contents));
    // The origin from the footer alone (the filter's own open verifies the
    // checksum); blocks without one count as of unknown level.
    ReadOptions footer_only;
    footer_only.verify_checksum = false;
    footer_only.seed = policy_.options().seed;
    const absl::StatusOr<FilterInfo> info = InspectFilter(bytes, footer_only);
    int index = PolicyState::SlotIndex(0, -1);
    if (info.ok() && info->origin.recorded()) {
      const int dense = state_->DenseGroup(info->origin.group);
      const int group =
          LearnedPlan::GroupOf(info->origin.level, info->origin.bottommost);
      index = PolicyState::SlotIndex(dense, group);
      if (group == LearnedPlan::kBottommost) {
        state_->SeeBottommost(dense, info->origin.level);
      }
    }
    return new TableFilterReader(policy_.NewReader(bytes), state_, index,
                                 contents.size());
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
        if (internal::GroupOf(cf) == groups[i]) name = cf;
      }
      names[name] = static_cast<int>(i);
      group_of[name] = groups[i];
    }
    for (const auto& [cf, depth] : depth_) {
      (void)depth;
      if (names.count(cf) == 0) {
        names[cf] = state_->DenseGroup(internal::GroupOf(cf));
        group_of[cf] = internal::GroupOf(cf);
      }
    }
    // A row of plan group `plan_group` (LearnedPlan::GroupOf; -1: no origin).
    const auto add = [&](const std::string& cf, int plan_group, int level,
                         const LevelObservation& o, FilterKind kind,
                         double bits, double planned_fpr, const char* source) {
      RocksDBLevelReport r;
      r.column_family = cf;
      r.group = cf.empty() ? -1 : group_of[cf];
      r.level = level;
      r.bottommost = plan_group == LearnedPlan::kBottommost;
      r.kind = std::string(FilterKindName(kind));
      r.bits_per_key = bits;
      r.planned_fp_rate = planned_fpr;
      r.plan = source;
      r.tables = o.tables;
      r.keys = o.keys;
      r.filter_bytes = o.bytes;
      r.probes = o.probes;
      r.positives = o.positives;
      if (const internal::RangeHeat* heat = state_->heat();
          heat != nullptr && plan_group >= 0 && !cf.empty()) {
        const internal::RangeHeat::LevelHeat h =
            heat->Heat(state_->DenseGroup(group_of[cf]), plan_group);
        r.hot_range_tables = h.tables;
        r.hot_range_changed = h.changed;
        r.hot_range_mean_change = h.mean_abs_delta;
        r.hot_range_net_change = h.mean_delta;
      }
      out.push_back(r);
    };
    for (const auto& [name, dense] : names) {
      const std::vector<LevelObservation> observed = state_->Observe(dense);
      const auto plan = plans_.find(name);
      const auto known = depth_.find(name);
      const Depth depth = known != depth_.end() ? known->second : Depth{};
      for (int g = 0; g < LearnedPlan::kLevels; ++g) {
        const LevelObservation& o = observed[g];
        // The tree's rows: L0, the levels above the last, and the
        // bottommost tables (planned as the last level's, at the deepest
        // level known); others when they have tables or probes.
        const bool bottommost = g == LearnedPlan::kBottommost;
        const bool in_tree =
            g == 0 || (depth.first > 0 &&
                       (bottommost || (g >= depth.first && g < depth.last)));
        if (!in_tree && o.tables == 0 && o.probes == 0) continue;
        LevelHint hint;
        hint.level =
            bottommost
                ? std::max({depth.last, state_->DeepestBottommost(dense), 1})
                : g;
        hint.is_bottommost = bottommost;
        hint.first_level = depth.first > 0 ? depth.first : -1;
        hint.last_level = depth.last > 0 ? depth.last : -1;
        // The kind new tables get: the plan's when it chooses kinds
        // (ribbon_saves kFalseReads), otherwise the policy's rule.
        const bool plan_kinds =
            allocator_ && !allocator_->options().kinds.empty();
        if (plan != plans_.end()) {
          const LevelAllocator::Choice c = plan->second->ChoiceFor(g);
          add(name, g, hint.level, o,
              plan_kinds ? c.kind : policy_.KindFor(hint), c.bits_per_key,
              c.fp_rate, "learned");
        } else if (allocator_) {
          LevelAllocator::Choice c = allocator_->Choose(hint);
          if (FlushesKept(hint, observed)) {
            c.bits_per_key = policy_.options().bits_per_key;
            c.fp_rate = allocator_->FpRate(c.kind, c.bits_per_key);
          }
          // A learned policy that has built nothing in this process (e.g.
          // `blockbloom rocksdb`): its plan is still the prior, the model.
          add(name, g, hint.level, o,
              plan_kinds ? c.kind : policy_.KindFor(hint), c.bits_per_key,
              c.fp_rate,
              policy_.options().levels.level_learned ? "prior" : "model");
        } else {
          add(name, g, hint.level, o, policy_.KindFor(hint),
              policy_.options().bits_per_key,
              BlockedFpRate(policy_.options().bits_per_key), "uniform");
        }
      }
    }
    const LevelObservation unknown = state_->ObserveUnknown();
    if (unknown.tables > 0 || unknown.probes > 0) {
      add("", -1, -1, unknown, FilterKind::kBlocked, 0, 0, "unknown origin");
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
    if (!policy_.options().levels.level_aware ||
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

  // What the readers of the context's column family observed.
  std::vector<LevelObservation> ObserveFor(
      const rocksdb::FilterBuildingContext& context) const {
    return state_->Observe(
        state_->DenseGroup(internal::GroupOf(context.column_family_name)));
  }

  // Whether a flush's tables are kept (for the model plan): the tables
  // built at L0 hold more than LearnedPlan::Options::l0_kept_share of the
  // live keys, so compactions move them down whole (ascending keys) and
  // they are the tree's keys at rest. The model plan then gives them the
  // budget, as the learned plan does (it plans them on their live share).
  // At the model's L0 bits they held every key of level_tree_bench's
  // ascending trees well over the budget; at its last level's, under it
  // with more false reads than blockbloom uniform's.
  bool FlushesKept(const LevelHint& hint,
                   const std::vector<LevelObservation>& observed) const {
    if (!allocator_ || hint.compaction != LevelHint::Compaction::kLeveled ||
        hint.level != 0) {
      return false;
    }
    uint64_t live = 0;
    for (const LevelObservation& o : observed) live += o.keys;
    // And more of them live than L0 holds while compactions keep up
    // (LearnedPlan::Options::l0_backlog_tables): a young tree's first
    // flushes hold all of its keys too, until the first compaction. A
    // young tree whose L0 piles up on a busy machine may still pass both
    // for a while: its flushes then get the budget instead of L0's bits,
    // and are compacted away.
    const LearnedPlan::Options defaults;
    return observed[0].tables > defaults.l0_backlog_tables &&
           static_cast<double>(observed[0].keys) >
               defaults.l0_kept_share * static_cast<double>(live);
  }

  // The kind and bits/key of a new table: the learned plan's (updated first
  // from the counters), the model's, or the budget.
  LevelAllocator::Choice ChoiceFor(
      const LevelHint& hint,
      const rocksdb::FilterBuildingContext& context) const {
    if (!allocator_ || !policy_.options().levels.level_learned ||
        hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
      // The counters are read only for a level-aware flush.
      const bool kept = allocator_ && hint.level == 0 &&
                        FlushesKept(hint, ObserveFor(context));
      return {.kind = policy_.KindFor(hint),
              .bits_per_key = kept ? policy_.options().bits_per_key
                                   : policy_.BitsPerKey(hint)};
    }
    const std::string& cf = context.column_family_name;
    const std::vector<LevelObservation> observed = ObserveFor(context);
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
    LevelAllocator::Choice choice =
        plan->ChoiceFor(LearnedPlan::GroupOf(hint.level, hint.is_bottommost));
    if (allocator_->options().kinds.empty())
      choice.kind = policy_.KindFor(hint);
    return choice;
  }

  // What a table's builder needs for hot ranges (LevelOptions::hot_ranges):
  // the bottommost tables (below L0) of a learned plan. Only those: they
  // hold most keys and false reads (the upper levels have 2-3x the bits),
  // and the live ones cover the key space whatever the rewrites, so the
  // changes average 0 over them. The live tables of an upper level are a
  // biased sample: RocksDB compacts first the files that overlap least
  // below (narrow key ranges), so wide ranges, which see more probes per
  // key and got more bits, stay longer. Tried on every level below L0:
  // +0.13 bits/key over the budget in bench/rocksdb/level_tree_bench (an
  // upper level at 22.4 bits/key for a plan of 17.8).
  internal::HotRangeContext HotRangesFor(
      const LevelHint& hint, const LevelAllocator::Choice& choice,
      const rocksdb::FilterBuildingContext& context) const {
    internal::HotRangeContext hot;
    if (state_->heat() == nullptr || !allocator_ ||
        hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 1 ||
        !hint.is_bottommost) {
      return hot;
    }
    hot.heat = state_->heat();
    hot.group =
        state_->DenseGroup(internal::GroupOf(context.column_family_name));
    hot.plan_group = LearnedPlan::GroupOf(hint.level, hint.is_bottommost);
    hot.level_keys =
        state_->LiveKeys(PolicyState::SlotIndex(hot.group, hot.plan_group));
    // The rate curve's slope at the planned bits, over one bit/key: the
    // kind's own curve when the plan chooses kinds, the blocked kind's
    // otherwise (a ribbon's bits are then Bloom-equivalent).
    const FilterKind kind = allocator_->options().kinds.empty()
                                ? FilterKind::kBlocked
                                : choice.kind;
    const double b = std::max(choice.bits_per_key, 1.5);
    const double lower = allocator_->FpRate(kind, b - 0.5);
    const double upper = allocator_->FpRate(kind, b + 0.5);
    if (lower > 0 && upper > 0) hot.slope = std::log(lower / upper);
    return hot;
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

// `policy` as ours, or nullptr. By name, as RocksDB's Customizable casts:
// no RTTI, so that the adapter works with a librocksdb built without it
// (RocksDB's CMake default for Release builds).
const RocksDBFilterPolicy* Ours(const rocksdb::FilterPolicy* policy) {
  if (policy == nullptr ||
      std::strcmp(policy->Name(), RocksDBFilterPolicy::kClassName()) != 0) {
    return nullptr;
  }
  return static_cast<const RocksDBFilterPolicy*>(policy);
}

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

std::shared_ptr<const rocksdb::FilterPolicy> NewRocksDBFilterPolicy(
    double bits_per_key) {
  FilterPolicy::Options options;
  options.bits_per_key =
      std::isnan(bits_per_key) || bits_per_key < 1 ? 1 : bits_per_key;
  return std::make_shared<RocksDBFilterPolicy>(*FilterPolicy::Create(options));
}

absl::StatusOr<std::shared_ptr<const rocksdb::FilterPolicy>>
NewRocksDBFilterPolicy(const FilterPolicy::Options& options) {
  if (const absl::Status& s = internal::CheckRocksDBLibrary(); !s.ok()) {
    return s;
  }
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
  return internal::GroupOf(column_family);
}

std::vector<RocksDBLevelReport> RocksDBFilterReport(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = Ours(policy);
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
        "cf=%s level=%d%s plan=%s kind=%s bits_per_key=%.2f planned_fpr=%.3g "
        "tables=%u keys=%u filter_bytes=%u probes=%u probes_per_get=%.3f "
        "positive_rate=%.4g%s\n",
        r.column_family.empty() ? "-" : r.column_family, r.level,
        r.bottommost ? " bottommost=1" : "", r.plan, r.kind, r.bits_per_key,
        r.planned_fp_rate, r.tables, r.keys, r.filter_bytes, r.probes, per_get,
        rate,
        r.hot_range_tables == 0
            ? ""
            : absl::StrFormat(" hot_range_tables=%u changed=%u "
                              "mean_change=%.2f net_change=%.2f",
                              r.hot_range_tables, r.hot_range_changed,
                              r.hot_range_mean_change, r.hot_range_net_change));
  }
  return out;
}

const FilterPolicy::Options* RocksDBFilterPolicyOptions(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = Ours(policy);
  return ours ? &ours->policy().options() : nullptr;
}

}  // namespace blockbloom
