// Every filter, every size, one process: blockbloom beside LevelDB's and
// RocksDB's built-in Bloom filters (through their own interfaces), the same
// FastLocalBloom algorithm with RocksDB's AVX2 probe, the Parquet split block
// filter, a standard Bloom filter, an exact absl::flat_hash_set<uint64_t>,
// and the memory floor. Run it through bench/run (docs/BENCHMARKS.md), which
// pins it to one core and renders the table and plots.
//
// Benchmark names: probe/<filter>/<op>/<input>/bpk:<c>/bytes:<size> and
// build/<filter>/key16/bpk:10/keys:<n>, where
//   op     single (one call per key), batch32, batch1024 (the batch API)
//   input  hash   (pre-hashed: every filter gets the same 64-bit values)
//          key8, key16, key64 (keys of that many bytes, hashed in the probe
//          with the filter's own hash function)
// Counters: ns/probe (or ns/key for builds), fpr% (measured on the probes,
// all of which are absent keys), huge% (share of the probed memory on 2 MiB
// pages).
//
// What is held constant:
//  - Each (bits/key, size) builds every filter from the same n = 8*size/c
//    member hashes (a SplitMix64 stream): membership depends on the hash
//    alone, so this equals inserting n distinct keys, and keeps 1 GiB
//    filters to seconds. LevelDB's format stores 32-bit hashes: it gets the
//    low halves. Builds through the engines' own builders with real keys are
//    the build/ benchmarks.
//  - Pre-hashed probes read one shared array of 2^20 random hashes (8 MiB,
//    sequential). Key probes use `batch` keys that stay in L1, with a counter
//    rewritten into their first 8 bytes before each probe: every probe is a
//    new key in a fresh random block, and hashing, not streaming keys from
//    memory, is what is added to the pre-hashed cost (the rewrite, one
//    store, is included).
//  - "single" probes are independent calls in a loop (nothing depends on a
//    result), so out-of-order execution can overlap their misses: this is
//    throughput of unbatched probes, not latency.
//  - The floor reads one whole 64-byte line per probe at blockbloom's block
//    address, with the same batching and prefetching and no filter logic.
//    "floor" reads blockbloom's own buffer (2 MiB pages from 2 MiB up, as the
//    library allocates), "floor_4k" a copy on 4 KiB pages, which is also
//    what blockbloom_4k probes (Filter::Wrap over it). The baselines live
//    on 4 KiB pages, 64-byte aligned (favourable to them: RocksDB's own
//    filter blocks are only 16-byte aligned in memory).
#include <benchmark/benchmark.h>
#include <hwy/cache_control.h>
#include <hwy/targets.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "bench/fastlocal_bloom.h"
#include "bench/leveldb_bloom.h"
#include "bench/page_buffer.h"
#include "bench/parquet_sbbf.h"
#include "bench/rocksdb_bloom.h"
#include "bench/standard_bloom.h"
#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "rocksdb/version.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace blockbloom::bench {
namespace {

using benchmark::State;

constexpr size_t KiB = size_t{1} << 10;
constexpr size_t MiB = size_t{1} << 20;
constexpr size_t GiB = size_t{1} << 30;

constexpr size_t kProbeHashes = size_t{1} << 20;  // 8 MiB, cycled through
constexpr size_t kSingleInner = 32;  // single probes per benchmark iteration
constexpr size_t kChunk = size_t{1} << 16;  // member hashes per generated run

// The largest sizes some baselines run at (see docs/BENCHMARKS.md):
// LevelDB sizes one filter per ~2 KiB data block, and its 32-bit hash makes
// large filters meaningless (a 32-bit collision is a false positive: 5% at
// 256 MiB); its unblocked inserts are also the slowest to set up. The exact
// set's inserts are random cache misses too (215M of them, ~40 s, for the
// 256 MiB filter's keys; 9.6 GB of table for the 1 GiB filter's).
constexpr size_t kMaxLevelDbBytes = 16 * MiB;
constexpr size_t kMaxSetBytes = 16 * MiB;
// From this size on, the standard filter's bits are set at n*k ideal random
// positions in address order rather than by inserting n keys (k random
// cache misses each: about two minutes for 1 GiB here).
constexpr size_t kIdealStandardBytes = 256 * MiB;

inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string SizeName(size_t bytes) {
  if (bytes >= GiB && bytes % GiB == 0)
    return std::to_string(bytes / GiB) + "GiB";
  if (bytes >= MiB && bytes % MiB == 0)
    return std::to_string(bytes / MiB) + "MiB";
  return std::to_string(bytes / KiB) + "KiB";
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

// The absent probe hashes every filter gets in the pre-hashed benchmarks.
const std::vector<uint64_t>& ProbeHashes() {
  static const std::vector<uint64_t>* hashes = [] {
    auto* h = new std::vector<uint64_t>(kProbeHashes);
    uint64_t state = 0x5eed0fab5e17ULL;
    for (uint64_t& x : *h) x = SplitMix64(state);
    return h;
  }();
  return *hashes;
}

// n uniform 64-bit member hashes, emitted in chunks in order of their high
// halves: 2^b buckets of the high half, a multinomial count per bucket (by
// conditional binomials, so the total is exactly n), uniform values inside.
// A filter whose block comes from the high half (blockbloom, Parquet) thus
// fills in address order: a 1 GiB filter builds in seconds instead of
// minutes of random cache misses, and the set inserted is the same.
template <typename Fn>
void ForEachMemberChunk(uint64_t n, uint64_t seed, Fn fn) {
  int bucket_bits = 0;
  while (bucket_bits < 20 && (n >> (bucket_bits + 1)) >= 256) ++bucket_bits;
  const uint64_t buckets = uint64_t{1} << bucket_bits;
  std::mt19937_64 counts(seed);
  uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
  std::vector<uint64_t> chunk;
  chunk.reserve(kChunk + 4096);
  uint64_t remaining = n;
  for (uint64_t b = 0; b < buckets; ++b) {
    uint64_t count = remaining;
    if (b + 1 < buckets) {
      std::binomial_distribution<uint64_t> split(
          remaining, 1.0 / static_cast<double>(buckets - b));
      count = split(counts);
    }
    remaining -= count;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t r = SplitMix64(state);
      const uint64_t high =
          (b << (32 - bucket_bits)) | ((r >> 32) >> bucket_bits);
      chunk.push_back((high << 32) | (r & 0xffffffff));
      if (chunk.size() == kChunk) {
        fn(chunk.data(), chunk.size());
        chunk.clear();
      }
    }
  }
  if (!chunk.empty()) fn(chunk.data(), chunk.size());
}

// Sets `count` uniform random bit positions of a `num_bits` array (a
// multiple of 2^16) in address order: the bits of a standard Bloom filter of
// n keys with k fully independent hash functions, count = n*k.
void SetIdealRandomBits(uint64_t* words, uint64_t num_bits, uint64_t count,
                        uint64_t seed) {
  constexpr int kBucketBits = 16;
  const uint64_t buckets = num_bits >> kBucketBits;
  std::mt19937_64 counts(seed);
  uint64_t state = seed;
  uint64_t remaining = count;
  for (uint64_t b = 0; b < buckets; ++b) {
    uint64_t here = remaining;
    if (b + 1 < buckets) {
      std::binomial_distribution<uint64_t> split(
          remaining, 1.0 / static_cast<double>(buckets - b));
      here = split(counts);
    }
    remaining -= here;
    uint64_t* base = words + (b << (kBucketBits - 6));
    for (uint64_t i = 0; i < here; i += 4) {
      uint64_t r = SplitMix64(state);
      for (uint64_t j = i; j < here && j < i + 4; ++j, r >>= 16) {
        const uint64_t bit = r & 0xffff;
        base[bit >> 6] |= uint64_t{1} << (bit & 63);
      }
    }
  }
}

// Every filter of one (bits/key, size), built on first use from the same n
// member hashes (ForEachMemberChunk). Only one Suite lives at a time
// (GetSuite), so memory stays at a few times the filter size.
class Suite {
 public:
  Suite(double bits_per_key, size_t bytes)
      : bits_per_key_(bits_per_key),
        bytes_(bytes),
        num_keys_(static_cast<uint64_t>(static_cast<double>(bytes) * 8 /
                                        bits_per_key)) {}

  double bits_per_key() const { return bits_per_key_; }
  size_t bytes() const { return bytes_; }
  uint64_t num_keys() const { return num_keys_; }

  const Filter& Blockbloom() {
    if (blockbloom_ == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      FilterOptions options;
      options.shape = *ShapeForBitsPerKey(num_keys_, bits_per_key_);
      FilterBuilder builder = *FilterBuilder::Create(options);
      ForEachMemberChunk([&](const uint64_t* h, size_t n) {
        for (size_t i = 0; i < n; ++i) builder.AddHash(h[i]);
      });
      blockbloom_ = std::make_unique<Filter>(*builder.Finish());
      blockbloom_huge_ = Huge(blockbloom_->bits().data(), bytes_);
      Log("blockbloom", start);
    }
    return *blockbloom_;
  }

  const Filter& Blockbloom4k() {
    if (blockbloom_4k_ == nullptr) {
      const Filter& f = Blockbloom();
      const auto start = std::chrono::steady_clock::now();
      bits_4k_ = PageBuffer(f.bits().size(), Pages::k4K);
      std::memcpy(bits_4k_.data(), f.bits().data(), f.bits().size());
      blockbloom_4k_ = std::make_unique<Filter>(*Filter::Wrap(
          {bits_4k_.data(), f.bits().size()}, f.shape(), 0, f.num_keys()));
      Log("blockbloom_4k copy", start);
    }
    return *blockbloom_4k_;
  }

  // FastLocalBloom bytes, read by both RocksDB's reader and ours.
  const fastlocal::Reader& FastLocal() {
    if (fastlocal_ == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      const int millibits = fastlocal::MillibitsPerKey(bits_per_key_);
      const int k = fastlocal::ChooseNumProbes(millibits);
      fastlocal_size_ = fastlocal::FilterBytes(num_keys_, millibits);
      const uint32_t len =
          static_cast<uint32_t>(fastlocal_size_ - fastlocal::kMetadataLen);
      fastlocal_bytes_ = PageBuffer(fastlocal_size_, Pages::k4K);
      // FastLocalBloom picks the line with the LOW half of the hash: it gets
      // the members with halves swapped (as uniform a set), so that it too
      // fills in address order.
      std::vector<uint64_t> swapped(kChunk);
      ForEachMemberChunk([&](const uint64_t* h, size_t n) {
        for (size_t i = 0; i < n; ++i) swapped[i] = (h[i] << 32) | (h[i] >> 32);
        fastlocal::AddHashes(fastlocal_bytes_.data(), len, k, swapped.data(),
                             n);
      });
      fastlocal::WriteTrailer(fastlocal_bytes_.data(), len, k);
      fastlocal_ = std::make_unique<fastlocal::Reader>(fastlocal_bytes_.data(),
                                                       fastlocal_size_);
      Log("fastlocal", start);
    }
    return *fastlocal_;
  }

  rocksdb::BuiltinFilterBitsReader& RocksDb() {
    if (rocksdb_ == nullptr) {
      FastLocal();
      rocksdb_policy_ =
          std::make_unique<rocksdb_builtin::Policy>(bits_per_key_);
      rocksdb_ =
          rocksdb_policy_->NewReader(fastlocal_bytes_.data(), fastlocal_size_);
    }
    return *rocksdb_;
  }

  struct ParquetRef {
    const uint8_t* bits;
    uint64_t num_blocks;
    const parquet::Kernels* kernels;
  };
  ParquetRef Parquet() {
    if (parquet_.data() == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      parquet_blocks_ = bytes_ / parquet::kBlockBytes;
      parquet_ = PageBuffer(bytes_, Pages::k4K);
      const parquet::Kernels* kernels = parquet::ActiveKernels();
      ForEachMemberChunk([&](const uint64_t* h, size_t n) {
        kernels->insert_batch(parquet_.data(), parquet_blocks_, h, n);
      });
      Log("parquet", start);
    }
    return {parquet_.data(), parquet_blocks_, parquet::ActiveKernels()};
  }

  const standard::FilterRef& Standard() {
    if (standard_bits_.data() == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      standard_bits_ = PageBuffer(bytes_, Pages::k4K);
      standard_ = {reinterpret_cast<uint64_t*>(standard_bits_.data()),
                   uint64_t{bytes_} * 8, standard::NumProbes(bits_per_key_)};
      if (bytes_ >= kIdealStandardBytes) {
        SetIdealRandomBits(
            standard_.words, standard_.num_bits,
            num_keys_ * static_cast<uint64_t>(standard_.num_probes),
            0x57a4da7d ^ bytes_);
        Log("standard (ideal positions)", start);
      } else {
        ForEachMemberChunk([&](const uint64_t* h, size_t n) {
          standard::InsertBatch(standard_, h, n);
        });
        Log("standard", start);
      }
    }
    return standard_;
  }

  struct LevelDbRef {
    const leveldb::FilterPolicy* policy;
    leveldb::Slice filter;
  };
  LevelDbRef LevelDb() {
    if (leveldb_policy_ == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      const int c = static_cast<int>(bits_per_key_);
      leveldb_policy_.reset(leveldb::NewBloomFilterPolicy(c));
      const size_t offset =
          leveldb_format::AppendEmptyFilter(num_keys_, c, &leveldb_filter_);
      const size_t bits = (leveldb_filter_.size() - offset - 1) * 8;
      std::vector<uint32_t> low(kChunk);
      ForEachMemberChunk([&](const uint64_t* h, size_t n) {
        for (size_t i = 0; i < n; ++i) low[i] = static_cast<uint32_t>(h[i]);
        leveldb_format::AddHashes(leveldb_filter_.data() + offset, bits,
                                  leveldb_format::NumProbes(c), low.data(), n);
      });
      Log("leveldb", start);
    }
    return {leveldb_policy_.get(), leveldb::Slice(leveldb_filter_)};
  }

  const absl::flat_hash_set<uint64_t>& Set() {
    if (set_ == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      set_ = std::make_unique<absl::flat_hash_set<uint64_t>>();
      set_->reserve(num_keys_);
      ForEachMemberChunk(
          [&](const uint64_t* h, size_t n) { set_->insert(h, h + n); });
      Log("absl_set", start);
    }
    return *set_;
  }

  // Share of each probed buffer on huge pages, in percent.
  double BlockbloomHugePercent() {
    Blockbloom();
    return blockbloom_huge_;
  }
  double Blockbloom4kHugePercent() {
    Blockbloom4k();
    return Huge(bits_4k_.data(), bits_4k_.size());
  }
  double FastLocalHugePercent() {
    FastLocal();
    return Huge(fastlocal_bytes_.data(), fastlocal_size_);
  }
  double ParquetHugePercent() {
    Parquet();
    return Huge(parquet_.data(), bytes_);
  }
  double StandardHugePercent() {
    Standard();
    return Huge(standard_bits_.data(), bytes_);
  }

 private:
  // The same members for every filter of this suite.
  template <typename Fn>
  void ForEachMemberChunk(Fn fn) const {
    ::blockbloom::bench::ForEachMemberChunk(num_keys_, 0x6d656d62 ^ bytes_, fn);
  }

  static double Huge(const void* p, size_t size) {
    const double f = HugePageFraction(p, size);
    return f < 0 ? -1 : 100 * f;
  }

  void Log(const char* what,
           std::chrono::steady_clock::time_point start) const {
    std::fprintf(stderr, "  [setup %s at %g bits/key: %s %.2f s]\n",
                 SizeName(bytes_).c_str(), bits_per_key_, what, Seconds(start));
  }

  const double bits_per_key_;
  const size_t bytes_;
  const uint64_t num_keys_;

  std::unique_ptr<Filter> blockbloom_;
  double blockbloom_huge_ = -1;
  PageBuffer bits_4k_;
  std::unique_ptr<Filter> blockbloom_4k_;
  PageBuffer fastlocal_bytes_;
  size_t fastlocal_size_ = 0;
  std::unique_ptr<fastlocal::Reader> fastlocal_;
  std::unique_ptr<rocksdb_builtin::Policy> rocksdb_policy_;
  std::unique_ptr<rocksdb::BuiltinFilterBitsReader> rocksdb_;
  PageBuffer parquet_;
  uint64_t parquet_blocks_ = 0;
  PageBuffer standard_bits_;
  standard::FilterRef standard_ = {nullptr, 0, 0};
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_policy_;
  std::string leveldb_filter_;
  std::unique_ptr<absl::flat_hash_set<uint64_t>> set_;
};

Suite& GetSuite(double bits_per_key, size_t bytes) {
  static std::unique_ptr<Suite>* current = new std::unique_ptr<Suite>;
  if (*current == nullptr || (*current)->bits_per_key() != bits_per_key ||
      (*current)->bytes() != bytes) {
    current->reset();  // free the previous size's filters first
    *current = std::make_unique<Suite>(bits_per_key, bytes);
  }
  return **current;
}

// ------------------------------------------------------------ the harness

void Report(State& state, uint64_t probes, uint64_t positives, double huge) {
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
uint64_t& KeyCounter() {
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

// The floor's work per probe: all of one 64-byte line, in as few loads as
// the CPU allows (one 64-byte load with AVX-512, two with AVX2, else eight).
// Fewer loads matter: with eight 8-byte loads per line, 32 lines in flight
// fill the load queue and the "floor" would sit above filters that load a
// line at once. The result depends on every byte and is (practically) never
// true, so the floor's fpr% is ~0 and meaningless.
inline const uint8_t* LineOf(const uint8_t* bits, uint64_t blocks, uint64_t h) {
  return bits + ((h >> 32) * blocks >> 32) * 64;
}

bool ReadLine8(const uint8_t* line) {
  uint64_t acc = 0;
  for (int w = 0; w < 8; ++w) {
    uint64_t word;
    std::memcpy(&word, line + 8 * w, 8);
    acc ^= word;
  }
  return acc == 0x9e3779b97f4a7c15ULL;
}

__attribute__((target("avx2"))) inline bool ReadLine32(const uint8_t* line) {
  const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i b =
      _mm256_load_si256(reinterpret_cast<const __m256i*>(line + 32));
  return _mm256_testc_si256(_mm256_xor_si256(a, b), _mm256_set1_epi64x(-1)) !=
         0;
}

__attribute__((target("avx512f"))) inline bool ReadLine64(const uint8_t* line) {
  const __m512i v = _mm512_load_si512(line);
  return _mm512_cmpeq_epi64_mask(v, _mm512_set1_epi64(-1)) == 0xff;
}

// One call per probe or per batch, like a filter's kernels.
#define BLOCKBLOOM_FLOOR_KERNELS(NAME, TARGET, READ)                           \
  TARGET bool NAME##Single(const uint8_t* bits, uint64_t blocks, uint64_t h) { \
    return READ(LineOf(bits, blocks, h));                                      \
  }                                                                            \
  TARGET void NAME##Batch(const uint8_t* bits, uint64_t blocks,                \
                          const uint64_t* h, size_t n, bool* results) {        \
    const uint8_t* lines[32];                                                  \
    for (size_t start = 0; start < n; start += 32) {                           \
      const size_t m = std::min<size_t>(32, n - start);                        \
      for (size_t j = 0; j < m; ++j) {                                         \
        lines[j] = LineOf(bits, blocks, h[start + j]);                         \
        _mm_prefetch(reinterpret_cast<const char*>(lines[j]), _MM_HINT_T0);    \
      }                                                                        \
      for (size_t j = 0; j < m; ++j) results[start + j] = READ(lines[j]);      \
    }                                                                          \
  }

BLOCKBLOOM_FLOOR_KERNELS(Floor8, , ReadLine8)
BLOCKBLOOM_FLOOR_KERNELS(Floor32, __attribute__((target("avx2"))), ReadLine32)
BLOCKBLOOM_FLOOR_KERNELS(Floor64, __attribute__((target("avx512f"))),
                         ReadLine64)
#undef BLOCKBLOOM_FLOOR_KERNELS

struct FloorChoice {
  bool (*single)(const uint8_t*, uint64_t, uint64_t);
  void (*batch)(const uint8_t*, uint64_t, const uint64_t*, size_t, bool*);
  const char* name;
};

const FloorChoice& Floor() {
  static const FloorChoice choice =
      __builtin_cpu_supports("avx512f")
          ? FloorChoice{&Floor64Single, &Floor64Batch,
                        "one 64-byte load per line (AVX-512)"}
      : __builtin_cpu_supports("avx2")
          ? FloorChoice{&Floor32Single, &Floor32Batch,
                        "two 32-byte loads per line (AVX2)"}
          : FloorChoice{&Floor8Single, &Floor8Batch,
                        "eight 8-byte loads per line"};
  return choice;
}

struct FloorRef {
  FloorRef(const uint8_t* b, uint64_t n)
      : bits(b), blocks(n), single(Floor().single), batch(Floor().batch) {}
  bool Single(uint64_t h) const { return single(bits, blocks, h); }
  void Batch(const uint64_t* h, size_t n, bool* results) const {
    batch(bits, blocks, h, n, results);
  }
  const uint8_t* bits;
  uint64_t blocks;
  bool (*single)(const uint8_t*, uint64_t, uint64_t);
  void (*batch)(const uint8_t*, uint64_t, const uint64_t*, size_t, bool*);
};

inline uint64_t Xxh3(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

// ----------------------------------------------------------- registration

enum class Op { kSingle, kBatch32, kBatch1024 };
const char* OpName(Op op) {
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
size_t BatchOf(Op op) { return op == Op::kBatch1024 ? 1024 : 32; }

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

std::string ProbeName(const char* filter, Op op, const std::string& input,
                      double c, size_t bytes) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "probe/%s/%s/%s/bpk:%g/bytes:%zu", filter,
                OpName(op), input.c_str(), c, bytes);
  return buf;
}

// Pre-hashed probes: every filter with a hash API, the floors.
void RegisterHashProbes(Registrar& r, double c, size_t bytes) {
  const std::string in = "hash";
  for (Op op : {Op::kSingle, Op::kBatch32, Op::kBatch1024}) {
    const size_t batch = BatchOf(op);
    const bool single = op == Op::kSingle;
    r.Add(ProbeName("blockbloom", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom();
      const double huge = s.BlockbloomHugePercent();
      if (single)
        return SingleHash(st, huge,
                          [&](uint64_t h) { return f.MayContainHash(h); });
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        f.MayContainHashBatch({h, n}, {out, n});
      });
    });
    r.Add(ProbeName("blockbloom_4k", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom4k();
      const double huge = s.Blockbloom4kHugePercent();
      if (single)
        return SingleHash(st, huge,
                          [&](uint64_t h) { return f.MayContainHash(h); });
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        f.MayContainHashBatch({h, n}, {out, n});
      });
    });
    r.Add(ProbeName("fastlocal_avx2", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const fastlocal::Reader& f = s.FastLocal();
      const double huge = s.FastLocalHugePercent();
      if (single)
        return SingleHash(st, huge,
                          [&](uint64_t h) { return f.MayMatchHash(h); });
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        f.MayMatchHashes(h, n, out);
      });
    });
    if (single) {  // RocksDB's reader has no batch probe by hash
      r.Add(ProbeName("rocksdb", op, in, c, bytes), [=](State& st) {
        Suite& s = GetSuite(c, bytes);
        rocksdb::BuiltinFilterBitsReader& f = s.RocksDb();
        SingleHash(st, s.FastLocalHugePercent(),
                   [&](uint64_t h) { return f.HashMayMatch(h); });
      });
    }
    r.Add(ProbeName("parquet", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Suite::ParquetRef f = s.Parquet();
      const double huge = s.ParquetHugePercent();
      if (single) {
        return SingleHash(st, huge, [&](uint64_t h) {
          return f.kernels->probe(f.bits, f.num_blocks, h);
        });
      }
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        f.kernels->probe_batch(f.bits, f.num_blocks, h, n, out);
      });
    });
    r.Add(ProbeName("standard", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const standard::FilterRef f = s.Standard();
      const double huge = s.StandardHugePercent();
      if (single)
        return SingleHash(
            st, huge, [&](uint64_t h) { return standard::MayContain(f, h); });
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        standard::MayContainBatch(f, h, n, out);
      });
    });
    if (bytes <= kMaxSetBytes && op != Op::kBatch1024) {
      r.Add(ProbeName("absl_set", op, in, c, bytes), [=](State& st) {
        const absl::flat_hash_set<uint64_t>& set = GetSuite(c, bytes).Set();
        if (single)
          return SingleHash(st, -1,
                            [&](uint64_t h) { return set.contains(h); });
        BatchHash(st, batch, -1, [&](const uint64_t* h, size_t n, bool* out) {
          for (size_t j = 0; j < n; ++j) set.prefetch(h[j]);
          for (size_t j = 0; j < n; ++j) out[j] = set.contains(h[j]);
        });
      });
    }
    for (const bool four_k : {false, true}) {
      r.Add(ProbeName(four_k ? "floor_4k" : "floor", op, in, c, bytes),
            [=](State& st) {
              Suite& s = GetSuite(c, bytes);
              const Filter& f = four_k ? s.Blockbloom4k() : s.Blockbloom();
              const double huge = four_k ? s.Blockbloom4kHugePercent()
                                         : s.BlockbloomHugePercent();
              const FloorRef floor(f.bits().data(), f.num_blocks());
              if (single)
                return SingleHash(st, huge,
                                  [&](uint64_t h) { return floor.Single(h); });
              BatchHash(st, batch, huge,
                        [&](const uint64_t* h, size_t n, bool* out) {
                          floor.Batch(h, n, out);
                        });
            });
    }
  }
}

// Keys of `length` bytes, hashed by each filter with its own hash.
void RegisterKeyProbes(Registrar& r, double c, size_t bytes, size_t length) {
  const std::string in = "key" + std::to_string(length);
  for (Op op : {Op::kSingle, Op::kBatch32}) {
    const size_t batch = BatchOf(op);
    const bool single = op == Op::kSingle;
    r.Add(ProbeName("blockbloom", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom();
      const double huge = s.BlockbloomHugePercent();
      if (single)
        return SingleKey(st, length, huge,
                         [&](std::string_view k) { return f.MayContain(k); });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 f.MayContainBatch({k, n}, {out, n});
               });
    });
    r.Add(ProbeName("fastlocal_avx2", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const fastlocal::Reader& f = s.FastLocal();
      const double huge = s.FastLocalHugePercent();
      if (single)
        return SingleKey(st, length, huge,
                         [&](std::string_view k) { return f.MayMatchKey(k); });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 f.MayMatchKeys(k, n, out);
               });
    });
    r.Add(ProbeName("rocksdb", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      rocksdb::BuiltinFilterBitsReader& f = s.RocksDb();
      const double huge = s.FastLocalHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return f.MayMatch(rocksdb_builtin::ToSlice(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 rocksdb_builtin::MayMatchBatch(f, k, n, out);
               });
    });
    r.Add(ProbeName("parquet", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Suite::ParquetRef f = s.Parquet();
      const double huge = s.ParquetHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return f.kernels->probe(f.bits, f.num_blocks, parquet::Hash(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = parquet::Hash(k[j]);
                 f.kernels->probe_batch(f.bits, f.num_blocks, h, n, out);
               });
    });
    r.Add(ProbeName("standard", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const standard::FilterRef f = s.Standard();
      const double huge = s.StandardHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return standard::MayContain(f, Xxh3(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = Xxh3(k[j]);
                 standard::MayContainBatch(f, h, n, out);
               });
    });
    if (single && bytes <= kMaxLevelDbBytes) {  // LevelDB has no batch probe
      r.Add(ProbeName("leveldb", op, in, c, bytes), [=](State& st) {
        const Suite::LevelDbRef f = GetSuite(c, bytes).LevelDb();
        SingleKey(st, length, -1, [&](std::string_view k) {
          return f.policy->KeyMayMatch(leveldb::Slice(k.data(), k.size()),
                                       f.filter);
        });
      });
    }
    if (bytes <= kMaxSetBytes) {
      r.Add(ProbeName("absl_set", op, in, c, bytes), [=](State& st) {
        const absl::flat_hash_set<uint64_t>& set = GetSuite(c, bytes).Set();
        if (single)
          return SingleKey(st, length, -1, [&](std::string_view k) {
            return set.contains(Xxh3(k));
          });
        BatchKey(st, length, batch, -1,
                 [&](const std::string_view* k, size_t n, bool* out) {
                   uint64_t h[32];
                   for (size_t j = 0; j < n; ++j) {
                     h[j] = Xxh3(k[j]);
                     set.prefetch(h[j]);
                   }
                   for (size_t j = 0; j < n; ++j) out[j] = set.contains(h[j]);
                 });
      });
    }
    r.Add(ProbeName("floor", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom();
      const FloorRef floor(f.bits().data(), f.num_blocks());
      const double huge = s.BlockbloomHugePercent();
      if (single)
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return floor.Single(Xxh3(k));
        });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = Xxh3(k[j]);
                 floor.Batch(h, n, out);
               });
    });
  }
}

// ----------------------------------------------------------------- builds

// n keys of 16 bytes (a counter and a fixed tail), contiguous, with views.
struct BuildKeys {
  explicit BuildKeys(size_t n) : storage(n * 16, 'b') {
    views.reserve(n);
    uint64_t state = 0xb111dULL;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = SplitMix64(state);
      std::memcpy(storage.data() + 16 * i, &v, 8);
      views.emplace_back(storage.data() + 16 * i, 16);
    }
  }
  std::string storage;
  std::vector<std::string_view> views;
};

const BuildKeys& GetBuildKeys(size_t n) {
  static std::unique_ptr<BuildKeys>* keys = new std::unique_ptr<BuildKeys>;
  if (*keys == nullptr || (*keys)->views.size() != n) {
    keys->reset();
    *keys = std::make_unique<BuildKeys>(n);
  }
  return **keys;
}

void ReportBuild(State& state, size_t n) {
  const double keys =
      static_cast<double>(state.iterations()) * static_cast<double>(n);
  state.SetItemsProcessed(static_cast<int64_t>(keys));
  state.counters["ns/key"] = benchmark::Counter(
      keys, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void RegisterBuilds(Registrar& r, size_t n, bool slow) {
  constexpr double c = 10;
  auto add = [&](const char* filter, std::function<void(State&)> fn) {
    r.Add(std::string("build/") + filter +
              "/key16/bpk:10/keys:" + std::to_string(n),
          std::move(fn), /*build=*/true, /*once=*/slow);
  };
  // blockbloom: keys in, filter out (the builder sizes the filter at the
  // end, as an engine's builder must).
  add("blockbloom", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    for (auto _ : st) {
      FilterOptions options;
      options.bits_per_key = c;
      FilterBuilder builder = *FilterBuilder::Create(options);
      for (std::string_view k : keys.views) builder.Add(k);
      Filter filter = *builder.Finish();
      benchmark::DoNotOptimize(filter.bits().data());
    }
    ReportBuild(st, n);
  });
  // The same with the shape known up front (FilterOptions::shape): keys go
  // straight into the bits, one scalar insert each.
  add("blockbloom_fixed", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    FilterOptions options;
    options.shape = *ShapeForBitsPerKey(n, c);
    for (auto _ : st) {
      FilterBuilder builder = *FilterBuilder::Create(options);
      for (std::string_view k : keys.views) builder.Add(k);
      Filter filter = *builder.Finish();
      benchmark::DoNotOptimize(filter.bits().data());
    }
    ReportBuild(st, n);
  });
  add("rocksdb", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const rocksdb_builtin::Policy policy(c);
    for (auto _ : st) {
      std::unique_ptr<rocksdb::FilterBitsBuilder> builder = policy.NewBuilder();
      for (std::string_view k : keys.views)
        builder->AddKey(rocksdb_builtin::ToSlice(k));
      std::unique_ptr<const char[]> buf;
      const rocksdb::Slice filter = builder->Finish(&buf);
      benchmark::DoNotOptimize(filter.data());
    }
    ReportBuild(st, n);
  });
  add("leveldb", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    std::unique_ptr<const leveldb::FilterPolicy> policy(
        leveldb::NewBloomFilterPolicy(static_cast<int>(c)));
    std::vector<leveldb::Slice> slices;
    slices.reserve(n);
    for (std::string_view k : keys.views)
      slices.emplace_back(k.data(), k.size());
    for (auto _ : st) {
      std::string filter;
      policy->CreateFilter(slices.data(), static_cast<int>(n), &filter);
      benchmark::DoNotOptimize(filter.data());
    }
    ReportBuild(st, n);
  });
  // Parquet and the standard filter are sized from n up front (Parquet's
  // writers know the row count); keys are hashed and inserted in chunks.
  add("parquet", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const uint64_t blocks = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(static_cast<double>(n) * c / 256)));
    const parquet::Kernels* kernels = parquet::ActiveKernels();
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
    ReportBuild(st, n);
  });
  add("standard", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    const uint64_t num_bits = static_cast<uint64_t>(static_cast<double>(n) * c);
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
    ReportBuild(st, n);
  });
  add("absl_set", [=](State& st) {
    const BuildKeys& keys = GetBuildKeys(n);
    for (auto _ : st) {
      absl::flat_hash_set<uint64_t> set;
      set.reserve(n);
      for (std::string_view k : keys.views) set.insert(Xxh3(k));
      benchmark::DoNotOptimize(set.size());
    }
    ReportBuild(st, n);
  });
}

// ------------------------------------------------------------------- main

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A field of the first CPU in /proc/cpuinfo ("model name", "cpu family").
std::string CpuInfo(std::string_view field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0 && line.size() > field.size() &&
        (line[field.size()] == '\t' || line[field.size()] == ' ')) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

// Our flags, removed from argv before Google Benchmark sees it.
struct Flags {
  bool smoke = false;  // 64 KiB only and tiny builds: for ctest
  bool builds = true;  // --no_builds: probes only
  int reps = 5;        // --reps=N: interleaved repetitions
  std::vector<size_t> sizes = {64 * KiB, MiB, 16 * MiB, 256 * MiB, GiB};
};

Flags ParseFlags(int* argc, char** argv) {
  Flags flags;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      flags.smoke = true;
      flags.reps = 1;
      flags.sizes = {64 * KiB};
    } else if (arg == "--no_builds") {
      flags.builds = false;
    } else if (arg.rfind("--reps=", 0) == 0) {
      flags.reps = std::max(1, std::atoi(std::string(arg.substr(7)).c_str()));
    } else if (arg.rfind("--sizes=", 0) == 0) {
      flags.sizes.clear();
      std::string list(arg.substr(8));
      size_t pos = 0;
      while (pos < list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string item = list.substr(pos, comma - pos);
        const size_t value = std::stoull(item);
        const char unit = item.empty() ? ' ' : item.back();
        flags.sizes.push_back(unit == 'G'   ? value * GiB
                              : unit == 'M' ? value * MiB
                              : unit == 'K' ? value * KiB
                                            : value);
        pos = comma + 1;
      }
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return flags;
}

}  // namespace
}  // namespace blockbloom::bench

int main(int argc, char** argv) {
  using namespace blockbloom::bench;  // NOLINT(build/namespaces)
  const Flags flags = ParseFlags(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  Registrar r(flags.reps);
  for (double c : {10.0, 16.0}) {
    for (size_t bytes : flags.sizes) {
      RegisterHashProbes(r, c, bytes);
      // Keys with hashing: 16-byte keys at both settings, 8 and 64 bytes at
      // 10 bits/key (hashing cost does not depend on the filter's k).
      RegisterKeyProbes(r, c, bytes, 16);
      if (c == 10.0) {
        RegisterKeyProbes(r, c, bytes, 8);
        RegisterKeyProbes(r, c, bytes, 64);
      }
      r.Flush();
    }
  }
  if (flags.builds) {
    if (flags.smoke) {
      RegisterBuilds(r, 5000, /*slow=*/false);
      r.Flush();
    } else {
      RegisterBuilds(r, MiB * 8 / 10, /*slow=*/false);  // 1 MiB filters
      r.Flush();
      RegisterBuilds(r, 16 * MiB * 8 / 10, /*slow=*/true);  // 16 MiB
      r.Flush();
    }
  }

  benchmark::AddCustomContext("cpu_model", CpuInfo("model name"));
  benchmark::AddCustomContext(
      "cpu_detail", "family " + CpuInfo("cpu family") + " model " +
                        CpuInfo("model") + ", " +
                        (__builtin_cpu_supports("avx512f") ? "AVX-512"
                         : __builtin_cpu_supports("avx2")  ? "AVX2"
                                                           : "no AVX2"));
  benchmark::AddCustomContext("blockbloom_simd_target",
                              blockbloom::ActiveSimdTarget());
  benchmark::AddCustomContext("parquet_simd_target",
                              parquet::ActiveKernels()->target_name);
  benchmark::AddCustomContext("floor_load", Floor().name);
  benchmark::AddCustomContext(
      "fastlocal_probe", __builtin_cpu_supports("avx2") ? "AVX2" : "scalar");
  benchmark::AddCustomContext("rocksdb_version",
                              std::to_string(ROCKSDB_MAJOR) + "." +
                                  std::to_string(ROCKSDB_MINOR) + "." +
                                  std::to_string(ROCKSDB_PATCH));
  benchmark::AddCustomContext(
      "transparent_hugepage",
      ReadFirstLine("/sys/kernel/mm/transparent_hugepage/enabled"));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
