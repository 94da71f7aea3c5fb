// The C API's cost per single probe (docs/BENCHMARKS.md, "C API overhead"):
// Filter::MayContain (C++) against blockbloom_filter_may_contain
// (blockbloom/c.h) on the same filter and the same keys, in cache (a 16 KiB
// filter) and out of cache (128 MiB, 4x this machine's L3), and the same for
// the hash probes. The C call is what a C program pays: one more call
// (blockbloom_filter_may_contain is in the library, not inlined) in front of
// the same indirect probe.
//
//   c_api_bench --benchmark_repetitions=5
//   --benchmark_enable_random_interleaving c_api_bench
//   --count=c|cxx|c_hash|cxx_hash --probes=N   (for callgrind)
//
// --count runs N probes of one kind on the in-cache filter in a noinline
// function (CountLoop*), for `valgrind --tool=callgrind
// --toggle-collect=CountLoop*`: instructions per probe without timing
// noise.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/splitmix.h"
#include "blockbloom/c.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"

namespace {

constexpr size_t kProbeKeys = 1 << 16;  // probed round-robin

struct Fixture {
  std::unique_ptr<blockbloom::Filter> cxx;  // the C++ filter
  blockbloom_filter_t* c = nullptr;         // the same bytes, opened from C
  std::string bytes;
  std::vector<std::string> keys;  // half added, half absent
  std::vector<uint64_t> hashes;
};

// A filter of about `bytes` bytes at 10 bits/key, filled with as many
// distinct hashes, plus the probe keys; the C handle opens its serialized
// bytes without a copy (same bits, same layout, same kernels).
Fixture* MakeFixture(uint64_t bytes) {
  auto* f = new Fixture;
  const uint64_t num_keys = bytes * 8 / 10;
  blockbloom::FilterOptions options;
  options.shape = *blockbloom::ShapeForBitsPerKey(num_keys, 10,
                                                  /*compact_small_filters=*/
                                                  false);
  auto builder = blockbloom::FilterBuilder::Create(options);
  uint64_t state = 1;
  for (uint64_t i = 0; i < num_keys; ++i) {
    builder->AddHash(blockbloom::bench::SplitMix64(state));
  }
  for (size_t i = 0; i < kProbeKeys; ++i) {
    f->keys.push_back("key-" + std::to_string(i));
    f->hashes.push_back(blockbloom::HashKey(f->keys.back()));
    if (i % 2 == 0) builder->Add(f->keys.back());
  }
  f->cxx = std::make_unique<blockbloom::Filter>(*builder->Finish());
  blockbloom::WriteOptions write;
  write.encoding = blockbloom::Encoding::kFull;
  f->bytes = *blockbloom::SerializeFilter(*f->cxx, write);
  char* err = nullptr;
  // Opened with a copy (64-byte aligned, as the C++ filter's own bits).
  f->c =
      blockbloom_filter_open(f->bytes.data(), f->bytes.size(), nullptr, &err);
  if (f->c == nullptr) {
    std::fprintf(stderr, "blockbloom_filter_open: %s\n", err);
    std::abort();
  }
  return f;
}

constexpr int64_t kInCache = 16 << 10;
constexpr int64_t kOutOfCache = 128 << 20;

// Each size's fixture, made on first use (the smoke run never makes the
// large one).
Fixture& Get(int64_t bytes) {
  if (bytes <= kInCache) {
    static Fixture* small = MakeFixture(kInCache);
    return *small;
  }
  static Fixture* large = MakeFixture(kOutOfCache);
  return *large;
}

void BM_CxxMayContain(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& key = f.keys[i++ & (kProbeKeys - 1)];
    benchmark::DoNotOptimize(f.cxx->MayContain(key));
  }
}

void BM_CMayContain(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& key = f.keys[i++ & (kProbeKeys - 1)];
    benchmark::DoNotOptimize(
        blockbloom_filter_may_contain(f.c, key.data(), key.size()));
  }
}

void BM_CxxMayContainHash(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        f.cxx->MayContainHash(f.hashes[i++ & (kProbeKeys - 1)]));
  }
}

void BM_CMayContainHash(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(blockbloom_filter_may_contain_hash(
        f.c, f.hashes[i++ & (kProbeKeys - 1)]));
  }
}

BENCHMARK(BM_CxxMayContain)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_CMayContain)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_CxxMayContainHash)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_CMayContainHash)->Arg(kInCache)->Arg(kOutOfCache);

// --- callgrind ----------------------------------------------------------

__attribute__((noinline)) size_t CountLoopCxx(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string& key = f.keys[i & (kProbeKeys - 1)];
    hits += f.cxx->MayContain(key);
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopC(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string& key = f.keys[i & (kProbeKeys - 1)];
    hits += blockbloom_filter_may_contain(f.c, key.data(), key.size());
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopCxxHash(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    hits += f.cxx->MayContainHash(f.hashes[i & (kProbeKeys - 1)]);
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopCHash(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    hits +=
        blockbloom_filter_may_contain_hash(f.c, f.hashes[i & (kProbeKeys - 1)]);
  }
  return hits;
}

// Returns true if the arguments asked for a count run (and it ran).
bool MaybeCount(int argc, char** argv) {
  std::string kind;
  size_t probes = 1000000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--count=", 8) == 0) kind = argv[i] + 8;
    if (std::strncmp(argv[i], "--probes=", 9) == 0) {
      probes = std::strtoull(argv[i] + 9, nullptr, 10);
    }
  }
  if (kind.empty()) return false;
  const Fixture& f = Get(kInCache);
  size_t hits;
  if (kind == "cxx") {
    hits = CountLoopCxx(f, probes);
  } else if (kind == "c") {
    hits = CountLoopC(f, probes);
  } else if (kind == "cxx_hash") {
    hits = CountLoopCxxHash(f, probes);
  } else if (kind == "c_hash") {
    hits = CountLoopCHash(f, probes);
  } else {
    std::fprintf(stderr, "--count is c, cxx, c_hash or cxx_hash\n");
    std::exit(2);
  }
  std::printf("%s: %zu probes, %zu may contain\n", kind.c_str(), probes, hits);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (MaybeCount(argc, argv)) return 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
