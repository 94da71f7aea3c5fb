// The RocksDB adapter: translates types and calls blockbloom::FilterPolicy.
#include "blockbloom/rocksdb.h"

#include <rocksdb/env.h>
#include <rocksdb/table.h>

#include <cmath>
#include <cstring>
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
#include "src/policy/tree_planner.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/library_version.h"
#include "src/rocksdb/policy_id.h"
#include "src/rocksdb/table_filter_builder.h"
#include "src/rocksdb/table_filter_reader.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom {
namespace {

using internal::LearnedPlan;
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
            policy_.options().levels.hot_ranges)),
        planner_(policy_, state_) {}

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
    const std::string& cf = context.column_family_name;
    const LevelHint hint =
        planner_.HintFor(HintOf(context), context.num_levels, cf);
    const LevelAllocator::Choice choice =
        planner_.ChoiceFor(hint, cf, [&](const std::string& line) {
          if (context.info_log != nullptr) {
            rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, context.info_log,
                         "%s", line.c_str());
          }
        });
    return new TableFilterBuilder(
        policy_, hint, choice,
        context.table_options.detect_filter_construct_corruption, cf,
        planner_.HotRangesFor(hint, choice, cf));
  }

  // `contents` stays alive as long as the reader (RocksDB keeps both in the
  // same cache entry), so the filter is probed in place.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override {
    // No reader from a library of another layout: RocksDB reads "may match".
    if (!internal::CheckRocksDBLibrary().ok()) return nullptr;
    const absl::Span<const uint8_t> bytes = AsBytes(View(contents));
    // One read of the footer for the filter and its origin; blocks without
    // one (or that fail to open) count as of unknown level.
    FilterInfo info;
    Filter filter = policy_.NewReader(bytes, /*error=*/nullptr, &info);
    int index = PolicyState::SlotIndex(0, -1);
    if (info.origin.recorded()) {
      const int dense = state_->DenseGroup(info.origin.group);
      const int group =
          LearnedPlan::GroupOf(info.origin.level, info.origin.bottommost);
      index = PolicyState::SlotIndex(dense, group);
      if (group == LearnedPlan::kBottommost) {
        state_->SeeBottommost(dense, info.origin.level);
      }
    }
    return new TableFilterReader(std::move(filter), state_, index,
                                 contents.size());
  }

  const blockbloom::FilterPolicy& policy() const { return policy_; }

  // The report of RocksDBFilterReport.
  std::vector<LevelReport> Report() const { return planner_.Report(); }

 private:
  // The table's level, bottommost or not and compaction style, as RocksDB
  // gives them; the planner adds the populated levels it learned.
  static LevelHint HintOf(const rocksdb::FilterBuildingContext& context) {
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
    return hint;
  }

  const blockbloom::FilterPolicy policy_;
  const std::string id_;
  const std::shared_ptr<PolicyState> state_;
  const internal::TreePlanner planner_;  // over policy_ and state_
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

std::vector<LevelReport> RocksDBFilterReport(
    const rocksdb::FilterPolicy* policy) {
  const auto* ours = Ours(policy);
  return ours ? ours->Report() : std::vector<LevelReport>{};
}

std::string RocksDBFilterReportText(const rocksdb::FilterPolicy* policy,
                                    uint64_t gets) {
  std::string out;
  for (const LevelReport& r : RocksDBFilterReport(policy)) {
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
