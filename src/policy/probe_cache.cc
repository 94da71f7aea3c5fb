#include "src/policy/probe_cache.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "src/core/aligned_buffer.h"
#include "src/core/filter_access.h"

namespace blockbloom::internal {

// An opened block, reduced to what a probe needs, in ONE allocation (malloc's:
// 64-byte alignment costs a slower allocator path on every miss) so that a hit
// touches a few adjacent cache lines: the head and the FilterRef (first line),
// then a copy of the verified bits, or the fingerprint set's index (built from
// the verified bytes). Nothing refers to the caller's bytes. A block that could
// not be read probes as "match all".
struct ProbeCacheEntry : ProbeCacheEntryHead {
  FilterRef filter_ref = {};
  const uint8_t* address = nullptr;  // where the block was seen (its bucket)
  size_t bytes = 0;                  // of the allocation

  static ProbeCacheEntry* Create(const ProbeCacheKey& key,
                                 absl::Span<const uint8_t> block,
                                 const ReadOptions& options) {
    absl::StatusOr<Filter> filter = OpenFilter(block, options);
    if (filter.ok()) {
      // The kind's copy (src/core/kind.h): the bits, a set's index, a
      // ribbon's view and bits.
      const KindOps& ops = FilterAccess::Ops(*filter);
      const FilterRef& ref = FilterAccess::Ref(*filter);
      const size_t data = ops.copy_bytes(ref, filter->bits());
      ProbeCacheEntry* e =
          Allocate(key, block.data(), kDataAt + data, std::nothrow);
      if (e != nullptr) {
        e->probe_key = FilterAccess::ProbeKey(*filter);
        e->filter_ref = ops.copy(ref, filter->bits(),
                                 reinterpret_cast<uint8_t*>(e) + kDataAt);
        return e;
      }
      // No memory for the copy: answer "may match", never wrongly.
    }
    static const Filter kMatchAll = Filter::MatchAll();
    ProbeCacheEntry* e = Allocate(key, block.data(), kDataAt, std::nothrow);
    if (e == nullptr) throw std::bad_alloc();
    e->probe_key = FilterAccess::ProbeKey(kMatchAll);
    e->filter_ref = FilterAccess::Ref(kMatchAll);
    return e;
  }

  static void Destroy(ProbeCacheEntry* e) {
    e->~ProbeCacheEntry();
    ::operator delete(e);
  }

  // What the entry costs, as charged to the budget (with the allocator's
  // overhead, roughly).
  size_t Bytes() const { return bytes + 32; }

 private:
  static constexpr size_t kDataAt =
      (sizeof(ProbeCacheEntryHead) + sizeof(FilterRef) + 2 * sizeof(size_t) +
       7) /
      8 * 8;

  static ProbeCacheEntry* Allocate(const ProbeCacheKey& key,
                                   const uint8_t* address, size_t bytes,
                                   const std::nothrow_t& nothrow) {
    void* p = ::operator new(bytes, nothrow);  // malloc's 16-byte alignment
    if (p == nullptr) return nullptr;
    auto* e = new (p) ProbeCacheEntry;
    e->key = key;
    e->ref = &e->filter_ref;
    e->address = address;
    e->bytes = bytes;
    return e;
  }
};
static_assert(sizeof(ProbeCacheEntry) <= 104);

namespace {

constexpr size_t kWays = kProbeCacheWays;
constexpr size_t kFirstBuckets = 1024;
constinit ProbeCacheEntryHead* kNoSlots[2 * kWays] = {};

ProbeCacheEntry* EntryOf(ProbeCacheEntryHead* head) {
  return static_cast<ProbeCacheEntry*>(head);
}

}  // namespace

constinit thread_local ProbeCacheEntryHead** tls_probe_cache_slots = kNoSlots;
// With the shared bucket of nulls, every address must land on bucket 0:
// a shift of 64 would be undefined, so the product is shifted by 63 and
// the table has a second, empty bucket behind it.
constinit thread_local int tls_probe_cache_shift = 63;

namespace {

struct Cache {
  std::vector<ProbeCacheEntryHead*> slots;  // owning; buckets of kWays
  size_t bytes = 0;
  size_t count = 0;
  size_t hand = 0;  // clock hand for eviction
  uint64_t misses = 0;

  ~Cache() {
    tls_probe_cache_slots = kNoSlots;
    tls_probe_cache_shift = 63;
    for (ProbeCacheEntryHead* h : slots) {
      if (h != nullptr) ProbeCacheEntry::Destroy(EntryOf(h));
    }
  }

  int shift() const {
    return 64 - std::countr_zero(slots.size() / kWays);  // buckets: 2^k
  }
  ProbeCacheEntryHead** Bucket(const uint8_t* address) {
    return ProbeCacheBucket(slots.data(), shift(), address);
  }

  void Publish() {
    tls_probe_cache_slots = slots.data();
    tls_probe_cache_shift = shift();
  }

  void Evict(ProbeCacheEntryHead** slot) {
    if (*slot == nullptr) return;
    ProbeCacheEntry* e = EntryOf(*slot);
    bytes -= e->Bytes();
    --count;
    ProbeCacheEntry::Destroy(e);
    *slot = nullptr;
  }

  // Puts `h` first in its bucket, the others one way back; the last one
  // goes.
  void PushFront(ProbeCacheEntryHead* h) {
    ProbeCacheEntryHead** bucket = Bucket(EntryOf(h)->address);
    Evict(&bucket[kWays - 1]);
    std::move_backward(bucket, bucket + kWays - 1, bucket + kWays);
    bucket[0] = h;
  }

  // Twice the buckets, every entry placed again by its address.
  void Grow() {
    std::vector<ProbeCacheEntryHead*> old(slots.size() * 2, nullptr);
    old.swap(slots);
    // Oldest first, so that each bucket keeps its most recent entries.
    for (size_t way = kWays; way-- > 0;) {
      for (size_t b = 0; b < old.size(); b += kWays) {
        if (old[b + way] != nullptr) PushFront(old[b + way]);
      }
    }
    Publish();
  }
};

Cache& ThisThreadCache() {
  thread_local Cache cache;
  if (cache.slots.empty()) {
    cache.slots.assign(kFirstBuckets * kWays, nullptr);
    cache.Publish();
  }
  return cache;
}

// The thread's last uncached block (larger than the budget), kept until the
// next call so that the reference returned stays valid.
struct EntryDestroyer {
  void operator()(ProbeCacheEntry* e) const { ProbeCacheEntry::Destroy(e); }
};
thread_local std::unique_ptr<ProbeCacheEntry, EntryDestroyer> tls_uncached;

}  // namespace

const ProbeCacheEntryHead& CachedEntrySlow(absl::Span<const uint8_t> block,
                                           const ProbeCacheConfig& config) {
  // Blocks under 8 bytes (never LevelDB's): their bytes, zero-padded, twice.
  ProbeCacheKey key;
  if (block.size() >= 8) {
    key = ProbeCacheKeyOf(block, config);
  } else {
    uint64_t bytes = 0;
    std::memcpy(&bytes, block.data(), block.size());
    key.word = bytes ^ std::rotl(bytes, 1) ^ block.size() ^ config.settings;
  }
  Cache& cache = ThisThreadCache();
  ProbeCacheEntryHead** bucket = cache.Bucket(block.data());
  for (size_t way = 0; way < kWays; ++way) {
    ProbeCacheEntryHead* e = bucket[way];
    if (e != nullptr && e->key.word == key.word) {
      // Into the ways the hit path looks at.
      if (way >= 2) std::swap(bucket[1], bucket[way]);
      return *e;
    }
  }
  ++cache.misses;
  std::unique_ptr<ProbeCacheEntry, EntryDestroyer> entry(
      ProbeCacheEntry::Create(key, block, config.read));
  const size_t cost = entry->Bytes();
  if (cost > config.budget_bytes) {
    tls_uncached = std::move(entry);
    return *tls_uncached;
  }
  // Grow when the bucket is full (or on average one entry per bucket), if
  // the budget has room for twice the table: otherwise filters that share
  // a bucket would keep evicting each other, whatever the budget left.
  const size_t table_bytes = sizeof(ProbeCacheEntryHead*) * cache.slots.size();
  if ((cache.Bucket(block.data())[kWays - 1] != nullptr ||
       kWays * (cache.count + 1) > cache.slots.size()) &&
      cache.bytes + 2 * table_bytes + cost <= config.budget_bytes) {
    cache.Grow();
  }
  // Make room, clock-wise.
  while (cache.bytes + cost > config.budget_bytes && cache.count > 0) {
    cache.hand = (cache.hand + 1) % cache.slots.size();
    cache.Evict(&cache.slots[cache.hand]);
  }
  cache.bytes += cost;
  ++cache.count;
  ProbeCacheEntry* e = entry.release();
  cache.PushFront(e);
  return *e;
}

bool CachedMayContainSlow(absl::Span<const uint8_t> block,
                          const ProbeCacheConfig& config,
                          std::string_view key) {
  const ProbeCacheEntryHead& e = CachedEntrySlow(block, config);
  return e.probe_key(*e.ref, key);
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
