// The in-memory filters: add and query costs of BloomFilter in both modes
// (pre-hashed keys, fresh random blocks), concurrent adds from several
// threads, the cost of the fill statistics, and the counting and scalable
// variants. Sizes are the filter's bytes. No figure is asserted anywhere; a
// smoke run is part of the tests.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "blockbloom/bloom_filter.h"
#include "blockbloom/counting_filter.h"
#include "blockbloom/scalable_filter.h"

namespace blockbloom {
namespace {

constexpr size_t kHashes = 1 << 20;

const std::vector<uint64_t>& Hashes() {
  static const std::vector<uint64_t>* hashes = [] {
    auto* h = new std::vector<uint64_t>(kHashes);
    std::mt19937_64 rng(1);
    for (uint64_t& x : *h) x = rng();
    return h;
  }();
  return *hashes;
}

// A filter of `bytes` bytes at 10 bits/key, filled to its capacity.
BloomFilter Filled(int64_t bytes, bool concurrent) {
  const uint64_t capacity = static_cast<uint64_t>(bytes) * 8 / 10;
  BloomFilterOptions options;
  options.seed = 1;
  options.concurrent = concurrent;
  BloomFilter f = *BloomFilter::CreateWithBitsPerKey(capacity, 10, options);
  std::mt19937_64 rng(2);
  for (uint64_t i = 0; i < capacity; ++i) f.AddHash(rng());
  return f;
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->Arg(64 << 10)->Arg(16 << 20);
}

// splitmix64: a fresh pseudo-random hash per call (a few cycles).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

// The filter of the add benchmarks: `capacity` keys at 10 bits/key.
BloomFilter AddTarget(uint64_t capacity, bool concurrent) {
  BloomFilterOptions options;
  options.seed = 1;
  options.concurrent = concurrent;
  return *BloomFilter::CreateWithBitsPerKey(capacity, 10, options);
}

// Clears `f` and adds half a `capacity` of new hashes (`next` on).
void RefillToHalf(BloomFilter& f, uint64_t capacity, uint64_t& next) {
  f.Clear();
  for (uint64_t i = 0; i < capacity / 2; ++i) f.AddHash(Mix(next++));
}

// Adds of new keys to a filter kept between half and fully loaded: when
// half a capacity of keys has been added, the filter is cleared and
// refilled to half, outside the timing.
void BM_Add(benchmark::State& state, bool concurrent) {
  const uint64_t capacity = static_cast<uint64_t>(state.range(0)) * 8 / 10;
  BloomFilter f = AddTarget(capacity, concurrent);
  uint64_t next = 0;
  auto refill = [&] { RefillToHalf(f, capacity, next); };
  refill();
  uint64_t added = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.AddHash(Mix(next++)));
    if (++added == capacity / 2) {
      state.PauseTiming();
      refill();
      added = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Add, single_writer, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Add, concurrent_mode, true)->Apply(Sizes);

// BM_Add with AddHashBatch, 256 hashes at a time (made in the loop).
void BM_AddBatch(benchmark::State& state, bool concurrent) {
  const uint64_t capacity = static_cast<uint64_t>(state.range(0)) * 8 / 10;
  BloomFilter f = AddTarget(capacity, concurrent);
  uint64_t next = 0;
  auto refill = [&] { RefillToHalf(f, capacity, next); };
  refill();
  constexpr size_t kBatch = 256;
  uint64_t batch[kBatch];
  uint64_t added = 0;
  for (auto _ : state) {
    for (uint64_t& h : batch) h = Mix(next++);
    benchmark::DoNotOptimize(f.AddHashBatch(batch));
    added += kBatch;
    if (added >= capacity / 2) {
      state.PauseTiming();
      refill();
      added = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK_CAPTURE(BM_AddBatch, single_writer, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_AddBatch, concurrent_mode, true)->Apply(Sizes);

void BM_MayContain(benchmark::State& state, bool concurrent) {
  BloomFilter f = Filled(state.range(0), concurrent);
  const std::vector<uint64_t>& h = Hashes();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.MayContainHash(h[i++ & (kHashes - 1)]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_MayContain, single_writer, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MayContain, concurrent_mode, true)->Apply(Sizes);

// Batches of 256 queries (block addresses prefetched 32 at a time).
void BM_MayContainBatch(benchmark::State& state, bool concurrent) {
  BloomFilter f = Filled(state.range(0), concurrent);
  const std::vector<uint64_t>& h = Hashes();
  constexpr size_t kBatch = 256;
  bool results[kBatch];
  size_t i = 0;
  for (auto _ : state) {
    f.MayContainHashBatch(absl::MakeConstSpan(h.data() + i, kBatch), results);
    benchmark::DoNotOptimize(results);
    i = (i + kBatch) & (kHashes - 1);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK_CAPTURE(BM_MayContainBatch, single_writer, false)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MayContainBatch, concurrent_mode, true)->Apply(Sizes);

// Threads adding new keys to one concurrent 64 MiB filter, from empty
// (about half full after 25M adds).
void BM_ConcurrentAdd(benchmark::State& state) {
  static BloomFilter* shared = nullptr;
  if (state.thread_index() == 0) {
    BloomFilterOptions options;
    options.seed = 1;
    options.concurrent = true;
    shared = new BloomFilter(
        *BloomFilter::CreateWithBitsPerKey((64 << 20) * 8 / 10, 10, options));
  }
  // Every thread's loop starts after all threads got here (the library's
  // start barrier), and thread 0 deletes after all loops ended.
  uint64_t next = static_cast<uint64_t>(state.thread_index()) << 40;
  for (auto _ : state) {
    benchmark::DoNotOptimize(shared->AddHash(Mix(next++)));
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete shared;
    shared = nullptr;
  }
}
BENCHMARK(BM_ConcurrentAdd)->Threads(1)->Threads(2)->UseRealTime();

void BM_ApproximateCount(benchmark::State& state) {
  BloomFilter f = Filled(state.range(0), false);
  for (auto _ : state) benchmark::DoNotOptimize(f.ApproximateCount());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ApproximateCount)->Apply(Sizes);

void BM_EstimatedFpRate(benchmark::State& state) {
  BloomFilter f = Filled(state.range(0), false);
  for (auto _ : state) benchmark::DoNotOptimize(f.EstimatedFpRate());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EstimatedFpRate)->Apply(Sizes);

// A counting filter for bytes / 5 keys at 1%, holding that many.
CountingFilter FilledCounting(int64_t bytes) {
  const uint64_t capacity = static_cast<uint64_t>(bytes) / 5;
  CountingFilterOptions options;
  options.seed = 1;
  CountingFilter f = *CountingFilter::Create(capacity, 0.01, options);
  for (uint64_t i = 0; i < capacity; ++i) f.AddHash(Mix(i));
  return f;
}

void BM_CountingAddRemove(benchmark::State& state) {
  CountingFilter f = FilledCounting(state.range(0));
  const std::vector<uint64_t>& h = Hashes();
  size_t i = 0;
  for (auto _ : state) {
    const uint64_t x = h[i++ & (kHashes - 1)] ^ 3;
    f.AddHash(x);
    benchmark::DoNotOptimize(f.RemoveHash(x));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountingAddRemove)->Apply(Sizes);

void BM_CountingMayContain(benchmark::State& state) {
  CountingFilter f = FilledCounting(state.range(0));
  const std::vector<uint64_t>& h = Hashes();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.MayContainHash(h[i++ & (kHashes - 1)] ^ 5));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountingMayContain)->Apply(Sizes);

// Absent keys against a stack grown to 100x its initial capacity (7 layers
// with expansion 2): every layer is probed.
void BM_ScalableMayContainAbsent(benchmark::State& state) {
  ScalableFilterOptions options;
  options.initial_capacity = 1000;
  options.seed = 1;
  ScalableFilter f = *ScalableFilter::Create(options);
  for (uint64_t i = 0; i < 100 * options.initial_capacity; ++i) {
    (void)f.AddHash(Mix(i));
  }
  state.counters["layers"] = static_cast<double>(f.num_layers());
  const std::vector<uint64_t>& h = Hashes();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.MayContainHash(h[i++ & (kHashes - 1)] ^ 7));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScalableMayContainAbsent);

}  // namespace
}  // namespace blockbloom

BENCHMARK_MAIN();
