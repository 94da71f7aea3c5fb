// One layer of a Redis filter: a blockbloom filter (blocked layout, the
// one derivation of src/core/layout.h) whose bits live in a PieceTable, with
// the capacity and false-positive rate it was sized for.
//
// A layer probes with the same kernels as blockbloom::Filter: the block
// index comes from the hash's high 32 bits over the layer's num_blocks, and
// the kernel then probes that one block as a one-block filter (the in-block
// pattern uses only the low 32 bits), the trick src/redis uses for blocks it
// reads with GETRANGE. So a layer's bits are byte for byte the bits of a
// Filter of the same shape and seed: BB.DUMP writes them as a filter file and
// BB.LOAD reads one.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_LAYER_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_LAYER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "blockbloom/internal/filter_ref.h"
#include "blockbloom/sizing.h"
#include "src/core/probe.h"
#include "src/filter_stack/piece_table.h"

namespace blockbloom::redis_module {

class Layer {
 public:
  // A layer sized by ShapeForFpRate for `capacity` keys at `fp_rate`, with
  // 64-byte blocks however small (no one-block small filters: every layer of
  // a stack has the SIMD kernels, and the difference is under 64 bytes).
  static absl::StatusOr<Layer> Create(uint64_t capacity, double fp_rate);
  // A layer of a given shape holding `count` keys (loading). The shape must
  // be valid (ValidateShape).
  Layer(const FilterShape& shape, uint64_t capacity, double fp_rate,
        uint64_t count);

  bool MayContain(uint64_t hash) const {
    const uint8_t* block = table_.FindBlock(BlockOf(hash));
    if (block == nullptr) return false;
    internal::FilterRef ref = ref_;
    ref.bits = block;
    return kernels_->probe_hash(ref, hash);
  }
  // The block a hash probes (null if never written): for prefetching.
  const uint8_t* FindBlock(uint64_t hash) const {
    return table_.FindBlock(BlockOf(hash));
  }
  // Probes a block found with FindBlock (non-null).
  bool MayContainInBlock(const uint8_t* block, uint64_t hash) const {
    internal::FilterRef ref = ref_;
    ref.bits = block;
    return kernels_->probe_hash(ref, hash);
  }
  // Sets the hash's bits and counts one more key. Returns whether any bit
  // was clear.
  bool Add(uint64_t hash);

  const FilterShape& shape() const { return shape_; }
  uint64_t capacity() const { return capacity_; }
  double fp_rate() const { return fp_rate_; }
  uint64_t count() const { return count_; }
  void set_count(uint64_t count) { count_ = count; }
  bool full() const { return count_ >= capacity_; }
  const PieceTable& table() const { return table_; }
  PieceTable& table() { return table_; }

 private:
  uint64_t BlockOf(uint64_t hash) const {
    return internal::BlockIndex(hash, shape_.num_blocks);
  }

  FilterShape shape_;
  uint64_t capacity_;
  double fp_rate_;
  uint64_t count_;
  // The kernels for the shape's lane width, and a one-block FilterRef whose
  // `bits` each probe points at its block.
  const internal::Kernels* kernels_;
  internal::FilterRef ref_;
  PieceTable table_;
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_LAYER_H_
