// The reader of one RocksDB table's filter: a rocksdb::FilterBitsReader over
// a Filter probed in place, counting a sample of its probes by the table's
// origin (probe_counters.h) for the learned plan.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_READER_H_
#define BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_READER_H_

#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "src/levels/policy_state.h"
#include "src/levels/probe_counters.h"
#include "src/levels/range_heat.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/table_filter_builder.h"
#include "src/rocksdb/test_hooks.h"

namespace blockbloom::internal {

class TableFilterReader final : public rocksdb::FilterBitsReader {
 public:
  // Counts its probes in `slot_index` of `state`'s range and its filter
  // among the live ones there.
  TableFilterReader(Filter filter, std::shared_ptr<PolicyState> state,
                    int slot_index, uint64_t bytes)
      : filter_(std::move(filter)),
        state_(std::move(state)),
        slot_index_(slot_index),
        slot_(state_->Slot(slot_index)),
        bytes_(bytes) {
    state_->AddLive(slot_index_, static_cast<int64_t>(filter_.num_keys()),
                    static_cast<int64_t>(bytes_), 1);
  }
  ~TableFilterReader() override {
    state_->AddLive(slot_index_, -static_cast<int64_t>(filter_.num_keys()),
                    -static_cast<int64_t>(bytes_), -1);
  }

  bool MayMatch(const rocksdb::Slice& key) override {
    // Sampled first: the other probes return the filter's answer as it is
    // (probe_counters.h, SampleThisProbe).
    if (!SampleThisProbe()) return filter_.MayContain(View(key));
    return CountedMayMatch(key);
  }

  // The sampled probe, out of line: the common path above stays small.
  [[gnu::noinline]] bool CountedMayMatch(const rocksdb::Slice& key) {
    const bool may = filter_.MayContain(View(key));
    CountSampledProbe(slot_, may);
    // Hot ranges: the sampled probes' keys (range_heat.h).
    if (RangeHeat* heat = state_->heat()) {
      heat->Record(slot_index_ / kLevelSlots, View(key));
    }
    return may;
  }

  // MultiGet: up to 32 keys at a time. RocksDB spreads a batch over the
  // tables its keys fall in, so a reader mostly gets one to three keys per
  // call (db_bench's batches of 32 over a level of 20 tables: ~2). Below
  // kBatchFrom keys the single probe answers each key: the batch kernel's
  // setup (the keys' hashes gathered into an array, then prefetched) cost
  // more than the keys' probes, and a handful of independent probes
  // overlap their misses anyway (docs/BENCHMARKS.md, "The batch path's
  // cost"). From kBatchFrom on, the batch kernel's prefetching pays.
  void MayMatch(int num_keys, rocksdb::Slice** keys, bool* may_match) override {
    CountRocksDBBatchProbeCall();
    if (num_keys < kBatchFrom) {
      for (int i = 0; i < num_keys; ++i) {
        may_match[i] = filter_.MayContain(View(*keys[i]));
      }
    } else {
      ProbeBatch(num_keys, keys, may_match);
    }
    // The keys the single probes would sample (SampleThisProbe), found
    // from the countdown once per batch instead of asked per key
    // (docs/BENCHMARKS.md, "The batch path's cost").
    const uint32_t n = static_cast<uint32_t>(num_keys);
    uint32_t i = thread_probe_countdown;  // probes before the next sample
    if (__builtin_expect(i >= n, 1)) {
      thread_probe_countdown = i - n;
      return;
    }
    RangeHeat* heat = state_->heat();
    while (i < n) {
      CountSampledProbe(slot_, may_match[i]);  // draws the next interval
      if (heat != nullptr) {
        heat->Record(slot_index_ / kLevelSlots, View(*keys[i]));
      }
      i += 1 + thread_probe_countdown;
    }
    thread_probe_countdown = i - n;
  }

  // The fewest keys that go through the batch kernel.
  static constexpr int kBatchFrom = 8;

 private:
  [[gnu::noinline]] void ProbeBatch(int num_keys, rocksdb::Slice** keys,
                                    bool* may_match) const {
    constexpr int kChunk = 64;
    // Left uninitialized: zeroing kChunk views cost more than a few keys'
    // probes (docs/BENCHMARKS.md, "The batch path's cost").
    alignas(std::string_view) unsigned char
        storage[sizeof(std::string_view) * kChunk];
    auto* views = reinterpret_cast<std::string_view*>(storage);
    for (int start = 0; start < num_keys; start += kChunk) {
      const int n = num_keys - start < kChunk ? num_keys - start : kChunk;
      for (int i = 0; i < n; ++i) {
        new (&views[i]) std::string_view(View(*keys[start + i]));
      }
      filter_.MayContainBatch(absl::MakeConstSpan(views, n),
                              absl::MakeSpan(may_match + start, n));
    }
  }

  const Filter filter_;
  const std::shared_ptr<PolicyState> state_;
  const int slot_index_;
  const int slot_;
  const uint64_t bytes_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_TABLE_FILTER_READER_H_
