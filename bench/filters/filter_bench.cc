// Every filter, every size, one process: blockbloom beside LevelDB's and
// RocksDB's built-in Bloom filters (through their own interfaces), the same
// FastLocalBloom algorithm with RocksDB's AVX2 probe, the Parquet split block
// filter, a standard Bloom filter, an exact absl::flat_hash_set<uint64_t>,
// and the memory floor. Run it through bench/run.sh (docs/BENCHMARKS.md), which
// pins it to one core and renders the table and plots.
//
// Benchmark names: probe/<filter>/<op>/<input>/bpk:<c>/bytes:<size> and
// build/<filter>/key16/bpk:10/keys:<n>, where
//   op     single (one call per key), batch32, batch1024 (the batch API)
//   input  hash   (pre-hashed: every filter gets the same 64-bit values)
//          key8, key16, key64 (keys of that many bytes, hashed in the probe
//          with the filter's own hash function)
// Counters: ns/probe (or ns/key for builds), fpr% (measured on the probes,
// all of which are absent keys), huge% (share of the probed memory on 2 MiB
// pages).
//
// What is held constant:
//  - Each (bits/key, size) builds every filter from the same n = 8*size/c
//    member hashes (a SplitMix64 stream): membership depends on the hash
//    alone, so this equals inserting n distinct keys, and keeps 1 GiB
//    filters to seconds. LevelDB's format stores 32-bit hashes: it gets the
//    low halves. Builds through the engines' own builders with real keys are
//    the build/ benchmarks.
//  - Pre-hashed probes read one shared array of 2^20 random hashes (8 MiB,
//    sequential). Key probes use `batch` keys that stay in L1, with a counter
//    rewritten into their first 8 bytes before each probe: every probe is a
//    new key in a fresh random block, and hashing, not streaming keys from
//    memory, is what is added to the pre-hashed cost (the rewrite, one
//    store, is included).
//  - "single" probes are independent calls in a loop (nothing depends on a
//    result), so out-of-order execution can overlap their misses: this is
//    throughput of unbatched probes, not latency.
//  - The floor reads one whole 64-byte line per probe at blockbloom's block
//    address, with the same batching and prefetching and no filter logic.
//    "floor" reads blockbloom's own buffer (2 MiB pages from 2 MiB up, as the
//    library allocates), "floor_4k" a copy on 4 KiB pages, which is also
//    what blockbloom_4k probes (Filter::Wrap over it). The baselines live
//    on 4 KiB pages, 64-byte aligned (favourable to them: RocksDB's own
//    filter blocks are only 16-byte aligned in memory).
//
// The parts: members.* (the shared inputs), suite.* (every filter of one
// size), floor.* (the memory floor), harness.h (the measuring loops),
// probe_benchmarks.cc and build_benchmarks.cc (what runs), this file (flags,
// context, main).
#include <benchmark/benchmark.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/baselines/parquet_sbbf.h"
#include "bench/filters/benchmarks.h"
#include "bench/filters/floor.h"
#include "bench/filters/harness.h"
#include "bench/filters/members.h"
#include "blockbloom/filter.h"
#include "rocksdb/version.h"

namespace blockbloom::bench {
namespace {

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A field of the first CPU in /proc/cpuinfo ("model name", "cpu family").
std::string CpuInfo(std::string_view field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0 && line.size() > field.size() &&
        (line[field.size()] == '\t' || line[field.size()] == ' ')) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

// Our flags, removed from argv before Google Benchmark sees it.
struct Flags {
  bool smoke = false;  // 64 KiB only and tiny builds: for ctest
  // --parquet_avx2: Parquet SBBF without Highway's AVX-512 targets, at the
  // width blockbloom's rule gives its probe on Intel (src/core/
  // simd_target.h): the like-for-like comparison of the two layouts.
  bool parquet_avx2 = false;
  bool builds = true;  // --no_builds: probes only
  int reps = 5;        // --reps=N: interleaved repetitions
  std::vector<size_t> sizes = {64 * KiB, MiB, 16 * MiB, 256 * MiB, GiB};
};

Flags ParseFlags(int* argc, char** argv) {
  Flags flags;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      flags.smoke = true;
      flags.reps = 1;
      flags.sizes = {64 * KiB};
    } else if (arg == "--parquet_avx2") {
      flags.parquet_avx2 = true;
    } else if (arg == "--no_builds") {
      flags.builds = false;
    } else if (arg.rfind("--reps=", 0) == 0) {
      flags.reps = std::max(1, std::atoi(std::string(arg.substr(7)).c_str()));
    } else if (arg.rfind("--sizes=", 0) == 0) {
      flags.sizes.clear();
      std::string list(arg.substr(8));
      size_t pos = 0;
      while (pos < list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string item = list.substr(pos, comma - pos);
        const size_t value = std::stoull(item);
        const char unit = item.empty() ? ' ' : item.back();
        flags.sizes.push_back(unit == 'G'   ? value * GiB
                              : unit == 'M' ? value * MiB
                              : unit == 'K' ? value * KiB
                                            : value);
        pos = comma + 1;
      }
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return flags;
}

}  // namespace
}  // namespace blockbloom::bench

int main(int argc, char** argv) {
  using namespace blockbloom::bench;  // NOLINT(build/namespaces)
  const Flags flags = ParseFlags(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Before any Parquet kernel is chosen; blockbloom keeps its own choice.
  if (flags.parquet_avx2) hwy::DisableTargets(HWY_AVX3 | HWY_AVX3_DL);

  Registrar r(flags.reps);
  for (double c : {10.0, 16.0}) {
    for (size_t bytes : flags.sizes) {
      RegisterHashProbes(r, c, bytes);
      // Keys with hashing: 16-byte keys at both settings, 8 and 64 bytes at
      // 10 bits/key (hashing cost does not depend on the filter's k).
      RegisterKeyProbes(r, c, bytes, 16);
      if (c == 10.0) {
        RegisterKeyProbes(r, c, bytes, 8);
        RegisterKeyProbes(r, c, bytes, 64);
      }
      r.Flush();
    }
  }
  if (flags.builds) {
    if (flags.smoke) {
      RegisterBuilds(r, 5000, /*slow=*/false);
      r.Flush();
    } else {
      RegisterBuilds(r, MiB * 8 / 10, /*slow=*/false);  // 1 MiB filters
      r.Flush();
      RegisterBuilds(r, 16 * MiB * 8 / 10, /*slow=*/true);  // 16 MiB
      r.Flush();
    }
  }

  benchmark::AddCustomContext("cpu_model", CpuInfo("model name"));
  benchmark::AddCustomContext(
      "cpu_detail", "family " + CpuInfo("cpu family") + " model " +
                        CpuInfo("model") + ", " +
                        (__builtin_cpu_supports("avx512f") ? "AVX-512"
                         : __builtin_cpu_supports("avx2")  ? "AVX2"
                                                           : "no AVX2"));
  benchmark::AddCustomContext("blockbloom_simd_target",
                              blockbloom::ActiveSimdTarget());
  benchmark::AddCustomContext("parquet_simd_target",
                              parquet::ActiveKernels()->target_name);
  benchmark::AddCustomContext("floor_load", Floor().name);
  benchmark::AddCustomContext(
      "fastlocal_probe", __builtin_cpu_supports("avx2") ? "AVX2" : "scalar");
  benchmark::AddCustomContext("rocksdb_version",
                              std::to_string(ROCKSDB_MAJOR) + "." +
                                  std::to_string(ROCKSDB_MINOR) + "." +
                                  std::to_string(ROCKSDB_PATCH));
  benchmark::AddCustomContext(
      "transparent_hugepage",
      ReadFirstLine("/sys/kernel/mm/transparent_hugepage/enabled"));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
