// Implementation detail of blockbloom/filter.h; not part of the API.
#ifndef BLOCKBLOOM_INTERNAL_FILTER_REF_H_
#define BLOCKBLOOM_INTERNAL_FILTER_REF_H_

#include <cstdint>

namespace blockbloom::internal {

// Everything a probe needs. A Filter keeps one, and the kernels take it by
// reference, so a probe passes one pointer instead of building arguments.
struct SetIndex;  // src/exact_size/fingerprint_set.h

// What a probe of a compressed fingerprint set (FilterKind::kSet,
// src/exact_size/fingerprint_set.h) needs, prepared once per opened filter:
// the set decoded into
// arrays, so that a probe is a multiply, two array reads for its bucket's
// range of entries, and a compare per entry in it (about one). About 3
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
struct FilterRef {
  const uint8_t* bits;        // num_blocks * 2 * lane_bits bytes, any alignment
  uint64_t num_blocks;        // in [1, 2^32]
  const uint16_t* lane_sets;  // the layout's lane-set table row for k
  uint64_t seed;              // hash seed, for the keyed probes
  uint32_t lane_bits = 32;    // bits per lane: 32, or fewer for small filters
  // Set for filters of ONE block whose 16 lanes split `num_bits` bits as
  // evenly as possible (src/core/layout.h, "one-block filters"); 0 otherwise.
  uint32_t num_bits = 0;
  // Spread lanes of the accurate encoding add the hash's high 32 bits to each
  // lane's mix (src/core/layout.h): a one-block filter has no block index to
  // spend them on, and without them every key's pattern would be a function
  // of 32 bits (false positives of at least n / 2^32). The small-filter
  // layout of format version 1 does not.
  bool mix_high = false;
  // Set (to k) for a standard Bloom filter of `num_bits` bits: k bits
  // anywhere, no lanes (src/core/layout.h, "In-place filters"); 0 otherwise.
  uint32_t standard_probes = 0;
  // A compressed fingerprint set instead of a Bloom filter (src/
  // fingerprint_set.h): its probe index; null for Bloom filters.
  const SetIndex* set = nullptr;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_FILTER_REF_H_
