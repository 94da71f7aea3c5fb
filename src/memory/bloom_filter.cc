#include "blockbloom/bloom_filter.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/core/aligned_buffer.h"
#include "src/core/batch_size.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/memory/atomic_bits.h"
#include "src/memory/fill_stats.h"

namespace blockbloom {
namespace internal {

// Insertion counts of a concurrent filter, one cache line per stripe; an
// insert counts in the stripe its hash picks, so threads adding different
// keys rarely write the same line. The total is the sum modulo 2^64 (a
// stripe may wrap "below zero" after SetInsertions).
struct InsertionStripes {
  static constexpr int kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<uint64_t> count{0};
  };
  Stripe stripes[kStripes];

  uint64_t Sum() const {
    uint64_t sum = 0;
    for (const Stripe& s : stripes) {
      sum += s.count.load(std::memory_order_relaxed);
    }
    return sum;
  }
};

}  // namespace internal

namespace {

std::string DescribeShape(const FilterShape& s) {
  return absl::StrCat(s.num_blocks, " blocks of 16 ", s.lane_bits,
                      "-bit lanes, k = ", s.num_probes);
}

void Prefetch(const uint8_t* p) { __builtin_prefetch(p); }

absl::Status CheckCompatibleImpl(const FilterShape& mine, uint64_t my_seed,
                                 const FilterShape& theirs,
                                 uint64_t their_seed) {
  if (mine != theirs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filters of different shapes cannot be combined: this one has ",
        DescribeShape(mine), ", the other ", DescribeShape(theirs),
        "; create both with the same expected_insertions and fp_rate (or "
        "shape)"));
  }
  if (my_seed != their_seed) {
    return absl::InvalidArgumentError(
        "filters with different hash seeds cannot be combined: the same key "
        "sets different bits in each; create both with the same "
        "BloomFilterOptions::seed (one NewRandomSeed() shared by both)");
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t NewRandomSeed() {
  std::random_device device;
  const uint64_t high = device();
  return (high << 32) ^ device();
}

// ------------------------------------------------------------ construction

BloomFilter::BloomFilter(const FilterShape& shape, uint64_t seed,
                         bool concurrent,
                         std::unique_ptr<internal::AlignedBuffer> bits)
    : shape_(shape),
      ref_(internal::BlockedRef(bits->data(), shape, seed)),
      bits_(std::move(bits)),
      kernels_(internal::KernelsFor(static_cast<uint32_t>(shape.lane_bits))),
      concurrent_(concurrent) {
  if (concurrent_) stripes_ = std::make_unique<internal::InsertionStripes>();
}

BloomFilter::BloomFilter(BloomFilter&&) noexcept = default;
BloomFilter& BloomFilter::operator=(BloomFilter&&) noexcept = default;
BloomFilter::~BloomFilter() = default;

absl::StatusOr<BloomFilter> BloomFilter::Make(const FilterShape& shape,
                                              uint64_t seed, bool concurrent) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  // AlignedBuffer zero-fills and pads to 64 bytes (or 2 MiB): every bit
  // has a whole, aligned 32-bit word for the atomic operations.
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
      internal::AlignedBuffer::Create(shape.size_bytes());
  if (!bits.ok()) return bits.status();
  return BloomFilter(shape, seed, concurrent, *std::move(bits));
}

absl::StatusOr<BloomFilter> BloomFilter::Create(
    uint64_t expected_insertions, double fp_rate,
    const BloomFilterOptions& options) {
  // Whole 64-byte blocks always: SIMD kernels, and no reason to save the
  // few bytes a one-block small filter would for a filter in memory.
  absl::StatusOr<FilterShape> shape = ShapeForFpRate(
      expected_insertions, fp_rate, /*compact_small_filters=*/false);
  if (!shape.ok()) return shape.status();
  return Make(*shape, options.seed.value_or(NewRandomSeed()),
              options.concurrent);
}

absl::StatusOr<BloomFilter> BloomFilter::CreateWithBitsPerKey(
    uint64_t expected_insertions, double bits_per_key,
    const BloomFilterOptions& options) {
  absl::StatusOr<FilterShape> shape = ShapeForBitsPerKey(
      expected_insertions, bits_per_key, /*compact_small_filters=*/false);
  if (!shape.ok()) return shape.status();
  return Make(*shape, options.seed.value_or(NewRandomSeed()),
              options.concurrent);
}

absl::StatusOr<BloomFilter> BloomFilter::CreateWithShape(
    const FilterShape& shape, const BloomFilterOptions& options) {
  return Make(shape, options.seed.value_or(NewRandomSeed()),
              options.concurrent);
}

absl::StatusOr<BloomFilter> BloomFilter::FromFilter(
    const Filter& filter, const BloomFilterOptions& options) {
  if (filter.is_match_all()) {
    return absl::InvalidArgumentError(
        "cannot make a BloomFilter from Filter::MatchAll(): it has no bits "
        "(it stands in for a filter that could not be read)");
  }
  if (options.seed.has_value() && *options.seed != filter.seed()) {
    return absl::InvalidArgumentError(
        "BloomFilterOptions::seed differs from the filter's seed: the keys "
        "in the filter would answer \"absent\"; leave the option unset");
  }
  absl::StatusOr<BloomFilter> result =
      Make(filter.shape(), filter.seed(), options.concurrent);
  if (!result.ok()) return result.status();
  std::memcpy(result->mutable_bits(), filter.bits().data(),
              filter.bits().size());
  // The compact encoding stores no key count: estimate it from the bits.
  result->SetInsertions(filter.num_keys() != 0 ? filter.num_keys()
                                               : result->ApproximateCount());
  return result;
}

absl::StatusOr<BloomFilter> BloomFilter::Deserialize(
    absl::Span<const uint8_t> bytes, const ReadOptions& read_options,
    const BloomFilterOptions& options) {
  absl::StatusOr<Filter> filter = OpenFilter(bytes, read_options);
  if (!filter.ok()) return filter.status();
  return FromFilter(*filter, options);
}

absl::StatusOr<BloomFilter> BloomFilter::Clone() const {
  absl::StatusOr<BloomFilter> copy = Make(shape_, ref_.seed, concurrent_);
  if (!copy.ok()) return copy.status();
  uint8_t* dst = copy->mutable_bits();
  if (concurrent_) {
    for (uint64_t w = 0; w < internal::WordsFor(size_bytes()); ++w) {
      const uint32_t word =
          internal::AtomicWord(ref_.bits, w).load(std::memory_order_relaxed);
      std::memcpy(dst + 4 * w, &word, 4);  // the buffer is padded
    }
  } else {
    std::memcpy(dst, ref_.bits, size_bytes());
  }
  copy->SetInsertions(num_insertions());
  return copy;
}

uint8_t* BloomFilter::mutable_bits() const { return bits_->data(); }

// --------------------------------------------------------------- counting

void BloomFilter::CountInsertions(uint64_t hash, size_t count) {
  if (count == 0) return;
  if (concurrent_) {
    stripes_->stripes[(hash >> 32) % internal::InsertionStripes::kStripes]
        .count.fetch_add(count, std::memory_order_relaxed);
  } else {
    insertions_ += count;
  }
}

void BloomFilter::SetInsertions(uint64_t count) {
  if (concurrent_) {
    // Add the difference, so that increments racing with this survive.
    stripes_->stripes[0].count.fetch_add(count - stripes_->Sum(),
                                         std::memory_order_relaxed);
  } else {
    insertions_ = count;
  }
}

uint64_t BloomFilter::num_insertions() const {
  return concurrent_ ? stripes_->Sum() : insertions_;
}

// ----------------------------------------------------------------- inserts

bool BloomFilter::Add(std::string_view key) {
  return AddHash(internal::Hash64(key, ref_.seed));
}

bool BloomFilter::AddHash(uint64_t hash) {
  const bool changed = concurrent_
                           ? internal::AtomicAdd(ref_, mutable_bits(), hash)
                           : kernels_->add_hash(ref_, mutable_bits(), hash);
  if (changed) CountInsertions(hash, 1);
  return changed;
}

size_t BloomFilter::AddHashBatch(absl::Span<const uint64_t> hashes,
                                 absl::Span<bool> added) {
  if (!added.empty())
    internal::CheckBatchSize("BloomFilter::AddBatch", hashes.size(),
                             added.size());
  if (hashes.empty()) return 0;
  bool* out = added.empty() ? nullptr : added.data();
  size_t count = 0;
  if (!concurrent_) {
    count = kernels_->add_hashes(ref_, mutable_bits(), hashes.data(),
                                 hashes.size(), out);
  } else {
    uint8_t* bits = mutable_bits();
    const uint64_t block_bytes = internal::BlockBytes(ref_.lane_bits);
    for (size_t start = 0; start < hashes.size();
         start += internal::kBatchChunk) {
      const size_t m = std::min(hashes.size() - start, internal::kBatchChunk);
      for (size_t j = 0; j < m; ++j) {
        Prefetch(bits +
                 internal::BlockIndex(hashes[start + j], ref_.num_blocks) *
                     block_bytes);
      }
      for (size_t j = 0; j < m; ++j) {
        const bool changed = internal::AtomicAdd(ref_, bits, hashes[start + j]);
        count += changed;
        if (out != nullptr) out[start + j] = changed;
      }
    }
  }
  CountInsertions(hashes[0], count);
  return count;
}

size_t BloomFilter::AddBatch(absl::Span<const std::string_view> keys,
                             absl::Span<bool> added) {
  if (!added.empty())
    internal::CheckBatchSize("BloomFilter::AddBatch", keys.size(),
                             added.size());
  uint64_t hashes[internal::kBatchChunk];
  size_t count = 0;
  for (size_t start = 0; start < keys.size(); start += internal::kBatchChunk) {
    const size_t m = std::min(keys.size() - start, internal::kBatchChunk);
    for (size_t j = 0; j < m; ++j) {
      hashes[j] = internal::Hash64(keys[start + j], ref_.seed);
    }
    count += AddHashBatch(
        absl::MakeConstSpan(hashes, m),
        added.empty() ? absl::Span<bool>() : added.subspan(start, m));
  }
  return count;
}

// ----------------------------------------------------------------- queries

bool BloomFilter::MayContain(std::string_view key) const {
  if (concurrent_) {
    return internal::AtomicMayContain(ref_, internal::Hash64(key, ref_.seed));
  }
  return kernels_->probe_key(ref_, key);
}

bool BloomFilter::MayContainHash(uint64_t hash) const {
  if (concurrent_) return internal::AtomicMayContain(ref_, hash);
  return kernels_->probe_hash(ref_, hash);
}

void BloomFilter::MayContainHashBatch(absl::Span<const uint64_t> hashes,
                                      absl::Span<bool> results) const {
  internal::CheckBatchSize("BloomFilter::MayContainBatch", hashes.size(),
                           results.size());
  if (!concurrent_) {
    kernels_->probe_hashes(ref_, hashes.data(), hashes.size(), results.data());
    return;
  }
  const uint64_t block_bytes = internal::BlockBytes(ref_.lane_bits);
  for (size_t start = 0; start < hashes.size();
       start += internal::kBatchChunk) {
    const size_t m = std::min(hashes.size() - start, internal::kBatchChunk);
    for (size_t j = 0; j < m; ++j) {
      Prefetch(ref_.bits +
               internal::BlockIndex(hashes[start + j], ref_.num_blocks) *
                   block_bytes);
    }
    for (size_t j = 0; j < m; ++j) {
      results[start + j] = internal::AtomicMayContain(ref_, hashes[start + j]);
    }
  }
}

void BloomFilter::MayContainBatch(absl::Span<const std::string_view> keys,
                                  absl::Span<bool> results) const {
  internal::CheckBatchSize("BloomFilter::MayContainBatch", keys.size(),
                           results.size());
  if (!concurrent_) {
    kernels_->probe_keys(ref_, keys.data(), keys.size(), results.data());
    return;
  }
  uint64_t hashes[internal::kBatchChunk];
  for (size_t start = 0; start < keys.size(); start += internal::kBatchChunk) {
    const size_t m = std::min(keys.size() - start, internal::kBatchChunk);
    for (size_t j = 0; j < m; ++j) {
      hashes[j] = internal::Hash64(keys[start + j], ref_.seed);
    }
    MayContainHashBatch(absl::MakeConstSpan(hashes, m),
                        results.subspan(start, m));
  }
}

// ------------------------------------------------------------------- stats

// Calls fn(fill) for every block in order, fill[L] = set bits of lane L.
template <typename Fn>
void BloomFilter::ForEachBlockFill(Fn fn) const {
  uint16_t fill[internal::kLanes];
  const uint32_t w = ref_.lane_bits;
  for (uint64_t block = 0; block < ref_.num_blocks; ++block) {
    if (w == 32) {
      for (int lane = 0; lane < internal::kLanes; ++lane) {
        const uint64_t word_index = block * internal::kLanes + lane;
        uint32_t word;
        if (concurrent_) {
          word = internal::AtomicWord(ref_.bits, word_index)
                     .load(std::memory_order_relaxed);
        } else {
          std::memcpy(&word, ref_.bits + 4 * word_index, 4);
        }
        fill[lane] = static_cast<uint16_t>(std::popcount(word));
      }
    } else {
      // Other widths (one-block small filters read from storage): bit by bit.
      for (int lane = 0; lane < internal::kLanes; ++lane) {
        const uint64_t first = (block * internal::kLanes + lane) * w;
        int count = 0;
        for (uint64_t bit = first; bit < first + w; ++bit) {
          if (concurrent_) {
            count += (internal::AtomicWord(ref_.bits, bit >> 5)
                          .load(std::memory_order_relaxed) >>
                      (bit & 31)) &
                     1;
          } else {
            count += (ref_.bits[bit >> 3] >> (bit & 7)) & 1;
          }
        }
        fill[lane] = static_cast<uint16_t>(count);
      }
    }
    fn(fill);
  }
}

uint64_t BloomFilter::CountSetBits() const {
  uint64_t count = 0;
  const uint64_t bytes = size_bytes();
  if (concurrent_) {
    // Padding beyond size_bytes() is never set.
    for (uint64_t w = 0; w < internal::WordsFor(bytes); ++w) {
      count += std::popcount(
          internal::AtomicWord(ref_.bits, w).load(std::memory_order_relaxed));
    }
    return count;
  }
  uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, ref_.bits + i, 8);
    count += std::popcount(word);
  }
  for (; i < bytes; ++i) count += std::popcount(ref_.bits[i]);
  return count;
}

uint64_t BloomFilter::ApproximateCount() const {
  const double n = internal::EstimateKeys(
      CountSetBits(), 16 * uint64_t{ref_.lane_bits} * ref_.num_blocks,
      shape_.num_probes);
  return static_cast<uint64_t>(std::llround(n));
}

double BloomFilter::EstimatedFpRate() const {
  internal::FpRateAccumulator rate(shape_.num_probes, shape_.lane_bits);
  ForEachBlockFill([&](const uint16_t* fill) { rate.AddBlock(fill); });
  return rate.Result();
}

// ------------------------------------------------------- clear and combine

void BloomFilter::Clear() {
  if (concurrent_) {
    for (uint64_t w = 0; w < internal::WordsFor(size_bytes()); ++w) {
      internal::AtomicWord(ref_.bits, w).store(0, std::memory_order_relaxed);
    }
  } else {
    std::memset(mutable_bits(), 0, size_bytes());
  }
  SetInsertions(0);
}

absl::Status BloomFilter::CheckCompatible(const BloomFilter& other) const {
  return CheckCompatibleImpl(shape_, ref_.seed, other.shape_, other.seed());
}

absl::Status BloomFilter::CheckCompatible(const Filter& other) const {
  if (other.is_match_all()) {
    return absl::InvalidArgumentError(
        "cannot combine with Filter::MatchAll(): it has no bits (it stands "
        "in for a filter that could not be read)");
  }
  return CheckCompatibleImpl(shape_, ref_.seed, other.shape(), other.seed());
}

absl::Status BloomFilter::CombineWith(const FilterShape& shape, uint64_t seed,
                                      const uint8_t* other_bits,
                                      bool other_concurrent, Combine op) {
  if (absl::Status s = CheckCompatibleImpl(shape_, ref_.seed, shape, seed);
      !s.ok()) {
    return s;
  }
  if (other_bits == ref_.bits) return absl::OkStatus();  // with itself
  uint8_t* dst = mutable_bits();
  const uint64_t bytes = size_bytes();
  if (!concurrent_ && !other_concurrent) {
    // Plain loops; the compiler vectorizes them.
    if (op == Combine::kOr) {
      for (uint64_t i = 0; i < bytes; ++i) dst[i] |= other_bits[i];
    } else {
      for (uint64_t i = 0; i < bytes; ++i) dst[i] &= other_bits[i];
    }
  } else {
    for (uint64_t w = 0; w < internal::WordsFor(bytes); ++w) {
      uint32_t theirs = 0;
      if (other_concurrent) {
        theirs =
            internal::AtomicWord(other_bits, w).load(std::memory_order_relaxed);
      } else {
        // A Filter's bits are not padded: read only what is there.
        std::memcpy(&theirs, other_bits + 4 * w,
                    std::min<uint64_t>(4, bytes - 4 * w));
      }
      if (concurrent_) {
        std::atomic_ref<uint32_t> mine = internal::AtomicWord(dst, w);
        const uint32_t current = mine.load(std::memory_order_relaxed);
        if (op == Combine::kOr && (theirs & ~current) != 0) {
          mine.fetch_or(theirs, std::memory_order_relaxed);
        } else if (op == Combine::kAnd && (current & ~theirs) != 0) {
          mine.fetch_and(theirs, std::memory_order_relaxed);
        }
      } else {
        // This buffer is padded to whole words, and padding stays zero.
        uint32_t mine;
        std::memcpy(&mine, dst + 4 * w, 4);
        mine = op == Combine::kOr ? (mine | theirs) : (mine & theirs);
        std::memcpy(dst + 4 * w, &mine, 4);
      }
    }
  }
  SetInsertions(ApproximateCount());
  return absl::OkStatus();
}

absl::Status BloomFilter::Merge(const BloomFilter& other) {
  return CombineWith(other.shape_, other.seed(), other.ref_.bits,
                     other.concurrent_, Combine::kOr);
}

absl::Status BloomFilter::Merge(const Filter& other) {
  if (absl::Status s = CheckCompatible(other); !s.ok()) return s;
  return CombineWith(other.shape(), other.seed(), other.bits().data(), false,
                     Combine::kOr);
}

absl::Status BloomFilter::Intersect(const BloomFilter& other) {
  return CombineWith(other.shape_, other.seed(), other.ref_.bits,
                     other.concurrent_, Combine::kAnd);
}

absl::Status BloomFilter::Intersect(const Filter& other) {
  if (absl::Status s = CheckCompatible(other); !s.ok()) return s;
  return CombineWith(other.shape(), other.seed(), other.bits().data(), false,
                     Combine::kAnd);
}

// ------------------------------------------------------------ serialization

Filter BloomFilter::View() const {
  absl::StatusOr<Filter> view =
      Filter::Wrap(bits(), shape_, ref_.seed, num_insertions());
  if (!view.ok()) {  // cannot happen: the shape was validated at creation
    std::fprintf(stderr, "blockbloom: BloomFilter::View: %s\n",
                 view.status().ToString().c_str());
    std::abort();
  }
  return *std::move(view);
}

absl::Status BloomFilter::AppendTo(std::string* dst,
                                   const WriteOptions& write_options) const {
  if (!concurrent_) return AppendFilter(View(), write_options, dst);
  // Snapshot with atomic loads, then write the snapshot.
  const uint64_t bytes = size_bytes();
  std::vector<uint8_t> snapshot(internal::WordsFor(bytes) * 4);
  for (uint64_t w = 0; w < internal::WordsFor(bytes); ++w) {
    const uint32_t word =
        internal::AtomicWord(ref_.bits, w).load(std::memory_order_relaxed);
    std::memcpy(snapshot.data() + 4 * w, &word, 4);
  }
  absl::StatusOr<Filter> filter =
      Filter::Wrap(absl::MakeConstSpan(snapshot.data(), bytes), shape_,
                   ref_.seed, num_insertions());
  if (!filter.ok()) return filter.status();
  return AppendFilter(*filter, write_options, dst);
}

absl::StatusOr<std::string> BloomFilter::Serialize(
    const WriteOptions& write_options) const {
  std::string out;
  if (absl::Status s = AppendTo(&out, write_options); !s.ok()) return s;
  return out;
}

}  // namespace blockbloom
