// What an engine adapter's policy and its readers share (the RocksDB
// adapter's, src/rocksdb/rocksdb.cc): the probe counters by (column family
// group, level of creation), the live filters' keys, bytes and tables there,
// and the column family groups seen. Readers keep it alive: an engine (RocksDB)
// may keep a reader after the policy object is gone.
#ifndef BLOCKBLOOM_SRC_LEVELS_POLICY_STATE_H_
#define BLOCKBLOOM_SRC_LEVELS_POLICY_STATE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "src/levels/learned_plan.h"
#include "src/levels/probe_counters.h"
#include "src/levels/range_heat.h"

namespace blockbloom::internal {

// The origin's group of a column family: 10 bits of its name's hash.
inline int GroupOf(const std::string& column_family) {
  return static_cast<int>(HashKey(column_family, 0) &
                          static_cast<uint64_t>(FilterOrigin::kMaxGroup));
}

// Counter slots of a policy's range: kGroups column families (by the group
// recorded in the blocks; more share the last) x kLevelSlots plan groups
// (LearnedPlan::GroupOf: levels of creation, then the bottommost tables; the
// last slot: blocks without an origin, written before format 4.1).
inline constexpr int kGroups = 8;
inline constexpr int kLevelSlots = 16;
inline constexpr int kUnknownLevel = kLevelSlots - 1;
static_assert(kGroups * kLevelSlots <= kSlotsPerRange);
static_assert(LearnedPlan::kLevels <= kUnknownLevel);

// What a policy and its readers share: the counters, the live filters by
// level of creation, and the plans. Readers keep it alive (RocksDB may keep
// a reader after the policy object is gone).
class PolicyState {
 public:
  // With hot_ranges, the readers also keep a sample of their probes' keys
  // (range_heat.h).
  explicit PolicyState(bool hot_ranges)
      : heat_(hot_ranges ? std::make_unique<RangeHeat>() : nullptr) {
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
  // The slot of a plan group (LearnedPlan::GroupOf; < 0: no origin).
  static int SlotIndex(int dense_group, int plan_group) {
    const int l = plan_group < 0
                      ? kUnknownLevel
                      : std::min(plan_group, LearnedPlan::kLevels - 1);
    return dense_group * kLevelSlots + l;
  }
  int Slot(int index) const { return counters_.slot(index); }
  // The hot ranges' samples, or null.
  RangeHeat* heat() const { return heat_.get(); }
  // Live keys of the filters in slot `index` now.
  uint64_t LiveKeys(int index) const {
    return static_cast<uint64_t>(std::max<int64_t>(keys_[index].load(), 0));
  }

  // The deepest level a bottommost block read for `dense_group` was
  // written at (0: none): the report's level for the bottommost row in a
  // process that built no table (e.g. the CLI).
  void SeeBottommost(int dense_group, int level) {
    std::atomic<int>& d = deepest_bottommost_[dense_group];
    int seen = d.load(std::memory_order_relaxed);
    while (level > seen &&
           !d.compare_exchange_weak(seen, level, std::memory_order_relaxed)) {
    }
  }
  int DeepestBottommost(int dense_group) const {
    return deepest_bottommost_[dense_group].load(std::memory_order_relaxed);
  }

  void AddLive(int index, int64_t keys, int64_t bytes, int64_t tables) {
    keys_[index].fetch_add(keys, std::memory_order_relaxed);
    bytes_[index].fetch_add(bytes, std::memory_order_relaxed);
    tables_[index].fetch_add(tables, std::memory_order_relaxed);
  }

  // By plan group (LearnedPlan::GroupOf: level of creation, or bottommost;
  // blocks without an origin are not in it): probes and positives since the
  // policy was made, live keys, bytes and tables now.
  std::vector<LevelObservation> Observe(int dense_group) const {
    const std::vector<ProbeCount> counts = counters_.Read();
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
    const std::vector<ProbeCount> counts = counters_.Read();
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
  CounterRange counters_;
  const std::unique_ptr<RangeHeat> heat_;
  std::mutex groups_mu_;
  std::vector<int> groups_;
  std::atomic<int64_t> keys_[kGroups * kLevelSlots];
  std::atomic<int64_t> bytes_[kGroups * kLevelSlots];
  std::atomic<int64_t> tables_[kGroups * kLevelSlots];
  std::atomic<int> deepest_bottommost_[kGroups] = {};
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_LEVELS_POLICY_STATE_H_
