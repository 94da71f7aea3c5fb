// The column check of one ribbon query, per instruction set: the key's row
// against the words of its two blocks, every column's parity against its
// result bit. kernels.cc wraps each in the query and batch kernels; they
// answer what ReferenceMayContain (reference.h) answers.
//
// A check gets p = block b's words and q = block b+1's (q = p in a layer's
// last block, whose row has no bit in b+1), the row split at the block
// boundary (c0 for b's slots, c1 for b+1's), `cols` = kR or kR + 1 and the
// result bits. With `wide` (8 more blocks follow b + 1 in the layer) it may
// read whole vectors past the columns and mask what it read; without, only
// the columns' words (masked loads).
//
// Measured per probe in cache (single / batch of 32, against RocksDB's
// Ribbon): the scalar loop 0.61 / 0.54 without popcnt, 0.48 / 0.44 with it;
// AVX2 0.39 / 0.38; AVX-512 VPOPCNTQ 0.36 / 0.32. Out of cache the work per
// probe decides how many misses overlap: single probes 1.38 / 1.17 / 0.72 /
// 0.70. (Comparing the result bits in the vector domain: no gain.)
#ifndef BLOCKBLOOM_SRC_RIBBON_MATCH_H_
#define BLOCKBLOOM_SRC_RIBBON_MATCH_H_

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define BLOCKBLOOM_RIBBON_X86 1
#else
#define BLOCKBLOOM_RIBBON_X86 0
#endif

// GCC 12 warns, wrongly, that the _mm512_undefined_epi32() inside its own
// AVX-512 intrinsics "may be used uninitialized" once they are inlined: the
// files that use them (this one, back_substitution.cc) silence that warning
// around their AVX-512 code, and only there.
#if defined(__GNUC__) && !defined(__clang__)
#define BLOCKBLOOM_RIBBON_AVX512_BEGIN \
  _Pragma("GCC diagnostic push")       \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define BLOCKBLOOM_RIBBON_AVX512_END _Pragma("GCC diagnostic pop")
#else
#define BLOCKBLOOM_RIBBON_AVX512_BEGIN
#define BLOCKBLOOM_RIBBON_AVX512_END
#endif

namespace blockbloom::internal::ribbon {

inline uint64_t LoadWord(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

struct ScalarColumns {
  template <int kR>
  static inline __attribute__((always_inline)) bool Match(
      const uint8_t* p, const uint8_t* q, uint64_t c0, uint64_t c1, int cols,
      uint32_t result, bool wide) {
    uint32_t parities = 0;
#pragma GCC unroll 32
    for (int j = 0; j < kR; ++j) {
      const uint64_t t =
          (LoadWord(p + 8 * j) & c0) ^ (LoadWord(q + 8 * j) & c1);
      parities |= static_cast<uint32_t>(__builtin_parityll(t)) << j;
    }
    // Column kR exists only if cols = kR + 1; otherwise a word in bounds is
    // read and masked off.
    const int last = wide ? kR : cols - 1;
    const uint64_t t =
        (LoadWord(p + 8 * last) & c0) ^ (LoadWord(q + 8 * last) & c1);
    parities |= static_cast<uint32_t>(__builtin_parityll(t)) << kR;
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << cols) - 1);
    return ((parities ^ result) & mask) == 0;
  }
};

#if BLOCKBLOOM_RIBBON_X86
BLOCKBLOOM_RIBBON_AVX512_BEGIN
// Eight columns per 512-bit vector: AND with the row's halves, VPOPCNTQ,
// and the low bit of each count is the column's parity (VPTESTMQ). Plain
// loads when wide: masked loads are slow when they miss the cache.
struct Avx512Columns {
  template <int kR>
  static inline __attribute__((target("avx512f,avx512vpopcntdq"))) bool Match(
      const uint8_t* p, const uint8_t* q, uint64_t c0, uint64_t c1, int cols,
      uint32_t result, bool wide) {
    constexpr int kGroups = (kR + 1 + 7) / 8;
    const __m512i v0 = _mm512_set1_epi64(static_cast<long long>(c0));
    const __m512i v1 = _mm512_set1_epi64(static_cast<long long>(c1));
    const __m512i one = _mm512_set1_epi64(1);
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << cols) - 1);
    uint32_t parities = 0;
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      __m512i a;
      __m512i b;
      if (wide) {
        a = _mm512_loadu_si512(p + 64 * g);
        b = _mm512_loadu_si512(q + 64 * g);
      } else {
        const __mmask8 m = static_cast<__mmask8>(mask >> (8 * g));
        a = _mm512_maskz_loadu_epi64(m, p + 64 * g);
        b = _mm512_maskz_loadu_epi64(m, q + 64 * g);
      }
      const __m512i t =
          _mm512_xor_si512(_mm512_and_si512(a, v0), _mm512_and_si512(b, v1));
      parities |= static_cast<uint32_t>(
                      _mm512_test_epi64_mask(_mm512_popcnt_epi64(t), one))
                  << (8 * g);
    }
    return ((parities ^ result) & mask) == 0;
  }
};
BLOCKBLOOM_RIBBON_AVX512_END

// Four columns per 256-bit vector, the result bit XORed into each lane
// (t_j = row & words ^ f_j: a match needs every parity(t_j) = 0). Parities
// by folding: 64 -> 32 bits (two vectors blended into one), then 32 -> 1;
// OR over the vectors and one VPTEST.
struct Avx2Columns {
  template <int kR>
  static inline __attribute__((target("avx2"))) bool Match(
      const uint8_t* p, const uint8_t* q, uint64_t c0, uint64_t c1, int cols,
      uint32_t result, bool wide) {
    constexpr int kGroups = (kR + 1 + 3) / 4;
    const __m256i v0 = _mm256_set1_epi64x(static_cast<long long>(c0));
    const __m256i v1 = _mm256_set1_epi64x(static_cast<long long>(c1));
    const __m256i fv = _mm256_set1_epi64x(result);
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
    __m256i any = _mm256_setzero_si256();
    __m256i pending = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      const __m256i index = _mm256_add_epi64(lane, _mm256_set1_epi64x(4 * g));
      __m256i a;
      __m256i b;
      __m256i f = _mm256_and_si256(_mm256_srlv_epi64(fv, index), one);
      if (g + 1 < kGroups) {
        a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * g));
        b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * g));
      } else {
        const __m256i live =
            _mm256_cmpgt_epi64(_mm256_set1_epi64x(cols), index);
        if (wide) {
          a = _mm256_and_si256(
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * g)),
              live);
          b = _mm256_and_si256(
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * g)),
              live);
        } else {
          a = _mm256_maskload_epi64(
              reinterpret_cast<const long long*>(p + 32 * g), live);
          b = _mm256_maskload_epi64(
              reinterpret_cast<const long long*>(q + 32 * g), live);
        }
        f = _mm256_and_si256(f, live);
      }
      const __m256i t = _mm256_xor_si256(
          _mm256_xor_si256(_mm256_and_si256(a, v0), _mm256_and_si256(b, v1)),
          f);
      if ((g & 1) == 0) {
        pending = _mm256_xor_si256(t, _mm256_srli_epi64(t, 32));  // low halves
        if (g + 1 < kGroups) continue;
        pending = _mm256_blend_epi32(pending, _mm256_setzero_si256(), 0xAA);
      } else {
        const __m256i high = _mm256_xor_si256(t, _mm256_slli_epi64(t, 32));
        pending = _mm256_blend_epi32(pending, high, 0xAA);
      }
      __m256i z = pending;
      z = _mm256_xor_si256(z, _mm256_srli_epi32(z, 16));
      z = _mm256_xor_si256(z, _mm256_srli_epi32(z, 8));
      z = _mm256_xor_si256(z, _mm256_srli_epi32(z, 4));
      z = _mm256_xor_si256(z, _mm256_srli_epi32(z, 2));
      z = _mm256_xor_si256(z, _mm256_srli_epi32(z, 1));
      any = _mm256_or_si256(any, z);
    }
    return _mm256_testz_si256(any, _mm256_set1_epi32(1));
  }
};
#endif  // BLOCKBLOOM_RIBBON_X86

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_MATCH_H_
