// Probe counters of the RocksDB adapter's readers: how many times the
// filters of each (column family, level of creation) were probed and how
// many answered "may match". The learned plan (src/rocksdb/learned_plan.h)
// spends bits where the probes are.
//
// The probe path must stay cheap (issue 33: at most 1 ns or 2% per probe)
// and must not share a cache line between threads: a counter shared by the
// readers of one table would bounce between cores on every Get. So each
// thread counts in a block of its own (a thread_local pointer, one
// load and two plain adds of a relaxed atomic, no read-modify-write
// instruction), and a reader of the counts sums the blocks of every live
// thread plus what exited threads left behind. A count read while a thread
// is adding may miss that thread's last few probes: the plan only needs
// ratios.
//
// Slots: the process has kSlots of them, handed out in ranges of
// kSlotsPerRange to each policy (CounterRange) and taken back when the
// policy and all its readers are gone. The next owner of a range starts from
// the counts it finds (a baseline), so nothing needs to be zeroed in other
// threads' blocks.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_PROBE_COUNTERS_H_
#define BLOCKBLOOM_SRC_ROCKSDB_PROBE_COUNTERS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace blockbloom::internal {

struct ProbeCount {
  uint64_t probes = 0;
  uint64_t positives = 0;
};

// A counter pair in a thread's block: written by that thread only.
struct alignas(16) ProbeSlot {
  std::atomic<uint64_t> probes{0};
  std::atomic<uint64_t> positives{0};
};

inline constexpr int kSlotsPerRange = 128;
inline constexpr int kRanges = 32;
inline constexpr int kSlots = kSlotsPerRange * kRanges;  // 64 KiB per thread

// This thread's block (kSlots slots), created on first use.
ProbeSlot* NewThreadProbeBlock();
inline thread_local ProbeSlot* thread_probe_block = nullptr;

// The probe path: one probe of the filter counted in `slot`.
inline void CountProbe(int slot, bool positive) {
  ProbeSlot* block = thread_probe_block;
  if (__builtin_expect(block == nullptr, 0)) block = NewThreadProbeBlock();
  ProbeSlot& s = block[slot];
  s.probes.store(s.probes.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
  s.positives.store(s.positives.load(std::memory_order_relaxed) + positive,
                    std::memory_order_relaxed);
}

// The counts of slots [first, first + n) summed over every thread.
std::vector<ProbeCount> SumProbeSlots(int first, int n);

// A policy's range of kSlotsPerRange slots. If all ranges are taken (more
// than kRanges live policies), the policy counts nothing: valid() is false
// and its readers count into a shared scrap range whose counts nobody reads.
class CounterRange {
 public:
  CounterRange();
  ~CounterRange();
  CounterRange(const CounterRange&) = delete;
  CounterRange& operator=(const CounterRange&) = delete;

  bool valid() const { return range_ >= 0; }
  // The process-wide slot of this range's slot `i` (0 .. kSlotsPerRange-1).
  int slot(int i) const { return first_ + i; }
  // Counts since this range was taken.
  std::vector<ProbeCount> Read() const;

 private:
  int range_;  // -1: none left
  int first_;
  std::vector<ProbeCount> baseline_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_PROBE_COUNTERS_H_
