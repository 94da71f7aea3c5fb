// What the RocksDB adapter's probe counters (src/levels/probe_counters.h)
// add to a probe: the same absent-key probes of one filter, with and without
// CountProbe after each (--mode=plain|count: a bare loop over
// Filter::MayContain; --mode=reader_plain|reader: through RocksDB's
// FilterBitsReader interface as RocksDB calls it, the adapter's own reader
// against the same reader without counters), timed here (--mode=both: best
// of --rounds, interleaved) and counted in instructions under callgrind:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null
//       counter_cost --mode=plain --probes=1000000 --rounds=1   (one line)
// and the same with --mode=count; the difference of the two totals over
// --probes is the counters' instructions per probe. --hot_ranges: the
// adapter's reader is a learned policy's, whose sampled probes also keep
// their keys (src/levels/range_heat.h).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/rocksdb.h"
#include "src/levels/probe_counters.h"
#include "src/rocksdb/filter_bits.h"

ABSL_FLAG(std::string, mode, "both",
          "plain, count, reader_plain, reader, or both (timed)");
ABSL_FLAG(int, keys, 50'000, "keys in the filter (10 bits/key: 64 KiB)");
ABSL_FLAG(int, probes, 10'000'000, "absent-key probes per round");
ABSL_FLAG(int, rounds, 5, "rounds; the best is reported");
ABSL_FLAG(
    bool, hot_ranges, false,
    "the adapter's reader of a learned policy with hot ranges "
    "(FilterPolicy::LevelOptions::hot_ranges: its sampled probes also keep "
    "their keys), not of a plain one");

namespace {

using blockbloom::Filter;

// The probe loop; `count` is a template argument so that the plain loop has
// no trace of the counters.
template <bool kCount>
uint64_t Probe(const Filter& filter, const std::vector<std::string>& keys,
               int probes, int slot) {
  uint64_t positives = 0;
  const size_t n = keys.size();
  for (int i = 0; i < probes; ++i) {
    const bool may = filter.MayContain(keys[static_cast<size_t>(i) % n]);
    if constexpr (kCount) blockbloom::internal::CountProbe(slot, may);
    positives += may;
  }
  return positives;
}

// The adapter's reader without the counters (src/rocksdb/rocksdb.cc).
class PlainReader final : public rocksdb::FilterBitsReader {
 public:
  explicit PlainReader(Filter filter) : filter_(std::move(filter)) {}
  bool MayMatch(const rocksdb::Slice& key) override {
    return filter_.MayContain(std::string_view(key.data(), key.size()));
  }

 private:
  const Filter filter_;
};

uint64_t ProbeReader(rocksdb::FilterBitsReader* reader,
                     const std::vector<std::string>& keys, int probes) {
  uint64_t positives = 0;
  const size_t n = keys.size();
  for (int i = 0; i < probes; ++i) {
    positives += reader->MayMatch(keys[static_cast<size_t>(i) % n]);
  }
  return positives;
}

double TimeReader(rocksdb::FilterBitsReader* reader,
                  const std::vector<std::string>& keys, int probes,
                  uint64_t* positives) {
  const auto start = std::chrono::steady_clock::now();
  *positives = ProbeReader(reader, keys, probes);
  const std::chrono::duration<double, std::nano> took =
      std::chrono::steady_clock::now() - start;
  return took.count() / probes;
}

template <bool kCount>
double Time(const Filter& filter, const std::vector<std::string>& keys,
            int probes, int rounds, int slot, uint64_t* positives) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    *positives = Probe<kCount>(filter, keys, probes, slot);
    const std::chrono::duration<double, std::nano> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / probes);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int n = absl::GetFlag(FLAGS_keys);
  const int probes = absl::GetFlag(FLAGS_probes);
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  blockbloom::FilterOptions options;
  options.bits_per_key = 10;
  blockbloom::FilterBuilder builder =
      *blockbloom::FilterBuilder::Create(options);
  for (int i = 0; i < n; ++i) builder.Add(absl::StrFormat("user%010d", 2 * i));
  const Filter filter = *builder.Finish();
  std::vector<std::string> absent;
  for (int i = 0; i < 4096; ++i) {
    absent.push_back(absl::StrFormat("user%010d", 2 * i * 7 + 1));
  }
  blockbloom::internal::CounterRange range;
  const int slot = range.slot(5);
  // The same filter as a block the adapter wrote (format 4.1, with its
  // origin), opened by the adapter and by the plain reader.
  blockbloom::WriteOptions write;
  write.origin = {.level = 3, .bottommost = false, .group = 1};
  const std::string block = *blockbloom::SerializeFilter(filter, write);
  blockbloom::FilterPolicy::Options policy_options;
  policy_options.bits_per_key = 10;
  policy_options.levels.level_aware = absl::GetFlag(FLAGS_hot_ranges);
  policy_options.levels.level_learned = absl::GetFlag(FLAGS_hot_ranges);
  auto policy = *blockbloom::NewRocksDBFilterPolicy(policy_options);
  std::unique_ptr<rocksdb::FilterBitsReader> counted(
      policy->GetFilterBitsReader(block));
  std::unique_ptr<rocksdb::FilterBitsReader> plain_reader(
      new PlainReader(*blockbloom::OpenFilter(blockbloom::AsBytes(block))));
  uint64_t positives = 0;
  if (mode == "reader_plain") {
    positives = ProbeReader(plain_reader.get(), absent, probes);
  } else if (mode == "reader") {
    positives = ProbeReader(counted.get(), absent, probes);
  } else if (mode == "plain") {
    positives = Probe<false>(filter, absent, probes, slot);
  } else if (mode == "count") {
    positives = Probe<true>(filter, absent, probes, slot);
  } else {
    // Interleaved, so that both see the same machine state.
    double plain = 1e30, count = 1e30;
    for (int r = 0; r < rounds; ++r) {
      plain = std::min(
          plain, Time<false>(filter, absent, probes, 1, slot, &positives));
      count = std::min(count,
                       Time<true>(filter, absent, probes, 1, slot, &positives));
    }
    std::printf(
        "filter %zu bytes, %d probes x %d rounds: plain %.3f ns/probe, "
        "counted %.3f ns/probe, counters +%.3f ns (%.1f%%)\n",
        filter.bits().size(), probes, rounds, plain, count, count - plain,
        100.0 * (count - plain) / plain);
    double rplain = 1e30, rcount = 1e30;
    for (int r = 0; r < rounds; ++r) {
      rplain = std::min(
          rplain, TimeReader(plain_reader.get(), absent, probes, &positives));
      rcount = std::min(rcount,
                        TimeReader(counted.get(), absent, probes, &positives));
    }
    std::printf(
        "through FilterBitsReader::MayMatch: without counters %.3f ns/probe, "
        "the adapter's reader %.3f ns/probe, counters +%.3f ns (%.1f%%)\n",
        rplain, rcount, rcount - rplain, 100.0 * (rcount - rplain) / rplain);
  }
  const auto in_slot = range.Read()[5];
  std::printf("positives %llu, counted probes %llu\n",
              static_cast<unsigned long long>(positives),
              static_cast<unsigned long long>(in_slot.probes));
  return 0;
}
