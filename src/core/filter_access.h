// Filter's private constructors and parts, for the library's own builders
// (src/packed/packed.cc). Not part of the API.
#ifndef BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
#define BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/probe.h"

namespace blockbloom::internal {

struct FilterAccess {
  static Filter Make(std::unique_ptr<AlignedBuffer> owned, Layout layout,
                     const FilterRef& ref, const FilterShape& shape,
                     uint64_t size_bytes, uint64_t num_keys,
                     const Kernels* kernels) {
    return Filter(std::move(owned), layout, ref, shape, size_bytes, num_keys,
                  kernels);
  }
  static void SetOwnsBits(Filter* filter, bool owns) {
    filter->owns_set_bits_ = owns;
  }
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
