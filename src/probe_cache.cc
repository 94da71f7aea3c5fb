#include "src/probe_cache.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace blockbloom::internal {

// An opened block: the filter answers from `copy`, which it was verified
// from (or, for a block that failed, a match-all filter).
struct ProbeCacheEntry : ProbeCacheEntryHead {
  ProbeCacheEntry(const ProbeCacheKey& k, absl::Span<const uint8_t> block,
                  const ReadOptions& options)
      : address(block.data()),
        copy(block.begin(), block.end()),
        filter(OpenFilterOrMatchAll(copy, options)) {
    key = k;
    ProbeCacheEntryHead::filter = &this->filter;
    probe_key = this->filter.probe_key_fn();
    ref = &this->filter.ref();
  }
  // What the entry costs, as charged to the budget (with the allocator's
  // overhead, roughly).
  size_t Bytes() const {
    return sizeof(*this) + copy.capacity() + filter.owned_bytes() + 64;
  }

  const uint8_t* address;  // where the block was seen (picks its slots)
  std::vector<uint8_t> copy;
  Filter filter;
};

namespace {

constexpr size_t kFirstSlots = 1024;
constinit ProbeCacheEntryHead* const kNoSlots[2] = {nullptr, nullptr};

ProbeCacheEntry* EntryOf(ProbeCacheEntryHead* head) {
  return static_cast<ProbeCacheEntry*>(head);
}

}  // namespace

constinit thread_local ProbeCacheEntryHead* const* tls_probe_cache_slots =
    kNoSlots;
constinit thread_local size_t tls_probe_cache_mask = 0;

namespace {

struct Cache {
  std::vector<ProbeCacheEntryHead*> slots;  // owning
  size_t bytes = 0;
  size_t count = 0;
  size_t hand = 0;  // clock hand for eviction
  uint64_t misses = 0;

  ~Cache() {
    tls_probe_cache_slots = kNoSlots;
    tls_probe_cache_mask = 0;
    for (ProbeCacheEntryHead* h : slots) delete EntryOf(h);
  }

  void Publish() {
    tls_probe_cache_slots = slots.data();
    tls_probe_cache_mask = slots.size() - 1;
  }

  void Evict(size_t slot) {
    if (slots[slot] == nullptr) return;
    ProbeCacheEntry* e = EntryOf(slots[slot]);
    bytes -= e->Bytes();
    --count;
    delete e;
    slots[slot] = nullptr;
  }

  // Twice the slots, every entry placed again by its address.
  void Grow() {
    std::vector<ProbeCacheEntryHead*> old(slots.size() * 2, nullptr);
    old.swap(slots);
    const size_t mask = slots.size() - 1;
    for (ProbeCacheEntryHead* h : old) {
      if (h == nullptr) continue;
      const size_t s = ProbeCacheSlot(EntryOf(h)->address, mask);
      if (slots[s] == nullptr) {
        slots[s] = h;
      } else if (slots[s ^ 1] == nullptr) {
        slots[s ^ 1] = h;
      } else {
        bytes -= EntryOf(h)->Bytes();
        --count;
        delete EntryOf(h);
      }
    }
    Publish();
  }
};

Cache& ThisThreadCache() {
  thread_local Cache cache;
  if (cache.slots.empty()) {
    cache.slots.assign(kFirstSlots, nullptr);
    cache.Publish();
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
  Cache& cache = ThisThreadCache();
  size_t slot = ProbeCacheSlot(block.data(), cache.slots.size() - 1);
  // Blocks under 8 bytes (never LevelDB's) skip the inline path.
  for (size_t s : {slot, slot ^ 1}) {
    if (cache.slots[s] != nullptr && SameKey(cache.slots[s]->key, key)) {
      return EntryOf(cache.slots[s])->filter;
    }
  }
  ++cache.misses;
  auto entry = std::make_unique<ProbeCacheEntry>(key, block, config.read);
  const size_t cost = entry->Bytes();
  if (cost > config.budget_bytes) {
    tls_uncached = std::move(entry);
    return tls_uncached->filter;
  }
  if (4 * (cache.count + 1) > cache.slots.size()) {
    cache.Grow();
    slot = ProbeCacheSlot(block.data(), cache.slots.size() - 1);
  }
  // The newest entry takes the first way; the one there moves to the
  // second, whose occupant goes.
  cache.Evict(slot ^ 1);
  std::swap(cache.slots[slot], cache.slots[slot ^ 1]);
  // Make room, clock-wise (any slot but the pair being filled).
  while (cache.bytes + cost > config.budget_bytes && cache.count > 0) {
    cache.hand = (cache.hand + 1) & (cache.slots.size() - 1);
    if ((cache.hand | 1) != (slot | 1)) cache.Evict(cache.hand);
  }
  cache.bytes += cost;
  ++cache.count;
  const Filter& filter = entry->filter;
  cache.slots[slot] = entry.release();
  return filter;
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
