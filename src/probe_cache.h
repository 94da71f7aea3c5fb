// A per-thread cache of opened, verified filter blocks, for engines that
// hand over a filter's bytes with every probe (LevelDB's KeyMayMatch).
//
// Why
// ---
// A checksum protects a filter on disk: a flipped bit must not turn a stored
// key into a false negative. Verifying it costs time proportional to the
// filter's size, and LevelDB gives the policy no moment to do it once (no
// reader object, no open hook), so the naive cost is a checksum per probe:
// ~500 of ~1,200 instructions for a 150-byte filter, and 8-9% of LevelDB's
// absent-key reads. The cache verifies a block the first time a thread sees
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
//    CRC-16 to be confused: for real filters (dense, random-looking bits)
//    that is below 2^-100.
// A block that fails verification is cached as "match all" (fail open), so
// a damaged filter costs its verification once, not on every probe.
//
// Memory: at most `budget_bytes` of copies per thread (the reader's
// setting), evicted clock-wise; blocks larger than the budget are opened and
// verified on every probe. Freed when the thread exits.
#ifndef BLOCKBLOOM_SRC_PROBE_CACHE_H_
#define BLOCKBLOOM_SRC_PROBE_CACHE_H_

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

struct ProbeCacheEntry;  // src/probe_cache.cc

// The first word of each cached entry (its layout is fixed so that the hit
// path below can be inline).
struct ProbeCacheKey {
  uint64_t head;  // the block's first 8 bytes (fewer, zero-padded)
  // Its last 8 bytes (likewise), XORed with its size and the reader's
  // settings: one compare for the three.
  uint64_t tail;
};
struct ProbeCacheEntryHead {
  ProbeCacheKey key;
  const Filter* filter;
  // The filter's probe and its FilterRef, copied out of it: a hit calls the
  // kernel directly.
  bool (*probe_key)(const FilterRef&, std::string_view);
  const FilterRef* ref;
};

// This thread's slots: a power-of-two table, 2-way set-associative (a block
// lives in slot i or i ^ 1), grown to hold 4 slots per entry; until the
// thread's first miss, a shared table of nulls (so the hit path needs no
// check).
extern constinit thread_local ProbeCacheEntryHead* const* tls_probe_cache_slots;
extern constinit thread_local size_t tls_probe_cache_mask;

// The slot is picked by the block's address: LevelDB passes the same bytes
// at the same address for as long as a table is open, so this is free and
// stable (its filters are 9+ bytes, so 16-byte granules mostly separate
// them). It only picks where to look; the entry is matched by content, so
// another block at a reused address is a miss, never a confusion.
inline size_t ProbeCacheSlot(const uint8_t* data, size_t mask) {
  return static_cast<size_t>(reinterpret_cast<uintptr_t>(data) >> 4) & mask;
}

// Everything but a hit: opens, verifies and caches the block.
const Filter& CachedFilterMiss(absl::Span<const uint8_t> block,
                               const ProbeCacheConfig& config);

// The entry for `block` if this thread holds it, else null. The hit path:
// a slot from the address, two loads, two compares (four for the second
// way).
inline const ProbeCacheEntryHead* FindCached(absl::Span<const uint8_t> block,
                                             const ProbeCacheConfig& config) {
  const size_t n = block.size();
  if (n < 8) return nullptr;
  ProbeCacheEntryHead* const* slots = tls_probe_cache_slots;
  const size_t slot = ProbeCacheSlot(block.data(), tls_probe_cache_mask);
  uint64_t head, tail;
  std::memcpy(&head, block.data(), 8);
  std::memcpy(&tail, block.data() + n - 8, 8);
  tail ^= n ^ config.settings;
  for (const ProbeCacheEntryHead* e : {slots[slot], slots[slot ^ 1]}) {
    if (e != nullptr && e->key.head == head && e->key.tail == tail) return e;
  }
  return nullptr;
}

// The opened filter for `block` (Filter::MatchAll() if it cannot be read),
// valid until this thread's next call. `block` must not be empty.
inline const Filter& CachedFilter(absl::Span<const uint8_t> block,
                                  const ProbeCacheConfig& config) {
  const ProbeCacheEntryHead* e = FindCached(block, config);
  return e != nullptr ? *e->filter : CachedFilterMiss(block, config);
}

// CachedFilter(block, config).MayContain(key), with the probe of a cached
// block called straight from its entry and the miss out of line.
bool CachedMayContainMiss(absl::Span<const uint8_t> block,
                          const ProbeCacheConfig& config, std::string_view key);
inline bool CachedMayContain(absl::Span<const uint8_t> block,
                             const ProbeCacheConfig& config,
                             std::string_view key) {
  const ProbeCacheEntryHead* e = FindCached(block, config);
  if (e != nullptr) return e->probe_key(*e->ref, key);
  return CachedMayContainMiss(block, config, key);
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

#endif  // BLOCKBLOOM_SRC_PROBE_CACHE_H_
