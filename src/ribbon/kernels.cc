// The query and batch kernels of ribbon filters, unrolled per r (1 .. 31)
// and compiled once per instruction set (the target attributes below), over
// the column checks of match.h. Every step derives from key_bits.h and
// layout.h, as the reference (reference.h) does.
//
// How they were made fast (the prototype's REPORT, section 10.4; ratios are
// our time over RocksDB Ribbon's on absent keys):
// - The word offset of block b is b * r + max(b - upper_start, 0), and
//   b >= upper_start is a coin flip (about 70% of blocks have r + 1 columns
//   at 1%): computed without a branch, it made the AVX-512 kernel in cache
//   faster, single and batch.
// - Keys bumped from layer 0 (about 5% of absent keys) continue in an
//   out-of-line function, so the common path has no prologue pushes.
// - A batch computes its 32 positions once and prefetches both blocks'
//   words and the code byte before it tests any: faster in cache too.
// - A single query prefetches the first and last line of its two blocks'
//   words before it reads the layer's code byte. Out of cache, the words'
//   misses otherwise wait behind the code's: without the prefetch a single
//   probe took about as long as one with two dependent misses; with it, as
//   long as one that reads no code at all (measured with the code check
//   removed), so storing the codes among the words could gain nothing more
//   (docs/BENCHMARKS.md, "Ribbon kind").
// - Tried and dropped: the layer chosen by a conditional move instead of a
//   branch ("eager layer 1": single probes slower); codes stored among the
//   words (no gain out of cache, more instructions).
#include "src/ribbon/kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "src/core/key_hash.h"
#include "src/core/kind.h"
#include "src/ribbon/key_bits.h"
#include "src/ribbon/layout.h"
#include "src/ribbon/match.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {
namespace {

#define BLOCKBLOOM_RIBBON_INLINE inline __attribute__((always_inline))

struct Position {
  const uint8_t* words;  // block b's first word
  uint32_t start;
};

template <int kR>
BLOCKBLOOM_RIBBON_INLINE Position Locate(const RibbonLayerView& lv,
                                         uint64_t x) {
  const uint32_t start = Start(x, lv.num_starts);
  const uint32_t block = start >> 6;
  const uint32_t upper = lv.upper_start;
  // WordsBefore(block, upper, kR), the max without a branch (above).
  const size_t words =
      size_t{block} * kR +
      ((block - upper) & (0u - static_cast<uint32_t>(block > upper)));
  return {lv.words + 8 * words, start};
}

BLOCKBLOOM_RIBBON_INLINE bool Bumped(const RibbonView& view,
                                     const RibbonLayerView& lv,
                                     uint32_t start) {
  // BucketCode(lv.codes, start >> kLogBucket), in one shift of start.
  const uint32_t code = (lv.codes[start >> (kLogBucket + 2)] >>
                         ((start >> (kLogBucket - 1)) & 6)) &
                        3;
  return (start & (kBucketSize - 1)) < view.bump_below[code];
}

template <int kR, class Columns>
BLOCKBLOOM_RIBBON_INLINE bool MatchAt(const RibbonLayerView& lv,
                                      const Position& pos, uint64_t x) {
  const uint32_t block = pos.start >> 6;
  const uint32_t offset = pos.start & 63;
  const int cols = kR + (block >= lv.upper_start ? 1 : 0);
  // Block b + 1 follows b's cols words; the last block's row has no bit in
  // a next block (its only start is its first slot).
  const uint8_t* next =
      block + 1 < lv.num_blocks ? pos.words + 8 * cols : pos.words;
  const uint64_t row = Coefficients(x);
  const uint64_t c0 = row << offset;
  const uint64_t c1 = (row >> 1) >> (63 - offset);
  // Whole vectors from `next` stay in the layer when 8 more blocks follow.
  const bool wide = block + 9 < lv.num_blocks;
  return Columns::template Match<kR>(pos.words, next, c0, c1, cols,
                                     ResultBits(x), wide);
}

// Layers 1 and up, for a key bumped from layer 0 (x is its layer-0 value).
template <int kR, class Columns>
BLOCKBLOOM_RIBBON_INLINE bool QueryUpperLayers(const RibbonView& view,
                                               uint64_t x) {
  for (int layer = 1;; ++layer) {
    x = Remix(x);
    const RibbonLayerView& lv = view.layers[layer];
    const Position pos = Locate<kR>(lv, x);
    if (layer + 1 < view.num_layers && Bumped(view, lv, pos.start)) continue;
    return MatchAt<kR, Columns>(lv, pos, x);
  }
}

using UpperFn = bool (*)(const RibbonView&, uint64_t);

template <int kR, class Columns, UpperFn kUpper>
BLOCKBLOOM_RIBBON_INLINE bool Query(const RibbonView& view, uint64_t hash) {
  const uint64_t x = LayerZeroHash(hash, view.salt);
  const RibbonLayerView& lv = view.layers[0];
  const Position pos = Locate<kR>(lv, x);
  // Both ends of the two blocks' words before the code byte (above).
  __builtin_prefetch(pos.words);
  __builtin_prefetch(pos.words + 16 * kR + 8);
  if (__builtin_expect(view.num_layers > 1 && Bumped(view, lv, pos.start), 0)) {
    return kUpper(view, x);
  }
  return MatchAt<kR, Columns>(lv, pos, x);
}

// Groups of kBatchChunk: every key's layer-0 position first (prefetching
// its code byte and the first and last line of its two blocks), then the
// answers; bumped keys go on one by one.
template <int kR, class Columns, UpperFn kUpper>
BLOCKBLOOM_RIBBON_INLINE void QueryBatch(const RibbonView& view,
                                         const uint64_t* hashes, size_t n,
                                         bool* results) {
  const RibbonLayerView& lv = view.layers[0];
  const bool more = view.num_layers > 1;
  for (size_t base = 0; base < n; base += kBatchChunk) {
    const size_t m = std::min(kBatchChunk, n - base);
    uint64_t xs[kBatchChunk];
    Position pos[kBatchChunk];
    for (size_t i = 0; i < m; ++i) {
      const uint64_t x = LayerZeroHash(hashes[base + i], view.salt);
      xs[i] = x;
      pos[i] = Locate<kR>(lv, x);
      __builtin_prefetch(pos[i].words);
      __builtin_prefetch(pos[i].words + 16 * kR + 8);  // end of both blocks
      if (more)
        __builtin_prefetch(lv.codes + (pos[i].start >> (kLogBucket + 2)));
    }
    for (size_t i = 0; i < m; ++i) {
      results[base + i] =
          __builtin_expect(more && Bumped(view, lv, pos[i].start), 0)
              ? kUpper(view, xs[i])
              : MatchAt<kR, Columns>(lv, pos[i], xs[i]);
    }
  }
}

template <int kR, class Columns, UpperFn kUpper>
BLOCKBLOOM_RIBBON_INLINE void QueryKeys(const RibbonView& view, uint64_t seed,
                                        const std::string_view* keys, size_t n,
                                        bool* results) {
  uint64_t hashes[kBatchChunk];
  for (size_t base = 0; base < n; base += kBatchChunk) {
    const size_t m = std::min(kBatchChunk, n - base);
    for (size_t i = 0; i < m; ++i) hashes[i] = Hash64(keys[base + i], seed);
    QueryBatch<kR, Columns, kUpper>(view, hashes, m, results + base);
  }
}

// One family of kernels per instruction set: the same bodies, compiled with
// its target attribute (a template cannot take one as a parameter).
#define BLOCKBLOOM_RIBBON_FAMILY(Name, Columns, ...)                          \
  template <int kR>                                                           \
  __attribute__((noinline __VA_OPT__(, ) __VA_ARGS__)) bool Upper##Name(      \
      const RibbonView& view, uint64_t x) {                                   \
    return QueryUpperLayers<kR, Columns>(view, x);                            \
  }                                                                           \
  template <int kR>                                                           \
  __attribute__((flatten __VA_OPT__(, ) __VA_ARGS__)) bool ProbeHash##Name(   \
      const FilterRef& f, uint64_t hash) {                                    \
    return Query<kR, Columns, &Upper##Name<kR>>(ViewOf<RibbonView>(f), hash); \
  }                                                                           \
  template <int kR>                                                           \
  __attribute__((flatten __VA_OPT__(, ) __VA_ARGS__)) bool ProbeKey##Name(    \
      const FilterRef& f, std::string_view key) {                             \
    return Query<kR, Columns, &Upper##Name<kR>>(ViewOf<RibbonView>(f),        \
                                                Hash64(key, f.seed));         \
  }                                                                           \
  template <int kR>                                                           \
  __attribute__((flatten __VA_OPT__(, ) __VA_ARGS__)) void ProbeHashes##Name( \
      const FilterRef& f, const uint64_t* hashes, size_t n, bool* results) {  \
    QueryBatch<kR, Columns, &Upper##Name<kR>>(ViewOf<RibbonView>(f), hashes,  \
                                              n, results);                    \
  }                                                                           \
  template <int kR>                                                           \
  __attribute__((flatten __VA_OPT__(, ) __VA_ARGS__)) void ProbeKeys##Name(   \
      const FilterRef& f, const std::string_view* keys, size_t n,             \
      bool* results) {                                                        \
    QueryKeys<kR, Columns, &Upper##Name<kR>>(ViewOf<RibbonView>(f), f.seed,   \
                                             keys, n, results);               \
  }                                                                           \
  template <int kR>                                                           \
  constexpr Kernels Kernels##Name = {&ProbeHash##Name<kR>,                    \
                                     &ProbeKey##Name<kR>,                     \
                                     &ProbeHashes##Name<kR>,                  \
                                     &ProbeKeys##Name<kR>,                    \
                                     nullptr,                                 \
                                     nullptr,                                 \
                                     nullptr,                                 \
                                     "ribbon-" #Name};

BLOCKBLOOM_RIBBON_FAMILY(plain, ScalarColumns)
#if BLOCKBLOOM_RIBBON_X86
BLOCKBLOOM_RIBBON_FAMILY(popcnt, ScalarColumns, target("popcnt"))
BLOCKBLOOM_RIBBON_FAMILY(avx2, Avx2Columns, target("avx2,popcnt,bmi,bmi2"))
BLOCKBLOOM_RIBBON_FAMILY(avx512, Avx512Columns,
                         target("avx512f,avx512vpopcntdq,popcnt,bmi,bmi2"))
#endif
#undef BLOCKBLOOM_RIBBON_FAMILY

// A filter of no keys answers "no".
bool EmptyHash(const FilterRef&, uint64_t) { return false; }
bool EmptyKey(const FilterRef&, std::string_view) { return false; }
void EmptyHashes(const FilterRef&, const uint64_t*, size_t n, bool* results) {
  std::fill(results, results + n, false);
}
void EmptyKeys(const FilterRef&, const std::string_view*, size_t n,
               bool* results) {
  std::fill(results, results + n, false);
}
constexpr Kernels kEmptyKernels = {&EmptyHash, &EmptyKey,     &EmptyHashes,
                                   &EmptyKeys, nullptr,       nullptr,
                                   nullptr,    "ribbon-empty"};

template <int... kRs>
const Kernels* Pick(int r, Isa isa, std::integer_sequence<int, kRs...>) {
  static constexpr const Kernels* kPlain[] = {&Kernelsplain<kRs + 1>...};
#if BLOCKBLOOM_RIBBON_X86
  static constexpr const Kernels* kPopcnt[] = {&Kernelspopcnt<kRs + 1>...};
  static constexpr const Kernels* kAvx2[] = {&Kernelsavx2<kRs + 1>...};
  static constexpr const Kernels* kAvx512[] = {&Kernelsavx512<kRs + 1>...};
#endif
  const int i = std::clamp(r, 1, kMaxResultBits) - 1;
  switch (isa) {
#if BLOCKBLOOM_RIBBON_X86
    case Isa::kAvx512:
      return kAvx512[i];
    case Isa::kAvx2:
      return kAvx2[i];
    case Isa::kPopcnt:
      return kPopcnt[i];
#endif
    default:
      return kPlain[i];
  }
}

}  // namespace

Isa BestIsa() {
#if BLOCKBLOOM_RIBBON_X86
  __builtin_cpu_init();
  const bool bmi =
      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool popcnt = __builtin_cpu_supports("popcnt");
  if (bmi && popcnt && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512vpopcntdq")) {
    return Isa::kAvx512;
  }
  if (bmi && popcnt && __builtin_cpu_supports("avx2")) return Isa::kAvx2;
  if (popcnt) return Isa::kPopcnt;
#endif
  return Isa::kPlain;
}

bool IsaSupported(Isa isa) {
  return static_cast<int>(isa) >= 0 &&
         static_cast<int>(isa) <= static_cast<int>(BestIsa());
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPlain:
      return "plain";
    case Isa::kPopcnt:
      return "popcnt";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "unknown";
}

const Kernels* QueryKernels(int num_layers, int result_bits, Isa isa) {
  if (num_layers == 0) return &kEmptyKernels;
  return Pick(result_bits, isa,
              std::make_integer_sequence<int, kMaxResultBits>{});
}

}  // namespace blockbloom::internal::ribbon
