// Atomic access to a filter's bits, for the concurrent mode of BloomFilter.
// The layout is src/core/layout.h's, unchanged: ForEachBit gives the bit
// numbers, and each bit is reached through the aligned little-endian 32-bit
// word that holds it (word bit >> 5, bit bit & 31), as a
// std::atomic_ref<uint32_t>. With 32-bit lanes that word is the lane; other
// widths (1 to 512) work the same way because the bit numbering does not depend
// on the word size.
//
// Requirements on the memory: 4-byte aligned, and padded to a whole number of
// 32-bit words (AlignedBuffer pads to 64 bytes). Every access to the bits
// while other threads may add must go through these functions: a plain or
// SIMD load racing with a fetch-or is a data race (undefined behaviour, and
// ThreadSanitizer reports it).
//
// Memory order: relaxed everywhere. The one promise (BloomFilter documents
// it) is "an Add that happens-before a query is seen by it", and coherence of
// each word gives that without fences: bits are only ever set, so a load that
// happens after a fetch-or (or after a load that saw the bit) reads the bit
// set. Clear and Intersect clear bits and are outside that promise.
#ifndef BLOCKBLOOM_SRC_MEMORY_ATOMIC_BITS_H_
#define BLOCKBLOOM_SRC_MEMORY_ATOMIC_BITS_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "src/core/layout.h"

namespace blockbloom::internal {

static_assert(std::atomic_ref<uint32_t>::is_always_lock_free,
              "concurrent filters need lock-free 32-bit atomics");

inline std::atomic_ref<uint32_t> AtomicWord(const uint8_t* bits,
                                            uint64_t word) {
  // The bits are owned, mutable memory; const only reflects the caller's
  // view (a query).
  return std::atomic_ref<uint32_t>(
      *reinterpret_cast<uint32_t*>(const_cast<uint8_t*>(bits) + 4 * word));
}

// ReferenceAdd with atomic word operations. The key's bits are first only
// loaded; a fetch_or is issued for the clear ones alone, so adding a key that
// is present writes nothing (its line stays shared between cores), and a
// later query still sees every bit (read-read coherence).
inline bool AtomicAdd(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  if (f.lane_bits != kLaneBits) {  // other widths: bit by bit
    bool changed = false;
    ForEachBit(f, hash, [&](uint64_t bit) {
      const uint32_t mask = 1u << (bit & 31);
      std::atomic_ref<uint32_t> word = AtomicWord(bits, bit >> 5);
      if ((word.load(std::memory_order_relaxed) & mask) != 0) return;
      changed |= (word.fetch_or(mask, std::memory_order_relaxed) & mask) == 0;
    });
    return changed;
  }
  // 32-bit lanes: lane L of the key's block is word first + L.
  const uint32_t lo = static_cast<uint32_t>(hash);
  const uint64_t first = BlockIndex(hash, f.num_blocks) * kLanes;
  uint32_t clear = 0;  // lanes whose bit is not set yet
  for (uint32_t set = f.lane_sets[Selector(lo)]; set != 0; set &= set - 1) {
    const int lane = std::countr_zero(set);
    const uint32_t word =
        AtomicWord(bits, first + lane).load(std::memory_order_relaxed);
    clear |= static_cast<uint32_t>(((word >> BitInLane(lo, lane)) & 1) == 0)
             << lane;
  }
  bool changed = false;
  for (; clear != 0; clear &= clear - 1) {
    const int lane = std::countr_zero(clear);
    const uint32_t mask = 1u << BitInLane(lo, lane);
    changed |= (AtomicWord(bits, first + lane)
                    .fetch_or(mask, std::memory_order_relaxed) &
                mask) == 0;
  }
  return changed;
}

// ReferenceMayContain with atomic loads: k relaxed loads (plain loads on
// x86 and ARMv8) from the key's block, no branch per lane.
inline bool AtomicMayContain(const FilterRef& f, uint64_t hash) {
  uint32_t missing = 0;
  if (f.lane_bits != kLaneBits) {
    ForEachBit(f, hash, [&](uint64_t bit) {
      const uint32_t word =
          AtomicWord(f.bits, bit >> 5).load(std::memory_order_relaxed);
      missing |= ~(word >> (bit & 31)) & 1;
    });
    return missing == 0;
  }
  const uint32_t lo = static_cast<uint32_t>(hash);
  const uint64_t first = BlockIndex(hash, f.num_blocks) * kLanes;
  for (uint32_t set = f.lane_sets[Selector(lo)]; set != 0; set &= set - 1) {
    const int lane = std::countr_zero(set);
    const uint32_t word =
        AtomicWord(f.bits, first + lane).load(std::memory_order_relaxed);
    missing |= ~(word >> BitInLane(lo, lane)) & 1;
  }
  return missing == 0;
}

// The number of 32-bit words covering `bytes` bytes of bits.
inline uint64_t WordsFor(uint64_t bytes) { return (bytes + 3) / 4; }

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_MEMORY_ATOMIC_BITS_H_
