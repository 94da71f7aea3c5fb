#include "src/exact_size/fingerprint_set.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>
#include <type_traits>

namespace blockbloom::internal {
namespace {

uint64_t Words(uint64_t bits) { return (bits + 63) / 64; }

// popcount without the POPCNT instruction the baseline x86-64 target lacks
// (std::popcount compiles to a libgcc call there): a filter is opened once
// per cache miss, and a miss must cost little more than a probe.
inline int PopCount(uint64_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
  return std::popcount(x);
#else
  x -= (x >> 1) & 0x5555555555555555;
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F;
  return static_cast<int>((x * 0x0101010101010101) >> 56);
#endif
}

// The 8 bytes at byte `first` of a string of `size` bytes, little-endian,
// zero past its end (one load unless near the end).
inline uint64_t Load64(const uint8_t* p, uint64_t size, uint64_t first) {
  uint64_t v = 0;
  if (first + 8 <= size) {
    std::memcpy(&v, p + first, 8);
  } else {
    for (uint64_t i = first; i < size; ++i) {
      v |= static_cast<uint64_t>(p[i]) << (8 * (i - first));
    }
  }
  return v;
}

// Reads `width` (<= 57) bits at bit `at` of a little-endian bit string of
// `size` bytes, without reading past it.
inline uint64_t ReadBits(const uint8_t* p, uint64_t size, uint64_t at,
                         int width) {
  return (Load64(p, size, at / 8) >> (at % 8)) & ((uint64_t{1} << width) - 1);
}

void SetBit(uint8_t* p, uint64_t at) {
  p[at / 8] = static_cast<uint8_t>(p[at / 8] | (1u << (at % 8)));
}

// 1s in bits [from, num_bits) of the payload, with suffix[w] = 1s in whole
// words w.. (words read little-endian, the last one partial).
uint64_t OnesFrom(const uint8_t* payload, uint64_t num_bits,
                  const uint64_t* suffix, uint64_t words, uint64_t from) {
  const uint64_t w = from / 64;
  if (w >= words) return 0;
  const uint64_t word = Load64(payload, (num_bits + 7) / 8, w * 8);
  return suffix[w + 1] + PopCount(word >> (from % 64));
}

// Calls fn(entry, bucket) for each entry, in order, walking the unary code
// a word at a time.
template <typename Fn>
void ForEachEntry(const uint8_t* payload, const SetParams& p, Fn fn) {
  const uint64_t bytes = (p.num_bits + 7) / 8;
  uint64_t at = p.count * static_cast<uint64_t>(p.low_bits);
  uint64_t bucket = 0, entry = 0;
  while (entry < p.count && at < p.num_bits) {
    const int width = static_cast<int>(std::min<uint64_t>(57, p.num_bits - at));
    uint64_t word = ReadBits(payload, bytes, at, width);
    int pos = 0;
    while (word != 0 && entry < p.count) {
      const int one = std::countr_zero(word);
      bucket += static_cast<uint64_t>(one - pos);
      fn(entry++, bucket);
      pos = one + 1;
      word &= word - 1;
    }
    bucket += static_cast<uint64_t>(width - pos);
    at += static_cast<uint64_t>(width);
  }
}

uint64_t LowOf(const uint8_t* payload, const SetParams& p, uint64_t entry) {
  if (p.low_bits == 0) return 0;
  return ReadBits(payload, (p.num_bits + 7) / 8, entry * p.low_bits,
                  p.low_bits);
}

// The most entries in kSetGroup consecutive buckets (groups aligned to
// multiples of kSetGroup).
uint64_t WidestGroup(const uint8_t* payload, const SetParams& p) {
  uint64_t group = 0, in_group = 0, widest = 0;
  ForEachEntry(payload, p, [&](uint64_t, uint64_t bucket) {
    if (bucket / kSetGroup != group) {
      group = bucket / kSetGroup;
      in_group = 0;
    }
    widest = std::max(widest, ++in_group);
  });
  return widest;
}

}  // namespace

double BestSetLowBits(uint64_t num_keys, uint64_t num_bits, int* low_bits) {
  double best = 1;
  *low_bits = 0;
  for (int l = 0; l <= kMaxSetLowBits; ++l) {
    const Uint128 used = static_cast<Uint128>(num_keys) * (l + 1);
    if (used >= num_bits) break;
    const uint64_t buckets = num_bits - static_cast<uint64_t>(used);
    const double rate =
        std::min(1.0, static_cast<double>(num_keys) /
                          std::ldexp(static_cast<double>(buckets), l));
    if (rate < best) {
      best = rate;
      *low_bits = l;
    }
  }
  return best;
}

bool SetFits(std::vector<uint64_t>* hashes, uint64_t num_bits, int low_bits) {
  const uint64_t n = hashes->size();
  const uint64_t universe = (num_bits - n * static_cast<uint64_t>(low_bits + 1))
                            << low_bits;
  std::sort(hashes->begin(), hashes->end());
  uint64_t group = 0, in_group = 0;
  for (uint64_t h : *hashes) {
    const uint64_t g = (SetFingerprint(h, universe) >> low_bits) / kSetGroup;
    in_group = g == group ? in_group + 1 : 1;
    group = g;
    if (in_group > kMaxGroupEntries) return false;
  }
  return true;
}

void EncodeSet(std::vector<uint64_t>* hashes, uint64_t num_bits, int low_bits,
               uint8_t* payload) {
  const uint64_t n = hashes->size();
  SetParams p;
  p.num_bits = num_bits;
  p.low_bits = low_bits;
  p.count = n;
  p.buckets = num_bits - n * static_cast<uint64_t>(low_bits + 1);
  const uint64_t universe = p.universe();
  // Fingerprints are monotone in the hash, so sorting hashes sorts them.
  std::sort(hashes->begin(), hashes->end());
  const uint64_t mask = (uint64_t{1} << low_bits) - 1;
  const uint64_t high_start = n * static_cast<uint64_t>(low_bits);
  for (uint64_t j = 0; j < n; ++j) {
    const uint64_t x = SetFingerprint((*hashes)[j], universe);
    const uint64_t low = x & mask;
    for (int b = 0; b < low_bits; ++b) {
      if ((low >> b) & 1) SetBit(payload, j * low_bits + b);
    }
    // Entry j of bucket (x >> l) is the 1 at j + bucket: the j entries
    // before it and one 0 for each bucket before its own.
    SetBit(payload, high_start + j + (x >> low_bits));
  }
}

bool ParseSet(const uint8_t* payload, uint64_t num_bits, int low_bits,
              SetParams* params) {
  if (num_bits == 0 || low_bits < 0 || low_bits > kMaxSetLowBits) {
    return false;
  }
  const uint64_t words = Words(num_bits);
  const uint64_t bytes = (num_bits + 7) / 8;
  // Suffix counts on the stack for the small filters of LevelDB's blocks
  // (up to 2 KiB), on the heap beyond.
  uint64_t small[257];
  std::vector<uint64_t> large;
  uint64_t* suffix = small;
  if (words + 1 > std::size(small)) {
    large.resize(words + 1);
    suffix = large.data();
  }
  suffix[words] = 0;
  for (uint64_t w = words; w-- > 0;) {
    uint64_t word = Load64(payload, bytes, w * 8);
    if (w == words - 1 && num_bits % 64 != 0) {
      word &= (uint64_t{1} << (num_bits % 64)) - 1;
    }
    suffix[w] = suffix[w + 1] + PopCount(word);
  }
  // The root of f(j) = ones in [j*l, m) - j, which falls strictly with j.
  const uint64_t per = static_cast<uint64_t>(low_bits) + 1;
  uint64_t lo = 0, hi = (num_bits - 1) / per;  // H >= 1
  auto f = [&](uint64_t j) -> int64_t {
    return static_cast<int64_t>(
               OnesFrom(payload, num_bits, suffix, words, j * low_bits)) -
           static_cast<int64_t>(j);
  };
  if (f(lo) < 0 || f(hi) > 0) return false;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (f(mid) > 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (f(lo) != 0) return false;
  // The last bit is the last bucket's 0.
  if ((payload[(num_bits - 1) / 8] >> ((num_bits - 1) % 8)) & 1) return false;
  params->num_bits = num_bits;
  params->low_bits = low_bits;
  params->count = lo;
  params->buckets = num_bits - lo * per;
  // No group holds more entries than the set (LevelDB's filters: a few
  // dozen), so only larger sets need the walk.
  return params->count <= kMaxGroupEntries ||
         WidestGroup(payload, *params) <= kMaxGroupEntries;
}

namespace {

struct SetIndexOffsets {
  uint64_t groups;
  size_t base_at, offset_at, lows_at, total;
};

SetIndexOffsets SetIndexOffsetsOf(const SetParams& p) {
  SetIndexOffsets l;
  l.groups = (p.buckets + kSetGroup - 1) / kSetGroup;
  l.base_at = 0;
  l.offset_at = l.base_at + 4 * (l.groups + 1);
  // Offsets b + g for b in [0, buckets]: buckets + groups of them.
  const size_t offsets = p.buckets + l.groups;
  l.lows_at = (l.offset_at + offsets + 7) / 8 * 8;
  l.total = l.lows_at + (p.low_bits <= 8 ? 1 : 2) * p.count;
  return l;
}

}  // namespace

size_t SetIndexStorageBytes(const uint8_t* /*payload*/,
                            const SetParams& params) {
  return SetIndexOffsetsOf(params).total;
}

const SetIndex* BuildSetIndex(const uint8_t* payload, const SetParams& params,
                              void* storage) {
  const SetIndexOffsets l = SetIndexOffsetsOf(params);
  auto* index = new (storage) SetIndex;
  uint8_t* area = static_cast<uint8_t*>(storage) + sizeof(SetIndex);
  auto* base = reinterpret_cast<uint32_t*>(area + l.base_at);
  uint8_t* offset = area + l.offset_at;
  uint8_t* lows8 = area + l.lows_at;
  auto* lows16 = reinterpret_cast<uint16_t*>(area + l.lows_at);
  const bool narrow = params.low_bits <= 8;
  const uint64_t bytes = (params.num_bits + 7) / 8;
  if (params.low_bits == 8) {
    std::memcpy(lows8, payload, params.count);  // the lows, as stored
  } else {
    for (uint64_t j = 0; j < params.count; ++j) {
      const uint64_t low = LowOf(payload, params, j);
      if (narrow) {
        lows8[j] = static_cast<uint8_t>(low);
      } else {
        lows16[j] = static_cast<uint16_t>(low);
      }
    }
  }
  // Bucket starts from the 0s of the unary code, a word at a time: the 0 at
  // position p (from the code's start) that is the z-th 0 ends bucket z, so
  // bucket z + 1 starts at entry p - z. A bucket b % 64 == 0 opens group
  // b / 64 (its base; offset 0 there) and ends the group before.
  base[0] = 0;
  offset[0] = 0;
  const uint64_t high_start =
      params.count * static_cast<uint64_t>(params.low_bits);
  const uint64_t high_bits = params.num_bits - high_start;
  uint64_t z = 0;
  for (uint64_t at = 0; at < high_bits && z < params.buckets; at += 57) {
    const int width = static_cast<int>(std::min<uint64_t>(57, high_bits - at));
    uint64_t zeros = ~ReadBits(payload, bytes, high_start + at, width) &
                     ((uint64_t{1} << width) - 1);
    for (; zeros != 0 && z < params.buckets; zeros &= zeros - 1) {
      const uint64_t b = ++z;  // the bucket that starts here
      const uint64_t first = at + std::countr_zero(zeros) - (b - 1);
      const uint64_t g = b / kSetGroup;
      if (b == params.buckets) {
        const uint64_t last = (b - 1) / kSetGroup;
        offset[b + last] = static_cast<uint8_t>(first - base[last]);
      } else if (b % kSetGroup == 0) {
        offset[b + g - 1] = static_cast<uint8_t>(first - base[g - 1]);
        base[g] = static_cast<uint32_t>(first);
        offset[b + g] = 0;
      } else {
        offset[b + g] = static_cast<uint8_t>(first - base[g]);
      }
    }
  }
  base[l.groups] = static_cast<uint32_t>(params.count);
  index->universe = params.universe();
  index->low_bits = params.low_bits;
  index->low_mask = (uint64_t{1} << params.low_bits) - 1;
  index->buckets = params.buckets;
  index->base = base;
  index->offset = offset;
  index->lows8 = narrow ? lows8 : nullptr;
  index->lows16 = narrow ? nullptr : lows16;
  return index;
}

size_t SetIndexBytes(const SetIndex& index) {
  SetParams params;
  params.low_bits = index.low_bits;
  params.buckets = index.buckets;
  params.count = index.base[(index.buckets + kSetGroup - 1) / kSetGroup];
  return sizeof(SetIndex) + SetIndexOffsetsOf(params).total;
}

const SetIndex* CopySetIndex(const SetIndex& index, void* storage) {
  // BuildSetIndex put the arrays right behind the SetIndex.
  std::memcpy(storage, &index, SetIndexBytes(index));
  auto* copy = static_cast<SetIndex*>(storage);
  const auto move = [&](auto* p) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    if (p == nullptr) return static_cast<const T*>(nullptr);
    const ptrdiff_t at = reinterpret_cast<const uint8_t*>(p) -
                         reinterpret_cast<const uint8_t*>(&index);
    return reinterpret_cast<const T*>(static_cast<uint8_t*>(storage) + at);
  };
  copy->base = move(index.base);
  copy->offset = move(index.offset);
  copy->lows8 = move(index.lows8);
  copy->lows16 = move(index.lows16);
  return copy;
}

std::vector<uint64_t> DecodeSet(const uint8_t* payload,
                                const SetParams& params) {
  std::vector<uint64_t> x;
  ForEachEntry(payload, params, [&](uint64_t entry, uint64_t bucket) {
    x.push_back((bucket << params.low_bits) | LowOf(payload, params, entry));
  });
  return x;
}

}  // namespace blockbloom::internal
