#include "bench/baselines/fastlocal_bloom.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

// RocksDB's key hash for its Bloom filters (util/hash.h: GetSliceHash64 =
// Hash64 = XXPH3, the frozen XXH3 *preview* RocksDB bundles; its values
// differ from the released XXH3_64bits for every input length). Exported
// by librocksdb, not declared in its public headers.
namespace rocksdb {
uint64_t Hash64(const char* data, size_t n);
}  // namespace rocksdb

namespace blockbloom::bench::fastlocal {
namespace {

constexpr uint32_t kGolden = 0x9e3779b9;  // 2^32 / golden ratio

inline uint32_t FastRange32(uint32_t hash, uint32_t range) {
  return static_cast<uint32_t>((uint64_t{hash} * range) >> 32);
}

inline uint32_t LineOffset(uint32_t h1, uint32_t len) {
  return FastRange32(h1, len >> 6) << 6;
}

// Probe i of a key looks at bit (h2 * kGolden^i) >> 23 of its line.
inline void AddToLine(uint32_t h2, int num_probes, uint8_t* line) {
  uint32_t h = h2;
  for (int i = 0; i < num_probes; ++i, h *= kGolden) {
    const uint32_t bit = h >> 23;
    line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
  }
}

inline bool ScalarLineMatch(uint32_t h2, int num_probes, const uint8_t* line) {
  uint32_t h = h2;
  for (int i = 0; i < num_probes; ++i, h *= kGolden) {
    const uint32_t bit = h >> 23;
    if ((line[bit >> 3] & (1u << (bit & 7))) == 0) return false;
  }
  return true;
}

// The AVX2 probe of the published algorithm: eight probes per round. The
// eight hash values are h2 times the first eight powers of the golden
// ratio; the top 4 bits of each pick a 32-bit word of the line (gathered
// with two in-lane permutes and a blend on the top bit), the next 5 bits the
// bit in it; unused probes of the last round get a zero mask.
__attribute__((target("avx2"))) inline bool Avx2LineMatch(uint32_t h2,
                                                          int num_probes,
                                                          const uint8_t* line) {
  const __m256i powers =
      _mm256_setr_epi32(0x00000001, static_cast<int>(0x9e3779b9),
                        static_cast<int>(0xe35e67b1), 0x734297e9, 0x35fbe861,
                        static_cast<int>(0xdeb7c719), 0x0448b211, 0x3459b749);
  const __m256i lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lower =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i upper =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  uint32_t h = h2;
  int remaining = num_probes;
  for (;;) {
    const __m256i hv =
        _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h)), powers);
    const __m256i word = _mm256_srli_epi32(hv, 28);
    const __m256i from_lower = _mm256_permutevar8x32_epi32(lower, word);
    const __m256i from_upper = _mm256_permutevar8x32_epi32(upper, word);
    const __m256i values =
        _mm256_blendv_epi8(from_lower, from_upper, _mm256_srai_epi32(hv, 31));
    // 1 in lanes i < remaining, 0 beyond.
    const __m256i active = _mm256_srli_epi32(
        _mm256_sub_epi32(lane_index, _mm256_set1_epi32(remaining)), 31);
    const __m256i bit = _mm256_srli_epi32(_mm256_slli_epi32(hv, 4), 27);
    const __m256i mask = _mm256_sllv_epi32(active, bit);
    const bool match = _mm256_testc_si256(values, mask) != 0;
    if (remaining <= 8) return match;
    if (!match) return false;
    h *= 0xab25f4c1;  // kGolden^8: the next round's first probe
    remaining -= 8;
  }
}

constexpr size_t kBatch = 32;

}  // namespace

uint64_t Hash(std::string_view key) {
  return rocksdb::Hash64(key.data(), key.size());
}

int ChooseNumProbes(int m) {
  // RocksDB's table (util/bloom_impl.h): the most accurate k per setting.
  if (m <= 2080) return 1;
  if (m <= 3580) return 2;
  if (m <= 5100) return 3;
  if (m <= 6640) return 4;
  if (m <= 8300) return 5;
  if (m <= 10070) return 6;
  if (m <= 11720) return 7;
  if (m <= 14001) return 8;
  if (m <= 16050) return 9;
  if (m <= 18300) return 10;
  if (m <= 22001) return 11;
  if (m <= 25501) return 12;
  if (m > 50000) return 24;
  return (m - 1) / 2000 - 1;
}

int MillibitsPerKey(double bits_per_key) {
  // RocksDB: millibits_per_key_ = static_cast<int>(bits_per_key * 1000.0 +
  // 0.500001), at least 1000.
  const int m = static_cast<int>(bits_per_key * 1000.0 + 0.500001);
  return std::max(m, 1000);
}

size_t FilterBytes(size_t num_keys, int millibits_per_key) {
  size_t raw = static_cast<size_t>(
      (uint64_t{num_keys} * static_cast<uint64_t>(millibits_per_key) + 7999) /
      8000);
  raw = std::min(raw, size_t{0xffffffc0});
  return ((raw + 63) & ~size_t{63}) + kMetadataLen;
}

void WriteTrailer(uint8_t* data, size_t len, int num_probes) {
  data[len] = 0xff;   // "newer Bloom implementations"
  data[len + 1] = 0;  // sub-implementation: FastLocalBloom
  data[len + 2] = static_cast<uint8_t>(num_probes);  // and 64-byte lines
  data[len + 3] = 0;
  data[len + 4] = 0;
}

void AddHashes(uint8_t* data, uint32_t len, int num_probes,
               const uint64_t* hashes, size_t n) {
  // A ring of 8: prefetch a key's line, add it 8 keys later (as RocksDB).
  constexpr size_t kRing = 8;
  uint32_t h2s[kRing];
  uint32_t offsets[kRing];
  size_t i = 0;
  for (; i < kRing && i < n; ++i) {
    offsets[i] = LineOffset(static_cast<uint32_t>(hashes[i]), len);
    __builtin_prefetch(data + offsets[i], 1, 1);
    h2s[i] = static_cast<uint32_t>(hashes[i] >> 32);
  }
  for (; i < n; ++i) {
    const size_t slot = i & (kRing - 1);
    AddToLine(h2s[slot], num_probes, data + offsets[slot]);
    offsets[slot] = LineOffset(static_cast<uint32_t>(hashes[i]), len);
    __builtin_prefetch(data + offsets[slot], 1, 1);
    h2s[slot] = static_cast<uint32_t>(hashes[i] >> 32);
  }
  for (size_t j = 0; j < kRing && j < n; ++j) {
    AddToLine(h2s[j], num_probes, data + offsets[j]);
  }
}

Reader::Reader(const uint8_t* data, size_t total)
    : data_(data),
      len_(static_cast<uint32_t>(total - kMetadataLen)),
      num_probes_(data[total - kMetadataLen + 2] & 31),
      avx2_(__builtin_cpu_supports("avx2")) {}

bool Reader::MayMatchHashScalar(uint64_t h) const {
  return ScalarLineMatch(static_cast<uint32_t>(h >> 32), num_probes_,
                         data_ + LineOffset(static_cast<uint32_t>(h), len_));
}

bool Reader::MayMatchHashAvx2(uint64_t h) const {
  return Avx2LineMatch(static_cast<uint32_t>(h >> 32), num_probes_,
                       data_ + LineOffset(static_cast<uint32_t>(h), len_));
}

bool Reader::MayMatchHash(uint64_t h) const {
  // RocksDB's FastLocalBloomBitsReader::MayMatch: PrepareHash (line offset,
  // prefetch of both ends of the line), then the probe.
  const uint8_t* line = data_ + LineOffset(static_cast<uint32_t>(h), len_);
  __builtin_prefetch(line, 0, 1);
  __builtin_prefetch(line + 63, 0, 1);
  const uint32_t h2 = static_cast<uint32_t>(h >> 32);
  return avx2_ ? Avx2LineMatch(h2, num_probes_, line)
               : ScalarLineMatch(h2, num_probes_, line);
}

bool Reader::MayMatchKey(std::string_view key) const {
  return MayMatchHash(Hash(key));
}

void Reader::MayMatchHashes(const uint64_t* hashes, size_t n,
                            bool* results) const {
  uint32_t offsets[kBatch];
  for (size_t start = 0; start < n; start += kBatch) {
    const size_t m = std::min(kBatch, n - start);
    for (size_t j = 0; j < m; ++j) {
      offsets[j] = LineOffset(static_cast<uint32_t>(hashes[start + j]), len_);
      // RocksDB prefetches both ends of the line (filters it reads need not
      // be 64-byte aligned); on an aligned filter both hit the same line.
      __builtin_prefetch(data_ + offsets[j], 0, 1);
      __builtin_prefetch(data_ + offsets[j] + 63, 0, 1);
    }
    if (avx2_) {
      for (size_t j = 0; j < m; ++j) {
        results[start + j] =
            Avx2LineMatch(static_cast<uint32_t>(hashes[start + j] >> 32),
                          num_probes_, data_ + offsets[j]);
      }
    } else {
      for (size_t j = 0; j < m; ++j) {
        results[start + j] =
            ScalarLineMatch(static_cast<uint32_t>(hashes[start + j] >> 32),
                            num_probes_, data_ + offsets[j]);
      }
    }
  }
}

void Reader::MayMatchKeys(const std::string_view* keys, size_t n,
                          bool* results) const {
  uint64_t hashes[kBatch];
  for (size_t start = 0; start < n; start += kBatch) {
    const size_t m = std::min(kBatch, n - start);
    for (size_t j = 0; j < m; ++j) hashes[j] = Hash(keys[start + j]);
    MayMatchHashes(hashes, m, results + start);
  }
}

}  // namespace blockbloom::bench::fastlocal
