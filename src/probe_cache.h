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
// Memory: at most `budget_bytes` of copies per thread (the caller's
// setting), evicted clock-wise; blocks larger than the budget are opened and
// verified on every probe. Freed when the thread exits.
#ifndef BLOCKBLOOM_SRC_PROBE_CACHE_H_
#define BLOCKBLOOM_SRC_PROBE_CACHE_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"

namespace blockbloom::internal {

// The opened filter for `block` (Filter::MatchAll() if it cannot be read),
// valid until this thread's next call. `block` must not be empty.
const Filter& CachedFilter(absl::Span<const uint8_t> block,
                           const ReadOptions& options, size_t budget_bytes);

// This thread's cache: blocks held and their bytes (tests).
struct ProbeCacheStats {
  size_t entries = 0;
  size_t bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
};
ProbeCacheStats ThisThreadProbeCacheStats();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_PROBE_CACHE_H_
