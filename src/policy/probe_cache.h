// A per-thread cache of opened, verified filter blocks, for engines that
// hand over a filter's bytes with every probe (LevelDB's KeyMayMatch).
//
// Why
// ---
// A checksum protects a filter on disk: a flipped bit must not turn a stored
// key into a false negative. Verifying it costs time proportional to the
// filter's size, and LevelDB gives the policy no moment to do it once (no
// reader object, no open hook), so the naive cost is a checksum per probe:
// a large share of the probe's instructions, and of LevelDB's absent-key
// reads. The cache verifies a block the first time a thread sees
// it, keeps an opened copy, and answers later probes of the same block from
// the copy: a probe is then a lookup and the kernel, whatever the size.
//
// Why it is safe
// --------------
// A block is found by its CONTENT, not its address: its length, its first 8
// and last 8 bytes (the last holding the CRC-16, the tag and the end of the
// bits), and the reader's seed and verify flag. Probes are answered from the
// copy that was verified, never from the caller's bytes, so
//  - a block freed and another placed at the same address is simply another
//    key (LevelDB reuses memory for the filters of reopened tables);
//  - the same block read again with damage somewhere in the middle is
//    answered from the undamaged copy: correct answers, not just fail-open;
//    damage in the first or last 8 bytes changes the key, so it is verified
//    afresh and fails open;
//  - two different blocks would have to agree in length, 16 bytes and their
//    CRC-16 to be confused. Exact-size blocks of format version 3 store their
//    first 8 bytes XORed with a 64-bit hash of the rest, so two blocks as
//    written that differ anywhere differ there too: they share a key once
//    in 2^64. Version 2 blocks (tables written before) do not: two filters
//    of nearly the same keys (one key replaced) often agree in both ends
//    (11% of 36-key filters, 70% at 140 keys), and then only their CRC-16
//    tells them apart, all but once in 65,536 (docs/FORMAT.md, "Integrity
//    without a checksum per probe").
// A block that fails verification is cached as "match all" (fail open), so
// a damaged filter costs its verification once, not on every probe.
//
// Memory: at most `budget_bytes` of copies per thread (the reader's
// setting), evicted clock-wise; blocks larger than the budget are opened and
// verified on every probe. Freed when the thread exits.
#ifndef BLOCKBLOOM_SRC_POLICY_PROBE_CACHE_H_
#define BLOCKBLOOM_SRC_POLICY_PROBE_CACHE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/internal/filter_ref.h"
#include "blockbloom/internal/probe_cache_config.h"

namespace blockbloom::internal {

struct ProbeCacheEntry;  // src/policy/probe_cache.cc

// The first word of each cached entry (its layout is fixed so that the hit
// path below can be inline).
// A block's identity in one word: its first 8 bytes XOR its last 8 bytes
// rotated, XOR its size and the reader's settings. Each part alone changes
// the word (XOR is a bijection in each argument), so damage confined to
// either end is always a different key; two different blocks agree with
// probability 2^-64.
struct ProbeCacheKey {
  uint64_t word;
};
struct ProbeCacheEntryHead {
  ProbeCacheKey key;
  // The opened filter's probe and its FilterRef (pointing into memory the
  // entry owns): a hit calls the kernel directly.
  bool (*probe_key)(const FilterRef&, std::string_view);
  const FilterRef* ref;
};

// This thread's table: buckets of kProbeCacheWays entries, most recently
// used first, picked by the block's address; grown to keep it at most half
// full. Until the thread's first miss, a shared bucket of nulls (so that the
// hit path needs no check).
inline constexpr size_t kProbeCacheWays = 4;
extern constinit thread_local ProbeCacheEntryHead** tls_probe_cache_slots;
// 64 - log2(buckets): the bucket is the top bits of a product.
extern constinit thread_local int tls_probe_cache_shift;

// The bucket is picked by the block's address: LevelDB passes the same
// bytes at the same address for as long as a table is open, so this is free
// and stable. It only picks where to look; the entry is matched by content,
// so another block at a reused address is a miss, never a confusion. The
// address is hashed, not masked: allocators hand out blocks at regular
// strides (size classes of 64 or 256 bytes, valgrind's red zones), which the
// low bits of addresses would fold onto a few buckets. A multiply alone
// (the top bits of a * 2^64/phi) is not enough either: with the stride's
// low bits zero, 8,192 blocks 64 bytes apart fell on 1,967 of 4,096
// buckets, so many filters sat in the ways the hit path does not look at.
// Folding the product's high half down and multiplying again spreads them
// as random keys would (3,553 buckets; tests/policy/probe_cache_test.cc).
// Four ways, because even hashed addresses collide: with two, a few of 100
// filters probed in turn already evicted each other.
inline uint64_t ProbeCacheAddressHash(const uint8_t* data) {
  uint64_t h = reinterpret_cast<uintptr_t>(data) * 0x9E3779B97F4A7C15;
  h ^= h >> 32;
  return h * 0x9E3779B97F4A7C15;
}
inline ProbeCacheEntryHead** ProbeCacheBucket(ProbeCacheEntryHead** slots,
                                              int shift, const uint8_t* data) {
  return slots + kProbeCacheWays *
                     static_cast<size_t>(ProbeCacheAddressHash(data) >> shift);
}

// A block's key (the block is at least 8 bytes).
inline ProbeCacheKey ProbeCacheKeyOf(absl::Span<const uint8_t> block,
                                     const ProbeCacheConfig& config) {
  const size_t n = block.size();
  uint64_t head, tail;
  std::memcpy(&head, block.data(), 8);
  std::memcpy(&tail, block.data() + n - 8, 8);
  return {head ^ std::rotl(tail, 1) ^ n ^ config.settings};
}

// Everything but a hit in a bucket's first two ways: the other ways (moving
// a hit to the second), else open, verify and cache the block (first).
const ProbeCacheEntryHead& CachedEntrySlow(absl::Span<const uint8_t> block,
                                           const ProbeCacheConfig& config);

// Whether the block may contain `key` (true if it cannot be read), laid out
// for LevelDB's hot path: on a hit, the kernel is called straight from the
// entry (it hashes the key with the filter's seed); everything else is one
// call out of line. Both are tail calls, so the hit path keeps no registers
// of its own.
bool CachedMayContainSlow(absl::Span<const uint8_t> block,
                          const ProbeCacheConfig& config, std::string_view key);
inline bool CachedMayContain(absl::Span<const uint8_t> block,
                             const ProbeCacheConfig& config,
                             std::string_view key) {
  if (block.size() >= 8) {
    ProbeCacheEntryHead* const* bucket = ProbeCacheBucket(
        tls_probe_cache_slots, tls_probe_cache_shift, block.data());
    const ProbeCacheKey k = ProbeCacheKeyOf(block, config);
    const ProbeCacheEntryHead* e = bucket[0];
    if (e != nullptr && e->key.word == k.word)
      return e->probe_key(*e->ref, key);
    e = bucket[1];
    if (e != nullptr && e->key.word == k.word)
      return e->probe_key(*e->ref, key);
  }
  return CachedMayContainSlow(block, config, key);
}

// This thread's cache: blocks held, their bytes, and how many blocks it
// opened (tests).
struct ProbeCacheStats {
  size_t entries = 0;
  size_t bytes = 0;
  uint64_t misses = 0;
};
ProbeCacheStats ThisThreadProbeCacheStats();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_POLICY_PROBE_CACHE_H_
