// blockbloom::ScalableFilter: a filter for an unknown number of keys, as
// RedisBloom's scaling filters (BF.RESERVE ... EXPANSION) and Almeida et
// al.'s "Scalable Bloom Filters" (2007): a stack of BloomFilter layers,
// each `expansion` times the capacity of the previous one, with false-
// positive rates that shrink geometrically so that the whole stack stays
// under the target however many layers it grows.
//
//   blockbloom::ScalableFilterOptions options;
//   options.initial_capacity = 10'000;
//   options.fp_rate = 0.01;
//   options.max_bytes = 256 << 20;        // refuse to grow past 256 MiB
//   auto seen = blockbloom::ScalableFilter::Create(options);
//   if (!seen.ok()) return seen.status();
//   absl::StatusOr<bool> added = seen->Add(url);
//   if (!added.ok()) { /* ResourceExhausted: the memory cap was reached */ }
//
// Rates: layer i (from 0) is sized for capacity_i = initial_capacity *
// expansion^i keys at rate p_i = fp_rate * (1 - r) * r^i, r = tightening.
// A key not added passes layer i with probability at most p_i once the
// layer is full (less before), independently across layers (disjoint keys),
// so the stack's rate is at most 1 - prod(1 - p_i) < sum p_i < fp_rate for
// any number of layers. Each layer is sized with the exact rate of the
// blocked layout (ShapeForFpRate), not the textbook formula.
//
// Costs: an Add probes every layer (a key found in any is not added again,
// so duplicates do not fill the stack), and a query that answers "absent"
// probes every layer: with expansion 2, 100x the initial capacity takes 7
// layers. A larger expansion means fewer layers and more memory overshoot.
// Later layers need more bits per key (log2(1/r) more per layer, ~1.44 bits
// with r = 0.5).
//
// Not thread-safe for writes: Add and Clear need the filter to themselves;
// const methods may run concurrently with each other.
#ifndef BLOCKBLOOM_SCALABLE_FILTER_H_
#define BLOCKBLOOM_SCALABLE_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/format.h"

namespace blockbloom {

struct ScalableFilterOptions {
  // Keys the first layer holds at its rate. Every layer is allocated whole
  // when created, so a modest start wastes less than a huge reservation.
  uint64_t initial_capacity = 1000;
  // The bound on the whole stack's false-positive rate, in (0, 1).
  double fp_rate = 0.01;
  // Capacity growth per layer, >= 1 (RedisBloom's EXPANSION, default 2).
  double expansion = 2;
  // Ratio of successive layers' rates, in (0, 1) (RedisBloom's 0.5).
  // Larger values give the first layer a smaller share of the rate but make
  // later layers cheaper: for stacks that grow many layers the paper
  // recommends 0.8-0.9. Grown to 100x with expansion 2 (7 layers), 1%
  // target: 0.5 measured 0.97% at 26.8 bits/key, 0.9 measured 0.47% at 21.7
  // bits/key (tests/memory/scalable_filter_test.cc).
  double tightening = 0.5;
  // The most memory (bytes of filter bits, all layers) the stack may use:
  // Create fails if the first layer is over it, and Add fails with
  // ResourceExhausted when a new layer would go over it. Must be positive.
  uint64_t max_bytes = uint64_t{1} << 30;
  // The hash seed, shared by all layers; unset: NewRandomSeed().
  std::optional<uint64_t> seed;
};

class ScalableFilter {
 public:
  // InvalidArgument for options out of range; ResourceExhausted if the first
  // layer alone exceeds max_bytes (or cannot be allocated).
  static absl::StatusOr<ScalableFilter> Create(
      const ScalableFilterOptions& options = {});

  // Reads a stack written by AppendTo (format in docs/FORMAT.md, "Scalable
  // filter stack"). `max_bytes` caps the layers read (ResourceExhausted if
  // over) and becomes the loaded filter's cap. DataLoss for damaged or
  // truncated input, Unimplemented for a newer major version, and the errors
  // of OpenFilter for the layers.
  static absl::StatusOr<ScalableFilter> Deserialize(
      absl::Span<const uint8_t> bytes,
      uint64_t max_bytes = ScalableFilterOptions().max_bytes,
      const ReadOptions& read_options = {});

  ScalableFilter(ScalableFilter&&) noexcept;
  ScalableFilter& operator=(ScalableFilter&&) noexcept;
  ~ScalableFilter();

  // Adds `key` unless some layer already answers "may contain" for it.
  // Returns true if it was added (certainly new), false if it may have been
  // added before. When the newest layer is full, a new layer is made first;
  // if that would exceed max_bytes, returns ResourceExhausted and adds
  // nothing (the filter stays valid; queries still work). OutOfRange if a
  // layer would need more than 2^32 blocks.
  absl::StatusOr<bool> Add(std::string_view key);
  absl::StatusOr<bool> AddHash(uint64_t hash);

  // False if the key was certainly never added. Probes the newest (largest)
  // layer first.
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const;

  // Drops every layer but the first, and clears that.
  void Clear();

  // Keys added (Add calls that returned true).
  uint64_t num_insertions() const;
  // Keys the current layers hold at their rates.
  uint64_t capacity() const;
  // Bytes of filter bits in all layers (what max_bytes limits).
  uint64_t size_bytes() const;
  size_t num_layers() const { return layers_.size(); }
  const BloomFilter& layer(size_t i) const { return layers_[i]; }
  uint64_t layer_capacity(size_t i) const { return capacities_[i]; }
  // The options in force; seed() is the seed chosen.
  const ScalableFilterOptions& options() const { return options_; }
  uint64_t seed() const { return *options_.seed; }

  // The stack's false-positive rate from the current bits:
  // 1 - prod_i (1 - layer(i).EstimatedFpRate()). Reads every block.
  double EstimatedFpRate() const;

  // Serializes the stack: a header, each layer as a full-encoding filter
  // block (write_options.compression applies; the encoding is always full,
  // which keeps each layer's key count), and a checksum.
  absl::Status AppendTo(std::string* dst,
                        const WriteOptions& write_options = {}) const;
  absl::StatusOr<std::string> Serialize(
      const WriteOptions& write_options = {}) const;

 private:
  explicit ScalableFilter(const ScalableFilterOptions& options);
  static absl::Status ValidateOptions(const ScalableFilterOptions& options);
  // The shape of layer i for `capacity` keys.
  absl::StatusOr<FilterShape> LayerShape(size_t i, uint64_t capacity) const;
  absl::Status AddLayer();

  ScalableFilterOptions options_;  // seed always set
  std::vector<BloomFilter> layers_;
  std::vector<uint64_t> capacities_;
  uint64_t size_bytes_ = 0;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_SCALABLE_FILTER_H_
