#include "bench/filters/floor.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace blockbloom::bench {
namespace {

// The floor's work per probe: all of one 64-byte line, in as few loads as
// the CPU allows (one 64-byte load with AVX-512, two with AVX2, else eight).
// Fewer loads matter: with eight 8-byte loads per line, 32 lines in flight
// fill the load queue and the "floor" would sit above filters that load a
// line at once. The result depends on every byte and is (practically) never
// true, so the floor's fpr% is ~0 and meaningless.
inline const uint8_t* LineOf(const uint8_t* bits, uint64_t blocks, uint64_t h) {
  return bits + ((h >> 32) * blocks >> 32) * 64;
}

bool ReadLine8(const uint8_t* line) {
  uint64_t acc = 0;
  for (int w = 0; w < 8; ++w) {
    uint64_t word;
    std::memcpy(&word, line + 8 * w, 8);
    acc ^= word;
  }
  return acc == 0x9e3779b97f4a7c15ULL;
}

__attribute__((target("avx2"))) inline bool ReadLine32(const uint8_t* line) {
  const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i b =
      _mm256_load_si256(reinterpret_cast<const __m256i*>(line + 32));
  return _mm256_testc_si256(_mm256_xor_si256(a, b), _mm256_set1_epi64x(-1)) !=
         0;
}

__attribute__((target("avx512f"))) inline bool ReadLine64(const uint8_t* line) {
  const __m512i v = _mm512_load_si512(line);
  return _mm512_cmpeq_epi64_mask(v, _mm512_set1_epi64(-1)) == 0xff;
}

// One call per probe or per batch, like a filter's kernels. The batch is
// pipelined as blockbloom's (src/core/probe.cc, ForEachPrefetchedBlock): line i
// is prefetched 32 keys before it is read, so a batch of up to 32 is one
// group (prefetch all, then read all) and longer batches read one group
// while the next is in flight. The same pipeline as the filter (unrolled by
// 2 as well), so that the ratio to the floor measures the filter's work, not
// a different schedule.
#define BLOCKBLOOM_FLOOR_KERNELS(NAME, TARGET, READ)                           \
  TARGET bool NAME##Single(const uint8_t* bits, uint64_t blocks, uint64_t h) { \
    return READ(LineOf(bits, blocks, h));                                      \
  }                                                                            \
  TARGET void NAME##Batch(const uint8_t* bits, uint64_t blocks,                \
                          const uint64_t* h, size_t n, bool* results) {        \
    constexpr size_t kAhead = 32;                                              \
    const uint8_t* lines[kAhead];                                              \
    const auto fetch = [&](size_t i) {                                         \
      lines[i % kAhead] = LineOf(bits, blocks, h[i]);                          \
      _mm_prefetch(reinterpret_cast<const char*>(lines[i % kAhead]),           \
                   _MM_HINT_T0);                                               \
    };                                                                         \
    if (n <= kAhead) {                                                         \
      _Pragma("GCC unroll 2") for (size_t i = 0; i < n; ++i) fetch(i);         \
      _Pragma("GCC unroll 2") for (size_t i = 0; i < n; ++i) {                 \
        results[i] = READ(lines[i]);                                           \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    _Pragma("GCC unroll 2") for (size_t i = 0; i < kAhead; ++i) fetch(i);      \
    size_t i = 0;                                                              \
    _Pragma("GCC unroll 2") for (; i + kAhead < n; ++i) {                      \
      results[i] = READ(lines[i % kAhead]);                                    \
      fetch(i + kAhead);                                                       \
    }                                                                          \
    for (; i < n; ++i) results[i] = READ(lines[i % kAhead]);                   \
  }

BLOCKBLOOM_FLOOR_KERNELS(Floor8, , ReadLine8)
BLOCKBLOOM_FLOOR_KERNELS(Floor32, __attribute__((target("avx2"))), ReadLine32)
BLOCKBLOOM_FLOOR_KERNELS(Floor64, __attribute__((target("avx512f"))),
                         ReadLine64)
#undef BLOCKBLOOM_FLOOR_KERNELS

}  // namespace

const FloorChoice& Floor() {
  static const FloorChoice choice =
      __builtin_cpu_supports("avx512f")
          ? FloorChoice{&Floor64Single, &Floor64Batch,
                        "one 64-byte load per line (AVX-512)"}
      : __builtin_cpu_supports("avx2")
          ? FloorChoice{&Floor32Single, &Floor32Batch,
                        "two 32-byte loads per line (AVX2)"}
          : FloorChoice{&Floor8Single, &Floor8Batch,
                        "eight 8-byte loads per line"};
  return choice;
}

}  // namespace blockbloom::bench
