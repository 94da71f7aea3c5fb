// Builds a blockbloom filter from generated keys and reports what a user
// cares about: its size, its false-positive rate (measured and expected) and
// how long a probe takes, single and batched.
//
//   blockbloom_demo --keys=1000000 --bits_per_key=10
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/hash.h"

ABSL_FLAG(uint64_t, keys, 1'000'000, "keys to add");
ABSL_FLAG(uint64_t, probes, 4'000'000, "absent keys to probe");
ABSL_FLAG(double, bits_per_key, 10, "filter bits per key");
ABSL_FLAG(double, fp_rate, 0, "if > 0, size for this false-positive rate");
ABSL_FLAG(int, repetitions, 5, "timing repetitions (the median is reported)");

namespace {

std::string Key(const char* prefix, uint64_t i) {
  return absl::StrCat(prefix, i);
}

// Median and spread of `reps` timings of fn(), in ns per item.
template <typename Fn>
void Time(const char* what, int reps, uint64_t items, Fn fn) {
  std::vector<double> ns;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const auto end = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(end - start).count() /
                 static_cast<double>(items));
  }
  std::sort(ns.begin(), ns.end());
  std::printf("  %-34s %7.2f ns  (min %.2f, max %.2f, %d runs)\n", what,
              ns[ns.size() / 2], ns.front(), ns.back(), reps);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Builds a blockbloom filter from generated keys and reports its size, "
      "false-positive rate and probe speed.");
  absl::ParseCommandLine(argc, argv);
  const uint64_t n = absl::GetFlag(FLAGS_keys);
  const uint64_t probes = std::max<uint64_t>(1, absl::GetFlag(FLAGS_probes));
  const int reps = std::max(1, absl::GetFlag(FLAGS_repetitions));

  blockbloom::FilterOptions options;
  options.bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
  options.fp_rate = absl::GetFlag(FLAGS_fp_rate);
  absl::StatusOr<blockbloom::FilterBuilder> builder =
      blockbloom::FilterBuilder::Create(options);
  if (!builder.ok()) {
    std::fprintf(stderr, "error: %s\n", builder.status().ToString().c_str());
    return 1;
  }
  const auto build_start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < n; ++i) builder->Add(Key("present:", i));
  absl::StatusOr<blockbloom::Filter> filter = builder->Finish();
  const auto build_end = std::chrono::steady_clock::now();
  if (!filter.ok()) {
    std::fprintf(stderr, "error: %s\n", filter.status().ToString().c_str());
    return 1;
  }

  // Every added key must answer "may contain".
  for (uint64_t i = 0; i < n; ++i) {
    if (!filter->MayContain(Key("present:", i))) {
      std::fprintf(stderr, "BUG: false negative for key %llu\n",
                   static_cast<unsigned long long>(i));
      return 2;
    }
  }

  std::vector<uint64_t> absent(probes);
  for (uint64_t i = 0; i < probes; ++i) {
    absent[i] = blockbloom::HashKey(Key("absent:", i), filter->seed());
  }
  uint64_t false_positives = 0;
  for (uint64_t h : absent) false_positives += filter->MayContainHash(h);

  const double bits_per_key =
      n == 0 ? 0 : 8.0 * static_cast<double>(filter->bits().size()) / n;
  std::printf("blockbloom filter\n");
  std::printf("  keys                               %llu\n",
              static_cast<unsigned long long>(n));
  std::printf("  size                               %llu bytes (%llu blocks)\n",
              static_cast<unsigned long long>(filter->bits().size()),
              static_cast<unsigned long long>(filter->num_blocks()));
  std::printf("  bits/key                           %.2f\n", bits_per_key);
  std::printf("  probes per key (k)                 %d\n",
              filter->num_probes());
  std::printf("  false-positive rate, measured      %.4f%% (%llu of %llu)\n",
              100.0 * false_positives / probes,
              static_cast<unsigned long long>(false_positives),
              static_cast<unsigned long long>(probes));
  std::printf("  false-positive rate, expected      %.4f%%\n",
              100.0 * filter->EstimatedFpRate());
  std::printf(
      "  build                              %.1f ns/key (with hashing)\n",
      std::chrono::duration<double, std::nano>(build_end - build_start)
              .count() /
          std::max<uint64_t>(1, n));

  std::printf("probe speed, absent keys, pre-hashed, SIMD target %s\n",
              blockbloom::ActiveSimdTarget());
  uint64_t sink = 0;
  Time("single", reps, probes, [&] {
    for (uint64_t h : absent) sink += filter->MayContainHash(h);
  });
  std::unique_ptr<bool[]> results(new bool[probes]);
  Time("batch", reps, probes, [&] {
    filter->MayContainHashBatch(absent, absl::MakeSpan(results.get(), probes));
  });
  std::printf(
      "(sink %llu; figures from one unpinned run: see "
      "docs/BENCHMARKS.md for how to measure)\n",
      static_cast<unsigned long long>(sink % 2));
  return 0;
}
