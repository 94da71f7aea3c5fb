// SIMD probe of one-block filters with spread lanes (src/core/layout.h, "one-
// block filters of any number of bits"), once per Highway target as in
// hwy/examples/skeleton.cc. The lanes are not 32 bits wide, so the key's k
// bits are not one vector of the block: the kernel computes all 16 lanes'
// bit positions at once (one multiply for the mixes, a 32x32->64 multiply
// for the range reduction into each lane's width), gathers the 32-bit word
// holding each bit, and tests them, the unused lanes masked off.
//
// Each word is read at byte offset min(pos / 8, size - 4), so a gather never
// reads past the filter, whatever its size (>= 4 bytes) and alignment.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/core/probe_small.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/highway.h>

#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe_adapters-inl.h"
#include "src/core/probe_small.h"
#include "src/core/simd_target.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::CappedTag<uint32_t, kLanes>;
using V = hn::Vec<D>;

// The high 32 bits of the 64-bit products a[i] * b[i].
HWY_INLINE V MulHigh32(D d, V a, V b) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, static_cast<uint32_t>(
                        (uint64_t{hn::GetLane(a)} * hn::GetLane(b)) >> 32));
#else
  const hn::Repartition<uint64_t, D> d64;
  const auto even = hn::MulEven(a, b);
  const auto odd =
      hn::MulEven(hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a))),
                  hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, b))));
  return hn::OddEven(hn::BitCast(d, odd),
                     hn::BitCast(d, hn::ShiftRight<32>(even)));
#endif
}

bool ProbeSpread(const FilterRef& f, uint64_t hash) {
  const D d;
  const hn::RebindToSigned<D> di;
  const uint32_t lo = static_cast<uint32_t>(hash);
  const V lo_v = hn::Set(d, lo);
  const V high_v =
      hn::Set(d, f.mix_high ? static_cast<uint32_t>(hash >> 32) : 0u);
  const V set_v = hn::Set(d, uint32_t{f.lane_sets[Selector(lo)]});
  const V last_word = hn::Set(d, f.num_bits / 8 - 4);
  const V one = hn::Set(d, 1u);
  // SpreadLaneStart for every lane: L * (m / 16) + L * (m % 16) / 16.
  const V sixteenth = hn::Set(d, f.num_bits >> 4);
  const V remainder = hn::Set(d, f.num_bits & 15);
  const uint32_t* base = reinterpret_cast<const uint32_t*>(f.bits);
  V missing = hn::Zero(d);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    const V mix = hn::Add(lo_v * hn::Load(d, kLaneSalt + i), high_v);
    const V lane = hn::Load(d, kLaneIndex + i);
    const V next = hn::Load(d, kLaneIndexPlusOne + i);
    const V start =
        hn::Add(lane * sixteenth, hn::ShiftRight<4>(lane * remainder));
    const V end =
        hn::Add(next * sixteenth, hn::ShiftRight<4>(next * remainder));
    const V pos = hn::Add(start, MulHigh32(d, mix, hn::Sub(end, start)));
    const V at = hn::Min(hn::ShiftRight<3>(pos), last_word);
    const V shift = hn::Sub(pos, hn::ShiftLeft<3>(at));
    const V words = hn::GatherOffset(d, base, hn::BitCast(di, at));
    // 1 in the lanes the key uses, and 1 where its bit is set.
    const V need = hn::Min(hn::And(set_v, hn::Load(d, kLaneBit + i)), one);
    const V have = hn::And(hn::Shr(words, shift), one);
    missing = hn::Or(missing, hn::AndNot(have, need));
  }
  return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
}

const Kernels kSpreadKernels = AdaptedKernels<&ProbeSpread>(
    /*writable=*/true, hwy::TargetName(HWY_TARGET));

const Kernels* GetSpreadKernels() { return &kSpreadKernels; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace blockbloom::internal {

HWY_EXPORT(GetSpreadKernels);

namespace {

// The scalar reference, for every layout it covers: blocked filters of any
// lane width, and one-block filters too small for the gathers.
constexpr Kernels kScalarKernels =
    HWY_NAMESPACE::AdaptedKernels<&ReferenceMayContain>(/*writable=*/true,
                                                        "scalar-lanes");

}  // namespace

const Kernels* SpreadKernels(uint64_t size_bytes) {
  if (size_bytes < 4) return &kScalarKernels;
  return HWY_DISPATCH_TABLE(GetSpreadKernels)[ChosenIndex()]();
}

const Kernels* ScalarLaneKernels() { return &kScalarKernels; }

}  // namespace blockbloom::internal
#endif  // HWY_ONCE
