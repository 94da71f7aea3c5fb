// blockbloom::CountingFilter: a Bloom filter that supports Remove, with small
// saturating counters in place of bits, still one 64-byte line per key.
//
//   absl::StatusOr<blockbloom::CountingFilter> sessions =
//       blockbloom::CountingFilter::Create(/*expected_items=*/100'000, 0.01);
//   if (!sessions.ok()) return sessions.status();
//   sessions->Add("session:42");
//   sessions->Remove("session:42");   // only for keys that were added!
//
// Layout: blockbloom's layout with 8-bit lanes (src/core/layout.h with w = 8):
// a block is 16 lanes x 8 positions = 128 positions, each a 4-bit counter,
// so a block is still one 64-byte cache line and a key touches exactly one.
// A key's k positions are those a w = 8 filter would set (same hash, lane
// sets and bit formula). The positions with a non-zero counter form exactly
// a w = 8 blockbloom filter, which AppendMembershipFilter writes in the
// filter block format for readers that only query.
//
// Cost: 4 bits of counter per position, and a 128-position block spreads
// keys less evenly than a 512-bit one: 1% false positives take 10.8
// positions, 43 bits, per key (an ordinary BloomFilter: 9.9 bits; 0.1%: 19
// positions, 76 bits). A query still reads one cache line, but tests 4-bit
// counters instead of bits: several times a BloomFilter query in cache
// (docs/BENCHMARKS.md, "In-memory filters").
//
// Risks (the classic counting-Bloom caveats, tested in tests/memory):
// - Removing a key that was never added, but that the filter answers "may
//   contain" for (a false positive), decrements counters of keys that were
//   added: some of them then answer "absent": FALSE NEGATIVES. Remove only
//   keys you know you added (e.g. from your own record of them). Remove of
//   a key the filter answers "absent" for is refused and changes nothing.
// - Counters saturate at 15 (a position shared by 15+ additions: a key added
//   many times, or a block flooded by chosen keys). A saturated counter
//   never goes down again, since its true count is unknown: the keys using
//   it can no longer be fully removed (they stay as false positives), but
//   none is ever lost. SaturatedCounters() tells how many there are. With a
//   random seed and distinct keys at the designed load, saturation is
//   vanishingly rare (a position holds ~0.6 additions on average).
// - Adding the same key twice needs two Removes (counters count additions).
//
// Not thread-safe: one thread at a time for Add/Remove/Clear; const methods
// may run concurrently with each other.
#ifndef BLOCKBLOOM_COUNTING_FILTER_H_
#define BLOCKBLOOM_COUNTING_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "blockbloom/format.h"
#include "blockbloom/internal/filter_ref.h"
#include "blockbloom/sizing.h"

namespace blockbloom {

namespace internal {
class AlignedBuffer;
}  // namespace internal

struct CountingFilterOptions {
  // The hash seed; unset: NewRandomSeed() (see BloomFilterOptions::seed).
  // A random secret seed keeps attackers from flooding one block to saturate
  // its counters.
  std::optional<uint64_t> seed;
};

// The smallest counting-filter shape (lane_bits = 8) whose expected
// false-positive rate with `expected_items` distinct keys is at most
// `fp_rate`, with its optimal k. The errors of ShapeForFpRate.
absl::StatusOr<FilterShape> CountingShapeForFpRate(uint64_t expected_items,
                                                   double fp_rate);

class CountingFilter {
 public:
  static constexpr int kLaneBits = 8;   // positions per lane
  static constexpr int kMaxCount = 15;  // 4-bit counters saturate here

  // Sized by CountingShapeForFpRate. Its errors, or ResourceExhausted.
  static absl::StatusOr<CountingFilter> Create(
      uint64_t expected_items, double fp_rate,
      const CountingFilterOptions& options = {});
  // Exactly `shape`, which must have lane_bits == 8 (InvalidArgument
  // otherwise, or if the shape is invalid).
  static absl::StatusOr<CountingFilter> CreateWithShape(
      const FilterShape& shape, const CountingFilterOptions& options = {});

  CountingFilter(CountingFilter&&) noexcept;
  CountingFilter& operator=(CountingFilter&&) noexcept;
  CountingFilter(const CountingFilter&) = delete;
  CountingFilter& operator=(const CountingFilter&) = delete;
  ~CountingFilter();

  // Increments the key's k counters (saturating at kMaxCount). Returns true
  // if one of them was 0: the key was certainly not present before.
  bool Add(std::string_view key);
  bool AddHash(uint64_t hash);

  // If MayContain(key): decrements the key's counters that are not
  // saturated, and returns true. Otherwise returns false and changes
  // nothing. See the risks above: only remove keys that were added.
  bool Remove(std::string_view key);
  bool RemoveHash(uint64_t hash);

  // False if the key is certainly not present (never added, or removed as
  // many times as added, barring the risks above).
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const;

  // The smallest of the key's k counters: an upper bound on how many times
  // the key was added and not removed (0 if certainly absent), capped at
  // kMaxCount. Like a count-min sketch, other keys can only inflate it.
  int CountUpperBound(std::string_view key) const;

  // Removes everything.
  void Clear();

  // Add calls minus Remove calls that returned true.
  uint64_t num_items() const { return items_; }
  // Distinct keys present, estimated from the number of non-zero counters
  // (BloomFilter::ApproximateCount's estimator with w = 8).
  uint64_t ApproximateCount() const;
  // The false-positive rate from the current counters (the exact rate given
  // which positions are non-zero; BloomFilter::EstimatedFpRate). Reads every
  // block.
  double EstimatedFpRate() const;
  // Counters stuck at kMaxCount. Reads every block.
  uint64_t SaturatedCounters() const;

  // Writes the membership (non-zero counters as set bits) as an ordinary
  // filter block with 8-bit lanes, num_keys = ApproximateCount(): OpenFilter
  // gives a read-only Filter answering exactly what MayContain answers,
  // 16 bytes per block instead of 64. The counters themselves are not
  // serialized. The errors of AppendFilter.
  absl::Status AppendMembershipFilter(
      std::string* dst, const WriteOptions& write_options = {}) const;

  const FilterShape& shape() const { return shape_; }
  uint64_t seed() const { return ref_.seed; }
  // 64 bytes per block.
  uint64_t size_bytes() const { return shape_.num_blocks * 64; }

 private:
  CountingFilter(const FilterShape& shape, uint64_t seed,
                 std::unique_ptr<internal::AlignedBuffer> counters);
  int Counter(uint64_t position) const;
  template <typename Fn>
  void ForEachBlockCounts(Fn fn) const;

  FilterShape shape_;
  internal::FilterRef ref_;  // geometry for the layout; bits unused
  std::unique_ptr<internal::AlignedBuffer> counters_;
  uint64_t items_ = 0;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_COUNTING_FILTER_H_
