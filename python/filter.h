// The immutable Filter as Python sees it (blockbloom.Filter), shared by the
// bindings that make one (Filter, BloomFilter.to_filter, ...).
#ifndef BLOCKBLOOM_PYTHON_FILTER_H_
#define BLOCKBLOOM_PYTHON_FILTER_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/counting_filter.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/scalable_filter.h"
#include "blockbloom/sizing.h"
#include "python/buffers.h"
#include "python/status.h"

namespace blockbloom::python {

namespace py = pybind11;

// An immutable Filter and, when read from bytes, the bytes it probes.
class PyFilter {
 public:
  explicit PyFilter(Filter filter) : filter_(std::move(filter)) {}
  PyFilter(std::unique_ptr<AlignedBytes> bytes, Filter filter)
      : bytes_(std::move(bytes)), filter_(std::move(filter)) {}

  const Filter& filter() const { return filter_; }

  static std::unique_ptr<PyFilter> FromBytes(py::object data,
                                             bool verify_checksum,
                                             uint64_t seed,
                                             bool allow_in_place) {
    std::unique_ptr<AlignedBytes> bytes;
    {
      Buffer buffer(data, "data");
      bytes = std::make_unique<AlignedBytes>(
          std::string_view(buffer.data(), buffer.size()));
    }
    ReadOptions options;
    options.verify_checksum = verify_checksum;
    options.seed = seed;
    options.allow_in_place = allow_in_place;
    Filter filter = Take(OpenFilter({bytes->data.get(), bytes->size}, options));
    return std::make_unique<PyFilter>(std::move(bytes), std::move(filter));
  }

 private:
  std::unique_ptr<AlignedBytes> bytes_;
  Filter filter_;
};

inline std::unique_ptr<PyFilter> Finish(FilterBuilder& builder) {
  return std::make_unique<PyFilter>(Take(builder.Finish()));
}

}  // namespace blockbloom::python

#endif  // BLOCKBLOOM_PYTHON_FILTER_H_
