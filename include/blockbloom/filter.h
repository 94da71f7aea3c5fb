// blockbloom: a cache-line-blocked split Bloom filter.
//
// Every key touches exactly one 64-byte block (one cache line, one memory
// access) and sets one bit in each of k distinct 32-bit lanes of it, so a
// probe is one load and one SIMD compare. Accuracy matches the best one-line
// Bloom filters (0.96% false positives at 10 bits/key).
//
// Build once, probe many times:
//
//   blockbloom::FilterOptions options;
//   options.bits_per_key = 10;            // or options.fp_rate = 0.01
//   auto builder = blockbloom::FilterBuilder::Create(options);
//   if (!builder.ok()) return builder.status();
//   for (std::string_view key : keys) builder->Add(key);
//   absl::StatusOr<blockbloom::Filter> filter = builder->Finish();
//   if (!filter.ok()) return filter.status();
//   if (!filter->MayContain("user:42")) { /* definitely absent: skip disk */ }
//
// A Filter is immutable and safe to probe from any number of threads at once.
// "May contain" answers are false for a key not in the set with the
// probability given by EstimatedFpRate(); a key that was added always answers
// true (no false negatives).
#ifndef BLOCKBLOOM_FILTER_H_
#define BLOCKBLOOM_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/internal/filter_ref.h"
#include "blockbloom/sizing.h"

namespace blockbloom {

namespace internal {
class AlignedBuffer;
class HashChunks;
struct Kernels;
struct FilterAccess;
}  // namespace internal

// The kind of a filter: how it holds its keys.
enum class FilterKind : uint8_t {
  // Blocks of 16 lanes, one block per key (FilterShape): what FilterBuilder
  // builds unless asked for an exact-size filter.
  kBlocked,
  // Exact-size filters (FilterOptions::exact_size), sized to the byte:
  kSpread,    // one block of 16 lanes over all the filter's bits (a Bloom
              // filter; src/core/layout.h, "one-block filters")
  kSet,       // a compressed set of fingerprints (more accurate than any Bloom
              // filter of the same size from ~7 bits/key; docs/FORMAT.md)
  kStandard,  // a standard Bloom filter, k bits anywhere in its bits (the
              // in-place encoding, the default exact-size filter;
              // src/core/layout.h)
  // A static filter whose rate falls as 2^-bits/key (FilterOptions::kind):
  // a bumped ribbon retrieval structure (src/ribbon/layout.h), the same rate
  // in about 30% less memory than kBlocked; builds and probes are slower.
  kRibbon,
  // Values from 128 on are never built-in kinds: they are kept for kinds
  // defined outside the library and registered at run time (tests and
  // experiments; docs/ARCHITECTURE.md, "A new filter kind").
};

// The kind's name in lower case, as reports, logs and the Python package
// print it: "blocked", "spread", "set", "standard" or "ribbon" (a kind
// registered at run time: its own; "unknown" for a value of no kind).
const char* FilterKindName(FilterKind kind);

// An immutable filter: probe it with keys or with hashes from HashKey().
class Filter {
 public:
  // Wraps bits the caller owns, without copying: for filters read from files
  // or memory maps. `bits` must hold exactly shape.size_bytes() bytes and
  // outlive the Filter; any alignment works (a 64-byte-aligned buffer probes
  // fastest). `num_keys` only feeds EstimatedFpRate(). InvalidArgument if
  // the shape is invalid or the size does not match.
  static absl::StatusOr<Filter> Wrap(absl::Span<const uint8_t> bits,
                                     const FilterShape& shape, uint64_t seed,
                                     uint64_t num_keys);

  // A filter that answers "may contain" for every key: what a storage engine
  // uses in place of a filter it cannot read ("fail open"), so that a
  // damaged filter costs extra reads, never a wrong answer. It has no bits
  // and a shape of all zeros; EstimatedFpRate() is 1.
  static Filter MatchAll();

  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter();

  // False if `key` is definitely not in the set; true if it may be.
  bool MayContain(std::string_view key) const { return probe_key_(ref_, key); }
  // The same for a key's hash, HashKey(key, seed()).
  bool MayContainHash(uint64_t hash) const { return probe_hash_(ref_, hash); }

  // Batch probes: results[i] = MayContain(keys[i]). Faster than a loop for
  // more than a few keys when the filter is larger than the cache: each
  // key's block is prefetched 32 keys before it is tested, so the cache
  // misses of 32 keys overlap and, in a longer batch, the next 32 are in
  // flight while these are tested. `results.size()` must equal the number of
  // keys (checked; a mismatch aborts).
  void MayContainBatch(absl::Span<const std::string_view> keys,
                       absl::Span<bool> results) const;
  void MayContainHashBatch(absl::Span<const uint64_t> hashes,
                           absl::Span<bool> results) const;

  FilterKind kind() const { return kind_; }
  // The geometry of a kBlocked filter. A kSpread filter is one block of k
  // probes with lane_bits 0 (its lanes are num_bits()/16 wide, give or take
  // one); kSet and kRibbon filters are one block of no probes.
  const FilterShape& shape() const { return shape_; }
  uint64_t num_blocks() const { return shape_.num_blocks; }
  int num_probes() const { return shape_.num_probes; }
  int lane_bits() const { return shape_.lane_bits; }
  uint64_t seed() const { return ref_.seed; }
  // Distinct keys added (adjacent duplicates counted once); for a filter
  // read from the compact encoding or an accurate-encoding kSpread filter,
  // which do not store it, 0.
  uint64_t num_keys() const { return num_keys_; }
  // The filter's bits (for kSet, the coded set; for kRibbon, its layers'
  // solutions and bump codes): 64 bytes per block with 32-bit lanes.
  absl::Span<const uint8_t> bits() const { return {ref_.bits, size_bytes_}; }
  uint64_t num_bits() const { return 8 * uint64_t{size_bytes_}; }
  // FilterKind::kSet: bits in each fingerprint's low part (0 otherwise).
  int set_low_bits() const;
  // True if the filter owns its bits (built here), false if Wrap()ped.
  bool owns_bits() const { return owns_bits_; }
  // Bytes of memory the filter owns (its bits if built or decompressed here,
  // a fingerprint set's probe index, a ribbon filter's view).
  size_t owned_bytes() const;
  // True for MatchAll().
  bool is_match_all() const { return shape_.num_blocks == 0; }
  // Expected false-positive rate for num_keys() keys in this shape (for
  // kRibbon, the exact rate of its layers, whatever num_keys()).
  double EstimatedFpRate() const;

 private:
  friend class FilterBuilder;
  friend struct internal::FilterAccess;
  Filter(std::unique_ptr<internal::AlignedBuffer> owned, const uint8_t* bits,
         const FilterShape& shape, uint64_t seed, uint64_t num_keys,
         const internal::Kernels* kernels);
  // `ref.ops` says the kind (src/core/kind.h).
  Filter(std::unique_ptr<internal::AlignedBuffer> owned,
         const internal::FilterRef& ref, const FilterShape& shape,
         uint64_t size_bytes, uint64_t num_keys,
         const internal::Kernels* kernels);

  // The layout of these members is the shared library's ABI
  // (docs/COMPATIBILITY.md): programs inline the accessors above.
  std::unique_ptr<internal::AlignedBuffer> owned_;
  FilterKind kind_ = FilterKind::kBlocked;
  // Whether the filter owns its bits (built, copied or decompressed here);
  // a kind's maker says so where owned_ holds only its view (0.1.0 read it
  // for kSet and kRibbon alone, the same meaning).
  bool owns_bits_ = false;
  FilterShape shape_;
  uint64_t size_bytes_;
  uint64_t num_keys_;
  internal::FilterRef ref_;
  // The kernels chosen for this CPU and lane width when the filter was made,
  // and the two single probes copied out of them: a probe is one indirect
  // call, no dispatch.
  const internal::Kernels* kernels_;
  bool (*probe_hash_)(const internal::FilterRef&, uint64_t);
  bool (*probe_key_)(const internal::FilterRef&, std::string_view);
};

// How to size a filter. Set one of bits_per_key (the default), fp_rate, or
// shape; the builder counts the keys and sizes the filter when it finishes.
struct FilterOptions {
  // Bits of filter per distinct key; fractional values are fine. Used when
  // fp_rate is 0 and shape.num_blocks is 0.
  double bits_per_key = 10;
  // If > 0: the smallest filter whose expected false-positive rate is at most
  // this, for the number of keys added. Must be < 1.
  double fp_rate = 0;
  // If num_blocks > 0: exactly this geometry (num_probes must be set too),
  // whatever the number of keys: for a capacity known in advance, e.g.
  // `options.shape = *ShapeForFpRate(expected_keys, 0.01)`.
  FilterShape shape;
  // The kind of filter to build:
  // - kBlocked (the default): one 64-byte block per key, the fastest to build
  //   and to probe.
  // - kRibbon: the same rate in about 30% less memory than kBlocked (its
  //   rate falls as 2^-bits: 6.8 bits/key give 1% and 10 give 0.1%, where
  //   kBlocked needs 10 and 16.4); builds and probes are a few times slower
  //   (docs/BENCHMARKS.md, "Ribbon kind"; docs/MEMORY.md, "Which filter
  //   kind"). With bits_per_key or fp_rate; not with shape or exact_size
  //   (InvalidArgument). Where a ribbon would be the larger or less
  //   accurate filter (below 8,192 keys the builder makes both and keeps
  //   the better; the blocked kind wins below a few dozen keys, where a
  //   ribbon of one 64-slot block gets few columns), and in the rare case no
  //   ribbon can be built (a pathological key set, 2^31 keys or more), the
  //   builder builds kBlocked at the same bits_per_key or fp_rate instead:
  //   Filter::kind() says which it built.
  FilterKind kind = FilterKind::kBlocked;
  // The hash seed (see HashKey). Stored with the filter.
  uint64_t seed = 0;
  // Filters of at most 1 KiB are one block of 16 lanes of bits/16 bits (see
  // FilterShape::lane_bits): no rounding up to 64-byte blocks and no uneven
  // block loads. False: always 32-bit lanes.
  bool compact_small_filters = true;
  // An exact-size filter (bits_per_key only; not with fp_rate or shape): the
  // WHOLE serialized filter, trailer included, takes what LevelDB's built-in
  // Bloom filter takes for the same keys at bits_per_key,
  //   max(64, ceil(n * bits_per_key)) bits, rounded up to bytes, + 1 byte.
  // For engines that build a filter per data block and charge its every
  // byte to the bits/key budget (LevelDB). The seed is not stored: readers
  // must be given it (ReadOptions::seed). By default the filter is a
  // standard Bloom filter (FilterKind::kStandard) in all but one of those
  // bytes, written in the in-place encoding (a one-byte tag, no checksum:
  // the engine's block checksum protects it), which LevelDB probes where it
  // lies.
  bool exact_size = false;
  // Exact-size filters only: trade probe speed for accuracy. The filter is
  // the more accurate of a one-block Bloom filter and a compressed
  // fingerprint set (FilterKind::kSet) in the same size less a 3-byte
  // trailer with a CRC-16, written in the accurate encoding. From about 7
  // bits/key (LevelDB's usual 10) that is about half the false positives,
  // and the filter detects damage itself; probes of a set are slower (a
  // decode, and the per-thread cache of verified blocks of
  // FilterPolicy::KeyMayMatch). Below that, and on filters of fewer than ~20
  // keys at any bits/key, the 2 checksum bytes cost more than the set gains
  // and the rate is higher than the default's (LevelDB's bloom_test at 10
  // bits/key: 1.5% against 0.8% at 6-8 keys).
  bool fewer_false_positives = false;
};

// Collects keys, then builds an immutable Filter. The number of keys need
// not be known in advance.
//
// Memory during construction, sized at Finish() (bits_per_key or fp_rate):
// 8 bytes per key added (its 64-bit hash), kept in chunks that are written
// once and never copied (2 MiB each from 262,144 keys on, on huge pages where
// the kernel grants them), plus at most one chunk not yet full (under 2 MiB).
// Finish() then allocates the filter (bits_per_key / 8 bytes per key) and
// frees each chunk as soon as its hashes are in the filter: the peak is
// 8 + bits_per_key / 8 bytes per key (9.25 at 10 bits/key), reached at the
// start of Finish(). With a fixed `shape` no hashes are kept: keys go into
// the filter in batches of 1024 (an 8 KiB buffer), so the memory is the
// filter's, allocated by Create().
//
// A kRibbon filter's Finish() moves the hashes into one array (freeing each
// chunk as it goes), then takes per slot (a little under one per key) 8
// bytes of coefficient rows and 2 of result rows (4 from 16 bits/key), plus
// the filter: a peak of about 21 bytes per key (164-169 bits measured at 1M
// and 10M keys), where RocksDB 7.8's Ribbon builder takes about 30 (237-239
// bits; docs/BENCHMARKS.md, "Ribbon kind").
//
// Adjacent duplicate keys (as storage engines produce) are counted once.
// Not thread-safe: one thread adds at a time.
class FilterBuilder {
 public:
  // InvalidArgument if the options are out of range (bits_per_key not
  // positive, fp_rate not in [0, 1), an invalid fixed shape, a kind the
  // builder does not build (it builds kBlocked, kRibbon and kinds
  // registered at run time), another kind than kBlocked with a shape or
  // exact_size).
  static absl::StatusOr<FilterBuilder> Create(const FilterOptions& options);

  FilterBuilder(FilterBuilder&&) noexcept;
  FilterBuilder& operator=(FilterBuilder&&) noexcept;
  ~FilterBuilder();

  void Add(std::string_view key);
  // Adds HashKey(key, seed) directly, e.g. a hash already computed for
  // another filter with the same seed.
  void AddHash(uint64_t hash) {
    if (num_keys_ > 0 && hash == last_hash_) return;
    last_hash_ = hash;
    ++num_keys_;
    // A full chunk out of line, by a jump: the common path then saves no
    // registers, which Add() pays on every key.
    if (next_ == end_) return AddToNewChunk(hash);
    *next_++ = hash;
  }

  // Distinct keys added so far.
  uint64_t num_keys() const { return num_keys_; }

  // Builds the filter and resets the builder to empty (same options). With
  // no keys, the result is a one-block filter that contains nothing.
  // OutOfRange if the keys added need more than 2^32 blocks.
  absl::StatusOr<Filter> Finish();

 private:
  // With a fixed shape, hashes wait in pending_ and go into the filter this
  // many at a time, through the SIMD batch insert (prefetched, pipelined).
  static constexpr size_t kPendingHashes = 1024;

  friend class FilterPolicy;  // Builder::set_bits_per_key
  explicit FilterBuilder(const FilterOptions& options);
  // The size of the next Finish(): these bits/key, or this rate if fp_rate
  // is not 0. False (nothing changed) with a fixed shape, an exact-size
  // builder, or bits_per_key not positive and finite.
  bool SetSize(double bits_per_key, double fp_rate);
  absl::StatusOr<FilterShape> ShapeForKeys(uint64_t num_keys) const;
  // What Finish() would make of `num_keys` distinct keys: its kind and bytes
  // of bits, exact for the blocked kind and exact-size filters (the block's
  // bytes, trailer included), the ribbon's estimate for a ribbon. For an
  // engine that sizes its files before the filter is built
  // (FilterPolicy::Builder::EstimatedBytes).
  struct Plan {
    FilterKind kind = FilterKind::kBlocked;
    FilterShape shape;           // the blocked kind's
    uint64_t payload_bytes = 0;  // bits; exact-size: the whole block
  };
  Plan PlanFor(uint64_t num_keys) const;
  // Called when [next_, end_) is full (or was never set): a new hash chunk,
  // or the pending batch inserted into the fixed-shape filter and emptied.
  void MakeRoom();
  // MakeRoom(), then the hash.
  void AddToNewChunk(uint64_t hash);
  void InsertPending(const uint64_t* end);

  FilterOptions options_;
  // Where the next hash goes and the end of that space: the last hash chunk
  // (filter sized at Finish) or the pending batch (fixed shape).
  uint64_t* next_ = nullptr;
  uint64_t* end_ = nullptr;
  // When the shape is not fixed: every hash, until Finish() sizes the filter.
  std::unique_ptr<internal::HashChunks> hashes_;
  // When it is: the filter, and the batch of hashes not yet inserted.
  std::unique_ptr<internal::AlignedBuffer> fixed_bits_;
  std::unique_ptr<uint64_t[]> pending_;
  uint64_t num_keys_ = 0;
  uint64_t last_hash_ = 0;
};

// The SIMD instruction set the probes of filters opened or built from now on
// run with, chosen at run time: Highway's target names, "AVX3" (AVX-512),
// "AVX2", "SSE4", "SSSE3", "NEON", "EMU128"/"SCALAR". By default the widest
// the CPU has, except on Intel CPUs with AVX2, where the probes use 256-bit
// vectors: inside RocksDB's db_bench there, the 512-bit probe made the whole
// Get slower although it is faster alone (docs/BENCHMARKS.md, "The SIMD
// target inside RocksDB"). A ribbon's kernels follow the same width.
const char* ActiveSimdTarget();

// Chooses the SIMD target of the filters opened or built from now on (open
// filters keep theirs): one of ActiveSimdTarget's names that this CPU has,
// any case; "best", the widest (AVX-512 included); or "auto", the default
// rule above. The environment variable BLOCKBLOOM_SIMD_TARGET takes the same
// values and applies from the first filter (a bad value is reported on
// stderr and ignored). InvalidArgument, naming the targets this CPU has, for
// any other name. Every target gives the same answers (bit-identical to the
// scalar reference); only the speed differs. The CPU's targets are detected
// once, at the first filter: a program's hwy::DisableTargets after that is
// not seen, so use SetSimdTarget.
absl::Status SetSimdTarget(std::string_view name);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FILTER_H_
