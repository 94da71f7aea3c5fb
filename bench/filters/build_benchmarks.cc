// The build benchmarks: n real 16-byte keys through each filter's builder,
// as an engine feeds it.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "bench/baselines/page_buffer.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/baselines/rocksdb_bloom.h"
#include "bench/baselines/standard_bloom.h"
#include "bench/filters/benchmarks.h"
#include "bench/filters/harness.h"
#include "bench/filters/members.h"
#include "blockbloom/filter.h"
#include "blockbloom/sizing.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

namespace blockbloom::bench {
namespace {

// n keys of 16 bytes (a counter and a fixed tail), contiguous, with views.
// Both on 2 MiB pages: they are the builders' input, the same for all, and
// 430 MB of it on 4 KiB pages (13.4M keys) made every builder's time
// erratic in this VM (docs/BENCHMARKS.md, "Noise").
struct BuildKeys {
  explicit BuildKeys(size_t n)
      : storage(n * 16, Pages::kHuge),
        view_storage(n * sizeof(std::string_view), Pages::kHuge),
        views(reinterpret_cast<std::string_view*>(view_storage.data()), n) {
    uint64_t state = 0xb111dULL;
    char* keys = reinterpret_cast<char*>(storage.data());
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = SplitMix64(state);
      std::memcpy(keys + 16 * i, &v, 8);
      std::memset(keys + 16 * i + 8, 'b', 8);
      new (&views[i]) std::string_view(keys + 16 * i, 16);
    }
  }
  PageBuffer storage;
  PageBuffer view_storage;
  std::span<std::string_view> views;
};

const BuildKeys& GetBuildKeys(size_t n) {
  static std::unique_ptr<BuildKeys>* keys = new std::unique_ptr<BuildKeys>;
  if (*keys == nullptr || (*keys)->views.size() != n) {
    keys->reset();
    *keys = std::make_unique<BuildKeys>(n);
  }
  return **keys;
}

// Page faults (getrusage minflt) while it lives: first touches of fresh
// memory, which in this VM cost about as much as the rest of a large build.
class FaultCounter {
 public:
  FaultCounter() : start_(MinorFaults()) {}
  long faults() const { return MinorFaults() - start_; }

 private:
  static long MinorFaults() {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
  }
  const long start_;
};

void ReportBuild(State& state, size_t n, const FaultCounter& faults) {
  const double keys =
      static_cast<double>(state.iterations()) * static_cast<double>(n);
  state.SetItemsProcessed(static_cast<int64_t>(keys));
  state.counters["ns/key"] = benchmark::Counter(
      keys, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  // Page faults per build.
  state.counters["faults"] =
      static_cast<double>(faults.faults()) /
      static_cast<double>(
          std::max<benchmark::IterationCount>(state.iterations(), 1));
}

}  // namespace

void RegisterBuilds(Registrar& r, size_t n, bool slow) {
  constexpr double c = 10;
  auto add = [&](const char* filter, std::function<void(State&)> fn) {
    r.Add(std::string("build/") + filter +
              "/key16/bpk:10/keys:" + std::to_string(n),
          std::move(fn), /*build=*/true, /*once=*/slow);
  };
  // blockbloom: keys in, filter out (the builder sizes the filter at the
  // end, as an engine's builder must); and "fixed", the same with the shape
  // known up front (FilterOptions::shape): keys go straight into the bits,
  // one scalar insert each.
  for (const bool fixed : {false, true}) {
    add(fixed ? "blockbloom_fixed" : "blockbloom", [=](State& st) {
      const BuildKeys& keys = GetBuildKeys(n);
      FilterOptions options;
      if (fixed) {
        options.shape = *ShapeForBitsPerKey(n, c);
      } else {
        options.bits_per_key = c;
      }
      const FaultCounter faults;
      for (auto _ : st) {
        FilterBuilder builder = *FilterBuilder::Create(options);
        for (std::string_view k : keys.views) builder.Add(k);
        Filter filter = *builder.Finish();
        benchmark::DoNotOptimize(filter.bits().data());
      }
      ReportBuild(st, n, faults);
    });
  }
  add("rocksdb", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const rocksdb_builtin::Policy policy(c);
    const FaultCounter faults;
    for (auto _ : st) {
      std::unique_ptr<rocksdb::FilterBitsBuilder> builder = policy.NewBuilder();
      for (std::string_view k : keys.views)
        builder->AddKey(rocksdb_builtin::ToSlice(k));
      std::unique_ptr<const char[]> buf;
      const rocksdb::Slice filter = builder->Finish(&buf);
      benchmark::DoNotOptimize(filter.data());
    }
    ReportBuild(st, n, faults);
  });
  add("leveldb", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    std::unique_ptr<const leveldb::FilterPolicy> policy(
        leveldb::NewBloomFilterPolicy(static_cast<int>(c)));
    std::vector<leveldb::Slice> slices;
    slices.reserve(n);
    for (std::string_view k : keys.views)
      slices.emplace_back(k.data(), k.size());
    const FaultCounter faults;
    for (auto _ : st) {
      std::string filter;
      policy->CreateFilter(slices.data(), static_cast<int>(n), &filter);
      benchmark::DoNotOptimize(filter.data());
    }
    ReportBuild(st, n, faults);
  });
  // Parquet and the standard filter are sized from n up front (Parquet's
  // writers know the row count); keys are hashed and inserted in chunks.
  add("parquet", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const uint64_t blocks = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(static_cast<double>(n) * c / 256)));
    const parquet::Kernels* kernels = parquet::ActiveKernels();
    const FaultCounter faults;
    for (auto _ : st) {
      std::unique_ptr<uint8_t[]> bits(
          new uint8_t[blocks * parquet::kBlockBytes]());
      uint64_t h[256];
      for (size_t start = 0; start < n; start += 256) {
        const size_t m = std::min<size_t>(256, n - start);
        for (size_t j = 0; j < m; ++j)
          h[j] = parquet::Hash(keys.views[start + j]);
        kernels->insert_batch(bits.get(), blocks, h, m);
      }
      benchmark::DoNotOptimize(bits.get());
    }
    ReportBuild(st, n, faults);
  });
  add("standard", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const uint64_t num_bits = static_cast<uint64_t>(static_cast<double>(n) * c);
    const FaultCounter faults;
    for (auto _ : st) {
      std::unique_ptr<uint64_t[]> words(new uint64_t[(num_bits + 63) / 64]());
      const standard::FilterRef f = {words.get(), num_bits,
                                     standard::NumProbes(c)};
      uint64_t h[256];
      for (size_t start = 0; start < n; start += 256) {
        const size_t m = std::min<size_t>(256, n - start);
        for (size_t j = 0; j < m; ++j) h[j] = Xxh3(keys.views[start + j]);
        standard::InsertBatch(f, h, m);
      }
      benchmark::DoNotOptimize(words.get());
    }
    ReportBuild(st, n, faults);
  });
  add("absl_set", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const FaultCounter faults;
    for (auto _ : st) {
      absl::flat_hash_set<uint64_t> set;
      set.reserve(n);
      for (std::string_view k : keys.views) set.insert(Xxh3(k));
      benchmark::DoNotOptimize(set.size());
    }
    ReportBuild(st, n, faults);
  });
}

}  // namespace blockbloom::bench
