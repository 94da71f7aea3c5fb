// THE derivation of everything a ribbon filter knows about a key from its one
// 64-bit hash (Hash64 of src/core/key_hash.h, XXH3-64 with the filter's
// seed): in which layer it is looked up, where its row starts, its 64
// coefficient bits and its result bits. The builder, the scalar reference
// (reference.h) and every query kernel (kernels.cc) call these functions and
// nothing else; changing a constant here changes the file format
// (docs/FORMAT.md, "Ribbon encoding").
//
// Per layer L the key has a 64-bit value x_L:
//
//   x_0     = h                          (salt 0: no work on the hot path)
//           = Remix(h ^ salt * kSaltMul) (a retry with salt 1, 2, 3)
//   x_{L+1} = Remix(x_L)                 (a key bumped from layer L)
//
// and from x (the three are different odd-multiplier views of the same 64
// bits, not disjoint bit ranges: 24 start bits + 64 coefficient bits + up to
// 32 result bits would not fit in 64):
//
//   start        = (x * num_starts) >> 64   (multiply-shift range reduction of
//                                            the high bits; any num_starts)
//   coefficients = (x * kCoeffMul) | 1      (64 bits; bit 0 set so that the
//                                            row's first slot is `start`)
//   result bits  = (x * kResultMul) >> 32   (column j checks bit j)
//
// Is 64 bits enough? The false-positive argument only needs a non-member's
// result bits to look independent of its (start, coefficients), and odd
// multiplications are not GF(2)-linear, so they do: the measured rate equals
// the exact expectation within 3 sigma in every test, and within 1.8 sigma
// over 2*10^8 probes (the prototype's fprcheck). What is lost is only that
// keys of equal 64-bit hashes are the same key to the filter: a floor of
// n / 2^64 added false positives (5e-13 at 10M keys), and never a failed
// build, since equal rows are consistent. RocksDB's Ribbon has the same
// 64-bit basis.
#ifndef BLOCKBLOOM_SRC_RIBBON_KEY_BITS_H_
#define BLOCKBLOOM_SRC_RIBBON_KEY_BITS_H_

#include <cstdint>

namespace blockbloom::internal::ribbon {

// Odd 64-bit constants: 2^64 / the golden ratio (coefficients), XXH64's
// PRIME64_2 (result bits), MurmurHash3's fmix64 multiplier (salt), and an
// odd multiplier of published xorshift-multiply mixers (remix). Any odd
// "random-looking" values would do; these are fixed by the format.
inline constexpr uint64_t kCoeffMul = 0x9E3779B97F4A7C15ull;
inline constexpr uint64_t kResultMul = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t kRemixMul = 0xD6E8FEB86659FD93ull;
inline constexpr uint64_t kSaltMul = 0xFF51AFD7ED558CCDull;

inline uint64_t MulHi64(uint64_t a, uint64_t b) {
  __extension__ using Uint128 = unsigned __int128;
  return static_cast<uint64_t>((Uint128{a} * b) >> 64);
}

// A bijective mixer (xorshift, odd multiply, xorshift): the next layer's x.
// Bijective, so distinct keys stay distinct in every layer.
inline uint64_t Remix(uint64_t x) {
  x ^= x >> 32;
  x *= kRemixMul;
  x ^= x >> 29;
  return x;
}

// x_0 for the filter's salt. A retry changes only this derivation, so the
// builder never rehashes a key.
inline uint64_t LayerZeroHash(uint64_t hash, uint32_t salt) {
  return salt == 0 ? hash : Remix(hash ^ (salt * kSaltMul));
}

// x_L.
inline uint64_t LayerHash(uint64_t hash, uint32_t salt, int layer) {
  uint64_t x = LayerZeroHash(hash, salt);
  for (int i = 0; i < layer; ++i) x = Remix(x);
  return x;
}

// The key's start slot in a layer of `num_starts` starts.
inline uint32_t Start(uint64_t x, uint32_t num_starts) {
  return static_cast<uint32_t>(MulHi64(x, num_starts));
}

// The key's row: coefficient bit i applies to slot start + i.
inline uint64_t Coefficients(uint64_t x) { return (x * kCoeffMul) | 1; }

// The key's result bits: the filter stores, for every stored key and every
// column j it has, parity(row & solution column j) == bit j of these.
inline uint32_t ResultBits(uint64_t x) {
  return static_cast<uint32_t>((x * kResultMul) >> 32);
}

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_KEY_BITS_H_
