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
// Everything a probe needs. A Filter keeps one, and the kernels take it by
// reference, so a probe passes one pointer instead of building arguments.
// `kind` says how the probe reads the bits, and which fields below it
// applies to; src/core/layout.h makes each kind's (BlockedRef, OneBlockView,
// SpreadRef, StandardRef, SetRef).
struct FilterRef {
  const uint8_t* bits;        // the filter's bits, any alignment
  uint64_t num_blocks;        // kBlocked: in [1, 2^32]; the others: 1
  const uint16_t* lane_sets;  // kBlocked, kSpread: the lane-set table row for k
  uint64_t seed;              // hash seed, for the keyed probes
  uint32_t lane_bits = 32;    // kBlocked: bits per lane (32, or fewer for
                              // one-block small filters)
  FilterKind kind{};          // kBlocked (0) unless a maker says otherwise
  // kSpread: ONE block whose 16 lanes split `num_bits` bits as evenly as
  // possible (src/core/layout.h, "one-block filters"); kStandard: the
  // filter's bits.
  uint32_t num_bits = 0;
  // kStandard: k, the bits per key anywhere in the filter (the other kinds'
  // k is in lane_sets).
  uint32_t num_probes = 0;
  // kSpread: the lanes add the hash's high 32 bits to each lane's mix (the
  // accurate encoding): a one-block filter has no block index to spend them
  // on, and without them every key's pattern would be a function of 32 bits
  // (false positives of at least n / 2^32). The small filters of format
  // version 1 (one block of narrow lanes) do not.
  bool mix_high = false;
  // kSet: the fingerprint set's probe index.
  const SetIndex* set = nullptr;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_FILTER_REF_H_
