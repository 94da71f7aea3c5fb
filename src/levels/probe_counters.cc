#include "src/levels/probe_counters.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace blockbloom::internal {
namespace {

// Range 0 is the scrap range of policies that found no free range.
constexpr int kScrapRange = 0;

struct Registry {
  std::mutex mu;
  std::vector<ProbeSlot*> blocks;           // of live threads
  std::vector<ProbeCount> retired{kSlots};  // left by exited threads
  bool taken[kRanges] = {true};             // the scrap range is never free
};

Registry& GetRegistry() {
  static Registry* const registry = new Registry;  // never destroyed: threads
                                                   // may exit after main
  return *registry;
}

// Owns this thread's block: folds its counts into `retired` on thread exit.
struct BlockOwner {
  std::unique_ptr<ProbeSlot[]> block{new ProbeSlot[kSlots]};
  BlockOwner() {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.blocks.push_back(block.get());
  }
  ~BlockOwner() {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (int i = 0; i < kSlots; ++i) {
      r.retired[i].probes += block[i].probes.load(std::memory_order_relaxed);
      r.retired[i].positives +=
          block[i].positives.load(std::memory_order_relaxed);
    }
    r.blocks.erase(std::find(r.blocks.begin(), r.blocks.end(), block.get()));
    thread_probe_block = nullptr;
  }
};

std::vector<ProbeCount> SumLocked(Registry& r, int first, int n) {
  std::vector<ProbeCount> out(n);
  for (int i = 0; i < n; ++i) out[i] = r.retired[first + i];
  for (const ProbeSlot* block : r.blocks) {
    for (int i = 0; i < n; ++i) {
      out[i].probes += block[first + i].probes.load(std::memory_order_relaxed);
      out[i].positives +=
          block[first + i].positives.load(std::memory_order_relaxed);
    }
  }
  return out;
}

}  // namespace

uint64_t FirstSampleState() {
  static std::atomic<uint64_t> threads{0};
  return (threads.fetch_add(1, std::memory_order_relaxed) + 1) *
         0x9E3779B97F4A7C15ULL;
}

void SampleEveryProbeForTest(bool every) {
  thread_sample_every_probe = every;
  thread_probe_countdown = 0;
}

ProbeSlot* NewThreadProbeBlock() {
  thread_local BlockOwner owner;
  thread_probe_block = owner.block.get();
  return thread_probe_block;
}

std::vector<ProbeCount> SumProbeSlots(int first, int n) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return SumLocked(r, first, n);
}

CounterRange::CounterRange() : range_(-1), first_(kScrapRange) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (int i = 0; i < kRanges; ++i) {
    if (!r.taken[i]) {
      r.taken[i] = true;
      range_ = i;
      first_ = i * kSlotsPerRange;
      baseline_ = SumLocked(r, first_, kSlotsPerRange);
      return;
    }
  }
}

CounterRange::~CounterRange() {
  if (range_ < 0) return;
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.taken[range_] = false;
}

std::vector<ProbeCount> CounterRange::Read() const {
  if (!valid()) return std::vector<ProbeCount>(kSlotsPerRange);
  std::vector<ProbeCount> now = SumProbeSlots(first_, kSlotsPerRange);
  for (int i = 0; i < kSlotsPerRange; ++i) {
    now[i].probes -= baseline_[i].probes;
    now[i].positives -= baseline_[i].positives;
  }
  return now;
}

}  // namespace blockbloom::internal
