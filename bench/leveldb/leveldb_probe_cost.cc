// The cost of one LevelDB filter probe of an ABSENT key, in instructions,
// for LevelDB's built-in Bloom filter (Debian's libleveldb,
// leveldb::NewBloomFilterPolicy) and blockbloom's policy
// (blockbloom::NewLevelDBFilterPolicy), both called through
// leveldb::FilterPolicy exactly as LevelDB's table reader calls them:
// CreateFilter(keys, n, &std::string), then KeyMayMatch(key, Slice(filter)).
// Also each filter's size (bytes CreateFilter appended) and its measured
// false-positive rate.
//
//   leveldb_probe_cost [--keys=40,150,1000] [--bits=10] [--keysets=...]
//                      [--filters=100] [--probes=10000] [--fpr_probes=100000]
//
// Instructions are counted by callgrind, which
// bench/leveldb/leveldb_probe_cost.sh (the runner) starts with
// --collect-atstart=no: for every configuration this program switches
// collection on around ProbeLoop (N probes of absent keys, probe j against
// filter j mod F) and dumps the count under a label (callgrind client
// requests). Without valgrind the requests do nothing and the program prints
// sizes and rates only (the ctest smoke run). A third policy, "null"
// (KeyMayMatch returns false at once), measures what the loop and the virtual
// call cost by themselves.
//
// Key sets (--keysets, comma-separated):
//   db_bench  16-byte "%016d" keys of random numbers below 10^9, as
//             LevelDB's db_bench makes them; absent keys are other such
//             numbers.
//   prefix    40-byte keys sharing a 31-byte prefix,
//             "tenant-0042/orders/2026-11-24/i%09d", present keys even
//             numbers from a random start, absent keys the odd ones from
//             the same start (adjacent keys differ in one digit).
//
// Output, one line per configuration:
//   config label=POLICY/KEYSET/KEYS policy=... keyset=... keys=N bits=B
//     filters=F probes=P bytes_mean=... bytes_min=... bytes_max=...
//     bits_per_key=... fpr=... fpr_probes=...
// Exits 1 if a filter misses one of its own keys.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/splitmix.h"
#include "blockbloom/leveldb.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BLOCKBLOOM_HAVE_CALLGRIND 1
#endif
#endif
#ifndef BLOCKBLOOM_HAVE_CALLGRIND
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(label) (void)(label)
#endif

ABSL_FLAG(std::string, keys, "40,150,1000", "keys per filter, comma-separated");
ABSL_FLAG(int, bits, 10,
          "bits per key passed to both policies (int, as LevelDB)");
ABSL_FLAG(std::string, keysets, "db_bench,prefix",
          "key sets, comma-separated: db_bench, prefix");
ABSL_FLAG(std::string, policies, "null,builtin,blockbloom",
          "policies, comma-separated: null, builtin, blockbloom");
ABSL_FLAG(int, filters, 100,
          "independent filters per configuration (sizes and FPR are over all)");
ABSL_FLAG(int, probes, 10000, "absent-key probes counted (ProbeLoop)");
ABSL_FLAG(int, fpr_probes, 100000, "absent-key probes for the FPR");
ABSL_FLAG(uint64_t, seed, 1, "seed of the key generator");

namespace {

using blockbloom::bench::SplitMix64;

// A policy that does nothing: the cost of the loop and the virtual call.
class NullPolicy final : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "null"; }
  void CreateFilter(const leveldb::Slice*, int,
                    std::string* dst) const override {
    dst->push_back('\0');
  }
  __attribute__((noinline)) bool KeyMayMatch(
      const leveldb::Slice&, const leveldb::Slice&) const override {
    return false;
  }
};

// The measured loop: probe j asks filter j mod F about absent key j.
// noinline, so that callgrind's per-function view shows it as one entry
// with the policy's functions below it.
__attribute__((noinline)) int ProbeLoop(
    const leveldb::FilterPolicy* policy,
    const std::vector<leveldb::Slice>& keys,
    const std::vector<std::string>& filters) {
  int positives = 0;
  const size_t f = filters.size();
  for (size_t j = 0; j < keys.size(); ++j) {
    positives += policy->KeyMayMatch(keys[j], leveldb::Slice(filters[j % f]));
  }
  return positives;
}

// Present keys of `filters` filters of n keys each, and absent keys, all
// distinct.
struct KeySet {
  std::vector<std::vector<std::string>> present;  // per filter
  std::vector<std::string> absent;
};

KeySet MakeDbBenchKeys(int n, int filters, int absent, uint64_t seed) {
  // %016d of random numbers below 10^9, as db_bench's keys (below its
  // --num): long runs of leading zeros, then random digits.
  KeySet ks;
  std::unordered_set<uint64_t> used;
  uint64_t state = seed;
  auto next = [&] {
    while (true) {
      const uint64_t v = SplitMix64(state) % 1000000000;
      if (used.insert(v).second) return absl::StrFormat("%016d", v);
    }
  };
  ks.present.resize(filters);
  for (auto& p : ks.present) {
    for (int i = 0; i < n; ++i) p.push_back(next());
  }
  for (int i = 0; i < absent; ++i) ks.absent.push_back(next());
  return ks;
}

KeySet MakePrefixKeys(int n, int filters, int absent, uint64_t seed) {
  // One long shared prefix; present keys even numbers (a run per filter),
  // absent keys the odd numbers from the same start (inside the runs first).
  KeySet ks;
  uint64_t state = seed;
  const uint64_t start = 2 * (SplitMix64(state) % 100000000);
  auto key = [](uint64_t i) {
    return absl::StrFormat("tenant-0042/orders/2026-11-24/i%09d", i);
  };
  ks.present.resize(filters);
  for (int f = 0; f < filters; ++f) {
    for (int i = 0; i < n; ++i) {
      ks.present[f].push_back(key(start + 2 * (uint64_t{1} * f * n + i)));
    }
  }
  for (int i = 0; i < absent; ++i) {
    ks.absent.push_back(key(start + 2 * uint64_t{1} * i + 1));
  }
  return ks;
}

std::vector<int> ParseInts(const std::string& s) {
  std::vector<int> out;
  for (absl::string_view part : absl::StrSplit(s, ',', absl::SkipEmpty())) {
    int v = 0;
    if (!absl::SimpleAtoi(part, &v) || v < 1) {
      std::fprintf(stderr, "leveldb_probe_cost: bad count '%s'\n",
                   std::string(part).c_str());
      std::exit(2);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Instructions per KeyMayMatch on absent keys (under callgrind: "
      "bench/leveldb/leveldb_probe_cost.sh), filter sizes and FPR, for "
      "LevelDB's "
      "built-in Bloom filter and blockbloom's LevelDB policy.");
  absl::ParseCommandLine(argc, argv);
  const std::vector<int> key_counts = ParseInts(absl::GetFlag(FLAGS_keys));
  const int bits = absl::GetFlag(FLAGS_bits);
  const int num_filters = std::max(1, absl::GetFlag(FLAGS_filters));
  const int probes = std::max(1, absl::GetFlag(FLAGS_probes));
  const int fpr_probes = std::max(1, absl::GetFlag(FLAGS_fpr_probes));
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  const std::vector<std::string> keysets =
      absl::StrSplit(absl::GetFlag(FLAGS_keysets), ',', absl::SkipEmpty());
  const std::vector<std::string> policies =
      absl::StrSplit(absl::GetFlag(FLAGS_policies), ',', absl::SkipEmpty());

  for (const std::string& keyset : keysets) {
    if (keyset != "db_bench" && keyset != "prefix") {
      std::fprintf(stderr, "leveldb_probe_cost: unknown key set %s\n",
                   keyset.c_str());
      return 2;
    }
    for (int n : key_counts) {
      const int absent = std::max(probes, fpr_probes);
      const KeySet ks = keyset == "db_bench"
                            ? MakeDbBenchKeys(n, num_filters, absent, seed)
                            : MakePrefixKeys(n, num_filters, absent, seed);
      std::vector<leveldb::Slice> absent_slices(ks.absent.begin(),
                                                ks.absent.end());
      for (const std::string& name : policies) {
        std::unique_ptr<const leveldb::FilterPolicy> policy;
        if (name == "null") {
          policy = std::make_unique<NullPolicy>();
        } else if (name == "builtin") {
          policy.reset(leveldb::NewBloomFilterPolicy(bits));
        } else if (name == "blockbloom") {
          policy.reset(blockbloom::NewLevelDBFilterPolicy(bits));
        } else {
          std::fprintf(stderr, "leveldb_probe_cost: unknown policy %s\n",
                       name.c_str());
          return 2;
        }
        // Build: one std::string per filter, as LevelDB appends each
        // filter to its filter block (here to an empty string, so its size
        // is what CreateFilter appended).
        std::vector<std::string> filters(num_filters);
        size_t bytes_sum = 0, bytes_min = SIZE_MAX, bytes_max = 0;
        for (int f = 0; f < num_filters; ++f) {
          std::vector<leveldb::Slice> slices(ks.present[f].begin(),
                                             ks.present[f].end());
          policy->CreateFilter(slices.data(), n, &filters[f]);
          bytes_sum += filters[f].size();
          bytes_min = std::min(bytes_min, filters[f].size());
          bytes_max = std::max(bytes_max, filters[f].size());
          if (name != "null") {
            for (const leveldb::Slice& s : slices) {
              if (!policy->KeyMayMatch(s, leveldb::Slice(filters[f]))) {
                std::fprintf(stderr,
                             "leveldb_probe_cost: %s misses one of its own "
                             "keys (%s, %d keys)\n",
                             name.c_str(), keyset.c_str(), n);
                return 1;
              }
            }
          }
        }
        // FPR over every filter, probe j against filter j mod F.
        std::vector<leveldb::Slice> fpr_keys(
            absent_slices.begin(), absent_slices.begin() + fpr_probes);
        const int fp = ProbeLoop(policy.get(), fpr_keys, filters);

        // The counted loop (callgrind collects only between the toggles).
        const std::string label = absl::StrFormat("%s/%s/%d", name, keyset, n);
        std::vector<leveldb::Slice> counted(absent_slices.begin(),
                                            absent_slices.begin() + probes);
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
        const int positives = ProbeLoop(policy.get(), counted, filters);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT(label.c_str());

        const double mean = static_cast<double>(bytes_sum) / num_filters;
        std::printf(
            "config label=%s policy=%s keyset=%s keys=%d bits=%d filters=%d "
            "probes=%d bytes_mean=%.2f bytes_min=%zu bytes_max=%zu "
            "bits_per_key=%.3f fpr=%.5f fpr_probes=%d counted_positives=%d\n",
            label.c_str(), name.c_str(), keyset.c_str(), n, bits, num_filters,
            probes, mean, bytes_min, bytes_max, 8.0 * mean / n,
            static_cast<double>(fp) / fpr_probes, fpr_probes, positives);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
