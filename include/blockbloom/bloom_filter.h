// blockbloom::BloomFilter: a mutable in-memory filter, the counterpart of
// Guava's `BloomFilter`, Redisson's `RBloomFilter` and RedisBloom's `BF.*`,
// on blockbloom's one-cache-line-per-key layout.
//
//   // 1M expected URLs, 1% false positives, a random secret seed.
//   absl::StatusOr<blockbloom::BloomFilter> seen =
//       blockbloom::BloomFilter::Create(1'000'000, 0.01);
//   if (!seen.ok()) return seen.status();
//   if (seen->Add(url)) { /* new (certainly): crawl it */ }
//   if (!seen->MayContain(other)) { /* certainly never added */ }
//   uint64_t about = seen->ApproximateCount();   // distinct URLs, from bits
//   double fpp = seen->EstimatedFpRate();       // from the current fill
//
// The bits are laid out exactly as an immutable blockbloom::Filter's (same
// hash, blocks, lanes and bits; src/core/layout.h), so a BloomFilter serializes
// with the filter block format (AppendTo, blockbloom/format.h) and any
// serialized filter loads back into one (Deserialize, FromFilter).
//
// Answers: MayContain(key) is true for every key added (no false negatives)
// and false for a key never added except with the probability
// EstimatedFpRate(). Add(key) returns whether the filter changed, i.e. whether
// MayContain(key) was false before: true means certainly new, false means
// "probably added before" (or a false positive), as Guava's `put`.
//
// Thread safety: see BloomFilterOptions::concurrent.
#ifndef BLOCKBLOOM_BLOOM_FILTER_H_
#define BLOCKBLOOM_BLOOM_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/internal/filter_ref.h"
#include "blockbloom/sizing.h"

namespace blockbloom {

namespace internal {
class AlignedBuffer;
struct Kernels;
struct InsertionStripes;
}  // namespace internal

// A fresh 64-bit seed from the operating system's random source
// (std::random_device). In-memory filters use one by default; pass the same
// seed to filters you want to Merge or Intersect.
uint64_t NewRandomSeed();

struct BloomFilterOptions {
  // The hash seed (XXH3-64 with this seed, stored with the filter). Unset,
  // the default: NewRandomSeed(), so that whoever chooses the keys cannot
  // precompute keys that collide (flood one block, or make a given key a
  // false positive). Set it to build a reproducible filter, or one to Merge
  // with another; keep it secret where attackers choose keys.
  std::optional<uint64_t> seed;

  // false (the default): the thread safety of a standard container. Const
  // methods may run in any number of threads at once; a non-const method
  // (Add, Clear, Merge, ...) needs the filter to itself. Inserts and queries
  // run the SIMD kernels.
  //
  // true: lock-free concurrent mode. Any number of threads may call Add,
  // AddHash, AddBatch, AddHashBatch, MayContain*, Merge (into this filter),
  // ApproximateCount, EstimatedFpRate, num_insertions, AppendTo and Serialize
  // at once. Every access to the bits is a std::atomic_ref<uint32_t>
  // operation on the 32-bit word holding the bit, with
  // std::memory_order_relaxed: an insert loads the key's k words and
  // fetch-ors those whose bit is clear; a query is k loads, all within the
  // key's 64-byte block. The guarantees, precisely:
  //   1. Data-race free: concurrent calls of the methods above are defined
  //      behaviour (ThreadSanitizer-clean; tests/memory runs under it).
  //   2. No false negatives across threads: if the return of Add(key) (or
  //      of a batch holding it) happens-before the start of MayContain(key)
  //      (same thread, or any synchronization of the caller's: a mutex, a
  //      thread join, a release store read by an acquire load), that call
  //      returns true; so do batch queries and the copies AppendTo and
  //      Clone make. This follows from per-word coherence: bits are only
  //      ever set, so a load that happens after the fetch_or that set a bit
  //      (or after a load that saw it set) sees it set.
  //   3. A query concurrent with Add(key) (neither happens before the other)
  //      may answer either way. If several threads add the same new key at
  //      once, each of its bits is set by exactly one of them, so at least
  //      one Add returns true, and more than one may (each counts in
  //      num_insertions()).
  //   4. Not promised: a query that answers true does not synchronize with
  //      the Add that set the bits (relaxed order; and it may be a false
  //      positive anyway). Do not use MayContain to publish other data: pair
  //      your own release store with an acquire load for that.
  //   5. Clear and Intersect are atomic per 32-bit word, not as a whole: a
  //      key added while they run may be lost. Run them when no thread adds.
  //      View() and bits() give plain memory: use them when no thread adds.
  // Cost (bench/memory/memory_bench.cc; numbers in docs/BENCHMARKS.md,
  // "In-memory filters"): a query is k relaxed loads instead of one SIMD
  // compare, several times slower in cache and for independent queries out
  // of cache; an Add issues one locked RMW per clear bit, several times
  // slower in cache, and out of cache each single Add pays a full memory
  // latency (locked instructions stop the CPU from overlapping misses).
  // AddBatch and MayContainBatch prefetch, so out of cache they cost a fraction
  // of the single calls.
  bool concurrent = false;
};

class BloomFilter {
 public:
  // A filter for `expected_insertions` distinct keys at a false-positive rate
  // of at most `fp_rate` once they are all added (Guava's create(n, fpp),
  // RedisBloom's BF.RESERVE): the smallest shape whose exact expected rate
  // reaches it (ShapeForFpRate). InvalidArgument if expected_insertions is 0
  // or fp_rate is not in (0, 1); OutOfRange if it would need more than 2^32
  // blocks; ResourceExhausted if the memory cannot be had.
  static absl::StatusOr<BloomFilter> Create(
      uint64_t expected_insertions, double fp_rate,
      const BloomFilterOptions& options = {});

  // A filter of `bits_per_key` bits per expected insertion (fractional values
  // are fine), with the optimal k for that (ShapeForBitsPerKey).
  static absl::StatusOr<BloomFilter> CreateWithBitsPerKey(
      uint64_t expected_insertions, double bits_per_key,
      const BloomFilterOptions& options = {});

  // A filter of exactly `shape` (any valid shape, including the one-block
  // small filters of other lane widths that storage engines write).
  // InvalidArgument if the shape is invalid.
  static absl::StatusOr<BloomFilter> CreateWithShape(
      const FilterShape& shape, const BloomFilterOptions& options = {});

  // A mutable copy of `filter`'s bits, shape and seed; num_insertions() is
  // filter.num_keys(), or ApproximateCount() if that is 0 (the compact
  // encoding does not store it). InvalidArgument for Filter::MatchAll(), or if
  // options.seed is set and differs from the filter's (every stored key would
  // answer "absent").
  static absl::StatusOr<BloomFilter> FromFilter(
      const Filter& filter, const BloomFilterOptions& options = {});

  // Reads a filter block written by AppendTo / AppendFilter (OpenFilter,
  // checksums verified unless read_options says otherwise) into a new
  // BloomFilter. The errors of OpenFilter, then those of FromFilter.
  static absl::StatusOr<BloomFilter> Deserialize(
      absl::Span<const uint8_t> bytes, const ReadOptions& read_options = {},
      const BloomFilterOptions& options = {});

  BloomFilter(BloomFilter&&) noexcept;
  BloomFilter& operator=(BloomFilter&&) noexcept;
  BloomFilter(const BloomFilter&) = delete;
  BloomFilter& operator=(const BloomFilter&) = delete;
  ~BloomFilter();

  // A deep copy (same seed and mode). ResourceExhausted if out of memory.
  absl::StatusOr<BloomFilter> Clone() const;

  // Adds `key`. Returns true if any of its bits was clear: the key was
  // certainly not in the filter before. False: it may have been (it was
  // added before, or it is a false positive of the keys that were).
  bool Add(std::string_view key);
  // The same for HashKey(key, seed()), e.g. a hash shared with other filters
  // of the same seed.
  bool AddHash(uint64_t hash);

  // Adds every key, in order, with block addresses computed and prefetched
  // ahead (several times faster than a loop for filters beyond the cache).
  // If `added` is not empty it must have one element per key (checked; a
  // mismatch aborts) and gets what Add would have returned, a repeated key
  // answering false the second time. Returns how many keys were new.
  size_t AddBatch(absl::Span<const std::string_view> keys,
                  absl::Span<bool> added = {});
  size_t AddHashBatch(absl::Span<const uint64_t> hashes,
                      absl::Span<bool> added = {});

  // False if `key` was certainly never added; true if it may have been.
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const;
  // Batch queries: results[i] = MayContain(keys[i]); prefetched like
  // AddBatch. results.size() must equal the number of keys (a mismatch
  // aborts).
  void MayContainBatch(absl::Span<const std::string_view> keys,
                       absl::Span<bool> results) const;
  void MayContainHashBatch(absl::Span<const uint64_t> hashes,
                           absl::Span<bool> results) const;

  // Removes every key (all bits cleared; num_insertions() back to 0).
  void Clear();

  // The probability that a key never added answers "may contain", from the
  // current bits: the mean over blocks of the exact pass probability of a
  // random key given each block's lane fills (src/memory/fill_stats.cc), so it
  // is right for over- or underfilled, merged and intersected filters, not only
  // at the designed capacity. (Guava's expectedFpp is the overall fill to the
  // power k, which would miss the uneven fill of blocks.) Measured within 3
  // sigma of the rate of absent keys at 25% to 300% of capacity. It reads every
  // block and averages a product over the 240 lane sets for each, so it is
  // much slower than ApproximateCount() (docs/BENCHMARKS.md, "In-memory
  // filters"). For a cheap model figure use the free function
  // blockbloom::EstimatedFpRate(shape(), ApproximateCount()) (sizing.h).
  double EstimatedFpRate() const;

  // The number of distinct keys added, estimated from the number of set bits
  // (Guava's approximateElementCount; RedisBloom has only the exact add
  // count, BF.CARD). Measured at 10% to 150% of the design capacity: within
  // 2% for a 1000-key filter (20 blocks), 0.15% for 100k keys, 0.03% for 1M
  // (tests/memory/estimate_test.cc). A saturated filter gives a lower bound.
  // Reads every block (a popcount per word).
  uint64_t ApproximateCount() const;

  // How many Add calls returned true since creation or Clear (RedisBloom's
  // BF.CARD): the exact number of distinct keys added, less those that were
  // false positives when added. Merge and Intersect set it to
  // ApproximateCount() (the two filters may share keys). In concurrent mode
  // it is summed from per-hash stripes of counters, so concurrent adds do
  // not contend on one cache line; a key that several threads add at the
  // same moment may count more than once (see guarantee 3).
  uint64_t num_insertions() const;

  // OK if `other` has the same shape (blocks, probes, lane width) and seed,
  // so that its bits mean the same keys as this filter's; InvalidArgument
  // naming the difference otherwise. The seeds themselves are not printed.
  absl::Status CheckCompatible(const BloomFilter& other) const;
  absl::Status CheckCompatible(const Filter& other) const;

  // Union: afterwards this filter contains every key of either (Guava's
  // putAll). Intersection: at most the keys of both (bitwise AND, so a key in
  // both always stays; a key in only one may stay as a false positive, and
  // EstimatedFpRate() tells how likely). CheckCompatible's error if the
  // filters do not match; nothing is changed then. Merging or intersecting a
  // filter with itself changes nothing.
  absl::Status Merge(const BloomFilter& other);
  absl::Status Merge(const Filter& other);
  absl::Status Intersect(const BloomFilter& other);
  absl::Status Intersect(const Filter& other);

  // Serializes with the filter block format (AppendFilter, WriteOptions pick
  // the encoding and compression), num_keys = num_insertions(). The compact
  // encoding, which Encoding::kAuto picks below 1 KiB, does not keep that
  // count (Deserialize then estimates it); Encoding::kFull does. In
  // concurrent mode the bits are first copied with atomic loads: every key
  // whose Add happened before the call is in the copy. The errors of
  // AppendFilter; *dst is unchanged on error.
  absl::Status AppendTo(std::string* dst,
                        const WriteOptions& write_options = {}) const;
  absl::StatusOr<std::string> Serialize(
      const WriteOptions& write_options = {}) const;

  // An immutable Filter over this filter's bits (no copy) with num_keys =
  // num_insertions(), e.g. to pass to code that takes a Filter. It must not
  // outlive this filter, and must not be probed while another thread adds in
  // concurrent mode (its probes are plain loads).
  Filter View() const;

  const FilterShape& shape() const { return shape_; }
  uint64_t num_blocks() const { return shape_.num_blocks; }
  int num_probes() const { return shape_.num_probes; }
  uint64_t seed() const { return ref_.seed; }
  bool concurrent() const { return concurrent_; }
  // Bytes of bits: shape().size_bytes().
  uint64_t size_bytes() const { return shape_.size_bytes(); }
  // The bits, in the layout of docs/FORMAT.md. Plain memory: see View().
  absl::Span<const uint8_t> bits() const {
    return {ref_.bits, shape_.size_bytes()};
  }

 private:
  BloomFilter(const FilterShape& shape, uint64_t seed, bool concurrent,
              std::unique_ptr<internal::AlignedBuffer> bits);
  static absl::StatusOr<BloomFilter> Make(const FilterShape& shape,
                                          uint64_t seed, bool concurrent);
  uint8_t* mutable_bits() const;
  void CountInsertions(uint64_t hash, size_t count);
  void SetInsertions(uint64_t count);
  enum class Combine { kOr, kAnd };
  absl::Status CombineWith(const FilterShape& shape, uint64_t seed,
                           const uint8_t* other_bits, bool other_concurrent,
                           Combine op);
  template <typename Fn>
  void ForEachBlockFill(Fn fn) const;
  uint64_t CountSetBits() const;

  FilterShape shape_;
  internal::FilterRef ref_;
  std::unique_ptr<internal::AlignedBuffer> bits_;
  const internal::Kernels* kernels_;
  bool concurrent_;
  uint64_t insertions_ = 0;                              // single-writer mode
  std::unique_ptr<internal::InsertionStripes> stripes_;  // concurrent mode
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_BLOOM_FILTER_H_
