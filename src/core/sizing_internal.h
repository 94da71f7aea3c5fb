// Rates of layouts that only the accurate encoding builds
// (src/exact_size/exact_size.cc): the sizing math of src/core/sizing.cc applied
// to them.
#ifndef BLOCKBLOOM_SRC_CORE_SIZING_INTERNAL_H_
#define BLOCKBLOOM_SRC_CORE_SIZING_INTERNAL_H_

#include <cstdint>

namespace blockbloom::internal {

// The expected false-positive rate of `num_keys` keys in a one-block filter
// of `num_bits` bits in spread lanes (src/core/layout.h) with k probes.
double OneBlockFpRate(uint64_t num_keys, uint64_t num_bits, int k);

// The k in [1, 16] with the lowest such rate (the smaller on a tie), and
// that rate.
int OneBlockBestK(uint64_t num_keys, uint64_t num_bits, double* rate);

// The expected false-positive rate of `num_keys` keys in a standard Bloom
// filter of `num_bits` bits with k probes (the in-place encoding's layout,
// src/core/layout.h): (1 - (1 - 1/m)^(k n))^k.
double StandardFpRate(uint64_t num_keys, uint64_t num_bits, int k);

// The k in [1, 16] with the lowest such rate (the smaller on a tie), and
// that rate.
int StandardBestK(uint64_t num_keys, uint64_t num_bits, double* rate);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_SIZING_INTERNAL_H_
