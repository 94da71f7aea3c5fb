// What a Redis key of the module's type holds: a scalable stack of layers,
// RedisBloom's scalable filter (Almeida et al. 2007) on blockbloom layers.
//
// Layer 0 is sized for `capacity` keys. When the newest layer holds as many
// keys as it was sized for, the next add starts a new layer with `expansion`
// times its capacity. The asked fp_rate is a bound at every fill: layer 0
// gets kFirstShare of it, and the rest (the growth budget) is shared by the
// layers growth adds, layer i >= 1 getting budget * (1 - t) * t^(i-1) with
// t = Tightening(expansion). The rates add up to fp_rate over any number
// of layers, so the stack's false-positive rate stays below fp_rate
// however far it grows (docs/REDIS_MODULE.md, "Layers", explains the split:
// the one-layer memory against the grown memory). A NONSCALING stack has one
// layer at fp_rate and refuses keys instead of growing.
//
// Stacks saved by earlier versions have layer 0 at fp_rate (no budget
// left): they keep their layers and rates, and grow as they did, each new
// layer at half the previous one's rate (below 2 * fp_rate). The rule
// needs no field of its own: Grow reads it from layer 0's rate.
//
// A key is added once: an add first probes every layer and adds nothing if
// one says "may contain" (so the item count is of distinct keys, give or take
// false positives, as in RedisBloom).
//
// Keys are hashed once per command with XXH3-64 and the stack's seed
// (HashKey); every layer probes that one hash. A probe of one key finds
// every layer's block and prefetches it before testing any, so the cache
// misses of a grown stack overlap instead of adding up (one line per layer);
// a batch overlaps the misses of a group of keys, layer by layer.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_FILTER_STACK_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_FILTER_STACK_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/filter_stack/layer.h"

namespace blockbloom::redis_module {

struct StackOptions {
  double fp_rate = 0.01;    // in (0, 1)
  uint64_t capacity = 100;  // keys of layer 0, >= 1
  uint32_t expansion = 2;   // capacity growth per layer, >= 1
  bool nonscaling = false;  // refuse keys when full instead of growing
  uint64_t seed = 0;        // the hash seed
};

class FilterStack {
 public:
  // Layer 0's share of the asked rate (NONSCALING: all of it).
  static constexpr double kFirstShare = 0.82;
  // The ratio of successive growth layers' rates: 0.6 with expansion >= 2,
  // 0.85 with expansion 1 (every layer the same size: a faster tightening
  // would add as many bits per key to each new layer).
  static constexpr double kTighteningGrowing = 0.6;
  static constexpr double kTighteningExpansion1 = 0.85;
  static double Tightening(uint32_t expansion) {
    return expansion >= 2 ? kTighteningGrowing : kTighteningExpansion1;
  }
  // The growth rule of stacks whose layer 0 leaves less than this fraction
  // of fp_rate to growth (those saved by earlier versions leave none):
  // each new layer at the previous one's rate times kLegacyTightening.
  static constexpr double kMinGrowthShare = 0.01;
  static constexpr double kLegacyTightening = 0.5;
  // The rate of layer 0 of a new stack.
  static double FirstLayerRate(const StackOptions& options);
  // The rate of layer `index` >= 1 of a stack asked for `fp_rate` whose
  // layer 0 has `first_rate` and whose previous layer has `previous_rate`.
  static double GrowthLayerRate(double fp_rate, double first_rate,
                                double previous_rate, uint32_t expansion,
                                size_t index);
  // Bounds on what a command may ask for. The rate's lower bound keeps the
  // bits per key below 100 or so (1e-30 needs ~150); expansion is capped so
  // that capacities cannot overflow in a handful of layers.
  static constexpr double kMinFpRate = 1e-15;
  static constexpr uint32_t kMaxExpansion = 32768;
  static constexpr size_t kMaxLayers = 64;

  // The most bytes of bits a stack may reserve, for every stack of the
  // process (the module's MAX_BYTES, set once at load): Create refuses a
  // larger layer 0 and a stack stops growing at it (ResourceExhausted).
  static void SetMaxBytes(uint64_t max_bytes);
  static uint64_t max_bytes();

  // InvalidArgument naming the bad option.
  static absl::Status ValidateOptions(const StackOptions& options);
  // A stack with layer 0 reserved (no piece allocated).
  static absl::StatusOr<FilterStack> Create(const StackOptions& options);
  // A stack of given layers (loading); options must be valid, layers not
  // empty.
  FilterStack(const StackOptions& options, std::vector<Layer> layers);

  uint64_t Hash(std::string_view item) const;
  bool MayContainHash(uint64_t hash) const;
  bool MayContain(std::string_view item) const {
    return MayContainHash(Hash(item));
  }
  // results[i] = MayContain(keys[i]), prefetching the blocks of a group of
  // keys in a layer before probing them, layer by layer.
  void MayContainBatch(absl::Span<const std::string_view> keys,
                       bool* results) const;
  // Adds a key: true if it was new, false if some layer may already hold it.
  // ResourceExhausted if the stack is full and NONSCALING, or cannot grow
  // (FailedPrecondition for a layer that cannot be sized).
  absl::StatusOr<bool> AddHash(uint64_t hash);
  absl::StatusOr<bool> Add(std::string_view item) {
    return AddHash(Hash(item));
  }
  // Adds keys in order; added[i] as Add would answer, or the error that
  // stopped it (the keys after it are not added, as RedisBloom's BF.MADD
  // stops at a full filter).
  void AddBatch(absl::Span<const std::string_view> keys,
                std::vector<absl::StatusOr<bool>>* added);

  const StackOptions& options() const { return options_; }
  uint64_t seed() const { return options_.seed; }
  const std::vector<Layer>& layers() const { return layers_; }
  std::vector<Layer>& layers() { return layers_; }
  // Keys added (distinct, give or take false positives).
  uint64_t num_insertions() const;
  // The expected false-positive rate of the stack as filled now: 1 - the
  // product over layers of (1 - the layer's exact rate for its count).
  double EstimatedFpRate() const;
  // Sum of the layers' capacities.
  uint64_t capacity() const;
  // Bytes of bits reserved by all layers, and bytes actually allocated.
  uint64_t reserved_bytes() const;
  uint64_t allocated_bytes() const;
  size_t allocated_pieces() const;

 private:
  absl::Status Grow();
  // blocks[i] = layer i's block of the hash (null: never written), each
  // prefetched; blocks has room for every layer.
  void PrefetchBlocks(uint64_t hash, const uint8_t** blocks) const;
  // Whether a layer may hold the hash, from blocks PrefetchBlocks found.
  bool MayContainInBlocks(uint64_t hash, const uint8_t* const* blocks) const;

  StackOptions options_;
  std::vector<Layer> layers_;
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_FILTER_STACK_H_
