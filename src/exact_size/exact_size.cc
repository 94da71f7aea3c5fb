#include "src/exact_size/exact_size.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/core/aligned_buffer.h"
#include "src/core/filter_access.h"
#include "src/core/kind.h"
#include "src/core/layout.h"
#include "src/core/probe_small.h"
#include "src/core/sizing_internal.h"
#include "src/exact_size/fingerprint_set.h"
#include "src/exact_size/kernels.h"

namespace blockbloom::internal {

namespace {

// The exact-size kinds' operations (src/core/kind.h).
double SpreadFpRate(const FilterRef& ref, const FilterShape& shape,
                    uint64_t num_keys) {
  return OneBlockFpRate(num_keys, ref.num_bits, shape.num_probes);
}
double StandardRate(const FilterRef& ref, const FilterShape& shape,
                    uint64_t num_keys) {
  return StandardFpRate(num_keys, ref.num_bits, shape.num_probes);
}
double SetFpRate(const FilterRef& ref, const FilterShape&, uint64_t num_keys) {
  return std::min(1.0, static_cast<double>(num_keys) /
                           static_cast<double>(ViewOf<SetIndex>(ref).universe));
}
// A set's copy is its index alone: the probe never reads the payload.
size_t SetCopyBytes(const FilterRef& ref, absl::Span<const uint8_t>) {
  return SetIndexBytes(ViewOf<SetIndex>(ref));
}
FilterRef CopySet(const FilterRef& ref, absl::Span<const uint8_t>,
                  uint8_t* at) {
  FilterRef copy = ref;
  copy.bits = nullptr;
  copy.view = CopySetIndex(ViewOf<SetIndex>(ref), at);
  return copy;
}
int SetLowBits(const FilterRef& ref) { return ViewOf<SetIndex>(ref).low_bits; }

const KindOps kSpreadOps = {FilterKind::kSpread, &SpreadFpRate, &BitsCopyBytes,
                            &CopyBits,
                            /*set_low_bits=*/nullptr};
const KindOps kStandardOps = {FilterKind::kStandard, &StandardRate,
                              &BitsCopyBytes, &CopyBits,
                              /*set_low_bits=*/nullptr};
const KindOps kSetOps = {FilterKind::kSet, &SetFpRate, &SetCopyBytes, &CopySet,
                         &SetLowBits};

Filter SpreadFilter(std::unique_ptr<AlignedBuffer> owned, const uint8_t* bits,
                    uint64_t payload_bytes, int k, uint64_t seed,
                    uint64_t num_keys) {
  const FilterRef ref =
      SpreadRef(bits, static_cast<uint32_t>(8 * payload_bytes), k, seed,
                /*mix_high=*/true);
  return FilterAccess::Make(std::move(owned), kSpreadOps, ref,
                            FilterShape{1, k, 0}, payload_bytes, num_keys,
                            SpreadKernels(payload_bytes));
}

// A set filter: its index in one owned buffer, followed by a copy of the
// payload if `copy_payload` (a built filter, whose payload is a temporary);
// otherwise bits() is the caller's payload, as for every filter opened in
// place.
absl::StatusOr<Filter> SetFilter(absl::Span<const uint8_t> payload,
                                 const SetParams& params, uint64_t seed,
                                 bool copy_payload) {
  const size_t index_bytes =
      sizeof(SetIndex) + SetIndexStorageBytes(payload.data(), params);
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> storage =
      AlignedBuffer::Create(index_bytes + (copy_payload ? payload.size() : 0));
  if (!storage.ok()) return storage.status();
  uint8_t* area = (*storage)->data();
  const SetIndex* index = BuildSetIndex(payload.data(), params, area);
  const uint8_t* bits = payload.data();
  if (copy_payload) {
    std::memcpy(area + index_bytes, payload.data(), payload.size());
    bits = area + index_bytes;
  }
  const FilterRef ref = SetRef(bits, index, seed);
  Filter filter = FilterAccess::Make(*std::move(storage), kSetOps, ref,
                                     FilterShape{1, 0, 0}, payload.size(),
                                     params.count, SetKernels(params.low_bits));
  FilterAccess::SetOwnsBits(&filter, copy_payload);
  return filter;
}

}  // namespace

uint64_t ExactSizeBytes(uint64_t num_keys, double bits_per_key) {
  const long double bits = std::max<long double>(
      64, std::ceil(static_cast<long double>(num_keys) * bits_per_key));
  return static_cast<uint64_t>(std::ceil(bits / 8)) + 1;
}

AccurateChoice ChooseAccurateKind(uint64_t num_keys, uint64_t payload_bits,
                                  int empty_k) {
  if (num_keys == 0) return {FilterKind::kSpread, empty_k, 0};
  double spread_rate;
  const int k = OneBlockBestK(num_keys, payload_bits, &spread_rate);
  int low_bits;
  const double set_rate = BestSetLowBits(num_keys, payload_bits, &low_bits);
  if (set_rate < spread_rate) return {FilterKind::kSet, low_bits, set_rate};
  return {FilterKind::kSpread, k, spread_rate};
}

absl::StatusOr<Filter> BuildAccurateFilter(std::vector<uint64_t>* hashes,
                                           uint64_t payload_bytes,
                                           uint64_t seed, int empty_k) {
  if (payload_bytes < kAccurateMinPayloadBytes ||
      payload_bytes > kAccurateMaxPayloadBytes) {
    return absl::OutOfRangeError(
        absl::StrCat("an exact-size filter holds ", kAccurateMinPayloadBytes,
                     " to ", kAccurateMaxPayloadBytes, " bytes of bits; ",
                     hashes->size(), " keys would need ", payload_bytes));
  }
  const uint64_t num_keys = hashes->size();
  AccurateChoice choice =
      ChooseAccurateKind(num_keys, 8 * payload_bytes, empty_k);
  if (choice.kind == FilterKind::kSet &&
      !SetFits(hashes, 8 * payload_bytes, choice.param)) {
    // Never for a set chosen on its merits (see kMaxGroupEntries); if the
    // hashes are that skewed, the Bloom filter takes them.
    double rate;
    choice = {FilterKind::kSpread,
              OneBlockBestK(num_keys, 8 * payload_bytes, &rate), rate};
  }
  if (choice.kind == FilterKind::kSet) {
    std::vector<uint8_t> payload(payload_bytes, 0);
    EncodeSet(hashes, 8 * payload_bytes, choice.param, payload.data());
    SetParams params;
    params.num_bits = 8 * payload_bytes;
    params.low_bits = choice.param;
    params.count = num_keys;
    params.buckets =
        8 * payload_bytes - num_keys * static_cast<uint64_t>(choice.param + 1);
    return SetFilter(payload, params, seed, /*copy_payload=*/true);
  }
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> bits =
      AlignedBuffer::Create(payload_bytes);
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  Filter filter = SpreadFilter(*std::move(bits), data, payload_bytes,
                               choice.param, seed, num_keys);
  const FilterRef ref =
      SpreadRef(data, static_cast<uint32_t>(8 * payload_bytes), choice.param,
                seed, /*mix_high=*/true);
  for (uint64_t h : *hashes) ReferenceInsert(ref, data, h);
  return filter;
}

absl::StatusOr<Filter> BuildInPlaceFilter(const std::vector<uint64_t>& hashes,
                                          uint64_t payload_bytes, uint64_t seed,
                                          int empty_k) {
  if (payload_bytes < kSpreadMinBytes || payload_bytes > kSpreadMaxBytes) {
    return absl::OutOfRangeError(absl::StrCat(
        "an in-place filter holds ", kSpreadMinBytes, " to ", kSpreadMaxBytes,
        " bytes of bits; ", hashes.size(), " keys would need ", payload_bytes));
  }
  const int k = hashes.empty()
                    ? empty_k
                    : StandardBestK(hashes.size(), 8 * payload_bytes, nullptr);
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> bits =
      AlignedBuffer::Create(payload_bytes);
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  const FilterRef ref =
      StandardRef(data, static_cast<uint32_t>(8 * payload_bytes), k, seed);
  for (uint64_t h : hashes) ReferenceInsert(ref, data, h);
  return FilterAccess::Make(*std::move(bits), kStandardOps, ref,
                            FilterShape{1, k, 0}, payload_bytes, hashes.size(),
                            StandardKernels());
}

Filter OpenInPlaceFilter(absl::Span<const uint8_t> payload, int k,
                         uint64_t seed) {
  return FilterAccess::Make(
      nullptr, kStandardOps,
      StandardRef(payload.data(), static_cast<uint32_t>(8 * payload.size()), k,
                  seed),
      FilterShape{1, k, 0}, payload.size(), 0, StandardKernels());
}

absl::StatusOr<Filter> OpenAccurateFilter(absl::Span<const uint8_t> payload,
                                          FilterKind kind, int param,
                                          uint64_t seed, const SetParams* set,
                                          bool copy_payload) {
  if (kind == FilterKind::kSpread) {
    if (!copy_payload) {
      return SpreadFilter(nullptr, payload.data(), payload.size(), param, seed,
                          0);
    }
    absl::StatusOr<std::unique_ptr<AlignedBuffer>> copy =
        AlignedBuffer::Create(payload.size());
    if (!copy.ok()) return copy.status();
    uint8_t* data = (*copy)->data();
    std::memcpy(data, payload.data(), payload.size());
    return SpreadFilter(*std::move(copy), data, payload.size(), param, seed, 0);
  }
  if (set != nullptr) return SetFilter(payload, *set, seed, copy_payload);
  SetParams params;
  if (!ParseSet(payload.data(), 8 * payload.size(), param, &params)) {
    return absl::DataLossError(absl::StrCat(
        "blockbloom filter: the fingerprint set's ", payload.size(),
        " bytes are not a set of ", param, "-bit fingerprint lows"));
  }
  return SetFilter(payload, params, seed, copy_payload);
}

}  // namespace blockbloom::internal
