#include "bench/filters/members.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace blockbloom::bench {

std::string SizeName(size_t bytes) {
  if (bytes >= GiB && bytes % GiB == 0)
    return std::to_string(bytes / GiB) + "GiB";
  if (bytes >= MiB && bytes % MiB == 0)
    return std::to_string(bytes / MiB) + "MiB";
  return std::to_string(bytes / KiB) + "KiB";
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

// The absent probe hashes every filter gets in the pre-hashed benchmarks.
const std::vector<uint64_t>& ProbeHashes() {
  static const std::vector<uint64_t>* hashes = [] {
    auto* h = new std::vector<uint64_t>(kProbeHashes);
    uint64_t state = 0x5eed0fab5e17ULL;
    for (uint64_t& x : *h) x = SplitMix64(state);
    return h;
  }();
  return *hashes;
}

void SetIdealRandomBits(uint64_t* words, uint64_t num_bits, uint64_t count,
                        uint64_t seed) {
  constexpr int kBucketBits = 16;
  const uint64_t buckets = num_bits >> kBucketBits;
  std::mt19937_64 counts(seed);
  uint64_t state = seed;
  uint64_t remaining = count;
  for (uint64_t b = 0; b < buckets; ++b) {
    uint64_t here = remaining;
    if (b + 1 < buckets) {
      std::binomial_distribution<uint64_t> split(
          remaining, 1.0 / static_cast<double>(buckets - b));
      here = split(counts);
    }
    remaining -= here;
    uint64_t* base = words + (b << (kBucketBits - 6));
    for (uint64_t i = 0; i < here; i += 4) {
      uint64_t r = SplitMix64(state);
      for (uint64_t j = i; j < here && j < i + 4; ++j, r >>= 16) {
        const uint64_t bit = r & 0xffff;
        base[bit >> 6] |= uint64_t{1} << (bit & 63);
      }
    }
  }
}

}  // namespace blockbloom::bench
