// blockbloom bench: a quick in-process build and probe benchmark.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "tools/commands.h"
#include "tools/flags.h"
#include "tools/report.h"

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "bench";
constexpr int kRuns = 3;
constexpr size_t kBatch = 128;

// `n` distinct 16-byte keys: `tag` and a zero-padded number.
class KeySet {
 public:
  KeySet(char tag, uint64_t n) {
    data_.reserve(n * 16);
    for (uint64_t i = 0; i < n; ++i) {
      absl::StrAppendFormat(&data_, "%c%015d", tag, i);
    }
    views_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) views_.emplace_back(&data_[i * 16], 16);
  }
  const std::vector<std::string_view>& views() const { return views_; }

 private:
  std::string data_;
  std::vector<std::string_view> views_;
};

// The median of kRuns timings of fn(), in ns per item.
template <typename Fn>
double MedianNsPerItem(uint64_t items, Fn fn) {
  std::vector<double> ns;
  for (int run = 0; run < kRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const auto end = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(end - start).count() /
                 static_cast<double>(std::max<uint64_t>(items, 1)));
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

static int RunBenchUnguarded(const std::vector<std::string>& args);

int RunBench(const std::vector<std::string>& args) {
  try {
    return RunBenchUnguarded(args);
  } catch (const std::bad_alloc&) {
    return UsageError(
        kCommand,
        absl::StrFormat("out of memory for --keys=%d (about %d bytes of keys "
                        "and a filter): give fewer keys",
                        absl::GetFlag(FLAGS_keys),
                        absl::GetFlag(FLAGS_keys) * 34));
  }
}

static int RunBenchUnguarded(const std::vector<std::string>& args) {
  if (!args.empty()) {
    return UsageError(kCommand, "takes no arguments, only flags");
  }
  const uint64_t n = absl::GetFlag(FLAGS_keys);
  if (n == 0 || n > (uint64_t{1} << 32)) {
    return UsageError(kCommand, "--keys must be in [1, 2^32]");
  }
  absl::StatusOr<FilterOptions> options = FilterOptionsFromFlags();
  if (!options.ok()) return UsageError(kCommand, options.status());
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(*options);
  if (!builder.ok()) return UsageError(kCommand, builder.status());

  const KeySet present('k', n);
  const KeySet absent('a', n);

  // Build: Add (hashing) and Finish, timed together, once per run.
  std::unique_ptr<Filter> filter;
  absl::Status build_status;
  const double build_ns = MedianNsPerItem(n, [&] {
    for (std::string_view key : present.views()) builder->Add(key);
    absl::StatusOr<Filter> built = builder->Finish();
    if (built.ok()) {
      filter = std::make_unique<Filter>(*std::move(built));
    } else {
      build_status = built.status();
    }
  });
  if (!build_status.ok()) {
    return Fail(
        kCommand, kExitUsage,
        absl::StrCat("cannot build the filter: ", build_status.ToString()));
  }

  // No false negatives, or the benchmark means nothing.
  for (std::string_view key : present.views()) {
    if (!filter->MayContain(key)) {
      return Fail(kCommand, kExitUsage,
                  "BUG: a key added to the filter is not found in it");
    }
  }

  uint64_t positives = 0;
  const double single_ns = MedianNsPerItem(n, [&] {
    uint64_t found = 0;
    for (std::string_view key : absent.views())
      found += filter->MayContain(key);
    positives = found;
  });
  std::unique_ptr<bool[]> results(new bool[kBatch]);
  uint64_t batch_positives = 0;
  const double batch_ns = MedianNsPerItem(n, [&] {
    uint64_t found = 0;
    absl::Span<const std::string_view> keys = absent.views();
    for (size_t i = 0; i < keys.size(); i += kBatch) {
      const size_t m = std::min(kBatch, keys.size() - i);
      filter->MayContainBatch(keys.subspan(i, m),
                              absl::MakeSpan(results.get(), m));
      for (size_t j = 0; j < m; ++j) found += results[j];
    }
    batch_positives = found;
  });
  if (batch_positives != positives) {
    return Fail(kCommand, kExitUsage, "BUG: batch and single probes disagree");
  }

  std::string out = absl::StrFormat(
      "blockbloom bench: %d keys, SIMD target %s\n", n, ActiveSimdTarget());
  absl::StrAppendFormat(
      &out,
      "filter:         %d bytes, %.2f bits/key, k = %d, %d blocks of 16 x "
      "%d-bit lanes\n",
      filter->bits().size(),
      8.0 * static_cast<double>(filter->bits().size()) / static_cast<double>(n),
      filter->num_probes(), filter->num_blocks(), filter->lane_bits());
  absl::StrAppendFormat(&out,
                        "build:          %.1f M keys/s (%.1f ns/key, hashing "
                        "included)\n",
                        1e3 / build_ns, build_ns);
  absl::StrAppendFormat(&out, "probe, single:  %.2f ns/probe\n", single_ns);
  absl::StrAppendFormat(&out, "probe, batch:   %.2f ns/probe (batches of %d)\n",
                        batch_ns, kBatch);
  absl::StrAppendFormat(
      &out,
      "FPR:            %.4f%% measured (%d of %d absent keys), %.4f%% "
      "expected\n",
      100.0 * static_cast<double>(positives) / static_cast<double>(n),
      positives, n, 100 * filter->EstimatedFpRate());
  absl::StrAppendFormat(&out,
                        "(median of %d runs, 16-byte keys, absent keys for "
                        "the probes; unpinned: see docs/BENCHMARKS.md)\n",
                        kRuns);
  Print(out);
  return FinishOutput(kCommand);
}

}  // namespace blockbloom::cli
