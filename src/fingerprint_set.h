// A compressed fingerprint set: the packed encoding's other layout, used
// where it is more accurate than any Bloom filter of the same size (from
// about 7 bits/key up; docs/FORMAT.md, "Packed encoding").
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
// Layout (m = payload bits, l = low bits per entry, from the tag)
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
#ifndef BLOCKBLOOM_SRC_FINGERPRINT_SET_H_
#define BLOCKBLOOM_SRC_FINGERPRINT_SET_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blockbloom/internal/filter_ref.h"

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

// Writes the set of `hashes` (any order; sorted in place) into `payload`,
// ceil(num_bits / 8) zeroed bytes. Requires num_bits > n * (low_bits + 1).
void EncodeSet(std::vector<uint64_t>* hashes, uint64_t num_bits, int low_bits,
               uint8_t* payload);

// Finds n and H for a payload of `num_bits` bits with `low_bits`-bit lows.
// False if the payload is not a set of that geometry.
bool ParseSet(const uint8_t* payload, uint64_t num_bits, int low_bits,
              SetParams* params);

// What a probe needs, prepared once per opened filter (a few percent of the
// payload's size on top of a word-aligned copy of the high parts).
struct SetIndex {
  // A copy of the payload with 8 spare bytes (entry j's low at bit
  // j * low_bits), so that a low is one unaligned 8-byte load.
  const uint8_t* lows;
  int low_bits;
  uint64_t low_mask;
  uint64_t universe;
  uint64_t buckets;
  // The unary high parts, copied to start at bit 0 of word 0; the bits
  // after them are set to 1, so that they count as no bucket's 0.
  const uint64_t* high;
  // zeros_before[w]: 0s in high words 0..w-1 (one more entry than words).
  const uint32_t* zeros_before;
  // first_word[j]: the word holding the 0 of bucket j * kSetSample.
  const uint32_t* first_word;
};
inline constexpr uint64_t kSetSample = 64;

// Bytes of storage BuildSetIndex needs after the SetIndex itself.
size_t SetIndexStorageBytes(const SetParams& params);
// Builds the index of a parsed set in `storage` (8-byte aligned, of
// sizeof(SetIndex) + SetIndexStorageBytes bytes); copies what it needs of
// `payload`.
const SetIndex* BuildSetIndex(const uint8_t* payload, const SetParams& params,
                              void* storage);

// kSelectInByte[b][r]: the position of the r-th (from 0) set bit of byte b
// (8 if there is none).
struct SelectInByteTable {
  uint8_t pos[256][8];
};
constexpr SelectInByteTable MakeSelectInByteTable() {
  SelectInByteTable t{};
  for (int b = 0; b < 256; ++b) {
    int r = 0;
    for (int i = 0; i < 8; ++i) t.pos[b][i] = 8;
    for (int i = 0; i < 8; ++i) {
      if ((b >> i) & 1) t.pos[b][r++] = static_cast<uint8_t>(i);
    }
  }
  return t;
}
inline constexpr SelectInByteTable kSelectInByte = MakeSelectInByteTable();

// The position, in [0, 64), of the r-th (from 0) zero bit of `word`, which
// must have more than r zeros. Broadword (Vigna, "Broadword implementation
// of rank/select queries", 2008): byte popcounts, their prefix sums by one
// multiply, a parallel compare to find the byte, a table for the bit. No
// PDEP: it is microcoded (~250 cycles here) on AMD before Zen 3.
inline int SelectZero(uint64_t word, uint64_t r) {
  constexpr uint64_t kOnes8 = 0x0101010101010101;
  constexpr uint64_t kHigh8 = 0x8080808080808080;
  const uint64_t x = ~word;
  uint64_t s = x - ((x >> 1) & 0x5555555555555555);
  s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333);
  s = (s + (s >> 4)) & 0x0F0F0F0F0F0F0F0F;
  const uint64_t prefix = s * kOnes8;  // byte i: zeros in bytes 0..i
  // Bytes whose prefix is <= r lie wholly before the one holding the zero.
  const uint64_t before_mask = ((r * kOnes8) | kHigh8) - prefix;
  const int byte =
      static_cast<int>((((before_mask & kHigh8) >> 7) * kOnes8) >> 56);
  const uint64_t before = byte == 0 ? 0 : (prefix >> (8 * byte - 8)) & 0xFF;
  return 8 * byte + kSelectInByte.pos[(x >> (8 * byte)) & 0xFF][r - before];
}

// The scalar reference probe: does the set hold the fingerprint of `hash`?
// `select_zero` is SelectZero or a faster equivalent.
template <typename SelectZeroFn>
inline bool SetContains(const SetIndex& s, uint64_t hash,
                        SelectZeroFn select_zero) {
  const uint64_t x = SetFingerprint(hash, s.universe);
  const uint64_t bucket = x >> s.low_bits;
  const uint64_t low = x & s.low_mask;
  // The word holding bucket's 0: start from the sample, step forward.
  uint64_t w = s.first_word[bucket / kSetSample];
  while (s.zeros_before[w + 1] <= bucket) ++w;
  const uint64_t pos =
      w * 64 + select_zero(s.high[w], bucket - s.zeros_before[w]);
  // Entries of the bucket: the run of 1s just before its 0. The entries
  // before them are the 1s before pos that are not in the run.
  uint64_t run = 0;
  {
    uint64_t word_index = w;
    int bit = static_cast<int>(pos & 63);
    for (;;) {
      // 1s directly below `bit` in this word.
      const uint64_t below = bit == 0 ? 0 : s.high[word_index] << (64 - bit);
      const int ones = bit == 0 ? 0 : std::countl_one(below);
      run += static_cast<uint64_t>(ones);
      if (ones < bit || word_index == 0) break;
      --word_index;
      bit = 64;
    }
  }
  const uint64_t end = pos - bucket;  // 1s before pos = entries before it
  for (uint64_t j = end - run; j < end; ++j) {
    const uint64_t at = j * static_cast<uint64_t>(s.low_bits);
    uint64_t v;
    std::memcpy(&v, s.lows + at / 8, sizeof(v));
    if (((v >> (at % 8)) & s.low_mask) == low) return true;
  }
  return false;
}

inline bool ReferenceSetContains(const SetIndex& s, uint64_t hash) {
  return SetContains(s, hash, SelectZero);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_FINGERPRINT_SET_H_
