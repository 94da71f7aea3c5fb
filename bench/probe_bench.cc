// Probe and build speed of blockbloom across filter sizes, beside the memory
// floor: a buffer of the same size read one random 64-byte line per probe,
// with the same batching and prefetching. No filter can beat the floor, so
// the ratio says how much of a probe is the filter's own work.
//
//   taskset -c 1 build/release/bench/probe_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one line)
//
// Sizes: 64 KiB (L1/L2), 1 MiB (L2), 16 MiB (L3), 256 MiB (DRAM). Filters
// hold 10 bits/key; probes are absent keys, so every probe does all its work.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "hwy/cache_control.h"

namespace {

constexpr size_t kProbeHashes = 1 << 20;  // cycled through; 8 MiB
constexpr double kBitsPerKey = 10;

struct Setup {
  std::unique_ptr<blockbloom::Filter> filter;
  std::vector<uint64_t> absent;  // hashes of keys not in the filter
};

// One filter per size, built once and shared by all benchmarks.
const Setup& GetSetup(size_t bytes) {
  static std::map<size_t, Setup>* setups = new std::map<size_t, Setup>;
  auto it = setups->find(bytes);
  if (it != setups->end()) return it->second;
  Setup& s = (*setups)[bytes];
  blockbloom::FilterOptions options;
  options.shape = *blockbloom::ShapeForBitsPerKey(
      static_cast<uint64_t>(bytes * 8 / kBitsPerKey), kBitsPerKey);
  auto builder = *blockbloom::FilterBuilder::Create(options);
  std::mt19937_64 rng(bytes);
  const uint64_t keys = static_cast<uint64_t>(bytes * 8 / kBitsPerKey);
  for (uint64_t i = 0; i < keys; ++i) builder.AddHash(rng());
  s.filter = std::make_unique<blockbloom::Filter>(*builder.Finish());
  s.absent.resize(kProbeHashes);
  for (uint64_t& h : s.absent) h = rng();
  return s;
}

void SetCounters(benchmark::State& state, uint64_t probes, uint64_t positives) {
  state.SetItemsProcessed(static_cast<int64_t>(probes));
  state.counters["fpr%"] = 100.0 * static_cast<double>(positives) /
                           static_cast<double>(probes ? probes : 1);
  state.counters["ns/probe"] = benchmark::Counter(
      static_cast<double>(probes),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_SingleHash(benchmark::State& state) {
  const Setup& s = GetSetup(static_cast<size_t>(state.range(0)));
  uint64_t probes = 0, positives = 0;
  size_t i = 0;
  for (auto _ : state) {
    positives += s.filter->MayContainHash(s.absent[i]);
    i = (i + 1) & (kProbeHashes - 1);
    ++probes;
  }
  SetCounters(state, probes, positives);
}

void BM_BatchHash(benchmark::State& state) {
  const Setup& s = GetSetup(static_cast<size_t>(state.range(0)));
  const size_t batch = static_cast<size_t>(state.range(1));
  std::unique_ptr<bool[]> results(new bool[batch]);
  uint64_t probes = 0, positives = 0;
  size_t i = 0;
  for (auto _ : state) {
    s.filter->MayContainHashBatch(absl::MakeConstSpan(&s.absent[i], batch),
                                  absl::MakeSpan(results.get(), batch));
    for (size_t j = 0; j < batch; ++j) positives += results[j];
    i = (i + batch) & (kProbeHashes - 1);
    probes += batch;
  }
  SetCounters(state, probes, positives);
}

// Keys of 16 bytes, hashed in the probe. The keys live in a small buffer
// that stays in cache (so hashing, not streaming keys from memory, is what is
// measured), and a counter rewritten into each key before it is probed sends
// every probe to a fresh random block. The rewrite (one 8-byte store per
// key) is included in the figures.
void BM_BatchKey16(benchmark::State& state) {
  const Setup& s = GetSetup(static_cast<size_t>(state.range(0)));
  const size_t batch = static_cast<size_t>(state.range(1));
  std::vector<std::array<char, 16>> keys(batch);
  std::vector<std::string_view> views;
  for (auto& k : keys) {
    k.fill('k');
    views.emplace_back(k.data(), k.size());
  }
  std::unique_ptr<bool[]> results(new bool[batch]);
  uint64_t probes = 0, positives = 0, counter = 0;
  for (auto _ : state) {
    for (auto& k : keys) {
      ++counter;
      std::memcpy(k.data(), &counter, sizeof(counter));
    }
    s.filter->MayContainBatch(views, absl::MakeSpan(results.get(), batch));
    for (size_t j = 0; j < batch; ++j) positives += results[j];
    probes += batch;
  }
  SetCounters(state, probes, positives);
}

void BM_SingleKey16(benchmark::State& state) {
  const Setup& s = GetSetup(static_cast<size_t>(state.range(0)));
  std::array<char, 16> key;
  key.fill('k');
  uint64_t probes = 0, positives = 0, counter = 0;
  for (auto _ : state) {
    ++counter;
    std::memcpy(key.data(), &counter, sizeof(counter));
    positives += s.filter->MayContain(std::string_view(key.data(), key.size()));
    ++probes;
  }
  SetCounters(state, probes, positives);
}

// The memory floor: the same random block addresses, one 64-byte line read
// per probe (all of it, so that no filter could read less), no filter logic.
void BM_MemoryFloor(benchmark::State& state) {
  const Setup& s = GetSetup(static_cast<size_t>(state.range(0)));
  const size_t batch = static_cast<size_t>(state.range(1));
  const uint8_t* bits = s.filter->bits().data();
  const uint64_t blocks = s.filter->num_blocks();
  uint64_t probes = 0, sink = 0;
  size_t i = 0;
  const uint8_t* lines[1024];
  for (auto _ : state) {
    if (batch == 1) {
      const uint8_t* line = bits + ((s.absent[i] >> 32) * blocks >> 32) * 64;
      uint64_t acc = 0;
      for (int w = 0; w < 8; ++w) {
        uint64_t word;
        std::memcpy(&word, line + 8 * w, 8);
        acc |= word;
      }
      sink += acc == ~uint64_t{0};
    } else {
      for (size_t j = 0; j < batch; ++j) {
        lines[j] = bits + ((s.absent[i + j] >> 32) * blocks >> 32) * 64;
        hwy::Prefetch(lines[j]);
      }
      for (size_t j = 0; j < batch; ++j) {
        uint64_t acc = 0;
        for (int w = 0; w < 8; ++w) {
          uint64_t word;
          std::memcpy(&word, lines[j] + 8 * w, 8);
          acc |= word;
        }
        sink += acc == ~uint64_t{0};
      }
    }
    i = (i + batch) & (kProbeHashes - 1);
    probes += batch;
  }
  benchmark::DoNotOptimize(sink);
  SetCounters(state, probes, 0);
}

// Build: add pre-hashed keys and finish, per key.
void BM_BuildFromHashes(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const uint64_t keys = static_cast<uint64_t>(bytes * 8 / kBitsPerKey);
  std::vector<uint64_t> hashes(keys);
  std::mt19937_64 rng(5);
  for (uint64_t& h : hashes) h = rng();
  blockbloom::FilterOptions options;
  options.bits_per_key = kBitsPerKey;
  for (auto _ : state) {
    auto builder = *blockbloom::FilterBuilder::Create(options);
    for (uint64_t h : hashes) builder.AddHash(h);
    auto filter = builder.Finish();
    benchmark::DoNotOptimize(filter->bits().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * keys));
  state.counters["ns/key"] = benchmark::Counter(
      static_cast<double>(state.iterations() * keys),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t size : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20,
                       int64_t{256} << 20}) {
    b->Arg(size);
  }
}

void SizesAndBatches(benchmark::internal::Benchmark* b) {
  for (int64_t size : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20,
                       int64_t{256} << 20}) {
    for (int64_t batch : {32, 1024}) b->Args({size, batch});
  }
}

void FloorSizes(benchmark::internal::Benchmark* b) {
  for (int64_t size : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20,
                       int64_t{256} << 20}) {
    for (int64_t batch : {1, 32}) b->Args({size, batch});
  }
}

BENCHMARK(BM_SingleHash)->Apply(Sizes);
BENCHMARK(BM_BatchHash)->Apply(SizesAndBatches);
BENCHMARK(BM_MemoryFloor)->Apply(FloorSizes);
BENCHMARK(BM_SingleKey16)->Apply(Sizes);
BENCHMARK(BM_BatchKey16)->Apply(SizesAndBatches);
BENCHMARK(BM_BuildFromHashes)
    ->Arg(int64_t{1} << 20)
    ->Arg(int64_t{64} << 20)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", blockbloom::ActiveSimdTarget());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
