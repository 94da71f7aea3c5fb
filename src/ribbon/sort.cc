#include "src/ribbon/sort.h"

#include <utility>
#include <vector>

#include "src/ribbon/key_bits.h"

namespace blockbloom::internal::ribbon {
namespace {

// kPasses passes of `bits_per_pass` bits, the counts of every pass from one
// read of the keys; an even number of passes, so the keys end in `keys`. The
// layer-0 keys of salt 0 are their own x (kIdentity: no hash derivation per
// read). A specialised sort like this (one counting read, two passes
// unrolled) made the whole build faster than a generic one did.
template <int kPasses, bool kIdentity>
void RadixSort(uint64_t* keys, uint64_t* buffer, size_t n, uint32_t num_starts,
               uint32_t salt, int layer, int bits_per_pass) {
  const uint32_t mask = (1u << bits_per_pass) - 1;
  std::vector<uint32_t> counts(static_cast<size_t>(kPasses) << bits_per_pass,
                               0);
  auto order = [&](uint64_t hash) __attribute__((always_inline)) {
    const uint64_t x = kIdentity ? hash : LayerHash(hash, salt, layer);
    return BandingOrder(Start(x, num_starts));
  };
  uint32_t* const count = counts.data();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t key = order(keys[i]);
#pragma GCC unroll 4
    for (int pass = 0; pass < kPasses; ++pass) {
      ++count[(static_cast<size_t>(pass) << bits_per_pass) +
              ((key >> (pass * bits_per_pass)) & mask)];
    }
  }
  uint64_t* from = keys;
  uint64_t* to = buffer;
  for (int pass = 0; pass < kPasses; ++pass) {
    uint32_t* c = count + (static_cast<size_t>(pass) << bits_per_pass);
    uint32_t sum = 0;
    for (uint32_t digit = 0; digit <= mask; ++digit) {
      const uint32_t here = c[digit];
      c[digit] = sum;
      sum += here;
    }
    const int shift = pass * bits_per_pass;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t hash = from[i];
      to[c[(order(hash) >> shift) & mask]++] = hash;
    }
    std::swap(from, to);
  }
}

}  // namespace

void SortForBanding(uint64_t* keys, uint64_t* buffer, size_t n,
                    uint32_t num_starts, uint32_t salt, int layer) {
  int bits = 1;
  while ((uint64_t{1} << bits) < num_starts) ++bits;
  // Digits of at most 12 bits (counts in L1), an even number of passes.
  int passes = (bits + 11) / 12;
  if (passes & 1) ++passes;
  const int per_pass = (bits + passes - 1) / passes;
  const bool identity = salt == 0 && layer == 0;
  if (passes == 2) {
    (identity ? RadixSort<2, true> : RadixSort<2, false>)(keys, buffer, n,
                                                          num_starts, salt,
                                                          layer, per_pass);
  } else {
    (identity ? RadixSort<4, true> : RadixSort<4, false>)(keys, buffer, n,
                                                          num_starts, salt,
                                                          layer, per_pass);
  }
}

}  // namespace blockbloom::internal::ribbon
