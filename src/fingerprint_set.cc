#include "src/fingerprint_set.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>

namespace blockbloom::internal {
namespace {

uint64_t Words(uint64_t bits) { return (bits + 63) / 64; }

// Reads `width` (<= 57) bits at bit `at` of a little-endian bit string of
// `size` bytes, without reading past it.
uint64_t ReadBits(const uint8_t* p, uint64_t size, uint64_t at, int width) {
  uint64_t v = 0;
  const uint64_t first = at / 8;
  const uint64_t n = std::min<uint64_t>(8, size - first);
  std::memcpy(&v, p + first, n);
  return (v >> (at % 8)) & ((uint64_t{1} << width) - 1);
}

void SetBit(uint8_t* p, uint64_t at) {
  p[at / 8] = static_cast<uint8_t>(p[at / 8] | (1u << (at % 8)));
}

// 1s in bits [from, num_bits) of the payload, with suffix[w] = 1s in whole
// words w.. (words read little-endian, the last one partial).
uint64_t OnesFrom(const uint8_t* payload, uint64_t num_bits,
                  const std::vector<uint64_t>& suffix, uint64_t from) {
  const uint64_t w = from / 64;
  if (w >= suffix.size() - 1) return 0;
  uint64_t word = 0;
  const uint64_t bytes = (num_bits + 7) / 8;
  std::memcpy(&word, payload + w * 8, std::min<uint64_t>(8, bytes - w * 8));
  return suffix[w + 1] + std::popcount(word >> (from % 64));
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
  std::vector<uint64_t> suffix(words + 1, 0);
  for (uint64_t w = words; w-- > 0;) {
    uint64_t word = 0;
    std::memcpy(&word, payload + w * 8, std::min<uint64_t>(8, bytes - w * 8));
    if (w == words - 1 && num_bits % 64 != 0) {
      word &= (uint64_t{1} << (num_bits % 64)) - 1;
    }
    suffix[w] = suffix[w + 1] + std::popcount(word);
  }
  // The root of f(j) = ones in [j*l, m) - j, which falls strictly with j.
  const uint64_t per = static_cast<uint64_t>(low_bits) + 1;
  uint64_t lo = 0, hi = (num_bits - 1) / per;  // H >= 1
  auto f = [&](uint64_t j) -> int64_t {
    return static_cast<int64_t>(
               OnesFrom(payload, num_bits, suffix, j * low_bits)) -
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
  return true;
}

namespace {

struct Layout {
  uint64_t high_bits, high_words, lows_bytes, sample_count;
  size_t high_at, zeros_at, first_at, total;
};

Layout LayoutOf(const SetParams& p) {
  Layout l;
  l.high_bits = p.num_bits - p.count * static_cast<uint64_t>(p.low_bits);
  l.high_words = Words(l.high_bits);
  l.lows_bytes = (p.num_bits + 7) / 8 + 8;
  l.sample_count = (p.buckets + kSetSample - 1) / kSetSample;
  l.high_at = 0;
  l.zeros_at = l.high_at + 8 * l.high_words;
  l.first_at = l.zeros_at + 4 * (l.high_words + 1);
  const size_t lows_at = (l.first_at + 4 * l.sample_count + 7) / 8 * 8;
  l.total = lows_at + l.lows_bytes;
  return l;
}

}  // namespace

size_t SetIndexStorageBytes(const SetParams& params) {
  return LayoutOf(params).total;
}

const SetIndex* BuildSetIndex(const uint8_t* payload, const SetParams& params,
                              void* storage) {
  const Layout l = LayoutOf(params);
  auto* index = new (storage) SetIndex;
  uint8_t* base = static_cast<uint8_t*>(storage) + sizeof(SetIndex);
  auto* high = reinterpret_cast<uint64_t*>(base + l.high_at);
  auto* zeros_before = reinterpret_cast<uint32_t*>(base + l.zeros_at);
  auto* first_word = reinterpret_cast<uint32_t*>(base + l.first_at);
  uint8_t* lows = base + (l.total - l.lows_bytes);
  const uint64_t payload_bytes = (params.num_bits + 7) / 8;
  std::memcpy(lows, payload, payload_bytes);
  std::memset(lows + payload_bytes, 0, 8);
  // The high parts, realigned to bit 0; bits past them set to 1.
  const uint64_t start = params.count * static_cast<uint64_t>(params.low_bits);
  for (uint64_t w = 0; w < l.high_words; ++w) {
    const uint64_t at = start + 64 * w;
    const uint64_t left = l.high_bits - 64 * w;
    const int width = left >= 64 ? 64 : static_cast<int>(left);
    uint64_t word;
    if (width <= 57) {
      word = ReadBits(payload, payload_bytes, at, width);
    } else {
      word = ReadBits(payload, payload_bytes, at, 32) |
             (ReadBits(payload, payload_bytes, at + 32, width - 32) << 32);
    }
    if (width < 64) word |= ~uint64_t{0} << width;
    high[w] = word;
  }
  zeros_before[0] = 0;
  uint64_t sample = 0;
  for (uint64_t w = 0; w < l.high_words; ++w) {
    const uint64_t zeros = static_cast<uint64_t>(std::popcount(~high[w]));
    // Samples whose 0 falls in this word.
    while (sample < l.sample_count &&
           sample * kSetSample < zeros_before[w] + zeros) {
      first_word[sample++] = static_cast<uint32_t>(w);
    }
    zeros_before[w + 1] = static_cast<uint32_t>(zeros_before[w] + zeros);
  }
  index->lows = lows;
  index->low_bits = params.low_bits;
  index->low_mask = (uint64_t{1} << params.low_bits) - 1;
  index->universe = params.universe();
  index->buckets = params.buckets;
  index->high = high;
  index->zeros_before = zeros_before;
  index->first_word = first_word;
  return index;
}

}  // namespace blockbloom::internal
