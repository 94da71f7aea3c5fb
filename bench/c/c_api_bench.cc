// The C API's cost per single probe (docs/BENCHMARKS.md, "C API overhead"):
// Filter::MayContain (C++) against blockbloom_filter_may_contain
// (blockbloom/c.h) on the same filter and the same keys, in cache (a 16 KiB
// filter) and out of cache (128 MiB, 4x this machine's L3), and the same for
// the hash probes. The C call is what a C program pays: one more call
// (blockbloom_filter_may_contain is in the library, not inlined) in front of
// the same indirect probe.
//
// Usage (docs/BENCHMARKS.md has the exact command):
//   c_api_bench --benchmark_repetitions=5
//   c_api_bench --count=c|cxx|c_hash|cxx_hash --probes=N
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
#include "blockbloom/hash.h"

namespace {

struct Fixture {
  std::unique_ptr<blockbloom::Filter> cxx;  // the C++ filter
  blockbloom_filter_t* c = nullptr;         // the same bits, from C
  std::vector<std::string> keys;            // half added, half absent
  std::vector<uint64_t> hashes;
  size_t mask = 0;  // keys are probed round-robin: keys[i & mask]
};

// A filter of about `bytes` bytes at 10 bits/key, filled with as many
// distinct hashes, plus `probe_keys` probe keys (a power of two; enough for
// the out-of-cache filter that their blocks do not fit in the cache); the C
// handle wraps the C++ filter's bits (blockbloom_filter_wrap_bits): the
// same memory (huge pages for the large one), layout and kernels.
Fixture* MakeFixture(uint64_t bytes, size_t probe_keys) {
  auto* f = new Fixture;
  f->mask = probe_keys - 1;
  const uint64_t num_keys = bytes * 8 / 10;
  blockbloom::FilterOptions options;
  options.shape = *blockbloom::ShapeForBitsPerKey(num_keys, 10,
                                                  /*compact_small_filters=*/
                                                  false);
  auto builder = blockbloom::FilterBuilder::Create(options);
  uint64_t state = 1;
  // num_keys in all: the probe keys' added half, and random hashes.
  for (uint64_t i = probe_keys / 2; i < num_keys; ++i) {
    builder->AddHash(blockbloom::bench::SplitMix64(state));
  }
  for (size_t i = 0; i < probe_keys; ++i) {
    f->keys.push_back("key-" + std::to_string(i));
    f->hashes.push_back(blockbloom::HashKey(f->keys.back()));
    if (i % 2 == 0) builder->Add(f->keys.back());
  }
  f->cxx = std::make_unique<blockbloom::Filter>(*builder->Finish());
  char* err = nullptr;
  const blockbloom_shape_t shape = {f->cxx->shape().num_blocks,
                                    f->cxx->shape().num_probes,
                                    f->cxx->shape().lane_bits};
  f->c = blockbloom_filter_wrap_bits(f->cxx->bits().data(),
                                     f->cxx->bits().size(), &shape,
                                     f->cxx->seed(), f->cxx->num_keys(), &err);
  if (f->c == nullptr) {
    std::fprintf(stderr, "blockbloom_filter_wrap_bits: %s\n", err);
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
    static Fixture* small = MakeFixture(kInCache, size_t{1} << 12);
    return *small;
  }
  // 4M probe keys: 4M blocks touched round-robin, 16x the L3 in lines.
  static Fixture* large = MakeFixture(kOutOfCache, size_t{1} << 22);
  return *large;
}

void BM_CxxMayContain(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& key = f.keys[i++ & f.mask];
    benchmark::DoNotOptimize(f.cxx->MayContain(key));
  }
}

void BM_CMayContain(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const std::string& key = f.keys[i++ & f.mask];
    benchmark::DoNotOptimize(
        blockbloom_filter_may_contain(f.c, key.data(), key.size()));
  }
}

void BM_CxxMayContainHash(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.cxx->MayContainHash(f.hashes[i++ & f.mask]));
  }
}

void BM_CMayContainHash(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        blockbloom_filter_may_contain_hash(f.c, f.hashes[i++ & f.mask]));
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
    const std::string& key = f.keys[i & f.mask];
    hits += f.cxx->MayContain(key);
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopC(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string& key = f.keys[i & f.mask];
    hits += blockbloom_filter_may_contain(f.c, key.data(), key.size());
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopCxxHash(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    hits += f.cxx->MayContainHash(f.hashes[i & f.mask]);
  }
  return hits;
}

__attribute__((noinline)) size_t CountLoopCHash(const Fixture& f, size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    hits += blockbloom_filter_may_contain_hash(f.c, f.hashes[i & f.mask]);
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
