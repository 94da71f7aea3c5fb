// An engine-neutral filter policy: what a storage engine's filter hooks need
// (build a filter block for keys whose number is not known in advance, probe
// a block's bytes, batch probes), with no engine types. The LevelDB and
// RocksDB adapters (blockbloom/leveldb.h, blockbloom/rocksdb.h) are thin
// wrappers around it; another engine can wrap it the same way.
//
//   blockbloom::FilterPolicy policy = *blockbloom::FilterPolicy::Create({});
//   // Table builder side:
//   blockbloom::FilterPolicy::Builder b = policy.NewBuilder();
//   for (...) b.AddKey(key);
//   b.Finish(&filter_block);             // appends; never fails
//   // Table reader side (fails open: an unreadable block matches everything):
//   blockbloom::Filter f = policy.NewReader(block_bytes);
//   if (!f.MayContain(key)) { /* skip the data block */ }
#ifndef BLOCKBLOOM_FILTER_POLICY_H_
#define BLOCKBLOOM_FILTER_POLICY_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/internal/probe_cache_config.h"
#include "blockbloom/level_allocation.h"

namespace blockbloom {
namespace internal {
struct PolicyAccess;  // src/policy/policy_access.h
}  // namespace internal

class FilterPolicy {
 public:
  // The level settings (docs/LEVELS.md): which kind and bits/key each table
  // of an LSM tree gets, from the level an engine builds it at (LevelHint)
  // and, with level_learned, from the probes its readers count. The planning
  // itself is the levels library (blockbloom/level_allocation.h); the member
  // names are those of the RocksDB policy id (blockbloom/rocksdb.h).
  struct LevelOptions {
    // Level-aware allocation (blockbloom/level_allocation.h, docs/LEVELS.md):
    // bits_per_key becomes the AVERAGE over an LSM tree, and each filter
    // built with a LevelHint gets the bits/key that minimizes false-positive
    // file reads per absent-key lookup (more in the small upper levels, fewer
    // in the last level). Builders made without a hint use bits_per_key.
    // bits_per_key must then be in [1, 40].
    bool level_aware = false;
    // The size ratio of adjacent levels assumed by level_aware, in [2, 1000]
    // (RocksDB's max_bytes_for_level_multiplier, default 10).
    double level_size_multiplier = 10;
    // The share of each upper level's keys assumed to arrive by trivial moves
    // (tables moved down unrewritten keep their filters), in [0, 0.95]:
    // LevelAllocator::Options::moved_fraction.
    double level_moved_fraction = 0.6;
    // The kind per level, like RocksDB's Ribbon `bloom_before_level`: a
    // builder made with a LevelHint builds a ribbon filter (the ribbon
    // kind: the same rate in about 30% less memory, built and probed a
    // few times slower) when hint.level >= ribbon_from_level, and a blocked one
    // otherwise. So 1 gives flushes (L0), files of unknown level (-1, e.g.
    // FIFO or ingested files) and L0 the blocked kind, which is built often
    // and probed most, and every deeper level the ribbon; 0 adds flushes; -1
    // is ribbon everywhere; kNoRibbon (the default) never. Builders made
    // without a hint, and exact-size policies (per-data-block filters, where
    // a ribbon is the larger filter), are always blocked.
    // The default stays blocked: it is the fastest to build and probe, and
    // blocks of format version 5 (ribbon) read as "may match" in blockbloom
    // releases before it (no wrong answers, but no filtering either).
    // bits_per_key (or the level_aware plan's bits for the level) stays
    // "Bloom-equivalent" at a ribbon level, as in RocksDB's Ribbon: the
    // ribbon is built for the false-positive rate the blocked kind has at
    // those bits/key (EstimatedFpRate of ShapeForBitsPerKey for a large
    // table), so switching a level to the ribbon keeps its rate and takes
    // about 30% fewer bytes (10 bits/key: ~0.96% in ~7 bits/key). With
    // level_aware the plan is still made for the blocked kind, so a tree
    // with ribbon levels uses less than the budget (the rates stay the
    // plan's). Small tables (under ~1000 keys) get the blocked kind at that
    // rate anyway (FilterOptions::kind). ribbon_saves below trades the
    // other way.
    static constexpr int kNoRibbon = INT_MAX;
    int ribbon_from_level = kNoRibbon;
    // What the ribbon levels (ribbon_from_level) save:
    //  - kMemory (the default, as RocksDB's Ribbon): the blocked kind's
    //    rate in ~30% fewer bytes (bits_per_key is Bloom-equivalent, above);
    //  - kFalseReads: the blocked kind's bytes at a lower rate. A ribbon
    //    level's bits/key are its real bits (10 bits/key: ~0.1% instead of
    //    the blocked kind's ~0.96%), and with level_aware the plan is made
    //    over both kinds' real rate curves (LevelAllocator::Options::kinds,
    //    RibbonFpRate): the tree takes bits_per_key for all of its keys, as
    //    a blocked tree does, and the plan moves bits to where they remove
    //    the most false reads; the plan may keep a level at or below
    //    ribbon_from_level blocked where that is cheaper, and keeps the
    //    levels above it blocked, except that a learned plan (below) gives
    //    flushes the ribbon when their tables hold most live keys (moved
    //    down whole, as ascending keys make them: not short-lived).
    enum class RibbonSaving { kMemory, kFalseReads };
    RibbonSaving ribbon_saves = RibbonSaving::kMemory;
    // With level_aware, an engine adapter that counts its readers' probes
    // (the RocksDB adapter) adapts the plan to them: the learned plan
    // (docs/LEVELS.md, "The learned plan"). The model's plan is its prior.
    // It also plans L0 on its live share of the keys when the tables built
    // there hold most of them (kept flushes, above).
    bool level_learned = false;
    // With level_learned, the RocksDB adapter also moves bits between the
    // tables of a level, from the keys its readers' sampled probes saw: a
    // table over a hot key range (skewed lookups: Zipfian gets, hot ranges)
    // gets more bits/key and the level's cold tables fewer, for the same
    // memory per level (docs/LEVELS.md, "Hot ranges"). Under lookups spread
    // as the keys are, no table changes. 512 KiB of samples per policy.
    // False: every table of a level gets the plan's bits.
    bool hot_ranges = true;
  };

  struct Options {
    // Bits of filter per key, fractional values allowed. Each filter block
    // also carries its trailer (none beyond LevelDB's own budget for the
    // exact-size per-data-block filters, 56 bytes for per-SSTable filters):
    // docs/FORMAT.md.
    double bits_per_key = 10;
    // Hash seed. Use the same one for the builder and reader of a DB.
    // Compact and full blocks store it, so they are read correctly with
    // another seed; exact-size blocks do not (see `exact_size`): the accurate
    // encoding mixes it into its CRC, so another seed reads as damage and fails
    // open, and in-place blocks cannot tell (the LevelDB adapter names the seed
    // in its policy name instead).
    uint64_t seed = 0;
    // Verify each block's checksum when opening it, so that a damaged
    // filter is detected and fails open. Turn off only if the engine
    // verifies the block's bytes itself. (In-place blocks, the exact-size
    // default, have no checksum of their own: see `exact_size`.)
    bool verify_checksum = true;
    // Exact-size blocks (FilterOptions::exact_size): each block, tag included,
    // takes what LevelDB's built-in Bloom filter takes for the same keys at
    // bits_per_key. For engines that build a filter per data block (the
    // LevelDB adapter always sets it). By default a block is a standard
    // Bloom filter and a one-byte tag (the in-place encoding), and
    // KeyMayMatch probes the caller's bytes as they are: no copy, no cache,
    // no checksum. Its integrity is the engine's block checksum (LevelDB:
    // `paranoid_checks`; docs/FORMAT.md, "Integrity"). The seed is not
    // stored in the block: readers need the same seed.
    bool exact_size = false;
    // Exact-size blocks only: the more accurate of a one-block Bloom filter and
    // a compressed fingerprint set, with a CRC-16 of its own
    // (FilterOptions::fewer_false_positives). At 7+ bits/key about half the
    // false positives of the default in the same size, and damage is
    // detected without the engine's checksum; probes go through the
    // per-thread cache of verified blocks (probe_cache_bytes), which costs
    // memory and, with thousands of filters, probe time. For data on disk,
    // where each false positive is a read. docs/LEVELDB.md, "Which LevelDB
    // mode".
    bool fewer_false_positives = false;
    // KeyMayMatch keeps, per thread, up to this many bytes of blocks it has
    // opened and verified, and answers later probes of the same block from
    // them (src/policy/probe_cache.h): the checksum is paid once per block, not
    // once per probe. 0: open and verify on every probe. In-place blocks
    // never go through it.
    size_t probe_cache_bytes = size_t{16} << 20;
    // The level settings; the defaults plan nothing (every table gets
    // bits_per_key and the blocked kind).
    LevelOptions levels;
  };

  // InvalidArgument if bits_per_key is not a positive finite number or
  // ribbon_from_level is below -1.
  static absl::StatusOr<FilterPolicy> Create(const Options& options);

  // "blockbloom.v1": the format's major version is part of the name, so an
  // engine that keys filters by policy name (LevelDB's "filter.<name>",
  // RocksDB's "fullfilter.<name>") ignores blocks written in another major
  // version instead of misreading them.
  static constexpr std::string_view kName = "blockbloom.v1";
  std::string_view name() const { return kName; }

  const Options& options() const { return options_; }

  // Builds one filter block.
  class Builder {
   public:
    // Adjacent duplicates (which engines produce) are counted once.
    void AddKey(std::string_view key) { builder_.Add(key); }
    // The same with the key's hash, HashKey(key, options().seed): for a
    // caller that keeps the hashes (e.g. to verify the finished filter).
    void AddHash(uint64_t hash) { builder_.AddHash(hash); }
    uint64_t num_keys() const { return builder_.num_keys(); }
    // Appends the filter block for the keys added so far to `*dst`, leaving
    // what *dst holds untouched, and resets the builder. Never fails for a
    // validated policy (a block that cannot be built is written as a filter
    // that matches everything, and the reason returned).
    absl::Status Finish(std::string* dst, WriteStats* stats = nullptr);
    // Recorded in every block this builder finishes (format 4.1: the full
    // encoding; docs/FORMAT.md): where an engine built it. Changes no answer.
    void set_origin(const FilterOrigin& origin) { origin_ = origin; }
    // The bits/key of the blocks this builder finishes from now on (clamped
    // as NewBuilderWithBits clamps them; a ribbon that stands for the
    // blocked kind's rate, LevelOptions::ribbon_saves kMemory, takes that rate
    // at the new bits). The filter is sized at Finish(), so keys already
    // added count too. For an engine adapter that learns a table's bits
    // from its keys (the RocksDB adapter's hot ranges,
    // LevelOptions::hot_ranges). Does nothing for an exact-size builder.
    void set_bits_per_key(double bits_per_key);
    // The bytes Finish() would append for `num_keys` distinct keys: exact
    // for the blocked kind and exact-size blocks; for a ribbon, its own
    // estimate (a one-layer table; the solution's bytes from the rate).
    // For an engine that sizes its files before the filter is built
    // (RocksDB's FilterBitsBuilder::CalculateSpace).
    uint64_t EstimatedBytes(uint64_t num_keys) const;
    // The false-positive rate of a block of `bytes` bytes (footer included)
    // holding `num_keys` distinct keys, of the kind Finish() would make for
    // them. 1 when the bytes cannot hold a filter of that kind; 0 with no
    // keys.
    double EstimatedFpRate(uint64_t num_keys, uint64_t bytes) const;

   private:
    friend class FilterPolicy;
    explicit Builder(FilterBuilder builder) : builder_(std::move(builder)) {}
    WriteOptions WriteOptionsFor(const Filter& filter) const;
    FilterBuilder builder_;
    FilterOrigin origin_;
  };
  Builder NewBuilder() const;
  // A builder for a table file of an LSM tree: with level_aware, at
  // BitsPerKey(hint) bits/key; otherwise the same as NewBuilder().
  Builder NewBuilder(const LevelHint& hint) const;
  // The bits/key a builder for `hint` uses (Bloom-equivalent for a ribbon:
  // LevelOptions::ribbon_from_level).
  double BitsPerKey(const LevelHint& hint) const;
  // The kind a builder for `hint` asks for (LevelOptions::ribbon_from_level;
  // with ribbon_saves kFalseReads and level_aware, the plan's choice).
  FilterKind KindFor(const LevelHint& hint) const;
  // A builder at `bits_per_key` (clamped to [LevelAllocator::kMinBitsPerKey,
  // kMaxBitsPerKey]): for an engine adapter with a plan of its own (the
  // RocksDB adapter's learned plan). With another kind than kBlocked
  // (KindFor(hint): the ribbon), a filter of it for the blocked kind's rate
  // at those bits (Bloom-equivalent:
  // LevelOptions::ribbon_from_level), or with those bits
  // (LevelOptions::ribbon_saves kFalseReads).
  Builder NewBuilderWithBits(double bits_per_key,
                             FilterKind kind = FilterKind::kBlocked) const;

  // Opens a filter block for probing, without copying (`block` must outlive
  // the Filter). Fails open: bytes that cannot be read give a Filter that
  // answers "may contain" for every key, and the reason goes to `*error`.
  Filter NewReader(absl::Span<const uint8_t> block,
                   absl::Status* error = nullptr) const;
  // The same, and the block's trailer or footer to `*info` (OpenFilter's
  // `info`): read once for both.
  Filter NewReader(absl::Span<const uint8_t> block, absl::Status* error,
                   FilterInfo* info) const;

  // One probe of a block's bytes, for engines like LevelDB that pass the
  // block with every key; the LevelDB adapter calls exactly this (inlined).
  //  - An empty block matches nothing: it is an engine's filter for a range
  //    with no keys (LevelDB writes one); this policy never writes one.
  //  - An in-place block (what an exact-size policy writes by default) is
  //  probed
  //    where it is: no copy, no cache, no checksum.
  //  - Any other block is opened and verified the first time this thread
  //    sees it and kept (Options::probe_cache_bytes; 0: opened and verified
  //    on every probe), so later probes cost a lookup and the probe.
  //  - Fails open: a block that cannot be read (damaged, another seed, a
  //    newer format) answers "may match".
  bool KeyMayMatch(std::string_view key, absl::Span<const uint8_t> block) const;

 private:
  explicit FilterPolicy(const Options& options);
  friend struct internal::PolicyAccess;
  // The level_aware plan chooses each level's kind
  // (LevelOptions::ribbon_saves).
  bool PlansKinds() const;
  Options options_;
  internal::ProbeCacheConfig cache_;  // from options_
  // Blocks whose last byte is below this are probed in place: 0x10 (the
  // in-place tags 0x00-0x0F) for an exact-size policy, 0 for any other, to
  // which such a block is damage.
  uint8_t in_place_tag_end_;
  std::shared_ptr<const LevelAllocator> allocator_;  // when level_aware
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FILTER_POLICY_H_
