// What a Redis key of the module's type holds: a scalable stack of layers,
// RedisBloom's scalable filter (Almeida et al. 2007) on blockbloom layers.
//
// Layer 0 is sized for `capacity` keys at `error_rate`. When the newest layer
// holds as many keys as it was sized for, the next add starts a new layer
// with `expansion` times its capacity and half its rate (RedisBloom's
// tightening ratio 0.5), so the stack's rate stays below
// error_rate * (1 + 1/2 + 1/4 + ...) < 2 * error_rate however far it grows,
// and is error_rate while it has one layer. A NONSCALING stack refuses keys
// instead of growing.
//
// A key is added once: an add first probes every layer and adds nothing if
// one says "may contain" (so the item count is of distinct keys, give or take
// false positives, as in RedisBloom).
//
// Keys are hashed once per command with XXH3-64 and the stack's seed
// (HashKey); every layer probes that one hash.
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
  double error_rate = 0.01;  // in (0, 1)
  uint64_t capacity = 100;   // keys of layer 0, >= 1
  uint32_t expansion = 2;    // capacity growth per layer, >= 1
  bool nonscaling = false;   // refuse keys when full instead of growing
  uint64_t seed = 0;         // the hash seed
};

class FilterStack {
 public:
  // Each new layer's rate is the previous one's times this.
  static constexpr double kTightening = 0.5;
  // Bounds on what a command may ask for. The rate's lower bound keeps the
  // bits per key below 100 or so (1e-30 needs ~150); expansion is capped so
  // that capacities cannot overflow in a handful of layers.
  static constexpr double kMinErrorRate = 1e-15;
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
  // results[i] = MayContain(items[i]), prefetching the blocks of a group of
  // keys before probing them.
  void MayContainBatch(absl::Span<const std::string_view> items,
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
  void AddBatch(absl::Span<const std::string_view> items,
                std::vector<absl::StatusOr<bool>>* added);

  const StackOptions& options() const { return options_; }
  uint64_t seed() const { return options_.seed; }
  const std::vector<Layer>& layers() const { return layers_; }
  std::vector<Layer>& layers() { return layers_; }
  // Keys added (distinct, give or take false positives).
  uint64_t items() const;
  // Sum of the layers' capacities.
  uint64_t capacity() const;
  // Bytes of bits reserved by all layers, and bytes actually allocated.
  uint64_t reserved_bytes() const;
  uint64_t allocated_bytes() const;
  size_t allocated_pieces() const;

 private:
  absl::Status Grow();

  StackOptions options_;
  std::vector<Layer> layers_;
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_FILTER_STACK_H_
