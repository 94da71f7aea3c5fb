// Hot key ranges: the bits/key of each TABLE within its level, from the keys
// the readers' sampled probes saw (issue 33: skewed lookups).
//
// Why. The learned plan (learned_plan.h) gives every table written at a
// level the same bits/key. That is right when a level's probes fall on its
// tables as its keys do. Under skewed lookups (Zipfian gets, hot ranges) a
// few tables take most of them. A level's false reads are
// sum_t p_t * fpr(b_t) over its tables t (p_t: the probes of t, b_t: its
// bits/key), and for the same memory (sum_t n_t * b_t, n_t: the keys of t)
// they are least (Lagrange) where
//     b_t = C + ln(p_t / n_t) / s,      s = -d ln fpr(b) / d b:
// a table gets 1/s bits/key more per e-fold of probes per key above its
// level's average. s is about 0.42 per bit for the blocked kind near 10
// bits/key (0.96% -> 0.41% from 10 to 12) and about 0.65 for the ribbon
// (2^-b at ~1.06x the bound); the caller takes it from the rate curve at the
// plan's bits. C keeps the level's memory: the changes average 0 over its
// keys. In a simulation of level_tree_bench's Zipfian lookups (Zipf 0.99
// over 800,000 scattered keys, tables of 700 keys), that is clearly fewer
// false reads than equal bits, with the true probe shares and with them
// estimated from 16,384 samples.
//
// How.
//  - Record(): a reader's sampled probe (one in kSampleEvery,
//    probe_counters.h) also keeps the first kKeyBytes bytes of its key, with
//    its column family group, in rings of the most recent (kShards rings,
//    which each thread fills in turn). A ring busy with another thread drops
//    the sample: no reader ever waits.
//  - Delta(): a builder that knows its table's key range [lo, hi] counts the
//    samples of its group in it, c, out of the group's samples (bytewise
//    order on the kept prefixes: a range of longer keys counts a superset).
//    Its probe density is x = ln((c + 1) / n). Per (group, level) the mean
//    of x is kept, weighted by keys and forgotten over about the level's
//    live keys. The change is
//        beta * (x - mean) / s
//    (less the level's recent mean change, so that the changes average 0
//    where the caps cut them), clamped to [-kMaxCut, +kMaxRaise] bits/key.
//  - beta is how well a range's past probes predict its next ones: the
//    correlation r, over the level's tables, of the densities of the older
//    and the newer half of the samples (split-half reliability), less 3 /
//    sqrt(tables) (what chance gives T independent pairs: 3 standard
//    deviations), made a whole-sample one as Spearman-Brown does
//    (2r / (1 + r)), in [0, 1].
//    Under uniform lookups the halves agree only by chance (counting
//    noise): beta ~ 0 and no table changes. Under lookups that move (range-
//    local batches at new places) the ranges hot in one half are not hot
//    in the other: beta ~ 0 too. Planned on the samples alone (shrunk only
//    for counting noise), range-local lookups got more false reads than
//    equal bits in bench/rocksdb/level_tree_bench: the ranges hot when a
//    table was built were not hot later. Under lasting skew (Zipfian gets)
//    the halves agree and beta -> 1.
// A filter records its own shape: a change never makes a table unreadable
// or a key missed. It only moves bits between the tables of a level.
#ifndef BLOCKBLOOM_SRC_LEVELS_RANGE_HEAT_H_
#define BLOCKBLOOM_SRC_LEVELS_RANGE_HEAT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace blockbloom::internal {

class RangeHeat {
 public:
  // Key bytes kept per sample: enough for keys that differ in their first
  // 24 bytes (a longer common prefix makes ranges count supersets).
  static constexpr int kKeyBytes = 24;
  static constexpr int kShards = 8;
  // 16,384 samples in all, 32 bytes each: 512 KiB per policy with
  // level_learned. At one sample per kSampleEvery (32) probes that is the
  // last ~500,000 probes.
  static constexpr int kSamplesPerShard = 2048;
  // Fewer samples of a group than this: no table changes yet.
  static constexpr int kMinSamples = 1024;
  static constexpr double kMaxRaise = 6;
  static constexpr double kMaxCut = 3;
  // Column family groups and levels with statistics of their own (more
  // share the last).
  static constexpr int kGroups = 8;
  static constexpr int kLevels = 16;

  RangeHeat();
  ~RangeHeat();
  RangeHeat(const RangeHeat&) = delete;
  RangeHeat& operator=(const RangeHeat&) = delete;

  // The probe path's sampled probe of a table of `group` (a dense index).
  void Record(int group, std::string_view key);

  // Samples of `group` in [lo, hi] (*in_range) and in all (*total); with
  // `older_in_range`, also how many of *in_range are in the older half of
  // their ring.
  void Count(int group, std::string_view lo, std::string_view hi,
             uint64_t* in_range, uint64_t* total,
             uint64_t* older_in_range = nullptr) const;

  // The bits/key change for a table of `keys` keys over [lo, hi], built at
  // `level` of `group`, whose level holds about `level_keys` live keys;
  // `slope` is s above, at the table's planned bits. Updates the level's
  // statistics (so call it once per table).
  double Delta(int group, int level, uint64_t keys, uint64_t level_keys,
               std::string_view lo, std::string_view hi, double slope);

  // What a level's tables got, for the report.
  struct LevelHeat {
    uint64_t tables = 0;   // tables that asked (since the policy was made)
    uint64_t changed = 0;  // of them, with a change of 0.05 bits/key or more
    double beta = 0;       // the last shrinkage
    double mean_abs_delta = 0;  // key-weighted mean |change|, bits/key
    double mean_delta = 0;      // key-weighted mean change (about 0)
  };
  LevelHeat Heat(int group, int level) const;

 private:
  struct Sample {
    uint8_t length = 0;  // bytes kept, at most kKeyBytes
    uint8_t group = 0;
    char key[kKeyBytes + 2] = {};
    uint32_t serial = 0;  // the shard's count of samples when written
  };
  static_assert(sizeof(Sample) == 32);
  struct alignas(64) Shard {
    std::atomic<bool> busy{false};
    uint32_t next = 0;
    uint32_t size = 0;
    uint32_t written = 0;
    Sample samples[kSamplesPerShard];
  };
  struct Stats {
    double weight = 0;  // forgotten sums, by keys, of x and of the
    double sum = 0;     // halves' densities (older, newer) and products
    double older = 0, newer = 0;
    double older_squares = 0, newer_squares = 0, products = 0;
    LevelHeat heat;
    double delta_weight = 0;
    double abs_delta_sum = 0;
    double delta_sum = 0;
  };

  std::unique_ptr<Shard[]> shards_;
  mutable std::mutex stats_mu_;
  Stats stats_[kGroups][kLevels];
};

// What a builder needs to give its table the bits of its key range's probes
// (FilterPolicy::LevelOptions::hot_ranges). heat null: none.
struct HotRangeContext {
  RangeHeat* heat = nullptr;  // the policy's, which outlives its builders
  int group = 0;              // the column family's dense group
  int plan_group = 0;         // the table's (LearnedPlan::GroupOf)
  uint64_t level_keys = 0;    // live keys of that plan group
  double slope = 0;           // -d ln(fp rate) / d bits/key at the planned bits
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_LEVELS_RANGE_HEAT_H_
