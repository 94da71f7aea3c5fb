#include "src/rocksdb/learned_plan.h"

#include <algorithm>
#include <cmath>

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
  const bool tree_changed = first != first_ || last != last_;
  if (updates_ > 0 && !tree_changed && new_probes < options_.min_new_probes) {
    return false;
  }
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
  for (size_t i = 0; i < model.size(); ++i) {
    const int level =
        std::min(i == 0 ? 0 : first + static_cast<int>(i) - 1, kLevels - 1);
    prior[level] += options_.prior_probes * model[i].probes / model_probes;
    model_keys[level] += model[i].keys;
  }

  uint64_t live_keys = 0;
  for (int l = 0; l < kLevels && l < static_cast<int>(observed.size()); ++l) {
    live_keys += observed[l].keys;
  }
  // Forgetting: what was observed new_probes ago counts (1/2)^(new_probes
  // / half_life). Keys move with the same weight: a level's keys are then
  // their average over the recent probes.
  const double keep = std::exp2(-static_cast<double>(new_probes) /
                                std::max(options_.half_life_probes, 1.0));
  std::vector<LevelAllocator::Group> groups;
  std::vector<int> level_of;
  for (int l = 0; l < kLevels; ++l) {
    const LevelObservation o = l < static_cast<int>(observed.size())
                                   ? observed[l]
                                   : LevelObservation{};
    Entry& e = entries_[l];
    e.probes = keep * e.probes + (o.probes - seen_probes_[l]);
    if (live_keys > 0) {
      e.smoothed_keys = have_keys_
                            ? keep * e.smoothed_keys +
                                  (1 - keep) * static_cast<double>(o.keys)
                            : static_cast<double>(o.keys);
    }
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
    // grows), and planning on them overspent by 40% in
    // bench/rocksdb/level_tree_bench. What the tree does differently from
    // the model is in the probes, and the memory feedback below.
    const double keys = model_keys[l];
    const double probes = e.probes + e.prior;
    if (keys <= 0 && probes <= 0) continue;
    groups.push_back({.level = l, .keys = keys, .probes = probes});
    level_of.push_back(l);
  }
  if (live_keys > 0) have_keys_ = true;
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
  const std::vector<LevelAllocator::Choice> choices =
      allocator_.Optimize(groups, std::clamp(options_.budget * scale_,
                                             LevelAllocator::kMinBitsPerKey,
                                             LevelAllocator::kMaxBitsPerKey));
  bool changed = false;
  std::vector<LevelAllocator::Choice> next(kLevels);
  for (int l = 0; l < kLevels; ++l) next[l] = entries_[l].choice;
  for (size_t j = 0; j < groups.size(); ++j) {
    // Levels without live keys (nothing written there yet) get the prior's
    // plan, not the budget Optimize gives groups that take no memory: their
    // first tables then start where the model would put them.
    LevelAllocator::Choice c = choices[j];
    if (groups[j].keys <= 0) {
      LevelHint hint;
      hint.level = level_of[j];
      hint.first_level = first;
      hint.last_level = last;
      c = allocator_.Choose(hint);
    }
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

LevelAllocator::Choice LearnedPlan::ChoiceFor(int level) const {
  const int l = std::clamp(level, 0, kLevels - 1);
  LevelAllocator::Choice c = entries_[l].choice;
  if (c.bits_per_key <= 0) {
    // Never planned (beyond the known tree): as the model would.
    LevelHint hint;
    hint.level = l;
    hint.first_level = first_;
    hint.last_level = last_;
    c = allocator_.Choose(hint);
  }
  return c;
}

std::string LearnedPlan::Describe() const {
  std::string out;
  for (int l = 0; l < kLevels; ++l) {
    const Entry& e = entries_[l];
    if (e.tables == 0 && e.total_probes == 0 && (l < first_ || l > last_) &&
        l != 0) {
      continue;
    }
    const double rate =
        e.total_probes > 0
            ? static_cast<double>(e.total_positives) / e.total_probes
            : 0;
    absl::StrAppendFormat(
        &out,
        "L%d kind=%s bits_per_key=%.2f planned_fpr=%.3g tables=%u keys=%u "
        "filter_bytes=%u probes=%u positive_rate=%.4g\n",
        l, FilterKindName(e.choice.kind), e.choice.bits_per_key,
        e.choice.fp_rate, e.tables, e.keys, e.bytes, e.total_probes, rate);
  }
  return out;
}

}  // namespace blockbloom::internal
