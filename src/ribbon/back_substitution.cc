#include "src/ribbon/back_substitution.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "src/ribbon/layout.h"
#include "src/ribbon/match.h"

namespace blockbloom::internal::ribbon {
namespace {

inline void StoreWord(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// kColumns columns, state[j] bit k = solution bit of column j at row i+1+k.
template <int kColumns, typename Row>
inline __attribute__((always_inline)) void ScalarBody(const uint64_t* coeff,
                                                      const Row* result,
                                                      uint32_t num_blocks,
                                                      uint32_t upper_start,
                                                      int r, uint8_t* out) {
  uint64_t state[kColumns];
  for (int j = 0; j < kColumns; ++j) state[j] = 0;
  for (uint32_t b = num_blocks; b-- > 0;) {
    for (int k = 63; k >= 0; --k) {
      const size_t i = size_t{b} * 64 + static_cast<size_t>(k);
      const uint64_t c = coeff[i];
      // A row without a pivot may hold an undone key's stale result.
      const uint32_t rr = c != 0 ? static_cast<uint32_t>(result[i]) : 0;
      // parity((state << 1) & c) == parity(state & (c >> 1)): the shift is
      // off the dependency chain.
      const uint64_t ch = c >> 1;
#pragma GCC unroll 32
      for (int j = 0; j < kColumns; ++j) {
        const uint64_t bit =
            (static_cast<uint64_t>(__builtin_parityll(state[j] & ch)) ^
             (rr >> j)) &
            1;
        state[j] = (state[j] << 1) | bit;
      }
    }
    uint8_t* words = out + 8 * WordsBefore(b, upper_start, r);
    const int cols = ColumnsOfBlock(b, upper_start, r);
#pragma GCC unroll 32
    for (int j = 0; j < kColumns; ++j) {
      if (j < cols) StoreWord(words + 8 * j, state[j]);
    }
  }
}

template <int kColumns, typename Row>
__attribute__((flatten)) void SolvePlain(const uint64_t* coeff,
                                         const Row* result, uint32_t blocks,
                                         uint32_t upper, int r, uint8_t* out) {
  ScalarBody<kColumns>(coeff, result, blocks, upper, r, out);
}

#if BLOCKBLOOM_RIBBON_X86
template <int kColumns, typename Row>
__attribute__((flatten, target("popcnt"))) void SolvePopcnt(
    const uint64_t* coeff, const Row* result, uint32_t blocks, uint32_t upper,
    int r, uint8_t* out) {
  ScalarBody<kColumns>(coeff, result, blocks, upper, r, out);
}

BLOCKBLOOM_RIBBON_AVX512_BEGIN
// Lane j of vector g = column 8g + j; per row
// state = (state << 1) | ((popcnt(state & (c >> 1)) ^ rr_j) & 1).
template <int kColumns, typename Row>
__attribute__((target("avx512f,avx512vpopcntdq"))) void SolveAvx512(
    const uint64_t* coeff, const Row* result, uint32_t num_blocks,
    uint32_t upper_start, int r, uint8_t* out) {
  constexpr int kGroups = (kColumns + 7) / 8;
  __m512i state[kGroups];
  __m512i shift[kGroups];
  const __m512i one = _mm512_set1_epi64(1);
  for (int g = 0; g < kGroups; ++g) {
    state[g] = _mm512_setzero_si512();
    shift[g] = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                _mm512_set1_epi64(8 * g));
  }
  for (uint32_t b = num_blocks; b-- > 0;) {
    const uint64_t* cb = coeff + size_t{b} * 64;
    const Row* rb = result + size_t{b} * 64;
    // Rows k + 1, then k: row k's parity is popcnt(state & (c_k >> 2))
    // (computed alongside row k + 1) plus row k + 1's new bit times bit 1
    // of c_k.
    for (int k = 62; k >= 0; k -= 2) {
      const uint64_t c1 = cb[k + 1];
      const uint64_t c0 = cb[k];
      const uint64_t r1 = c1 != 0 ? static_cast<uint64_t>(rb[k + 1]) : 0;
      const uint64_t r0 = c0 != 0 ? static_cast<uint64_t>(rb[k]) : 0;
      const __m512i cv1 = _mm512_set1_epi64(static_cast<long long>(c1 >> 1));
      const __m512i cv0 = _mm512_set1_epi64(static_cast<long long>(c0 >> 2));
      const __m512i m0 =
          _mm512_set1_epi64(static_cast<long long>((c0 >> 1) & 1));
      const __m512i rv1 = _mm512_set1_epi64(static_cast<long long>(r1));
      const __m512i rv0 = _mm512_set1_epi64(static_cast<long long>(r0));
#pragma GCC unroll 4
      for (int g = 0; g < kGroups; ++g) {
        const __m512i p1 = _mm512_popcnt_epi64(_mm512_and_si512(state[g], cv1));
        const __m512i q0 = _mm512_xor_si512(
            _mm512_popcnt_epi64(_mm512_and_si512(state[g], cv0)),
            _mm512_srlv_epi64(rv0, shift[g]));
        // b1 = (p1 ^ r1_j) & 1
        const __m512i b1 = _mm512_ternarylogic_epi64(
            p1, _mm512_srlv_epi64(rv1, shift[g]), one, 0x28);
        // b0 = (q0 ^ (b1 & m0)) & 1
        const __m512i b0 =
            _mm512_and_si512(_mm512_ternarylogic_epi64(q0, b1, m0, 0x78), one);
        // state = state << 2 | b1 << 1 | b0
        state[g] = _mm512_ternarylogic_epi64(
            _mm512_slli_epi64(state[g], 2), _mm512_slli_epi64(b1, 1), b0, 0xFE);
      }
    }
    uint8_t* words = out + 8 * WordsBefore(b, upper_start, r);
    const int cols = ColumnsOfBlock(b, upper_start, r);
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << cols) - 1);
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      _mm512_mask_storeu_epi64(
          words + 64 * g, static_cast<__mmask8>(mask >> (8 * g)), state[g]);
    }
  }
}
BLOCKBLOOM_RIBBON_AVX512_END
#endif  // BLOCKBLOOM_RIBBON_X86

template <typename Row>
using SolveFn = void (*)(const uint64_t*, const Row*, uint32_t, uint32_t, int,
                         uint8_t*);

template <typename Row, int... kCs>
SolveFn<Row> Pick(int columns, Isa isa, std::integer_sequence<int, kCs...>) {
  static constexpr SolveFn<Row> kPlain[] = {&SolvePlain<kCs + 1, Row>...};
  const int i = std::clamp(columns, 1, static_cast<int>(sizeof...(kCs))) - 1;
#if BLOCKBLOOM_RIBBON_X86
  static constexpr SolveFn<Row> kPopcnt[] = {&SolvePopcnt<kCs + 1, Row>...};
  static constexpr SolveFn<Row> kAvx512[] = {&SolveAvx512<kCs + 1, Row>...};
  if (isa == Isa::kAvx512) return kAvx512[i];
  if (isa != Isa::kPlain) return kPopcnt[i];
#else
  (void)isa;
#endif
  return kPlain[i];
}

}  // namespace

template <typename Row>
void BackSubstitute(const uint64_t* coeff, const Row* result,
                    uint32_t num_blocks, uint32_t upper_start, int r,
                    int columns, Isa isa, uint8_t* out) {
  // Rows of up to 16 columns are 16 bits, of up to 32 columns 32 bits.
  Pick<Row>(columns, isa, std::make_integer_sequence<int, 8 * sizeof(Row)>{})(
      coeff, result, num_blocks, upper_start, r, out);
}

template void BackSubstitute(const uint64_t*, const uint16_t*, uint32_t,
                             uint32_t, int, int, Isa, uint8_t*);
template void BackSubstitute(const uint64_t*, const uint32_t*, uint32_t,
                             uint32_t, int, int, Isa, uint8_t*);

}  // namespace blockbloom::internal::ribbon
