// A compressed fingerprint set: the accurate encoding's other layout, used
// where it is more accurate than any Bloom filter of the same size (from
// about 7 bits/key up; docs/FORMAT.md, "Accurate encoding").
//
// Why a second layout
// -------------------
// A Bloom filter at its best k needs 1.44 * log2(1/p) bits per key for a
// false-positive rate p. A sorted set of fingerprints drawn from [0, U)
// answers "may contain" for an absent key with probability n/U, and coded
// with Elias-Fano it costs l + 2 bits per key when U = n * 2^l: p = 2^-l for
// log2(1/p) + 2 bits. From ~6.5 bits/key on that is fewer bits: at 10
// bits/key a set has 0.39-0.45% false positives where the best Bloom filter
// has 0.82% (and LevelDB's built-in 0.86-1.5%). It is the classic space
// argument for Golomb-coded sets; Elias-Fano keeps the probe O(1): one
// bucket, located with a small index, holding about one fingerprint.
//
// FilterKind (m = payload bits, l = low bits per entry, from the tag)
// ---------------------------------------------------------------
// n entries x_0 <= x_1 <= ... <= x_{n-1} in [0, U), U = H << l:
//   bits [0, n*l)       the low l bits of x_0, x_1, ... (entry j at bit j*l,
//                       least significant bit first)
//   bits [n*l, m)       the high parts in unary: for each bucket b = 0..H-1,
//                       one 1 per entry with x >> l == b, then a 0
// Every bit is used: H = m - n*(l + 1) (so bit m-1, bucket H-1's 0, is 0).
// The fingerprint of a key with 64-bit hash h is x = (h * U) >> 64 (multiply-
// shift range reduction of the whole hash: U may exceed 2^32).
//
// n is not stored. The reader finds it as the one j with
//   popcount(bits[j*l, m)) == j
// (the left side falls as j grows while j rises, so exactly one j fits; a
// binary search over the suffix popcounts). Equal fingerprints (rare: equal
// hashes, or two keys in one of U slots) are kept as separate entries, so n
// is the writer's key count and U does not depend on collisions.
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_FINGERPRINT_SET_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_FINGERPRINT_SET_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/internal/filter_ref.h"
#include "src/core/layout.h"

namespace blockbloom::internal {

// The tag holds l in 4 bits, its last value reserved (docs/FORMAT.md).
inline constexpr int kMaxSetLowBits = 14;

// The geometry of a set, all derived from (m, l) and the payload.
struct SetParams {
  uint64_t num_bits = 0;  // m
  int low_bits = 0;       // l
  uint64_t count = 0;     // n, entries
  uint64_t buckets = 0;   // H = m - n * (l + 1)
  uint64_t universe() const { return buckets << low_bits; }
};

// 128-bit products (GCC and Clang on 64-bit targets; one MUL on x86-64).
__extension__ using Uint128 = unsigned __int128;

// The fingerprint of a hash in [0, universe).
inline uint64_t SetFingerprint(uint64_t hash, uint64_t universe) {
  return static_cast<uint64_t>((static_cast<Uint128>(hash) * universe) >> 64);
}

// The l in [0, kMaxSetLowBits] that gives n keys in m bits the lowest
// false-positive rate n / U, and that rate (1 if no l fits: m <= n). Ties go
// to the smaller l.
double BestSetLowBits(uint64_t num_keys, uint64_t num_bits, int* low_bits);

// Whether the set of `hashes` (sorted in place) in that geometry keeps to
// kMaxGroupEntries.
bool SetFits(std::vector<uint64_t>* hashes, uint64_t num_bits, int low_bits);

// Writes the set of `hashes` (any order; sorted in place) into `payload`,
// ceil(num_bits / 8) zeroed bytes. Requires num_bits > n * (low_bits + 1)
// and SetFits.
void EncodeSet(std::vector<uint64_t>* hashes, uint64_t num_bits, int low_bits,
               uint8_t* payload);

// Finds n and H for a payload of `num_bits` bits with `low_bits`-bit lows.
// False if the payload is not a set of that geometry, or has more than
// kMaxGroupEntries entries in some kSetGroup consecutive buckets.
bool ParseSet(const uint8_t* payload, uint64_t num_bits, int low_bits,
              SetParams* params);

// What a probe of a set (FilterKind::kSet; FilterRef::view) needs,
// prepared once per opened filter:
// the set decoded into arrays, so that a probe is a multiply, two array reads
// for its bucket's range of entries, and a compare per entry in it (about
// one). About 3 bytes per key at 10 bits/key (a byte per entry's low part, a
// byte per bucket's offset), a few times the payload: a filter is probed far
// more often than it is opened, and probing the payload itself would cost a
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
// A fingerprint set's FilterRef: `bits` (the payload), probed through `set`
// (its view).
inline FilterRef SetRef(const uint8_t* bits, const SetIndex* set,
                        uint64_t seed) {
  FilterRef f = {bits, 1, LaneSetsFor(1), seed, 0};
  f.kind = FilterKind::kSet;
  f.view = set;
  return f;
}

inline constexpr uint64_t kSetGroup = 64;
// The most entries any kSetGroup consecutive buckets (aligned to multiples
// of kSetGroup) may hold. A set the writer chooses averages one entry per
// bucket or fewer (it needs ~7+ bits per key, where l >= 4 and H >= n); it
// would take ~4 per bucket to come near.
inline constexpr uint64_t kMaxGroupEntries = 255;

// Bytes of storage BuildSetIndex needs after the SetIndex itself.
size_t SetIndexStorageBytes(const uint8_t* payload, const SetParams& params);
// Builds the index of a parsed set in `storage` (8-byte aligned, of
// sizeof(SetIndex) + SetIndexStorageBytes bytes). Keeps no pointer into
// `payload`.
const SetIndex* BuildSetIndex(const uint8_t* payload, const SetParams& params,
                              void* storage);

// The bytes of an index BuildSetIndex made (the SetIndex and its storage),
// and a copy of it into `storage` (8-byte aligned, that many bytes), with
// its pointers moved to the copy.
size_t SetIndexBytes(const SetIndex& index);
const SetIndex* CopySetIndex(const SetIndex& index, void* storage);

// The probe: does the set hold the fingerprint of `hash`? LowT is uint8_t
// (low_bits <= 8) or uint16_t.
template <typename LowT>
inline bool SetContains(const SetIndex& s, uint64_t hash) {
  const uint64_t x = SetFingerprint(hash, s.universe);
  const uint64_t bucket = x >> s.low_bits;
  const LowT low = static_cast<LowT>(x & s.low_mask);
  const uint64_t group = bucket / kSetGroup;
  const uint64_t at = bucket + group;  // group * 65 + bucket % 64
  const LowT* lows;
  if constexpr (sizeof(LowT) == 1) {
    lows = s.lows8 + s.base[group];
  } else {
    lows = s.lows16 + s.base[group];
  }
  for (uint64_t j = s.offset[at], end = s.offset[at + 1]; j < end; ++j) {
    if (lows[j] == low) return true;
  }
  return false;
}

inline bool SetContains(const SetIndex& s, uint64_t hash) {
  return s.low_bits <= 8 ? SetContains<uint8_t>(s, hash)
                         : SetContains<uint16_t>(s, hash);
}

// The set by its definition, for tests: every entry's fingerprint, decoded
// from the payload bit by bit (ascending).
std::vector<uint64_t> DecodeSet(const uint8_t* payload,
                                const SetParams& params);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_FINGERPRINT_SET_H_
