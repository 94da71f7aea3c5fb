// Implementation detail of blockbloom/filter.h; not part of the API.
#ifndef BLOCKBLOOM_INTERNAL_FILTER_REF_H_
#define BLOCKBLOOM_INTERNAL_FILTER_REF_H_

#include <cstdint>

namespace blockbloom {
enum class FilterKind : uint8_t;  // blockbloom/filter.h
}  // namespace blockbloom

namespace blockbloom::internal {

// What a probe of a compressed fingerprint set (FilterKind::kSet,
// src/exact_size/fingerprint_set.h) needs, prepared once per opened filter:
// the set decoded into arrays, so that a probe is a multiply, two array reads
// for its bucket's range of entries, and a compare per entry in it (about
// one). About 3
// bytes per key at 10 bits/key (a byte per entry's low part, a byte per
// bucket's offset), a few times the payload: a filter is probed far more
// often than it is opened, and probing the payload itself would cost a
// rank/select walk of the unary code every time.
struct SetIndex {
  uint64_t universe;
  uint64_t low_mask;
  int low_bits;
  uint64_t buckets;
  // Entries of bucket b, g = b / 64, i = g * 65 + b % 64 = b + g:
  //   [base[g] + offset[i], base[g] + offset[i + 1])
  // (65 offsets a group of 64 buckets, so a bucket's end is in its own
  // group). No 64 buckets hold more than kMaxGroupEntries (the format's
  // rule: ParseSet refuses a set that breaks it), so offsets are bytes.
  const uint32_t* base;
  const uint8_t* offset;
  // Entry j's low part: a byte when low_bits <= 8, else 16 bits.
  const uint8_t* lows8;
  const uint16_t* lows16;
};
// The most layers a ribbon filter (FilterKind::kRibbon) has
// (src/ribbon/layout.h).
inline constexpr int kRibbonMaxLayers = 12;

// One layer of a ribbon filter (src/ribbon/layout.h): where its solution
// words and bump codes lie in the filter's bytes, and its geometry.
struct RibbonLayerView {
  const uint8_t* words;  // block b: cols(b) little-endian 64-bit words
  const uint8_t* codes;  // 2-bit bump code of bucket k: byte k / 4
  uint32_t num_starts;   // 64 * num_blocks - 63
  uint32_t upper_start;  // blocks from here on have result_bits + 1 columns
  uint32_t num_blocks;
  uint32_t reserved;
};
// What a probe of a ribbon filter needs, prepared once per opened filter (no
// copy of its bytes): the layers found in them and the parameters every
// query reads. A query of a key that stays in layer 0 (about 95% of absent
// keys) reads only the first 64 bytes.
struct alignas(64) RibbonView {
  uint32_t salt;          // the build's retry salt (src/ribbon/key_bits.h)
  uint8_t bump_below[4];  // code t: offsets below bump_below[t] are bumped
  int32_t num_layers;     // 0 for a filter of no keys
  int32_t result_bits;    // r: columns of the blocks below upper_start
  RibbonLayerView layers[kRibbonMaxLayers];
  // The exact expected false-positive rate (src/ribbon/sizing.h), computed
  // when the filter is made: Filter::EstimatedFpRate() returns it.
  double estimated_fp_rate;
  uint64_t num_slots;  // over all layers
};

// Everything a probe needs. A Filter keeps one, and the kernels take it by
// reference, so a probe passes one pointer instead of building arguments.
// 64 bytes, one cache line (the probe cache's entries hold one: keep it so).
// `kind` says how the probe reads the bits, and which fields below it
// applies to; src/core/layout.h makes each kind's (BlockedRef, OneBlockView,
// SpreadRef, StandardRef, SetRef), src/ribbon/ribbon_filter.h the ribbon's
// (RibbonRef).
struct FilterRef {
  const uint8_t* bits;        // the filter's bits, any alignment
  uint64_t num_blocks;        // kBlocked: in [1, 2^32]; the others: 1
  const uint16_t* lane_sets;  // kBlocked, kSpread: the lane-set table row for k
  uint64_t seed;              // hash seed, for the keyed probes
  uint32_t lane_bits = 32;    // kBlocked: bits per lane (32, or fewer for
                              // one-block small filters)
  FilterKind kind{};          // kBlocked (0) unless a maker says otherwise
  // kSpread: the lanes add the hash's high 32 bits to each lane's mix (the
  // accurate encoding): a one-block filter has no block index to spend them
  // on, and without them every key's pattern would be a function of 32 bits
  // (false positives of at least n / 2^32). The small filters of format
  // version 1 (one block of narrow lanes) do not.
  bool mix_high = false;
  // kSpread: ONE block whose 16 lanes split `num_bits` bits as evenly as
  // possible (src/core/layout.h, "one-block filters"); kStandard: the
  // filter's bits.
  uint32_t num_bits = 0;
  // kStandard: k, the bits per key anywhere in the filter (the other kinds'
  // k is in lane_sets).
  uint32_t num_probes = 0;
  // kSet: the fingerprint set's probe index.
  const SetIndex* set = nullptr;
  // kRibbon: the ribbon filter's layers and parameters.
  const RibbonView* ribbon = nullptr;
};
static_assert(sizeof(FilterRef) <= 64);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_FILTER_REF_H_
