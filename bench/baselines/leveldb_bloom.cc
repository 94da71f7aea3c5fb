#include "bench/baselines/leveldb_bloom.h"

#include <algorithm>
#include <cstring>

namespace blockbloom::bench::leveldb_format {

uint32_t Hash(const char* data, size_t n, uint32_t seed) {
  // Murmur-like: 4 bytes at a time, then the 0-3 left over.
  constexpr uint32_t m = 0xc6a4a793;
  constexpr uint32_t r = 24;
  const char* const limit = data + n;
  uint32_t h = seed ^ static_cast<uint32_t>(n * m);
  for (; data + 4 <= limit; data += 4) {
    uint32_t w;
    std::memcpy(&w, data, 4);  // little-endian hosts, as DecodeFixed32
    h += w;
    h *= m;
    h ^= (h >> 16);
  }
  const size_t rest = static_cast<size_t>(limit - data);
  if (rest > 0) {
    if (rest == 3)
      h += static_cast<uint32_t>(static_cast<uint8_t>(data[2])) << 16;
    if (rest >= 2)
      h += static_cast<uint32_t>(static_cast<uint8_t>(data[1])) << 8;
    h += static_cast<uint8_t>(data[0]);
    h *= m;
    h ^= (h >> r);
  }
  return h;
}

int NumProbes(int bits_per_key) {
  const int k = static_cast<int>(bits_per_key * 0.69);
  return std::clamp(k, 1, 30);
}

size_t AppendEmptyFilter(size_t n, int bits_per_key, std::string* dst) {
  size_t bits = n * static_cast<size_t>(bits_per_key);
  if (bits < 64) bits = 64;
  const size_t bytes = (bits + 7) / 8;
  const size_t offset = dst->size();
  dst->resize(offset + bytes, 0);
  dst->push_back(static_cast<char>(NumProbes(bits_per_key)));
  return offset;
}

void AddHashes(char* array, size_t bits, int num_probes, const uint32_t* hashes,
               size_t n) {
  constexpr size_t kChunk = 16;
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t j = 0; j < m; ++j) {
      uint32_t h = hashes[start + j];
      const uint32_t delta = (h >> 17) | (h << 15);
      for (int i = 0; i < num_probes; ++i, h += delta) {
        __builtin_prefetch(array + (h % bits) / 8, 1, 3);
      }
    }
    for (size_t j = 0; j < m; ++j) {
      uint32_t h = hashes[start + j];
      const uint32_t delta = (h >> 17) | (h << 15);  // rotate right 17
      for (int i = 0; i < num_probes; ++i, h += delta) {
        const size_t bitpos = h % bits;
        array[bitpos / 8] =
            static_cast<char>(array[bitpos / 8] | (1 << (bitpos % 8)));
      }
    }
  }
}

void BuildFromHashes(const uint32_t* hashes, size_t n, int bits_per_key,
                     std::string* dst) {
  const size_t offset = AppendEmptyFilter(n, bits_per_key, dst);
  const size_t bits = (dst->size() - offset - 1) * 8;
  AddHashes(dst->data() + offset, bits, NumProbes(bits_per_key), hashes, n);
}

}  // namespace blockbloom::bench::leveldb_format
