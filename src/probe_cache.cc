#include "src/probe_cache.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace blockbloom::internal {
namespace {

// What identifies a block: see "Why it is safe" in the header.
struct Key {
  uint64_t head = 0;  // first 8 bytes (fewer, zero-padded, if shorter)
  uint64_t tail = 0;  // last 8 bytes (likewise)
  uint64_t seed = 0;
  uint32_t size = 0;
  bool verify = false;
  friend bool operator==(const Key&, const Key&) = default;
};

Key KeyOf(absl::Span<const uint8_t> block, const ReadOptions& options) {
  Key key;
  const size_t n = block.size();
  const size_t edge = std::min<size_t>(8, n);
  std::memcpy(&key.head, block.data(), edge);
  std::memcpy(&key.tail, block.data() + n - edge, edge);
  key.seed = options.seed;
  key.size = static_cast<uint32_t>(n);
  key.verify = options.verify_checksum;
  return key;
}

// An opened block: the filter answers from `copy`, which it was verified
// from (or, for a block that failed, a match-all filter).
struct Entry {
  Entry(const Key& k, absl::Span<const uint8_t> block,
        const ReadOptions& options)
      : key(k),
        copy(block.begin(), block.end()),
        filter(OpenFilterOrMatchAll(copy, options)) {}
  // What the entry costs, as charged to the budget.
  size_t Bytes() const { return sizeof(Entry) + copy.capacity() + 64; }

  Key key;
  std::vector<uint8_t> copy;
  Filter filter;
};

// Slots: a power of two, direct-mapped by a hash of the key. 16384 slots
// (128 KiB of pointers) hold the filters of ~2M keys at LevelDB's ~140 keys
// per filter; the byte budget usually binds first.
constexpr size_t kSlotBits = 14;
constexpr size_t kSlots = size_t{1} << kSlotBits;

struct Cache {
  std::unique_ptr<Entry>* slots = nullptr;
  size_t bytes = 0;
  size_t entries = 0;
  size_t hand = 0;  // clock hand for eviction
  uint64_t hits = 0;
  uint64_t misses = 0;

  ~Cache() { delete[] slots; }
};

// The slots pointer is a plain thread-local (no guard on the hit path); the
// Cache object that owns it is only touched on a miss.
thread_local std::unique_ptr<Entry>* tls_slots = nullptr;
thread_local Cache* tls_cache_for_stats = nullptr;

Cache& ThisThreadCache() {
  thread_local Cache cache;
  if (cache.slots == nullptr) {
    cache.slots = new std::unique_ptr<Entry>[kSlots];
    tls_slots = cache.slots;
    tls_cache_for_stats = &cache;
  }
  return cache;
}

size_t SlotOf(const Key& key) {
  uint64_t h = key.head * 0x9E3779B97F4A7C15 ^ key.tail ^
               (uint64_t{key.size} << 32) ^ key.seed;
  h *= 0xD6E8FEB86659FD93;
  return static_cast<size_t>(h >> (64 - kSlotBits));
}

void Evict(Cache& cache, size_t slot) {
  if (cache.slots[slot] == nullptr) return;
  cache.bytes -= cache.slots[slot]->Bytes();
  --cache.entries;
  cache.slots[slot].reset();
}

// The thread's last uncached block (larger than the budget), kept until the
// next call so that the reference returned stays valid.
thread_local std::unique_ptr<Entry> tls_uncached;

}  // namespace

const Filter& CachedFilter(absl::Span<const uint8_t> block,
                           const ReadOptions& options, size_t budget_bytes) {
  const Key key = KeyOf(block, options);
  const size_t slot = SlotOf(key);
  if (tls_slots != nullptr) {
    const Entry* e = tls_slots[slot].get();
    if (e != nullptr && e->key == key) {
      ++tls_cache_for_stats->hits;
      return e->filter;
    }
  }
  Cache& cache = ThisThreadCache();
  ++cache.misses;
  auto entry = std::make_unique<Entry>(key, block, options);
  const size_t cost = entry->Bytes();
  if (cost > budget_bytes) {
    tls_uncached = std::move(entry);
    return tls_uncached->filter;
  }
  Evict(cache, slot);
  // Make room, clock-wise (any slot but the one being filled).
  while (cache.bytes + cost > budget_bytes && cache.entries > 0) {
    cache.hand = (cache.hand + 1) & (kSlots - 1);
    if (cache.hand != slot) Evict(cache, cache.hand);
  }
  cache.bytes += cost;
  ++cache.entries;
  cache.slots[slot] = std::move(entry);
  return cache.slots[slot]->filter;
}

ProbeCacheStats ThisThreadProbeCacheStats() {
  ProbeCacheStats stats;
  if (tls_cache_for_stats == nullptr) return stats;
  stats.entries = tls_cache_for_stats->entries;
  stats.bytes = tls_cache_for_stats->bytes;
  stats.hits = tls_cache_for_stats->hits;
  stats.misses = tls_cache_for_stats->misses;
  return stats;
}

}  // namespace blockbloom::internal
