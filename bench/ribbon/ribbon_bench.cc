// The ribbon kind (FilterKind::kRibbon) side by side with RocksDB 7.8.3's
// own Ribbon filter (NewRibbonFilterPolicy, Standard128Ribbon, through its
// FilterPolicy API: src/rocksdb/filter_bits.h) and blockbloom's blocked
// kind, on the same keys in one process (docs/BENCHMARKS.md, "Ribbon kind").
//
//   ribbon_bench space [--probes=P] N...   bytes for the same measured rate
//                                          (1%, 0.1%, 0.01%)
//   ribbon_bench build REPS N...           build ns/key, hashing included
//   ribbon_bench probe REPS [--gib=G]      absent-key probe ns, single and
//                                          batches of 32, in and out of cache
//   ribbon_bench mem ours|rocksdb|blocked N   peak build memory (one kind per
//                                          process: ru_maxrss)
//   ribbon_bench smoke                     a small run of each (the test)
//
// Times are the thread's CPU time (the machine is shared: wall time would
// count waits for a core), medians of REPS runs with [min-max]; every
// repetition times the three filters back to back, so the ratios are paired.
// Run pinned: taskset -c 1.
//
// RocksDB's Ribbon is sized by a "Bloom-equivalent" bits/key, not a rate:
// for each target rate it is built at three settings around it, and its
// bits/key at exactly the target is interpolated (ln FPR is linear in
// bits/key) from the measured rates. Ours is built at the target rate
// (FilterOptions::fp_rate: its exact expected rate is at most that) and its
// rate measured on the same absent keys.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/splitmix.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/slice.h"
#include "rocksdb/table.h"
#include "src/rocksdb/filter_bits.h"

namespace {

using blockbloom::Filter;
using blockbloom::FilterKind;
using blockbloom::FilterOptions;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// n 16-byte keys of stream `stream` (present keys 1, absent ones 2).
struct Keys {
  std::vector<char> bytes;
  std::vector<std::string_view> views;
  std::vector<rocksdb::Slice> slices;
  Keys(uint64_t stream, size_t n) : bytes(16 * n), views(n), slices(n) {
    uint64_t state = stream * 0x51ed2701f3a5c7b9ull;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t a = blockbloom::bench::SplitMix64(state);
      const uint64_t b = blockbloom::bench::SplitMix64(state);
      std::memcpy(&bytes[16 * i], &a, 8);
      std::memcpy(&bytes[16 * i + 8], &b, 8);
      views[i] = std::string_view(&bytes[16 * i], 16);
      slices[i] = rocksdb::Slice(&bytes[16 * i], 16);
    }
  }
  size_t size() const { return views.size(); }
};

// RocksDB's Ribbon at one Bloom-equivalent setting.
struct RocksRibbon {
  std::unique_ptr<const rocksdb::FilterPolicy> policy;
  std::unique_ptr<const char[]> buf;
  rocksdb::Slice content;

  explicit RocksRibbon(double bloom_equivalent)
      : policy(rocksdb::NewRibbonFilterPolicy(bloom_equivalent)) {}
  void Build(const Keys& keys) {
    rocksdb::BlockBasedTableOptions table_options;
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(
            rocksdb::FilterBuildingContext(table_options)));
    for (const rocksdb::Slice& s : keys.slices) builder->AddKey(s);
    content = builder->Finish(&buf);
  }
  // RocksDB's 5-byte trailer starts with -2 for a Ribbon (it builds a Bloom
  // filter instead for some small inputs).
  bool IsRibbon() const {
    return content.size() >= 5 &&
           static_cast<signed char>(content[content.size() - 5]) == -2;
  }
  std::unique_ptr<rocksdb::FilterBitsReader> Reader(const char* data) const {
    return std::unique_ptr<rocksdb::FilterBitsReader>(
        policy->GetFilterBitsReader(rocksdb::Slice(data, content.size())));
  }
};

Filter BuildOurs(const Keys& keys, FilterKind kind, double fp_rate) {
  FilterOptions options;
  options.kind = kind;
  options.fp_rate = fp_rate;
  blockbloom::FilterBuilder builder =
      *blockbloom::FilterBuilder::Create(options);
  for (std::string_view k : keys.views) builder.Add(k);
  return *builder.Finish();
}

std::string Serialized(const Filter& filter) {
  return *blockbloom::SerializeFilter(filter);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
std::string Stat(const std::vector<double>& v, const char* format = "%.1f") {
  char med[32], lo[32], hi[32];
  std::snprintf(med, sizeof med, format, Median(v));
  std::snprintf(lo, sizeof lo, format, *std::min_element(v.begin(), v.end()));
  std::snprintf(hi, sizeof hi, format, *std::max_element(v.begin(), v.end()));
  return std::string(med) + " [" + lo + "-" + hi + "]";
}

// ---------------------------------------------------------------- space --

void Space(const std::vector<size_t>& ns, size_t probes) {
  struct Target {
    double rate;
    double settings[3];  // RocksDB's Bloom-equivalent bits/key around it
  };
  const Target targets[] = {{1e-2, {9.5, 10.0, 10.5}},
                            {1e-3, {14.5, 15.0, 15.5}},
                            {1e-4, {20.5, 21.0, 21.5}}};
  const Keys absent(2, probes);
  std::printf(
      "| n | rate | RocksDB Ribbon: bits/key at measured rate (3 settings) | "
      "RocksDB at the rate (interpolated) | ours bits/key | ours measured "
      "rate (sigmas from asked) | ours / RocksDB | blocked bits/key | "
      "blocked / RocksDB |\n|---|---|---|---|---|---|---|---|---|\n");
  for (size_t n : ns) {
    const Keys keys(1, n);
    for (const Target& t : targets) {
      std::vector<std::pair<double, double>> points;  // (bits/key, ln rate)
      std::string cell;
      for (double setting : t.settings) {
        RocksRibbon ribbon(setting);
        ribbon.Build(keys);
        if (!ribbon.IsRibbon())
          std::fprintf(stderr, "RocksDB built no Ribbon\n");
        auto reader = ribbon.Reader(ribbon.content.data());
        size_t fp = 0;
        for (const rocksdb::Slice& s : absent.slices) fp += reader->MayMatch(s);
        for (size_t i = 0; i < n; i += 97) {
          if (!reader->MayMatch(keys.slices[i])) std::abort();
        }
        const double rate =
            static_cast<double>(fp) / static_cast<double>(probes);
        const double bpk = 8.0 * static_cast<double>(ribbon.content.size()) /
                           static_cast<double>(n);
        points.push_back({bpk, std::log(std::max(rate, 0.5 / probes))});
        char text[80];
        std::snprintf(text, sizeof text, "%s%.3f @ %.4g%%",
                      cell.empty() ? "" : "; ", bpk, 100 * rate);
        cell += text;
      }
      std::sort(points.begin(), points.end());
      const double target = std::log(t.rate);
      size_t k = 0;
      while (k + 2 < points.size() && points[k + 1].second > target) ++k;
      const auto [x0, y0] = points[k];
      const auto [x1, y1] = points[k + 1];
      // (Too few probes to tell the settings apart: no interpolation.)
      const double rocks =
          y1 == y0 ? NAN : x0 + (target - y0) * (x1 - x0) / (y1 - y0);

      const Filter ours = BuildOurs(keys, FilterKind::kRibbon, t.rate);
      if (ours.kind() != FilterKind::kRibbon) std::abort();
      size_t fp = 0;
      for (std::string_view a : absent.views) fp += ours.MayContain(a);
      for (size_t i = 0; i < n; ++i) {
        if (!ours.MayContain(keys.views[i])) std::abort();
      }
      const double rate = static_cast<double>(fp) / static_cast<double>(probes);
      const double sigma =
          std::sqrt(t.rate * (1 - t.rate) / static_cast<double>(probes));
      const double ours_bpk = 8.0 *
                              static_cast<double>(Serialized(ours).size()) /
                              static_cast<double>(n);
      const Filter blocked = BuildOurs(keys, FilterKind::kBlocked, t.rate);
      const double blocked_bpk =
          8.0 * static_cast<double>(Serialized(blocked).size()) /
          static_cast<double>(n);
      std::printf(
          "| %zu | %g%% | %s | %.3f | %.3f | %.4g%% (%+.1f) | **%.3f** | %.2f "
          "| "
          "%.2f |\n",
          n, 100 * t.rate, cell.c_str(), rocks, ours_bpk, 100 * rate,
          (rate - t.rate) / sigma, ours_bpk / rocks, blocked_bpk,
          blocked_bpk / rocks);
      std::fflush(stdout);
    }
  }
}

// ---------------------------------------------------------------- build --

void Build(int reps, const std::vector<size_t>& ns) {
  std::printf(
      "| n | RocksDB Ribbon (10) ns/key | ours ribbon 1%% ns/key | ours / "
      "RocksDB (paired) | blocked 1%% ns/key | blocked / RocksDB |\n"
      "|---|---|---|---|---|---|\n");
  for (size_t n : ns) {
    const Keys keys(1, n);
    std::vector<double> rocks, ours, blocked, ratio, blocked_ratio;
    for (int rep = 0; rep < reps; ++rep) {
      const double scale = 1e9 / static_cast<double>(n);
      double t0 = CpuSeconds();
      {
        RocksRibbon ribbon(10);
        ribbon.Build(keys);
      }
      double t1 = CpuSeconds();
      { const Filter f = BuildOurs(keys, FilterKind::kRibbon, 0.01); }
      double t2 = CpuSeconds();
      { const Filter f = BuildOurs(keys, FilterKind::kBlocked, 0.01); }
      double t3 = CpuSeconds();
      rocks.push_back((t1 - t0) * scale);
      ours.push_back((t2 - t1) * scale);
      blocked.push_back((t3 - t2) * scale);
      ratio.push_back((t2 - t1) / (t1 - t0));
      blocked_ratio.push_back((t3 - t2) / (t1 - t0));
    }
    std::printf("| %zu | %s | %s | **%s** | %s | %s |\n", n,
                Stat(rocks).c_str(), Stat(ours).c_str(),
                Stat(ratio, "%.3f").c_str(), Stat(blocked).c_str(),
                Stat(blocked_ratio, "%.3f").c_str());
    std::fflush(stdout);
  }
}

// ---------------------------------------------------------------- probe --

// Copies of one filter's bytes filling `bytes` (one copy in cache), and a
// prober per copy. Absent keys are probed in a random order of copies.
struct Copies {
  std::vector<char> memory;
  size_t copy_bytes;
  size_t count;
  Copies(const char* data, size_t size, size_t bytes)
      : copy_bytes((size + 63) / 64 * 64),
        count(std::max<size_t>(1, bytes / ((size + 63) / 64 * 64))) {
    memory.resize(copy_bytes * count);
    for (size_t c = 0; c < count; ++c) {
      std::memcpy(&memory[c * copy_bytes], data, size);
    }
  }
  const char* at(size_t c) const { return &memory[c * copy_bytes]; }
};

struct ProbeTimes {
  std::vector<double> single, batch;
};

void Probe(int reps, double gib) {
  constexpr size_t kBatch = 32;  // MultiGet's batch
  constexpr size_t kProbes = 1 << 21;
  const Keys absent(2, kProbes);
  struct Setting {
    const char* name;
    size_t keys;   // one filter's
    size_t bytes;  // of copies
  };
  // In cache: a ~64 KiB ribbon (77k keys at 6.8 bits/key). Out of cache:
  // copies of a 1M-key filter filling `gib` GiB each.
  const Setting settings[] = {
      {"in cache (one ~64 KiB filter)", 77000, 0},
      {"out of cache", 1000000, static_cast<size_t>(gib * (1 << 30))}};
  std::printf(
      "| where | probe | RocksDB Ribbon (10) ns | ours ribbon 1%% ns | ours / "
      "RocksDB (paired) | blocked 1%% ns | ours ribbon / blocked |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const Setting& s : settings) {
    const Keys keys(1, s.keys);
    RocksRibbon rocks(10);
    rocks.Build(keys);
    const std::string ribbon =
        Serialized(BuildOurs(keys, FilterKind::kRibbon, 0.01));
    const std::string blocked =
        Serialized(BuildOurs(keys, FilterKind::kBlocked, 0.01));
    const Copies rocks_copies(rocks.content.data(), rocks.content.size(),
                              s.bytes);
    const Copies ribbon_copies(ribbon.data(), ribbon.size(), s.bytes);
    const Copies blocked_copies(blocked.data(), blocked.size(), s.bytes);
    std::vector<std::unique_ptr<rocksdb::FilterBitsReader>> readers;
    for (size_t c = 0; c < rocks_copies.count; ++c) {
      readers.push_back(rocks.Reader(rocks_copies.at(c)));
    }
    auto open = [](const Copies& copies, size_t size) {
      std::vector<Filter> filters;
      for (size_t c = 0; c < copies.count; ++c) {
        filters.push_back(*blockbloom::OpenFilter(
            {reinterpret_cast<const uint8_t*>(copies.at(c)), size}));
      }
      return filters;
    };
    const std::vector<Filter> ribbons = open(ribbon_copies, ribbon.size());
    const std::vector<Filter> blockeds = open(blocked_copies, blocked.size());
    // The copy each probe (or batch) goes to.
    std::vector<uint32_t> which(kProbes);
    uint64_t state = 99;
    for (uint32_t& w : which) {
      w = static_cast<uint32_t>(blockbloom::bench::SplitMix64(state) %
                                rocks_copies.count);
    }
    auto copy_of = [&](size_t i, size_t count) { return which[i] % count; };

    std::vector<double> rs, os, bs, rb, ob, bb, single_ratio, batch_ratio,
        single_vs_blocked, batch_vs_blocked;
    size_t sink = 0;
    bool results[kBatch];
    for (int rep = 0; rep < reps; ++rep) {
      const double per = 1e9 / static_cast<double>(kProbes);
      double t0 = CpuSeconds();
      for (size_t i = 0; i < kProbes; ++i) {
        sink += readers[copy_of(i, readers.size())]->MayMatch(absent.slices[i]);
      }
      double t1 = CpuSeconds();
      for (size_t i = 0; i < kProbes; ++i) {
        sink += ribbons[copy_of(i, ribbons.size())].MayContain(absent.views[i]);
      }
      double t2 = CpuSeconds();
      for (size_t i = 0; i < kProbes; ++i) {
        sink +=
            blockeds[copy_of(i, blockeds.size())].MayContain(absent.views[i]);
      }
      double t3 = CpuSeconds();
      rocksdb::Slice* pointers[kBatch];
      rocksdb::Slice slices[kBatch];
      for (size_t i = 0; i < kProbes; i += kBatch) {
        for (size_t j = 0; j < kBatch; ++j) {
          slices[j] = absent.slices[i + j];
          pointers[j] = &slices[j];
        }
        readers[copy_of(i, readers.size())]->MayMatch(kBatch, pointers,
                                                      results);
        sink += results[0];
      }
      double t4 = CpuSeconds();
      for (size_t i = 0; i < kProbes; i += kBatch) {
        ribbons[copy_of(i, ribbons.size())].MayContainBatch(
            {&absent.views[i], kBatch}, absl::MakeSpan(results, kBatch));
        sink += results[0];
      }
      double t5 = CpuSeconds();
      for (size_t i = 0; i < kProbes; i += kBatch) {
        blockeds[copy_of(i, blockeds.size())].MayContainBatch(
            {&absent.views[i], kBatch}, absl::MakeSpan(results, kBatch));
        sink += results[0];
      }
      double t6 = CpuSeconds();
      rs.push_back((t1 - t0) * per);
      os.push_back((t2 - t1) * per);
      bs.push_back((t3 - t2) * per);
      rb.push_back((t4 - t3) * per);
      ob.push_back((t5 - t4) * per);
      bb.push_back((t6 - t5) * per);
      single_ratio.push_back((t2 - t1) / (t1 - t0));
      batch_ratio.push_back((t5 - t4) / (t4 - t3));
      single_vs_blocked.push_back((t2 - t1) / (t3 - t2));
      batch_vs_blocked.push_back((t5 - t4) / (t6 - t5));
    }
    char where[96];
    std::snprintf(where, sizeof where, "%s, %zu cop%s", s.name,
                  rocks_copies.count, rocks_copies.count == 1 ? "y" : "ies");
    std::printf("| %s | single | %s | %s | **%s** | %s | %s |\n", where,
                Stat(rs).c_str(), Stat(os).c_str(),
                Stat(single_ratio, "%.3f").c_str(), Stat(bs).c_str(),
                Stat(single_vs_blocked, "%.2f").c_str());
    std::printf("| %s | batch of 32 | %s | %s | **%s** | %s | %s |\n", where,
                Stat(rb).c_str(), Stat(ob).c_str(),
                Stat(batch_ratio, "%.3f").c_str(), Stat(bb).c_str(),
                Stat(batch_vs_blocked, "%.2f").c_str());
    std::fflush(stdout);
    if (sink == 1) std::puts("");  // keep the probes
  }
}

// ------------------------------------------------------------------ mem --

long MaxRssKiB() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The high-water mark of the process while building, above what it held
// with its keys: the builder's peak, its output included.
void Mem(const std::string& kind, size_t n) {
  const Keys keys(1, n);
  const long before = MaxRssKiB();  // the keys'; only the build raises it
  double bytes = 0;
  if (kind == "rocksdb") {
    RocksRibbon ribbon(10);
    ribbon.Build(keys);
    bytes = static_cast<double>(ribbon.content.size());
  } else {
    const Filter f = BuildOurs(
        keys, kind == "ours" ? FilterKind::kRibbon : FilterKind::kBlocked,
        0.01);
    bytes = static_cast<double>(f.bits().size());
  }
  const long after = MaxRssKiB();
  std::printf("| %s | %zu | %.1f | %.1f |\n", kind.c_str(), n,
              8.0 * 1024.0 * static_cast<double>(after - before) /
                  static_cast<double>(n),
              8.0 * bytes / static_cast<double>(n));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t probes = 2'000'000;
  double gib = 1.0;
  std::vector<std::string> rest;
  for (const std::string& a : args) {
    if (a.rfind("--probes=", 0) == 0) {
      probes = std::strtoull(a.c_str() + 9, nullptr, 10);
    } else if (a.rfind("--gib=", 0) == 0) {
      gib = std::atof(a.c_str() + 6);
    } else {
      rest.push_back(a);
    }
  }
  auto sizes = [&](size_t from) {
    std::vector<size_t> ns;
    for (size_t i = from; i < rest.size(); ++i) {
      ns.push_back(std::strtoull(rest[i].c_str(), nullptr, 10));
    }
    return ns;
  };
  const std::string mode = rest.empty() ? "" : rest[0];
  if (mode == "space" && rest.size() >= 2) {
    Space(sizes(1), probes);
  } else if (mode == "build" && rest.size() >= 3) {
    Build(std::atoi(rest[1].c_str()), sizes(2));
  } else if (mode == "probe" && rest.size() >= 2) {
    Probe(std::atoi(rest[1].c_str()), gib);
  } else if (mode == "mem" && rest.size() == 3) {
    Mem(rest[1], std::strtoull(rest[2].c_str(), nullptr, 10));
  } else if (mode == "smoke") {
    Space({20000}, 20000);
    Build(1, {20000});
    Probe(1, 0.01);
    Mem("ours", 20000);
  } else {
    std::fprintf(stderr,
                 "usage: ribbon_bench space [--probes=P] N... | build REPS "
                 "N... | probe REPS [--gib=G] | mem ours|rocksdb|blocked N | "
                 "smoke\n");
    return 1;
  }
  return 0;
}
