// The private parts of Filter that the library's own code uses (the builders
// and openers of each filter kind, the probe cache, the engine adapters'
// inline probe), in one place instead of accessors in the public header.
// Not part of the API. (FilterPolicy's are in src/policy/policy_access.h.)
#ifndef BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
#define BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/kind.h"
#include "src/core/probe.h"

namespace blockbloom::internal {

struct FilterAccess {
  // A filter of the kind of `ops` (src/core/kind.h).
  static Filter Make(std::unique_ptr<AlignedBuffer> owned, const KindOps& ops,
                     const FilterRef& ref, const FilterShape& shape,
                     uint64_t size_bytes, uint64_t num_keys,
                     const Kernels* kernels) {
    FilterRef with_ops = ref;
    with_ops.ops = &ops;
    return Filter(std::move(owned), with_ops, shape, size_bytes, num_keys,
                  kernels);
  }
  // A blocked filter of `bits` (in `owned`, if not null).
  static Filter MakeBlocked(std::unique_ptr<AlignedBuffer> owned,
                            const uint8_t* bits, const FilterShape& shape,
                            uint64_t seed, uint64_t num_keys) {
    return Filter(std::move(owned), bits, shape, seed, num_keys,
                  KernelsFor(static_cast<uint32_t>(shape.lane_bits)));
  }
  // For a filter whose owned buffer holds its view: whether it holds the
  // bits too (built or copied) or they are the caller's (opened in place).
  static void SetOwnsBits(Filter* filter, bool owns) {
    filter->owns_bits_ = owns;
  }
  static const KindOps& Ops(const Filter& filter) { return *filter.ref_.ops; }
  // What Filter::MayContain(key) calls, and its argument.
  using ProbeKeyFn = bool (*)(const FilterRef&, std::string_view);
  static ProbeKeyFn ProbeKey(const Filter& filter) { return filter.probe_key_; }
  static const FilterRef& Ref(const Filter& filter) { return filter.ref_; }
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
