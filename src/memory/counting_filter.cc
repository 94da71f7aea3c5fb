#include "blockbloom/counting_filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/memory/fill_stats.h"

namespace blockbloom {
namespace {

constexpr uint64_t kBlockBytes = 64;  // 128 positions x 4 bits
constexpr int kPositionsPerBlock = 16 * CountingFilter::kLaneBits;

double BestRate(uint64_t n, uint64_t blocks, int* k) {
  *k = OptimalNumProbes(n, blocks, CountingFilter::kLaneBits).value_or(1);
  return EstimatedFpRate({blocks, *k, CountingFilter::kLaneBits}, n)
      .value_or(1.0);
}

}  // namespace

absl::StatusOr<FilterShape> CountingShapeForFpRate(uint64_t expected_items,
                                                   double fp_rate) {
  if (expected_items == 0) {
    return absl::InvalidArgumentError(
        "expected_items must be positive to size a counting filter");
  }
  if (!(fp_rate > 0 && fp_rate < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fp_rate must be in (0, 1), got ", fp_rate));
  }
  int k;
  const double best = BestRate(expected_items, FilterShape::kMaxBlocks, &k);
  if (best > fp_rate) {
    return absl::OutOfRangeError(absl::StrCat(
        "no counting filter of at most 2^32 blocks (256 GiB) holds ",
        expected_items, " items at a false-positive rate of ", fp_rate,
        "; the best is ", best));
  }
  // The best rate falls as blocks are added: the fewest that reach fp_rate.
  uint64_t lo = 1, hi = FilterShape::kMaxBlocks;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (BestRate(expected_items, mid, &k) <= fp_rate) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  BestRate(expected_items, lo, &k);
  return FilterShape{lo, k, CountingFilter::kLaneBits};
}

CountingFilter::CountingFilter(
    const FilterShape& shape, uint64_t seed,
    std::unique_ptr<internal::AlignedBuffer> counters)
    : shape_(shape),
      // Counters are 4 bits: a position's lane is kLaneBits positions.
      ref_(internal::BlockedRef(
          nullptr, FilterShape{shape.num_blocks, shape.num_probes, kLaneBits},
          seed)),
      counters_(std::move(counters)) {}

CountingFilter::CountingFilter(CountingFilter&&) noexcept = default;
CountingFilter& CountingFilter::operator=(CountingFilter&&) noexcept = default;
CountingFilter::~CountingFilter() = default;

absl::StatusOr<CountingFilter> CountingFilter::Create(
    uint64_t expected_items, double fp_rate,
    const CountingFilterOptions& options) {
  absl::StatusOr<FilterShape> shape =
      CountingShapeForFpRate(expected_items, fp_rate);
  if (!shape.ok()) return shape.status();
  return CreateWithShape(*shape, options);
}

absl::StatusOr<CountingFilter> CountingFilter::CreateWithShape(
    const FilterShape& shape, const CountingFilterOptions& options) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (shape.lane_bits != kLaneBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a counting filter has 8-bit lanes (16 x 8 counters of 4 bits per "
        "64-byte block); the shape has lane_bits = ",
        shape.lane_bits));
  }
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> counters =
      internal::AlignedBuffer::Create(shape.num_blocks * kBlockBytes);
  if (!counters.ok()) return counters.status();
  return CountingFilter(shape, options.seed.value_or(NewRandomSeed()),
                        *std::move(counters));
}

// Position p (the bit number of a w = 8 filter) is the 4-bit counter in
// byte p / 2, low nibble for even p.
int CountingFilter::Counter(uint64_t position) const {
  return (counters_->data()[position >> 1] >> ((position & 1) * 4)) & 0xf;
}

bool CountingFilter::Add(std::string_view key) {
  return AddHash(internal::Hash64(key, ref_.seed));
}

bool CountingFilter::AddHash(uint64_t hash) {
  uint8_t* counters = counters_->data();
  bool was_absent = false;
  // The k positions are in k distinct lanes: no counter is touched twice.
  internal::ForEachBit(ref_, hash, [&](uint64_t position) {
    const int shift = (position & 1) * 4;
    const int count = (counters[position >> 1] >> shift) & 0xf;
    was_absent |= count == 0;
    if (count < kMaxCount) {
      counters[position >> 1] =
          static_cast<uint8_t>(counters[position >> 1] + (1u << shift));
    }
  });
  ++items_;
  return was_absent;
}

bool CountingFilter::Remove(std::string_view key) {
  return RemoveHash(internal::Hash64(key, ref_.seed));
}

bool CountingFilter::RemoveHash(uint64_t hash) {
  if (!MayContainHash(hash)) return false;
  uint8_t* counters = counters_->data();
  internal::ForEachBit(ref_, hash, [&](uint64_t position) {
    const int shift = (position & 1) * 4;
    const int count = (counters[position >> 1] >> shift) & 0xf;
    // count >= 1 here; a saturated counter's true count is unknown: keep it.
    if (count < kMaxCount) {
      counters[position >> 1] =
          static_cast<uint8_t>(counters[position >> 1] - (1u << shift));
    }
  });
  if (items_ > 0) --items_;
  return true;
}

bool CountingFilter::MayContain(std::string_view key) const {
  return MayContainHash(internal::Hash64(key, ref_.seed));
}

bool CountingFilter::MayContainHash(uint64_t hash) const {
  bool all = true;
  internal::ForEachBit(
      ref_, hash, [&](uint64_t position) { all &= Counter(position) != 0; });
  return all;
}

int CountingFilter::CountUpperBound(std::string_view key) const {
  int least = kMaxCount;
  internal::ForEachBit(
      ref_, internal::Hash64(key, ref_.seed),
      [&](uint64_t position) { least = std::min(least, Counter(position)); });
  return least;
}

void CountingFilter::Clear() {
  std::memset(counters_->data(), 0, size_bytes());
  items_ = 0;
}

// Calls fn(block, nonzero) for every block, nonzero[L] = the number of
// non-zero counters in lane L (8 counters = 4 bytes per lane).
template <typename Fn>
void CountingFilter::ForEachBlockCounts(Fn fn) const {
  uint16_t nonzero[internal::kLanes];
  const uint8_t* data = counters_->data();
  for (uint64_t block = 0; block < shape_.num_blocks; ++block) {
    for (int lane = 0; lane < internal::kLanes; ++lane) {
      uint32_t word;
      std::memcpy(&word, data + block * kBlockBytes + 4 * lane, 4);
      // One bit per non-zero nibble, in the nibble's low bit.
      uint32_t any = word | (word >> 1);
      any |= any >> 2;
      nonzero[lane] = static_cast<uint16_t>(std::popcount(any & 0x11111111u));
    }
    fn(block, nonzero);
  }
}

uint64_t CountingFilter::ApproximateCount() const {
  uint64_t set = 0;
  ForEachBlockCounts([&](uint64_t, const uint16_t* nonzero) {
    for (int lane = 0; lane < internal::kLanes; ++lane) set += nonzero[lane];
  });
  return static_cast<uint64_t>(std::llround(internal::EstimateKeys(
      set, shape_.num_blocks * kPositionsPerBlock, shape_.num_probes)));
}

double CountingFilter::EstimatedFpRate() const {
  internal::FpRateAccumulator rate(shape_.num_probes, kLaneBits);
  ForEachBlockCounts(
      [&](uint64_t, const uint16_t* nonzero) { rate.AddBlock(nonzero); });
  return rate.Result();
}

uint64_t CountingFilter::SaturatedCounters() const {
  uint64_t saturated = 0;
  const uint8_t* data = counters_->data();
  for (uint64_t i = 0; i < size_bytes(); ++i) {
    saturated += (data[i] & 0xf) == kMaxCount;
    saturated += (data[i] >> 4) == kMaxCount;
  }
  return saturated;
}

absl::Status CountingFilter::AppendMembershipFilter(
    std::string* dst, const WriteOptions& write_options) const {
  // 8 positions per lane = one byte of bits per lane: bit j of byte
  // (block * 16 + lane) is position block * 128 + lane * 8 + j.
  std::vector<uint8_t> bits(shape_.size_bytes());
  ForEachBlockCounts([&](uint64_t block, const uint16_t*) {
    for (int lane = 0; lane < internal::kLanes; ++lane) {
      uint8_t byte = 0;
      for (int j = 0; j < kLaneBits; ++j) {
        const uint64_t position =
            block * kPositionsPerBlock + lane * kLaneBits + j;
        byte |= static_cast<uint8_t>((Counter(position) != 0) << j);
      }
      bits[block * internal::kLanes + lane] = byte;
    }
  });
  absl::StatusOr<Filter> filter =
      Filter::Wrap(bits, shape_, ref_.seed, ApproximateCount());
  if (!filter.ok()) return filter.status();
  return AppendFilter(*filter, write_options, dst);
}

}  // namespace blockbloom
