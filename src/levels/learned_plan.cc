#include "src/levels/learned_plan.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::internal {

LearnedPlan::LearnedPlan(const LevelAllocator& allocator,
                         const Options& options)
    : allocator_(allocator),
      options_(options),
      entries_(kLevels),
      seen_probes_(kLevels),
      seen_positives_(kLevels) {
  // Before any update: the model's plan for a one-level tree, what the
  // adapter gives a new DB.
  Update(std::vector<LevelObservation>(kLevels), 1, 1);
  updates_ = 0;
}

bool LearnedPlan::Update(const std::vector<LevelObservation>& observed,
                         int first, int last) {
  first = std::max(first, 1);
  last = std::max(last, first);
  uint64_t new_probes = 0;
  for (int l = 0; l < kLevels && l < static_cast<int>(observed.size()); ++l) {
    new_probes += observed[l].probes - seen_probes_[l];
  }
  uint64_t live_keys = 0;
  for (int l = 0; l < kLevels && l < static_cast<int>(observed.size()); ++l) {
    live_keys += observed[l].keys;
  }
  // The tree changed: its populated levels, or its live keys doubled (a
  // young tree replans as it grows, before many probes are seen: the
  // first flushes of a DB otherwise all got the prior's plan).
  const bool tree_changed =
      first != first_ || last != last_ ||
      live_keys >= 2 * std::max<uint64_t>(planned_keys_, 1);
  if (updates_ > 0 && !tree_changed && new_probes < options_.min_new_probes) {
    return false;
  }
  planned_keys_ = live_keys;
  first_ = first;
  last_ = last;
  ++updates_;

  // The prior: the model tree's probes per level of creation, worth
  // prior_probes in all, and its keys (used while no table is live).
  const int depth = std::min(last - first + 1, LevelAllocator::kMaxLevels);
  const std::vector<LevelAllocator::Group> model =
      allocator_.ModelGroups(depth);
  std::vector<double> prior(kLevels), model_keys(kLevels);
  double model_probes = 0;
  for (const LevelAllocator::Group& g : model) model_probes += g.probes;
  // The model's last level is the bottommost tables' group.
  for (size_t i = 0; i < model.size(); ++i) {
    const int level =
        i == 0 ? 0
        : i + 1 == model.size()
            ? kBottommost
            : std::min(first + static_cast<int>(i) - 1, kBottommost - 1);
    prior[level] += options_.prior_probes * model[i].probes / model_probes;
    model_keys[level] += model[i].keys;
  }

  // Forgetting: what was observed new_probes ago counts (1/2)^(new_probes
  // / half_life); the exposures (below) forget with the same weight.
  const double keep = std::exp2(-static_cast<double>(new_probes) /
                                std::max(options_.half_life_probes, 1.0));
  exposure_ = keep * exposure_ + static_cast<double>(new_probes);
  // Tables built at L0 (flushes) that hold most of the live keys are kept,
  // not rewritten by compactions: ascending keys make every table a flush's,
  // moved down whole to the last level. Then L0's share of the keys is its
  // live share (the other levels' model shares scaled down to make room),
  // and it may take every kind (below). Planned on the model's share, L0's
  // 18-45 bits/key of the blocked kind held every key of level_tree_bench's
  // ascending trees (16.7 bits/key for a budget of 10.25). Only then: below
  // l0_kept_share, L0's live share is transient (its files pile up and are
  // compacted away), and planning on it left the last level 1 bit/key
  // short in a growing tree.
  double model_total = 0;
  for (double k : model_keys) model_total += k;
  double l0_keys = model_keys[0];
  double others_scale = 1;
  // L0 on its live share of the keys: L0's keys and the other levels' scale.
  double live_l0_keys = l0_keys, live_scale = 1;
  bool l0_kept = false;
  l0_backlog_ = false;
  if (live_keys > 0 && model_total > 0) {
    const double l0_share =
        static_cast<double>(observed[0].keys) / static_cast<double>(live_keys);
    const double model_share = model_keys[0] / model_total;
    l0_kept = l0_share > options_.l0_kept_share && l0_share > model_share;
    l0_backlog_ = !l0_kept && observed[0].tables > options_.l0_backlog_tables &&
                  l0_share > model_share;
    if (l0_kept || l0_backlog_) {
      live_l0_keys = l0_share * model_total;
      live_scale = (1 - l0_share) / (1 - model_share);
    }
    if (l0_kept) {
      l0_keys = live_l0_keys;
      others_scale = live_scale;
    }
  }
  // In an L0 backlog only L0's bits come from its live share (live_groups,
  // below): the other levels keep the plan's bits. A backlog is transient
  // and compactions are behind while it lasts: paying for it with the
  // tables they write (the last level's, long-lived) left those short, 7.2
  // bits/key for a budget of 10.4 in level_tree_bench's backlog tree, whose
  // L0 piles up while it grows too.
  std::vector<LevelAllocator::Group> live_groups;
  std::vector<LevelAllocator::Group> groups;
  std::vector<int> level_of;
  for (int l = 0; l < kLevels; ++l) {
    const LevelObservation o = l < static_cast<int>(observed.size())
                                   ? observed[l]
                                   : LevelObservation{};
    Entry& e = entries_[l];
    const uint64_t new_here = o.probes - seen_probes_[l];
    e.probes = keep * e.probes + static_cast<double>(new_here);
    // The group was there (had live tables) during the new probes.
    const bool present = e.tables > 0 || o.tables > 0 || new_here > 0;
    e.exposure =
        keep * e.exposure + (present ? static_cast<double>(new_probes) : 0.0);
    seen_probes_[l] = o.probes;
    seen_positives_[l] = o.positives;
    e.prior = prior[l];
    e.keys = o.keys;
    e.bytes = o.bytes;
    e.tables = o.tables;
    e.total_probes = o.probes;
    e.total_positives = o.positives;
    // The keys are the model's (the tree's shape at rest, from the levels
    // first..last): the live keys of a growing or compacting tree are
    // transient (L0 and the upper levels fill and empty; the last level
    // grows), and planning on them overspent the budget in
    // bench/rocksdb/level_tree_bench. What the tree does differently from
    // the model is in the probes, and the memory feedback below.
    // Except L0's share when its tables are kept (l0_keys, above).
    const double keys = l == 0 ? l0_keys : model_keys[l] * others_scale;
    // The group's probes per probe of the tree while it was there, over the
    // whole window: a young group (a level new to the tree) saw few probes
    // because it was not there, not because it is seldom probed. With the
    // prior's weight (prior_probes) in both, a group there all along gets
    // observed + prior, as if unscaled, and one never there the model's
    // share of the window's probes.
    const double probes = (e.probes + e.prior) *
                          (exposure_ + options_.prior_probes) /
                          (e.exposure + options_.prior_probes);
    if (keys <= 0 && probes <= 0) continue;
    // Flushes' filters that are kept (l0_kept) are planned as a level's
    // that every kind may take: a kind kept from L0 (KindCurve::first_level,
    // RocksDB's bloom_before_level) because flushes' tables are short-lived
    // is then the wrong trade. In level_tree_bench's ascending trees the
    // blocked flushes' filters held every key at more false reads than
    // RocksDB Ribbon's for the same memory.
    const int plan_level = l == 0 && l0_kept ? kLevels : l;
    groups.push_back({.level = plan_level, .keys = keys, .probes = probes});
    if (l0_backlog_) {
      live_groups.push_back(
          {.level = plan_level,
           .keys = l == 0 ? live_l0_keys : model_keys[l] * live_scale,
           .probes = probes});
    }
    level_of.push_back(l);
  }
  // The feedback: the live filters' real bits/key against the budget. The
  // scale moves by the fourth root of the error per update, within
  // [0.7, 1.3] (damped: the live tables change slowly, and much of the
  // error is from tables that the next plans will not touch soon).
  uint64_t live_bytes = 0;
  for (int l = 0; l < kLevels && l < static_cast<int>(observed.size()); ++l) {
    live_bytes += observed[l].bytes;
  }
  if (options_.feedback_keys > 0 && live_keys >= options_.feedback_keys &&
      live_bytes > 0) {
    const double actual =
        8.0 * static_cast<double>(live_bytes) / static_cast<double>(live_keys);
    scale_ = std::clamp(scale_ * std::sqrt(std::sqrt(options_.budget / actual)),
                        0.7, 1.3);
  }
  const double budget =
      std::clamp(options_.budget * scale_, LevelAllocator::kMinBitsPerKey,
                 LevelAllocator::kMaxBitsPerKey);
  std::vector<LevelAllocator::Choice> choices =
      allocator_.Optimize(groups, budget);
  if (l0_backlog_) {
    const std::vector<LevelAllocator::Choice> live =
        allocator_.Optimize(live_groups, budget);
    for (size_t j = 0; j < groups.size(); ++j) {
      if (level_of[j] == 0) choices[j] = live[j];
    }
  }
  bool changed = false;
  std::vector<LevelAllocator::Choice> next(kLevels);
  for (int l = 0; l < kLevels; ++l) next[l] = entries_[l].choice;
  for (size_t j = 0; j < groups.size(); ++j) {
    // Levels without live keys (nothing written there yet) get the prior's
    // plan, not the budget Optimize gives groups that take no memory: their
    // first tables then start where the model would put them.
    LevelAllocator::Choice c = choices[j];
    if (groups[j].keys <= 0) c = allocator_.Choose(HintFor(level_of[j]));
    next[level_of[j]] = c;
  }
  for (int l = 0; l < kLevels; ++l) {
    const LevelAllocator::Choice& a = entries_[l].choice;
    const LevelAllocator::Choice& b = next[l];
    if (a.kind != b.kind ||
        std::abs(a.bits_per_key - b.bits_per_key) >= options_.min_change) {
      changed = true;
    }
    entries_[l].choice = b;
  }
  return changed;
}

LevelHint LearnedPlan::HintFor(int group) const {
  LevelHint hint;
  hint.level = group == kBottommost ? last_ : group;
  hint.is_bottommost = group == kBottommost;
  hint.first_level = first_;
  hint.last_level = last_;
  return hint;
}

LevelAllocator::Choice LearnedPlan::ChoiceFor(int group) const {
  const int g = std::clamp(group, 0, kBottommost);
  LevelAllocator::Choice c = entries_[g].choice;
  // Never planned (beyond the known tree): as the model would.
  if (c.bits_per_key <= 0) c = allocator_.Choose(HintFor(g));
  return c;
}

std::string LearnedPlan::Describe() const {
  std::string out;
  for (int l = 0; l < kLevels; ++l) {
    const Entry& e = entries_[l];
    // The tree's levels: L0, first..last - 1 and the bottommost tables
    // (the model's last level); others when they have tables or probes.
    const bool in_tree =
        l == 0 || l == kBottommost || (l >= first_ && l < last_);
    if (e.tables == 0 && e.total_probes == 0 && !in_tree) continue;
    const double rate =
        e.total_probes > 0
            ? static_cast<double>(e.total_positives) / e.total_probes
            : 0;
    absl::StrAppendFormat(
        &out,
        "%s kind=%s bits_per_key=%.2f planned_fpr=%.3g tables=%u keys=%u "
        "filter_bytes=%u probes=%u positive_rate=%.4g%s\n",
        l == kBottommost ? std::string("bottommost") : absl::StrCat("L", l),
        FilterKindName(e.choice.kind), e.choice.bits_per_key, e.choice.fp_rate,
        e.tables, e.keys, e.bytes, e.total_probes, rate,
        l == 0 && l0_backlog_ ? " backlog=1" : "");
  }
  return out;
}

}  // namespace blockbloom::internal
