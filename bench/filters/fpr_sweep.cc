// False-positive rate against bits/key for every filter of the benchmark,
// measured and predicted, for the FPR plot of docs/BENCHMARKS.md.
//
//   fpr_sweep [--keys=1000000] [--probes=8000000] > fpr.csv
//
// For each bits/key c in 4, 6, ..., 20, each filter gets the same n member
// hashes (LevelDB's 32-bit format their low halves), then `probes` absent
// 8-byte keys, each hashed with the filter's own hash function (XXH3 for
// blockbloom, FastLocalBloom and the standard filter, XXH64 for Parquet,
// LevelDB's own hash through its KeyMayMatch). Output, CSV:
//   filter,bits_per_key,k,keys,probes,positives,measured,theory
// where theory is the filter's own formula (docs/BENCHMARKS.md), and rows
// with filter "bound" give the information-theoretic 2^-c.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/baselines/fastlocal_bloom.h"
#include "bench/baselines/leveldb_bloom.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/baselines/standard_bloom.h"
#include "bench/splitmix.h"
#include "blockbloom/filter.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace blockbloom::bench {
namespace {

// E over a Poisson(lambda) block load i of f(i).
template <typename F>
double PoissonMixture(double lambda, F f) {
  const int top = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 40);
  double sum = 0;
  double log_p = -lambda;  // log P(0)
  for (int i = 0; i <= top; ++i) {
    if (i > 0) log_p += std::log(lambda) - std::log(static_cast<double>(i));
    sum += std::exp(log_p) * f(i);
  }
  return sum;
}

// A one-line (512-bit) Bloom filter with k probes anywhere in the line.
double BlockedTheory(double keys_per_line, int k) {
  return PoissonMixture(keys_per_line, [&](int i) {
    return std::pow(1 - std::pow(1 - 1.0 / 512, static_cast<double>(k) * i), k);
  });
}

// Parquet: 256-bit blocks, one bit in each of 8 fixed 32-bit words.
double ParquetTheory(double keys_per_block) {
  return PoissonMixture(keys_per_block, [](int i) {
    return std::pow(1 - std::pow(1 - 1.0 / 32, i), 8);
  });
}

double StandardTheory(double bits_per_key, int k) {
  return std::pow(1 - std::exp(-k / bits_per_key), k);
}

struct Row {
  const char* filter;
  double c;
  int k;
  uint64_t keys, probes, positives;
  double theory;
};

void Print(const Row& r) {
  std::printf("%s,%g,%d,%llu,%llu,%llu,%.8g,%.8g\n", r.filter, r.c, r.k,
              static_cast<unsigned long long>(r.keys),
              static_cast<unsigned long long>(r.probes),
              static_cast<unsigned long long>(r.positives),
              r.probes ? static_cast<double>(r.positives) /
                             static_cast<double>(r.probes)
                       : 0.0,
              r.theory);
  std::fflush(stdout);
}

// Runs `probe` on `probes` distinct absent 8-byte keys; returns positives.
template <typename Probe>
uint64_t CountPositives(uint64_t probes, uint64_t salt, Probe probe) {
  uint64_t positives = 0;
  char key[8];
  for (uint64_t i = 0; i < probes; ++i) {
    const uint64_t v = (i ^ salt) | (uint64_t{1} << 63);
    std::memcpy(key, &v, 8);
    positives += probe(std::string_view(key, 8));
  }
  return positives;
}

uint64_t ParseFlag(int argc, char** argv, const char* name, uint64_t def) {
  const size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') {
      return std::strtoull(argv[i] + len + 1, nullptr, 10);
    }
  }
  return def;
}

int Main(int argc, char** argv) {
  const uint64_t n = ParseFlag(argc, argv, "--keys", 1000000);
  const uint64_t probes = ParseFlag(argc, argv, "--probes", 8000000);
  std::vector<uint64_t> members(n);
  uint64_t state = 12345;
  for (uint64_t& h : members) h = SplitMix64(state);
  std::vector<uint32_t> low(n);
  for (uint64_t i = 0; i < n; ++i) low[i] = static_cast<uint32_t>(members[i]);

  std::printf("filter,bits_per_key,k,keys,probes,positives,measured,theory\n");
  for (int ci = 4; ci <= 20; ci += 2) {
    const double c = ci;
    const uint64_t salt = static_cast<uint64_t>(ci) << 40;
    Print({"bound", c, 0, n, 0, 0, std::pow(2.0, -c)});

    {  // blockbloom
      FilterOptions options;
      options.bits_per_key = c;
      FilterBuilder builder = *FilterBuilder::Create(options);
      for (uint64_t h : members) builder.AddHash(h);
      const Filter f = *builder.Finish();
      const uint64_t pos = CountPositives(
          probes, salt, [&](std::string_view k) { return f.MayContain(k); });
      Print({"blockbloom", c, f.num_probes(), n, probes, pos,
             f.EstimatedFpRate()});
    }
    {  // FastLocalBloom: RocksDB's bytes (= RocksDB's reader's answers)
      const int millibits = fastlocal::MillibitsPerKey(c);
      const int k = fastlocal::ChooseNumProbes(millibits);
      const size_t total = fastlocal::FilterBytes(n, millibits);
      const size_t len = total - fastlocal::kMetadataLen;
      std::vector<uint8_t> bytes(total);
      fastlocal::AddHashes(bytes.data(), static_cast<uint32_t>(len), k,
                           members.data(), n);
      fastlocal::WriteTrailer(bytes.data(), len, k);
      const fastlocal::Reader reader(bytes.data(), total);
      const uint64_t pos = CountPositives(
          probes, salt,
          [&](std::string_view key) { return reader.MayMatchKey(key); });
      Print({"fastlocal", c, k, n, probes, pos,
             BlockedTheory(static_cast<double>(n) / (len / 64.0), k)});
    }
    {  // Parquet split block
      const uint64_t blocks =
          static_cast<uint64_t>(std::ceil(static_cast<double>(n) * c / 256));
      std::vector<uint8_t> bits(blocks * parquet::kBlockBytes);
      const parquet::Kernels* kernels = parquet::ActiveKernels();
      kernels->insert_batch(bits.data(), blocks, members.data(), n);
      const uint64_t pos =
          CountPositives(probes, salt, [&](std::string_view key) {
            return kernels->probe(bits.data(), blocks, parquet::Hash(key));
          });
      Print({"parquet", c, 8, n, probes, pos,
             ParquetTheory(static_cast<double>(n) /
                           static_cast<double>(blocks))});
    }
    {  // standard Bloom
      const uint64_t num_bits =
          static_cast<uint64_t>(static_cast<double>(n) * c);
      std::vector<uint64_t> words((num_bits + 63) / 64);
      const standard::FilterRef f = {words.data(), num_bits,
                                     standard::NumProbes(c)};
      standard::InsertBatch(f, members.data(), n);
      const uint64_t pos =
          CountPositives(probes, salt, [&](std::string_view key) {
            return standard::MayContain(f, XXH3_64bits(key.data(), key.size()));
          });
      Print({"standard", c, f.num_probes, n, probes, pos,
             StandardTheory(c, f.num_probes)});
    }
    {  // LevelDB: its format, probed through its own KeyMayMatch
      std::unique_ptr<const leveldb::FilterPolicy> policy(
          leveldb::NewBloomFilterPolicy(ci));
      std::string filter;
      leveldb_format::BuildFromHashes(low.data(), n, ci, &filter);
      const leveldb::Slice slice(filter);
      const uint64_t pos =
          CountPositives(probes, salt, [&](std::string_view key) {
            return policy->KeyMayMatch(leveldb::Slice(key.data(), key.size()),
                                       slice);
          });
      const int k = leveldb_format::NumProbes(ci);
      // A 32-bit hash equal to a member's passes whatever the bits.
      const double bloom = StandardTheory(c, k);
      const double collide =
          1 - std::pow(1 - std::ldexp(1.0, -32), static_cast<double>(n));
      Print({"leveldb", c, k, n, probes, pos, bloom + (1 - bloom) * collide});
    }
  }
  return 0;
}

}  // namespace
}  // namespace blockbloom::bench

int main(int argc, char** argv) { return blockbloom::bench::Main(argc, argv); }
