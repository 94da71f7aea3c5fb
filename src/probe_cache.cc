#include "src/probe_cache.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace blockbloom::internal {

// An opened block: the filter answers from `copy`, which it was verified
// from (or, for a block that failed, a match-all filter).
struct ProbeCacheEntry {
  ProbeCacheEntry(const ProbeCacheKey& key, absl::Span<const uint8_t> block,
                  const ReadOptions& options)
      : copy(block.begin(), block.end()),
        filter(OpenFilterOrMatchAll(copy, options)) {
    head.key = key;
    head.filter = &filter;
    head.probe_key = filter.probe_key_fn();
    head.ref = &filter.ref();
  }
  // What the entry costs, as charged to the budget (with the allocator's
  // overhead, roughly).
  size_t Bytes() const { return sizeof(*this) + copy.capacity() + 64; }

  ProbeCacheEntryHead head;
  std::vector<uint8_t> copy;
  Filter filter;
};

namespace {

constexpr size_t kSlots = size_t{1} << kProbeCacheSlotBits;
constinit ProbeCacheEntryHead* const kNoSlots[kSlots] = {};

}  // namespace

constinit thread_local ProbeCacheEntryHead* const* tls_probe_cache_slots =
    kNoSlots;

namespace {

struct Cache {
  // heads[i] is &entries[i]->head, or null: the hit path reads heads only.
  std::unique_ptr<ProbeCacheEntryHead*[]> heads;
  std::unique_ptr<std::unique_ptr<ProbeCacheEntry>[]> entries;
  size_t bytes = 0;
  size_t count = 0;
  size_t hand = 0;  // clock hand for eviction
  uint64_t misses = 0;

  ~Cache() { tls_probe_cache_slots = kNoSlots; }

  void Evict(size_t slot) {
    if (entries[slot] == nullptr) return;
    bytes -= entries[slot]->Bytes();
    --count;
    heads[slot] = nullptr;
    entries[slot].reset();
  }
};

Cache& ThisThreadCache() {
  thread_local Cache cache;
  if (cache.heads == nullptr) {
    cache.heads = std::make_unique<ProbeCacheEntryHead*[]>(kSlots);
    cache.entries =
        std::make_unique<std::unique_ptr<ProbeCacheEntry>[]>(kSlots);
    tls_probe_cache_slots = cache.heads.get();
  }
  return cache;
}

ProbeCacheKey KeyOf(absl::Span<const uint8_t> block,
                    const ProbeCacheConfig& config) {
  ProbeCacheKey key = {0, 0};
  const size_t n = block.size();
  const size_t edge = std::min<size_t>(8, n);
  std::memcpy(&key.head, block.data(), edge);
  std::memcpy(&key.tail, block.data() + n - edge, edge);
  key.tail ^= n ^ config.settings;
  return key;
}

bool SameKey(const ProbeCacheKey& a, const ProbeCacheKey& b) {
  return a.head == b.head && a.tail == b.tail;
}

// The thread's last uncached block (larger than the budget), kept until the
// next call so that the reference returned stays valid.
thread_local std::unique_ptr<ProbeCacheEntry> tls_uncached;

}  // namespace

const Filter& CachedFilterMiss(absl::Span<const uint8_t> block,
                               const ProbeCacheConfig& config) {
  const ProbeCacheKey key = KeyOf(block, config);
  const size_t slot = ProbeCacheSlot(block.data());
  Cache& cache = ThisThreadCache();
  // Blocks under 8 bytes (never LevelDB's) skip the inline path.
  if (cache.entries[slot] != nullptr &&
      SameKey(cache.entries[slot]->head.key, key)) {
    return cache.entries[slot]->filter;
  }
  ++cache.misses;
  auto entry = std::make_unique<ProbeCacheEntry>(key, block, config.read);
  const size_t cost = entry->Bytes();
  if (cost > config.budget_bytes) {
    tls_uncached = std::move(entry);
    return tls_uncached->filter;
  }
  cache.Evict(slot);
  // Make room, clock-wise (any slot but the one being filled).
  while (cache.bytes + cost > config.budget_bytes && cache.count > 0) {
    cache.hand = (cache.hand + 1) & (kSlots - 1);
    if (cache.hand != slot) cache.Evict(cache.hand);
  }
  cache.bytes += cost;
  ++cache.count;
  cache.heads[slot] = &entry->head;
  cache.entries[slot] = std::move(entry);
  return cache.entries[slot]->filter;
}

bool CachedMayContainMiss(absl::Span<const uint8_t> block,
                          const ProbeCacheConfig& config,
                          std::string_view key) {
  return CachedFilterMiss(block, config).MayContain(key);
}

ProbeCacheStats ThisThreadProbeCacheStats() {
  ProbeCacheStats stats;
  if (tls_probe_cache_slots == kNoSlots) return stats;
  const Cache& cache = ThisThreadCache();
  stats.entries = cache.count;
  stats.bytes = cache.bytes;
  stats.misses = cache.misses;
  return stats;
}

}  // namespace blockbloom::internal
