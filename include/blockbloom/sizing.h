// Sizing a blockbloom filter: how many 64-byte blocks and how many probes.
//
// The false-positive rate of a blocked filter is not the textbook
// (1 - e^(-kn/m))^k: keys land in blocks unevenly (a block's load is
// binomial), and an overloaded block answers "maybe" far more often than the
// average one. These functions use the exact expectation for this layout
// (a binomial mixture over block loads of the per-block rate, with the
// per-block rate computed over blockbloom's 240 lane sets); see
// docs/ARCHITECTURE.md for the derivation. The textbook formula says 0.84% at
// 10 bits/key; the truth for this layout is 0.96%.
//
//   auto shape = blockbloom::ShapeForFpRate(/*num_keys=*/1'000'000, 0.01);
//   if (!shape.ok()) return shape.status();
//   // shape->num_blocks * 64 bytes of filter, shape->num_probes bits per key.
#ifndef BLOCKBLOOM_SIZING_H_
#define BLOCKBLOOM_SIZING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace blockbloom {

// The geometry of a filter: blocks of 16 lanes of lane_bits bits.
struct FilterShape {
  // Number of blocks, in [1, kMaxBlocks]. Any number: no power-of-two
  // rounding. With 32-bit lanes a block is 64 bytes, one cache line.
  uint64_t num_blocks = 0;
  // k: bits set per key, one in each of k distinct lanes of the key's block,
  // in [1, kMaxProbes].
  int num_probes = 0;
  // Bits per lane, in [1, 512]. 32 (a block is a 64-byte cache line) except
  // in small filters: the sizing functions make a filter of at most 8192 bits
  // (1 KiB) ONE block of 16 lanes of bits/16 bits, so that its size is not
  // rounded up to whole 64-byte blocks (a LevelDB filter for 37 keys at 10
  // bits/key is 48 bytes, not 64) and no block is more loaded than another.
  // Only 32-bit lanes have SIMD probes; other widths are probed by scalar
  // code (such filters are small and in cache).
  int lane_bits = 32;

  // The filter's bits: num_blocks * 16 lanes * lane_bits / 8.
  uint64_t size_bytes() const { return num_blocks * 2 * uint64_t(lane_bits); }

  static constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;  // 256 GiB
  static constexpr int kMaxProbes = 16;
  static constexpr int kMaxLaneBits = 512;

  friend bool operator==(const FilterShape&, const FilterShape&) = default;
};

// OK if `shape` is within the limits above; InvalidArgument naming the field
// otherwise.
absl::Status ValidateShape(const FilterShape& shape);

// The smallest shape with at least `bits_per_key` bits per key (fractional
// values are fine: 9.5 bits/key is 9.5 * num_keys / 512 blocks, rounded up),
// and the k that minimizes the false-positive rate for it. Filters of at most
// 8192 bits are one block (see lane_bits) unless `compact_small_filters` is
// false.
// InvalidArgument if num_keys is 0 or bits_per_key is not a positive finite
// number; OutOfRange if the filter would exceed kMaxBlocks blocks.
absl::StatusOr<FilterShape> ShapeForBitsPerKey(
    uint64_t num_keys, double bits_per_key, bool compact_small_filters = true);

// The smallest shape whose expected false-positive rate with `num_keys` keys
// is at most `fp_rate`, with its optimal k (small filters as above).
// InvalidArgument if num_keys is 0 or fp_rate is not in (0, 1); OutOfRange if
// no shape within kMaxBlocks blocks reaches it.
absl::StatusOr<FilterShape> ShapeForFpRate(uint64_t num_keys, double fp_rate,
                                           bool compact_small_filters = true);

// The k in [1, kMaxProbes] that minimizes the expected false-positive rate of
// `num_keys` keys in `num_blocks` blocks of `lane_bits`-bit lanes (the smaller
// k on a tie: fewer bits to set and test). InvalidArgument if num_blocks or
// lane_bits is out of range.
absl::StatusOr<int> OptimalNumProbes(uint64_t num_keys, uint64_t num_blocks,
                                     int lane_bits = 32);

// The expected false-positive rate of a filter of `shape` holding `num_keys`
// distinct keys: the probability that a key not in the set answers "may
// contain", averaged over hash functions (assumed ideal). 0 when num_keys is
// 0. InvalidArgument if the shape is invalid. Exact (for ideal hashes) down to
// 1e-7; below that, where an exact alternating sum loses its digits, a tight
// upper bound (at most ~3% high).
absl::StatusOr<double> EstimatedFpRate(const FilterShape& shape,
                                       uint64_t num_keys);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_SIZING_H_
