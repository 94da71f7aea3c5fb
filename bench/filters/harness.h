// The measuring loops every probe benchmark shares (single and batch, by
// hash and by key), the counters they report, and the registrar that
// interleaves the repetitions of a group of benchmarks.
#ifndef BLOCKBLOOM_BENCH_FILTERS_HARNESS_H_
#define BLOCKBLOOM_BENCH_FILTERS_HARNESS_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/filters/members.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace blockbloom::bench {

using benchmark::State;

constexpr size_t kSingleInner = 32;  // single probes per benchmark iteration

inline void Report(State& state, uint64_t probes, uint64_t positives,
                   double huge) {
  state.SetItemsProcessed(static_cast<int64_t>(probes));
  state.counters["fpr%"] = 100.0 * static_cast<double>(positives) /
                           static_cast<double>(probes ? probes : 1);
  state.counters["ns/probe"] = benchmark::Counter(
      static_cast<double>(probes),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["huge%"] = huge;
}

template <typename Probe>
void SingleHash(State& state, double huge, Probe probe) {
  const uint64_t* hashes = ProbeHashes().data();
  uint64_t probes = 0, positives = 0;
  size_t i = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kSingleInner; ++j) positives += probe(hashes[i + j]);
    i = (i + kSingleInner) & (kProbeHashes - 1);
    probes += kSingleInner;
  }
  Report(state, probes, positives, huge);
}

template <typename Probe>
void BatchHash(State& state, size_t batch, double huge, Probe probe) {
  const uint64_t* hashes = ProbeHashes().data();
  std::unique_ptr<bool[]> results(new bool[batch]);
  uint64_t probes = 0, positives = 0;
  size_t i = 0;
  for (auto _ : state) {
    probe(hashes + i, batch, results.get());
    for (size_t j = 0; j < batch; ++j) positives += results[j];
    i = (i + batch) & (kProbeHashes - 1);
    probes += batch;
  }
  Report(state, probes, positives, huge);
}

// Key probes: a counter, never repeated in the process, makes each key new.
inline uint64_t& KeyCounter() {
  static uint64_t counter = 0;
  return counter;
}

struct KeyBuffer {
  KeyBuffer(size_t count, size_t key_length)
      : length(key_length), storage(count * key_length, 'k') {
    for (size_t i = 0; i < count; ++i) {
      views.emplace_back(storage.data() + i * length, length);
    }
  }
  void Stamp(size_t i, uint64_t counter) {
    std::memcpy(storage.data() + i * length, &counter, sizeof(counter));
  }
  size_t length;
  std::string storage;
  std::vector<std::string_view> views;
};

template <typename Probe>
void SingleKey(State& state, size_t length, double huge, Probe probe) {
  KeyBuffer keys(kSingleInner, length);
  uint64_t& counter = KeyCounter();
  uint64_t probes = 0, positives = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kSingleInner; ++j) {
      keys.Stamp(j, ++counter);
      positives += probe(keys.views[j]);
    }
    probes += kSingleInner;
  }
  Report(state, probes, positives, huge);
}

template <typename Probe>
void BatchKey(State& state, size_t length, size_t batch, double huge,
              Probe probe) {
  KeyBuffer keys(batch, length);
  std::unique_ptr<bool[]> results(new bool[batch]);
  uint64_t& counter = KeyCounter();
  uint64_t probes = 0, positives = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < batch; ++j) keys.Stamp(j, ++counter);
    probe(keys.views.data(), batch, results.get());
    for (size_t j = 0; j < batch; ++j) positives += results[j];
    probes += batch;
  }
  Report(state, probes, positives, huge);
}
inline uint64_t Xxh3(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

enum class Op { kSingle, kBatch32, kBatch1024 };
inline const char* OpName(Op op) {
  switch (op) {
    case Op::kSingle:
      return "single";
    case Op::kBatch32:
      return "batch32";
    case Op::kBatch1024:
      return "batch1024";
  }
  return "?";
}
inline size_t BatchOf(Op op) { return op == Op::kBatch1024 ? 1024 : 32; }

// Collects the benchmarks of one group (one bits/key and size, or one
// build size) and registers them `reps` times round-robin: repetitions of
// different filters interleave, so that a noisy moment on this shared
// machine hits all of them rather than one. summarize.py takes the median.
class Registrar {
 public:
  explicit Registrar(int reps) : reps_(reps) {}

  // once: one iteration per repetition (slow builds).
  void Add(std::string name, std::function<void(State&)> fn, bool build = false,
           bool once = false) {
    group_.push_back({std::move(name), std::move(fn), build, once});
  }

  void Flush() {
    for (int rep = 0; rep < reps_; ++rep) {
      for (const Entry& e : group_) {
        benchmark::internal::Benchmark* b =
            benchmark::RegisterBenchmark(e.name.c_str(), e.fn);
        if (e.build) b->Unit(benchmark::kMillisecond);
        if (e.once) b->Iterations(1);
      }
    }
    group_.clear();
  }

 private:
  struct Entry {
    std::string name;
    std::function<void(State&)> fn;
    bool build;
    bool once;
  };
  const int reps_;
  std::vector<Entry> group_;
};

inline std::string ProbeName(const char* filter, Op op,
                             const std::string& input, double c, size_t bytes) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "probe/%s/%s/%s/bpk:%g/bytes:%zu", filter,
                OpName(op), input.c_str(), c, bytes);
  return buf;
}

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_FILTERS_HARNESS_H_
