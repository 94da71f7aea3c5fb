// Probe counters of an engine adapter's readers (the RocksDB adapter's): how
// many times the filters of each (column family, level of creation) were probed
// and how many answered "may match". The learned plan
// (src/levels/learned_plan.h) spends bits where the probes are.
//
// The probe path must stay cheap (issue 33: at most 1 ns or 2% per probe)
// and must not share a cache line between threads: a counter shared by the
// readers of one table would bounce between cores on every Get. So
//  - probes are SAMPLED: a thread-local countdown, decremented by each probe
//    (five instructions: load, decrement and store a thread-local word,
//    test, branch),
//    lets about one probe in kSampleEvery through, at random intervals of
//    1 .. 2 kSampleEvery - 1 (so that no periodic pattern of probes, such as
//    a fixed number of filters per Get, is sampled at one phase only); a
//    sampled probe counts kSampleEvery probes, and kSampleEvery positives
//    if it answered "may match". Counting every probe cost several times
//    that (bench/rocksdb/counter_cost; docs/BENCHMARKS.md, "The counters'
//    cost per probe");
//  - each thread counts in a block of its own (plain adds of relaxed
//    atomics, no read-modify-write instruction), and a reader of the counts
//    sums the blocks of every live thread plus what exited threads left.
// Counts are estimates (about +-sqrt(kSampleEvery * n) for n probes) and a
// count read while a thread adds may miss its last sample: the plan only
// needs ratios of thousands of probes.
//
// Slots: the process has kSlots of them, handed out in ranges of
// kSlotsPerRange to each policy (CounterRange) and taken back when the
// policy and all its readers are gone. The next owner of a range starts from
// the counts it finds (a baseline), so nothing needs to be zeroed in other
// threads' blocks.
#ifndef BLOCKBLOOM_SRC_LEVELS_PROBE_COUNTERS_H_
#define BLOCKBLOOM_SRC_LEVELS_PROBE_COUNTERS_H_

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

inline constexpr int kSampleEvery = 32;

// This thread's block (kSlots slots), created on first use.
ProbeSlot* NewThreadProbeBlock();
inline thread_local ProbeSlot* thread_probe_block = nullptr;
// Probes until the next sample (0 on a new thread: its first probe is one).
// Read on every probe, so in the initial-exec TLS model: in this
// position-independent library the default (global-dynamic) model makes
// every access a call to __tls_get_addr, which with the registers it makes
// the caller save cost more instructions than the rest of the RocksDB
// reader's own (docs/BENCHMARKS.md, "The single Get's cost"). Initial-exec is
// an offset from the thread pointer. A library loaded later by dlopen takes its
// initial-exec variables from the static TLS space glibc keeps free for
// them (glibc.rtld.optional_static_tls, 512 bytes by default): these 4
// bytes fit.
[[gnu::tls_model(
    "initial-exec")]] inline thread_local uint32_t thread_probe_countdown = 0;
// The sampler's xorshift state (0: not seeded yet) and the tests' switch.
inline thread_local uint64_t thread_sample_state = 0;
inline thread_local bool thread_sample_every_probe = false;
// A new thread's first sampler state: the same in every run (reproducible
// counts), another for each thread.
uint64_t FirstSampleState();

// The sampled probe: counts it, draws the next interval. Defined here so
// that it is compiled with its caller, in the caller's code model: this
// library is position-independent (it goes into shared objects), where a
// thread-local costs a second instruction per access, and an adapter linked
// into a program is not. noinline keeps it off the path of the probes that
// are not sampled.
[[gnu::noinline]] inline void CountSampledProbe(int slot, bool positive) {
  ProbeSlot* block = thread_probe_block;
  if (block == nullptr) block = NewThreadProbeBlock();
  const uint64_t weight = thread_sample_every_probe ? 1 : kSampleEvery;
  ProbeSlot& s = block[slot];
  s.probes.store(s.probes.load(std::memory_order_relaxed) + weight,
                 std::memory_order_relaxed);
  s.positives.store(
      s.positives.load(std::memory_order_relaxed) + (positive ? weight : 0),
      std::memory_order_relaxed);
  if (thread_sample_every_probe) {
    thread_probe_countdown = 0;
    return;
  }
  // The next interval, uniform in 1 .. 2 kSampleEvery - 1 (mean
  // kSampleEvery): the countdown counts the probes skipped before it.
  uint64_t x = thread_sample_state;
  if (x == 0) x = FirstSampleState();
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  thread_sample_state = x;
  // Multiply-shift instead of a modulo (a division: tens of cycles).
  thread_probe_countdown =
      static_cast<uint32_t>(((x >> 32) * uint64_t{2 * kSampleEvery - 1}) >> 32);
}

// Whether this probe is the sampled one (and the countdown moves on). A
// reader asks BEFORE it probes, so that the other probes return the filter's
// answer directly (a tail call) and only the sampled one is counted
// (CountSampledProbe) after it: through RocksDB's FilterBitsReader::MayMatch
// that saves instructions on every probe (docs/BENCHMARKS.md, "The
// counters' cost per probe").
inline bool SampleThisProbe() {
  return __builtin_expect(thread_probe_countdown-- == 0, 0);
}

// The probe path: one probe of the filter counted in `slot`.
inline void CountProbe(int slot, bool positive) {
  if (SampleThisProbe()) CountSampledProbe(slot, positive);
}

// For tests: every probe sampled (true) or kSampleEvery (false), in this
// thread.
void SampleEveryProbeForTest(bool every);

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

#endif  // BLOCKBLOOM_SRC_LEVELS_PROBE_COUNTERS_H_
