// The time of a LevelDB filter probe of an ABSENT key when there are many
// filters and each probe goes to a random one, as in a LevelDB read path
// over thousands of data blocks (db_bench's 1M keys make 17,554 filters of
// ~36 keys): LevelDB's built-in Bloom filter (Debian's libleveldb) against
// blockbloom's policy, both through leveldb::FilterPolicy, side by side in
// one process.
//
// Why this exists next to bench/leveldb/leveldb_probe_cost.sh: that one counts
// instructions over 100 filters, which stay in cache. Here the filters (and
// blockbloom's per-thread probe cache, src/policy/probe_cache.h) do not, and
// what a probe costs is mostly the cache lines it has to wait for. This is what
// makes blockbloom slower than the built-in in db_bench although it runs
// fewer instructions (docs/BENCHMARKS.md, "LevelDB").
//
//   leveldb_many_filters [--keys=36] [--filters=17554] [--bits=10]
//                        [--probes=2000000] [--rounds=7] [--accurate]
//                        [--present]
//
// Each side's filters lie back to back in one buffer, as LevelDB lays out a
// table's filter block (unaligned: a 46-byte filter straddles two cache
// lines most of the time). --accurate measures the accurate encoding
// (fewer_false_positives) instead of the default; --present probes keys the
// filters hold (every bit tested: no early exit).
//
// Each round times the same probes (absent keys, each against a random
// filter) with the built-in, then with blockbloom, after one untimed pass of
// each (blockbloom verifies each filter on its first probe by a thread).
// Prints each side's median ns per probe with min-max over the rounds, and
// the median of the per-round ratios blockbloom/built-in. Pin it to one core
// (taskset -c 1) and run it alone; memory-bound timings swing with whatever
// else uses the caches. Exits 1 if a filter misses one of its own keys.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "blockbloom/leveldb.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

ABSL_FLAG(int, keys, 36, "keys per filter");
ABSL_FLAG(int, filters, 17554, "filters");
ABSL_FLAG(int, bits, 10, "bits per key, as LevelDB's NewBloomFilterPolicy");
ABSL_FLAG(int64_t, probes, 2000000, "timed probes per side and round");
ABSL_FLAG(int, rounds, 7, "rounds");
ABSL_FLAG(bool, present, false,
          "probe keys each filter holds (a lookup that finds its key, as "
          "db_bench's readrandom at the level holding it) instead of absent "
          "ones");
ABSL_FLAG(bool, accurate, false,
          "blockbloom's accurate encoding (fewer_false_positives)");

namespace {

// db_bench's keys: "%016d" of a random number (here below 10^9).
std::string Key(std::mt19937_64& rng) {
  return absl::StrFormat("%016d", rng() % 1000000000);
}

struct Probes {
  std::vector<std::string> keys;
  std::vector<uint32_t> filter;  // which filter each key is probed against
};

// The probe loop, not inlined (nor merged with its twins: noipa). One
// instantiation per side and one for the untimed first pass, so that a
// profiler can tell them apart: e.g. the cache lines each side waits for, under
// callgrind's cache model with a 1 MiB last level (about an L2), counted for
// the timed loops only:
//   valgrind --tool=callgrind --cache-sim=yes --LL=1048576,16,64
//     --collect-atstart=no --toggle-collect='*ProbeLoop<1>*'
//     --toggle-collect='*ProbeLoop<2>*'
//     leveldb_many_filters --rounds=1 --probes=300000
//   callgrind_annotate --inclusive=yes callgrind.out.<pid>
// (D1mr: L1 misses; DLmr: misses of that 1 MiB level.)
constexpr int kFirstPass = 0, kBuiltin = 1, kBlockbloom = 2;
template <int kLoop>
[[gnu::noipa]] int ProbeLoop(const leveldb::FilterPolicy& policy,
                             const std::vector<leveldb::Slice>& filters,
                             const Probes& probes) {
  int matches = 0;
  for (size_t i = 0; i < probes.keys.size(); ++i) {
    matches += policy.KeyMayMatch(probes.keys[i], filters[probes.filter[i]]);
  }
  return matches;
}

template <int kLoop>
double NanosPerProbe(const leveldb::FilterPolicy& policy,
                     const std::vector<leveldb::Slice>& filters,
                     const Probes& probes, int* matches) {
  const auto start = std::chrono::steady_clock::now();
  *matches = ProbeLoop<kLoop>(policy, filters, probes);
  const std::chrono::duration<double, std::nano> took =
      std::chrono::steady_clock::now() - start;
  return took.count() / static_cast<double>(probes.keys.size());
}

struct Summary {
  double median, min, max;
};
Summary Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "LevelDB KeyMayMatch of absent keys over many filters in random order: "
      "built-in vs blockbloom, ns per probe");
  absl::ParseCommandLine(argc, argv);
  const int num_keys = std::max(1, absl::GetFlag(FLAGS_keys));
  const int num_filters = std::max(1, absl::GetFlag(FLAGS_filters));
  const int bits = std::max(1, absl::GetFlag(FLAGS_bits));
  const int64_t num_probes = std::max<int64_t>(1, absl::GetFlag(FLAGS_probes));
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  const bool present = absl::GetFlag(FLAGS_present);

  std::unique_ptr<const leveldb::FilterPolicy> builtin(
      leveldb::NewBloomFilterPolicy(bits));
  blockbloom::FilterPolicy::Options options;
  options.bits_per_key = bits;
  options.fewer_false_positives = absl::GetFlag(FLAGS_accurate);
  std::unique_ptr<const leveldb::FilterPolicy> blockbloom =
      *blockbloom::NewLevelDBFilterPolicy(options);
  std::mt19937_64 rng(1);
  // Each side's filters back to back in one buffer (LevelDB's filter block),
  // then a slice of each.
  std::string builtin_block, blockbloom_block;
  std::vector<size_t> builtin_ends, blockbloom_ends;
  std::vector<std::vector<std::string>> all_keys(num_filters);
  for (int f = 0; f < num_filters; ++f) {
    for (int i = 0; i < num_keys; ++i) all_keys[f].push_back(Key(rng));
    std::vector<leveldb::Slice> slices(all_keys[f].begin(), all_keys[f].end());
    builtin->CreateFilter(slices.data(), num_keys, &builtin_block);
    blockbloom->CreateFilter(slices.data(), num_keys, &blockbloom_block);
    builtin_ends.push_back(builtin_block.size());
    blockbloom_ends.push_back(blockbloom_block.size());
  }
  std::vector<leveldb::Slice> builtin_filters, blockbloom_filters;
  for (int f = 0; f < num_filters; ++f) {
    const size_t b0 = f == 0 ? 0 : builtin_ends[f - 1];
    const size_t o0 = f == 0 ? 0 : blockbloom_ends[f - 1];
    builtin_filters.emplace_back(builtin_block.data() + b0,
                                 builtin_ends[f] - b0);
    blockbloom_filters.emplace_back(blockbloom_block.data() + o0,
                                    blockbloom_ends[f] - o0);
    for (const std::string& k : all_keys[f]) {
      if (!blockbloom->KeyMayMatch(k, blockbloom_filters[f]) ||
          !builtin->KeyMayMatch(k, builtin_filters[f])) {
        std::fprintf(stderr, "filter %d misses its key %s\n", f, k.c_str());
        return 1;
      }
    }
  }
  Probes probes;
  for (int64_t i = 0; i < num_probes; ++i) {
    const uint32_t f = static_cast<uint32_t>(rng() % num_filters);
    probes.filter.push_back(f);
    probes.keys.push_back(present ? all_keys[f][rng() % num_keys] : Key(rng));
  }
  all_keys.clear();

  int builtin_matches = 0, blockbloom_matches = 0;
  NanosPerProbe<kFirstPass>(*builtin, builtin_filters, probes,
                            &builtin_matches);
  NanosPerProbe<kFirstPass>(*blockbloom, blockbloom_filters, probes,
                            &blockbloom_matches);
  std::vector<double> builtin_ns, blockbloom_ns, ratios;
  for (int r = 0; r < rounds; ++r) {
    builtin_ns.push_back(NanosPerProbe<kBuiltin>(*builtin, builtin_filters,
                                                 probes, &builtin_matches));
    blockbloom_ns.push_back(NanosPerProbe<kBlockbloom>(
        *blockbloom, blockbloom_filters, probes, &blockbloom_matches));
    ratios.push_back(blockbloom_ns.back() / builtin_ns.back());
  }
  const Summary b = Summarize(builtin_ns);
  const Summary o = Summarize(blockbloom_ns);
  const Summary q = Summarize(ratios);
  std::printf(
      "keys=%d filters=%d bits=%d probes=%lld rounds=%d mode=%s\n"
      "builtin     %.1f ns/probe (%.1f-%.1f), false positives %.3f%%\n"
      "blockbloom  %.1f ns/probe (%.1f-%.1f), false positives %.3f%%\n"
      "ratio blockbloom/builtin (median of rounds) %.2f (%.2f-%.2f)\n",
      num_keys, num_filters, bits, static_cast<long long>(num_probes), rounds,
      absl::GetFlag(FLAGS_accurate) ? "accurate" : "default", b.median, b.min,
      b.max, 100.0 * builtin_matches / num_probes, o.median, o.min, o.max,
      100.0 * blockbloom_matches / num_probes, q.median, q.min, q.max);
  return 0;
}
