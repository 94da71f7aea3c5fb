#include "src/ribbon/banding.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "src/ribbon/key_bits.h"

namespace blockbloom::internal::ribbon {
namespace {

#define BLOCKBLOOM_RIBBON_INLINE inline __attribute__((always_inline))

constexpr uint32_t kNoBucket = 0xFFFFFFFFu;
// The pivot of a key that was redundant (0 = 0): no row to undo.
constexpr uint32_t kRedundant = 0xFFFFFFFFu;

// What the streams of one layer share.
template <typename Row>
struct Band {
  uint64_t* coeff;
  Row* result;
  uint8_t* codes;
  uint32_t num_starts;
  uint32_t salt;
  int layer;
  uint32_t result_mask;
  uint32_t bump_lo;
  uint32_t bump_hi;
  uint32_t pre_bump_spill;
  bool identity;  // x = hash: layer 0 of salt 0
};

// The key a stream is inserting; c == 0: the stream is done.
struct Key {
  uint64_t c;   // its row, shifted to its current pivot candidate
  uint32_t s;   // that row
  uint32_t rr;  // its result bits, reduced so far
};

// One insertion stream: a range of whole buckets of the sorted keys.
struct Stream {
  uint64_t* keys;
  size_t next = 0;        // the next key
  size_t end = 0;         // the end of the range
  size_t bumped_end = 0;  // bumped keys are swapped to [range start, here)
  size_t bucket_first = 0;
  // Pivots must stay below *limit: the first row the next stream may still
  // change (the start of its current bucket; it only grows). This stream
  // keeps *prev_limit, the previous stream's limit, up to date.
  uint32_t* limit = nullptr;
  uint32_t* prev_limit = nullptr;
  uint32_t bucket = kNoBucket;
  uint32_t code = 3;       // the bucket's code so far
  uint32_t threshold = 0;  // BumpThreshold(code)
  uint32_t offset = 0;     // the inserting key's offset in its bucket
  uint32_t frontier = 0;   // 1 + the highest pivot so far
  uint32_t inserted = 0;   // keys of the bucket inserted so far
  // The inline next-key path takes key i if i < fast_end and its start s
  // has s - fast_lo < fast_width (same bucket, offset >= threshold).
  size_t fast_end = 0;
  uint32_t fast_lo = 0;
  uint32_t fast_width = 0;
  // (offset << 32 | pivot) of the bucket's inserted keys, in order.
  std::vector<uint64_t> records;

  void Grow() { records.resize(records.empty() ? 512 : 2 * records.size()); }
  void SetFast() {
    fast_lo = (bucket << kLogBucket) + threshold;
    fast_width = kBucketSize - threshold;
    fast_end = std::min(end, bucket_first + records.size() - 2);
  }
};

template <typename Row>
BLOCKBLOOM_RIBBON_INLINE uint64_t LayerX(const Band<Row>& band, uint64_t hash) {
  return band.identity ? hash : LayerHash(hash, band.salt, band.layer);
}

template <typename Row>
BLOCKBLOOM_RIBBON_INLINE Key KeyOf(const Band<Row>& band, uint64_t x,
                                   uint32_t start) {
  return {Coefficients(x), start, ResultBits(x) & band.result_mask};
}

template <typename Row>
void FinishBucket(Band<Row>& band, Stream& st) {
  if (st.bucket == kNoBucket) return;
  const uint32_t shift = 2 * (st.bucket & 3);
  uint8_t& byte = band.codes[st.bucket >> 2];
  byte = static_cast<uint8_t>((byte & ~(3u << shift)) | (st.code << shift));
}

// The stream's next key, in general: a new bucket, bumped keys, the records
// growing. Returns c = 0 at the end of the range.
template <typename Row>
__attribute__((noinline)) Key NextKey(Band<Row>& band, Stream& st) {
  while (st.next < st.end) {
    const uint64_t x = LayerX(band, st.keys[st.next]);
    const uint32_t s = Start(x, band.num_starts);
    const uint32_t bucket = s >> kLogBucket;
    const uint32_t offset = s & (kBucketSize - 1);
    if (bucket != st.bucket) {
      FinishBucket(band, st);
      if (st.prev_limit != nullptr) *st.prev_limit = bucket << kLogBucket;
      st.bucket = bucket;
      st.bucket_first = st.next;
      st.inserted = 0;
      // Rows of this bucket already taken by earlier buckets' keys.
      const uint32_t first_row = bucket << kLogBucket;
      const uint32_t spill =
          st.frontier > first_row ? st.frontier - first_row : 0;
      st.code = spill > band.pre_bump_spill ? 2 : 3;
      st.threshold = BumpThreshold(st.code, band.bump_lo, band.bump_hi);
      st.SetFast();
    }
    if (offset < st.threshold) {  // below the bucket's threshold: bumped
      std::swap(st.keys[st.bumped_end++], st.keys[st.next++]);
      continue;
    }
    if (st.inserted + 2 >= st.records.size()) {  // a huge bucket
      st.Grow();
      st.SetFast();
    }
    ++st.next;
    st.offset = offset;
    return KeyOf(band, x, s);
  }
  FinishBucket(band, st);
  st.bucket = kNoBucket;
  if (st.prev_limit != nullptr) *st.prev_limit = *st.limit;  // all final
  return {0, 0, 0};
}

// The inserting key (at st.offset, already counted in st.next) failed: 0 =
// 1, or its pivot would pass the limit. Raise the bucket's threshold above
// it, undo the keys below, bump them with it.
template <typename Row>
__attribute__((noinline)) Key OnFail(Band<Row>& band, Stream& st) {
  const uint32_t o = st.offset;
  const uint32_t code = o < band.bump_lo ? 2 : o < band.bump_hi ? 1 : 0;
  const uint32_t threshold = BumpThreshold(code, band.bump_lo, band.bump_hi);
  // The inserted keys below the threshold are a suffix of the insertion
  // order (offsets descend): no other row was reduced by them.
  while (st.inserted > 0 && (st.records[st.inserted - 1] >> 32) < threshold) {
    --st.inserted;
    const uint32_t pivot = static_cast<uint32_t>(st.records[st.inserted]);
    if (pivot != kRedundant) band.coeff[pivot] = 0;
  }
  st.code = code;
  st.threshold = threshold;
  st.SetFast();
  for (size_t k = st.bucket_first + st.inserted; k < st.next; ++k) {
    std::swap(st.keys[st.bumped_end++], st.keys[k]);
  }
  return NextKey(band, st);
}

// The inserting key is done: held with pivot `row`, or redundant. Records
// it, then takes the next key: inline when it is in the same bucket at or
// above the threshold (the common case), else NextKey.
template <typename Row>
BLOCKBLOOM_RIBBON_INLINE Key OnDone(Band<Row>& band, Stream& st, uint32_t row) {
  const uint32_t k = st.inserted;
  st.records[k] = (uint64_t{st.offset} << 32) | row;
  st.inserted = k + 1;
  st.frontier = std::max(st.frontier, row + 1);  // (kRedundant + 1 = 0)
  const size_t i = st.next;
  if (__builtin_expect(i < st.fast_end, 1)) {
    const uint64_t x = LayerX(band, st.keys[i]);
    const uint32_t s = Start(x, band.num_starts);
    if (__builtin_expect(s - st.fast_lo < st.fast_width, 1)) {
      st.next = i + 1;
      st.offset = s & (kBucketSize - 1);
      return KeyOf(band, x, s);
    }
  }
  return NextKey(band, st);
}

template <typename Row>
__attribute__((noinline)) Key OnZero(Band<Row>& band, Stream& st, uint32_t rr) {
  if (rr != 0) return OnFail(band, st);  // 0 = 1
  return OnDone(band, st, kRedundant);   // 0 = 0
}

// A stream's walker: its key, kept in registers, and a register copy of its
// limit, re-read only when passed (a stale limit is lower: safe).
struct Walker {
  Key key;
  uint32_t limit;
};

template <typename Row>
BLOCKBLOOM_RIBBON_INLINE Walker StartWalker(Band<Row>& band, Stream& st) {
  return {NextKey(band, st), *st.limit};
}

// One elimination step of walker w of stream st; `done` is set when the
// stream ends.
template <typename Row>
BLOCKBLOOM_RIBBON_INLINE void Step(Band<Row>& band, Stream& st, Walker& w,
                                   bool& done) {
  Key& key = w.key;
  const uint64_t other = band.coeff[key.s];
  Key next;
  if (other == 0) {
    band.coeff[key.s] = key.c;
    band.result[key.s] = static_cast<Row>(key.rr);
    next = OnDone(band, st, key.s);
  } else {
    key.c ^= other;
    key.rr ^= band.result[key.s];
    if (__builtin_expect(key.c != 0, 1)) {
      const int shift = __builtin_ctzll(key.c);
      key.s += static_cast<uint32_t>(shift);
      key.c >>= shift;
      if (__builtin_expect(key.s < w.limit, 1)) return;
      w.limit = *st.limit;
      if (key.s < w.limit) return;
      next = OnFail(band, st);
    } else {
      next = OnZero(band, st, key.rr);
    }
  }
  key = next;
  done |= next.c == 0;
}

template <typename Row>
BLOCKBLOOM_RIBBON_INLINE void RunToEnd(Band<Row>& band, Stream& st, Walker& w) {
  bool unused = false;
  while (w.key.c != 0) Step(band, st, w, unused);
}

// K streams in one loop, one step of each per turn; when one ends, the
// others finish one at a time. The walkers are locals indexed by constants
// only, so the compiler keeps them in registers.
template <typename Row, size_t... kI>
void Interleave(Band<Row>& band, Stream* st, std::index_sequence<kI...>) {
  Walker w[sizeof...(kI)] = {StartWalker(band, st[kI])...};
  bool done = ((w[kI].key.c == 0) || ...);
  while (!done) (Step(band, st[kI], w[kI], done), ...);
  (RunToEnd(band, st[kI], w[kI]), ...);
}

// The first row of the bucket of keys[i] (sorted).
template <typename Row>
uint32_t BucketRow(const Band<Row>& band, const uint64_t* keys, size_t i) {
  return (Start(LayerX(band, keys[i]), band.num_starts) >> kLogBucket)
         << kLogBucket;
}

}  // namespace

int StreamsFor(uint64_t keys, int layer) {
  const uint64_t per_stream = layer == 0 ? 24000 : 2000;
  return static_cast<int>(std::clamp<uint64_t>(keys / per_stream, 1, 4));
}

template <typename Row>
size_t BandLayer(const LayerSystem<Row>& system, const BandingOptions& options,
                 uint64_t* keys, size_t n) {
  Band<Row> band{system.coeff,
                 system.result,
                 system.codes,
                 NumStarts(system.num_blocks),
                 options.salt,
                 options.layer,
                 options.result_mask,
                 options.bump_lo,
                 options.bump_hi,
                 options.pre_bump_spill,
                 options.salt == 0 && options.layer == 0};
  const int num_streams = std::clamp(options.streams, 1, 4);
  // Ranges of whole buckets, about n / K keys each.
  size_t bounds[5];
  bounds[0] = 0;
  bounds[num_streams] = n;
  for (int k = 1; k < num_streams; ++k) {
    size_t i = std::max(bounds[k - 1], n * static_cast<size_t>(k) /
                                           static_cast<size_t>(num_streams));
    if (i < n) {
      const uint32_t row = BucketRow(band, keys, i);
      while (i < n && BucketRow(band, keys, i) == row) ++i;
    }
    bounds[k] = i;
  }
  uint32_t limits[4];
  Stream streams[4];
  for (int k = 0; k < num_streams; ++k) {
    Stream& st = streams[k];
    st.keys = keys;
    st.next = st.bumped_end = bounds[k];
    st.end = bounds[k + 1];
    limits[k] = bounds[k + 1] < n ? BucketRow(band, keys, bounds[k + 1])
                                  : system.num_blocks * 64;
    st.limit = &limits[k];
    st.prev_limit = k > 0 ? &limits[k - 1] : nullptr;
    st.Grow();
  }
  switch (num_streams) {
    case 1:
      Interleave(band, streams, std::make_index_sequence<1>{});
      break;
    case 2:
      Interleave(band, streams, std::make_index_sequence<2>{});
      break;
    case 3:
      Interleave(band, streams, std::make_index_sequence<3>{});
      break;
    default:
      Interleave(band, streams, std::make_index_sequence<4>{});
      break;
  }
  // The streams' bumped keys to the front, by swaps: the keys stay a
  // permutation of the input.
  size_t bumped = 0;
  for (int k = 0; k < num_streams; ++k) {
    const size_t begin = bounds[k];
    const size_t count = streams[k].bumped_end - begin;
    if (begin != bumped) {
      if (bumped + count <= begin) {
        std::swap_ranges(keys + begin, keys + begin + count, keys + bumped);
      } else {
        std::rotate(keys + bumped, keys + begin, keys + begin + count);
      }
    }
    bumped += count;
  }
  return bumped;
}

template size_t BandLayer(const LayerSystem<uint16_t>&, const BandingOptions&,
                          uint64_t*, size_t);
template size_t BandLayer(const LayerSystem<uint32_t>&, const BandingOptions&,
                          uint64_t*, size_t);

}  // namespace blockbloom::internal::ribbon
