// Exact-size filters (FilterOptions::exact_size): a filter block of a given
// size in bytes, trailer included (LevelDB's per-data-block budget). In the
// accurate
// encoding (fewer_false_positives), whichever of a one-block Bloom filter
// with spread lanes (FilterKind::kSpread) and a compressed fingerprint set
// (FilterKind::kSet) is more accurate at that size; in the in-place encoding,
// a standard Bloom filter (FilterKind::kStandard).
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_EXACT_SIZE_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_EXACT_SIZE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "src/core/layout.h"
#include "src/exact_size/fingerprint_set.h"

namespace blockbloom::internal {

// The accurate encoding's trailer: a CRC-16 and the tag.
inline constexpr uint64_t kAccurateTrailerBytes = 3;
// The payload's bounds are the spread layout's (src/core/layout.h); a set is
// held to the same. A LevelDB filter at the upper bound would be 200
// million keys in one data block.
inline constexpr uint64_t kAccurateMinPayloadBytes = kSpreadMinBytes;
inline constexpr uint64_t kAccurateMaxPayloadBytes = kSpreadMaxBytes;

// What LevelDB's built-in Bloom filter takes for n keys at bits_per_key,
// and so what an exact-size block takes, trailer included:
//   bits = max(64, ceil(n * bits_per_key)); bytes = ceil(bits / 8) + 1
// (LevelDB 1.23, util/bloom.cc: its bits and one byte of k).
uint64_t ExactSizeBytes(uint64_t num_keys, double bits_per_key);

struct AccurateChoice {
  FilterKind kind;  // kSpread or kSet
  int param;        // k for kSpread, the low bits l for kSet
  double rate;      // expected false-positive rate
};
// The more accurate layout for n keys in `payload_bits` bits (a tie goes to
// kSpread). With no keys: kSpread with `empty_k` probes (all bits 0).
AccurateChoice ChooseAccurateKind(uint64_t num_keys, uint64_t payload_bits,
                                  int empty_k);

// Builds the exact-size filter for `hashes` (adjacent duplicates already
// dropped; reordered) in `payload_bytes` bytes of bits.
// OutOfRange if payload_bytes is outside [kAccurateMinPayloadBytes,
// kAccurateMaxPayloadBytes].
absl::StatusOr<Filter> BuildAccurateFilter(std::vector<uint64_t>* hashes,
                                           uint64_t payload_bytes,
                                           uint64_t seed, int empty_k);

// The in-place encoding's filter (src/exact_size/in_place.h): a standard Bloom
// filter (FilterKind::kStandard) of `hashes` in `payload_bytes` bytes of bits,
// with the k of the lowest expected rate (StandardBestK; `empty_k` with no
// keys). OutOfRange if payload_bytes is outside [kSpreadMinBytes,
// kSpreadMaxBytes].
absl::StatusOr<Filter> BuildInPlaceFilter(const std::vector<uint64_t>& hashes,
                                          uint64_t payload_bytes, uint64_t seed,
                                          int empty_k);

// An in-place filter of k probes over `payload` (which must outlive it),
// probed where it lies.
Filter OpenInPlaceFilter(absl::Span<const uint8_t> payload, int k,
                         uint64_t seed);

// A filter over an accurate payload (already verified). A kSpread filter is
// probed in place (`payload` must outlive it) unless `copy_payload`, when it
// keeps a copy; a kSet filter copies what it needs into its index. DataLoss
// if the payload is not a set of that l. `set`: the set's geometry, if the
// caller has parsed it (ParseSet) already.
absl::StatusOr<Filter> OpenAccurateFilter(absl::Span<const uint8_t> payload,
                                          FilterKind kind, int param,
                                          uint64_t seed,
                                          const SetParams* set = nullptr,
                                          bool copy_payload = false);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_EXACT_SIZE_H_
