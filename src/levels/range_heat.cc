#include "src/levels/range_heat.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

namespace blockbloom::internal {
namespace {

// Bytewise order of `a` (a kept prefix) against the first kKeyBytes bytes of
// `b`.
int ComparePrefix(const char* a, size_t a_length, std::string_view b) {
  const size_t b_length =
      std::min(b.size(), static_cast<size_t>(RangeHeat::kKeyBytes));
  const int c = std::memcmp(a, b.data(), std::min(a_length, b_length));
  if (c != 0) return c;
  return a_length < b_length ? -1 : (a_length > b_length ? 1 : 0);
}

// The shard of this thread's next sample: each thread goes round the shards
// from its own start, so that one reader thread fills them all (capacity
// does not depend on the number of threads) and threads seldom meet.
int NextShard() {
  static std::atomic<uint32_t> threads{0};
  thread_local uint32_t next =
      threads.fetch_add(1, std::memory_order_relaxed) * 3;
  return static_cast<int>(next++ % RangeHeat::kShards);
}

}  // namespace

RangeHeat::RangeHeat() : shards_(new Shard[kShards]) {}
RangeHeat::~RangeHeat() = default;

void RangeHeat::Record(int group, std::string_view key) {
  Shard& s = shards_[NextShard()];
  // Another thread of the same shard: drop this sample rather than wait.
  if (s.busy.exchange(true, std::memory_order_acquire)) return;
  Sample& out = s.samples[s.next];
  out.length = static_cast<uint8_t>(
      std::min(key.size(), static_cast<size_t>(kKeyBytes)));
  out.group = static_cast<uint8_t>(std::clamp(group, 0, kGroups - 1));
  std::memcpy(out.key, key.data(), out.length);
  out.serial = s.written++;
  s.next = s.next + 1 == kSamplesPerShard ? 0 : s.next + 1;
  s.size = std::min<uint32_t>(s.size + 1, kSamplesPerShard);
  s.busy.store(false, std::memory_order_release);
}

void RangeHeat::Count(int group, std::string_view lo, std::string_view hi,
                      uint64_t* in_range, uint64_t* total,
                      uint64_t* older_in_range) const {
  *in_range = 0;
  *total = 0;
  uint64_t older = 0;
  const uint8_t g = static_cast<uint8_t>(std::clamp(group, 0, kGroups - 1));
  for (int i = 0; i < kShards; ++i) {
    Shard& s = shards_[i];
    // A builder may wait for a reader's few nanoseconds.
    while (s.busy.exchange(true, std::memory_order_acquire)) {
      std::this_thread::yield();
    }
    // The older half: written more than size / 2 samples ago.
    const uint32_t half = s.size / 2;
    for (uint32_t j = 0; j < s.size; ++j) {
      const Sample& x = s.samples[j];
      if (x.group != g) continue;
      ++*total;
      if (ComparePrefix(x.key, x.length, lo) >= 0 &&
          ComparePrefix(x.key, x.length, hi) <= 0) {
        ++*in_range;
        if (s.written - x.serial > half) ++older;
      }
    }
    s.busy.store(false, std::memory_order_release);
  }
  if (older_in_range != nullptr) *older_in_range = older;
}

double RangeHeat::Delta(int group, int level, uint64_t keys,
                        uint64_t level_keys, std::string_view lo,
                        std::string_view hi, double slope) {
  if (keys == 0 || !(slope > 0)) return 0;
  uint64_t in_range = 0, total = 0, older = 0;
  Count(group, lo, hi, &in_range, &total, &older);
  if (total < static_cast<uint64_t>(kMinSamples)) return 0;
  // The probe density per key, of all samples and of each half.
  const double n = static_cast<double>(keys);
  const double x = std::log((static_cast<double>(in_range) + 1) / n);
  const double x_older = std::log((static_cast<double>(older) + 1) / n);
  const double x_newer =
      std::log((static_cast<double>(in_range - older) + 1) / n);

  std::lock_guard<std::mutex> lock(stats_mu_);
  Stats& st = stats_[std::clamp(group, 0, kGroups - 1)]
                    [std::clamp(level, 0, kLevels - 1)];
  // Forgotten over about the level's live keys (at least 16 tables like
  // this one): the mean is then the live level's, and the changes of its
  // tables average 0 over its keys.
  const double horizon = std::max(static_cast<double>(level_keys), 16 * n);
  const double keep = std::exp(-n / horizon);
  const auto add = [&](double& sum, double value) {
    sum = keep * sum + n * value;
  };
  add(st.weight, 1);
  add(st.sum, x);
  add(st.older, x_older);
  add(st.newer, x_newer);
  add(st.older_squares, x_older * x_older);
  add(st.newer_squares, x_newer * x_newer);
  add(st.products, x_older * x_newer);
  const double w = st.weight;
  const double mean = st.sum / w;
  const double mean_older = st.older / w, mean_newer = st.newer / w;
  const double var_older = st.older_squares / w - mean_older * mean_older;
  const double var_newer = st.newer_squares / w - mean_newer * mean_newer;
  const double covariance = st.products / w - mean_older * mean_newer;
  // Split-half reliability, less what chance gives it (the correlation of
  // T independent pairs has a standard deviation of about 1 / sqrt(T), for
  // the T tables of the level: three of them), then Spearman-Brown for the
  // whole sample.
  double beta = 0;
  if (var_older > 0 && var_newer > 0 && covariance > 0) {
    const double tables = std::max(horizon / n, 16.0);
    const double r =
        std::min(covariance / std::sqrt(var_older * var_newer), 1.0) -
        3 / std::sqrt(tables);
    if (r > 0) beta = 2 * r / (1 + r);
  }
  // Less what the level's last tables got on average (their key-weighted
  // mean change, forgotten as the statistics are): the changes then average
  // 0 over the level's keys even where the caps cut them or the mean moves.
  const double net = st.delta_weight > 0 ? st.delta_sum / st.delta_weight : 0;
  const double delta =
      std::clamp(beta * (x - mean) / slope - net, -kMaxCut, kMaxRaise);

  LevelHeat& h = st.heat;
  ++h.tables;
  if (std::abs(delta) >= 0.05) ++h.changed;
  h.beta = beta;
  st.delta_weight = keep * st.delta_weight + n;
  st.abs_delta_sum = keep * st.abs_delta_sum + n * std::abs(delta);
  st.delta_sum = keep * st.delta_sum + n * delta;
  h.mean_abs_delta = st.abs_delta_sum / st.delta_weight;
  h.mean_delta = st.delta_sum / st.delta_weight;
  return delta;
}

RangeHeat::LevelHeat RangeHeat::Heat(int group, int level) const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_[std::clamp(group, 0, kGroups - 1)]
               [std::clamp(level, 0, kLevels - 1)]
                   .heat;
}

}  // namespace blockbloom::internal
