// Does a probe's SIMD target slow the code that runs after it? What a Get
// in an engine looks like to the CPU: one filter probe, then a few
// microseconds of other work (here a fixed chain of scalar integer
// multiplies and shifts, which no vector width speeds up). Times both parts
// with the TSC, which ticks at a constant rate: if the other work takes more
// ticks after a 512-bit probe than after a 256-bit one, the core ran it at a
// lower frequency (a power license held after the vector instructions), not
// slower code. docs/BENCHMARKS.md, "The SIMD target inside RocksDB".
//
//   simd_aftereffect [--targets=AVX3,AVX2] [--rounds=7] [--work=2000]
//
// Prints, per target, the median TSC ticks per iteration of the probe and
// of the work after it, with min-max over the rounds (the targets
// alternate within each round); "none" is the work with no probe.
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <chrono>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/splitmix.h"
#include "blockbloom/filter.h"

namespace {

// The TSC (constant rate) where there is one, else nanoseconds.
uint64_t Now() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

uint64_t Work(uint64_t x, int steps) {
  for (int i = 0; i < steps; ++i) x = (x * 0x9e3779b97f4a7c15ULL) ^ (x >> 29);
  return x;
}

struct Ticks {
  double probe = 0;
  double work = 0;
};

// One round of `n` iterations with `filter` (null: no probe).
Ticks Run(const blockbloom::Filter* filter, const std::vector<uint64_t>& hashes,
          int steps, uint64_t* sink) {
  uint64_t probe = 0, work = 0, x = *sink;
  for (uint64_t h : hashes) {
    const uint64_t t0 = Now();
    if (filter != nullptr) x += filter->MayContainHash(h ^ x % 2);
    const uint64_t t1 = Now();
    x = Work(x + h, steps);
    const uint64_t t2 = Now();
    probe += t1 - t0;
    work += t2 - t1;
  }
  *sink = x;
  const double n = static_cast<double>(hashes.size());
  return {static_cast<double>(probe) / n, static_cast<double>(work) / n};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> targets = {"AVX3", "AVX2"};
  int rounds = 7, steps = 2000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--targets=", 0) == 0) {
      targets.clear();
      std::string list = a.substr(10);
      for (size_t p = 0; p <= list.size();) {
        const size_t q = std::min(list.find(',', p), list.size());
        targets.push_back(list.substr(p, q - p));
        p = q + 1;
      }
    } else if (a.rfind("--rounds=", 0) == 0) {
      rounds = std::atoi(a.c_str() + 9);
    } else if (a.rfind("--work=", 0) == 0) {
      steps = std::atoi(a.c_str() + 7);
    } else {
      std::fprintf(stderr, "simd_aftereffect: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  // A 1 MiB filter (in cache, as a table's filter is when hot).
  constexpr int kKeys = 838'860;
  blockbloom::FilterOptions options;
  options.bits_per_key = 10;
  blockbloom::FilterBuilder builder =
      *blockbloom::FilterBuilder::Create(options);
  uint64_t state = 1;
  for (int i = 0; i < kKeys; ++i)
    builder.AddHash(blockbloom::bench::SplitMix64(state));
  const blockbloom::Filter built = *builder.Finish();
  std::vector<uint64_t> hashes(20'000);
  for (uint64_t& h : hashes) h = blockbloom::bench::SplitMix64(state);
  // One filter per target, each opened after choosing it.
  std::vector<blockbloom::Filter> filters;
  for (const std::string& t : targets) {
    if (absl::Status s = blockbloom::SetSimdTarget(t); !s.ok()) {
      std::fprintf(stderr, "simd_aftereffect: %s\n",
                   std::string(s.message()).c_str());
      return 2;
    }
    filters.push_back(*blockbloom::Filter::Wrap(built.bits(), built.shape(),
                                                built.seed(), kKeys));
  }
  std::vector<std::vector<double>> probe(targets.size() + 1),
      work(targets.size() + 1);
  uint64_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i <= targets.size(); ++i) {
      const Ticks t =
          Run(i < targets.size() ? &filters[i] : nullptr, hashes, steps, &sink);
      probe[i].push_back(t.probe);
      work[i].push_back(t.work);
    }
  }
  std::printf(
      "%d rounds of %zu iterations, work %d steps; TSC ticks per "
      "iteration, median [min-max]\n",
      rounds, hashes.size(), steps);
  for (size_t i = 0; i <= targets.size(); ++i) {
    const auto [pmin, pmax] =
        std::minmax_element(probe[i].begin(), probe[i].end());
    const auto [wmin, wmax] =
        std::minmax_element(work[i].begin(), work[i].end());
    std::printf(
        "%-6s probe %7.1f [%.1f-%.1f]  work after it %9.1f [%.1f-%.1f]  "
        "work / none's %.4f\n",
        i < targets.size() ? targets[i].c_str() : "none", Median(probe[i]),
        *pmin, *pmax, Median(work[i]), *wmin, *wmax,
        Median(work[i]) / Median(work.back()));
  }
  return sink == 42 ? 1 : 0;  // keeps the work
}
