// blockbloom.ScalableFilter: a stack of Bloom filters that grows.
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
#include "python/bindings.h"
#include "python/buffers.h"
#include "python/filter.h"
#include "python/options.h"
#include "python/status.h"

namespace blockbloom::python {

namespace py = pybind11;

void DefineScalableFilter(py::module_& m) {
  py::class_<ScalableFilter>(m, "ScalableFilter", R"doc(A filter for an
unknown number of keys: a stack of BloomFilter layers that grows, keeping the
whole stack's false-positive rate under fpp. Holds the GIL.)doc")
      .def_static(
          "create",
          [](uint64_t initial_capacity, double fpp, double expansion,
             double tightening, uint64_t max_bytes,
             std::optional<uint64_t> seed) {
            ScalableFilterOptions options;
            options.initial_capacity = initial_capacity;
            options.fp_rate = fpp;
            options.expansion = expansion;
            options.tightening = tightening;
            options.max_bytes = max_bytes;
            options.seed = seed;
            return Take(ScalableFilter::Create(options));
          },
          py::arg("initial_capacity") = 1000, py::arg("fpp") = 0.01,
          py::kw_only(), py::arg("expansion") = 2.0,
          py::arg("tightening") = 0.5, py::arg("max_bytes") = uint64_t{1} << 30,
          py::arg("seed") = py::none(),
          "A scalable filter (RedisBloom's scaling filters). put raises "
          "ResourceExhaustedError when a new layer would exceed max_bytes.")
      .def_static(
          "from_bytes",
          [](py::object data, uint64_t max_bytes) {
            Buffer buffer(data, "data");
            return Take(ScalableFilter::Deserialize(
                {reinterpret_cast<const uint8_t*>(buffer.data()),
                 buffer.size()},
                max_bytes));
          },
          py::arg("data"), py::kw_only(),
          py::arg("max_bytes") = uint64_t{1} << 30,
          "Reads a stack written by to_bytes.")
      .def(
          "to_bytes",
          [](const ScalableFilter& self) {
            return py::bytes(Take(self.Serialize()));
          },
          "The stack, serialized (docs/FORMAT.md, 'Scalable filter stack').")
      .def(
          "put",
          [](ScalableFilter& self, py::object key) {
            return Take(self.Add(KeyBytes(key)));
          },
          py::arg("key"), "Adds key; True if it was certainly new.")
      .def(
          "might_contain",
          [](const ScalableFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"), "False if key was certainly never put.")
      .def(
          "__contains__",
          [](const ScalableFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"), "`key in filter`: might_contain(key).")
      .def("estimated_fpr", &ScalableFilter::EstimatedFpRate,
           "The stack's estimated false-positive rate from the current "
           "bits.")
      .def("clear", &ScalableFilter::Clear,
           "Drops every layer but the first, and clears it.")
      .def_property_readonly("num_insertions", &ScalableFilter::num_insertions,
                             "put calls that returned True.")
      .def_property_readonly("capacity", &ScalableFilter::capacity,
                             "Keys the current layers hold at their rates.")
      .def_property_readonly("num_layers", &ScalableFilter::num_layers,
                             "Layers in the stack.")
      .def_property_readonly("size_bytes", &ScalableFilter::size_bytes,
                             "Bytes of filter bits in all layers.")
      .def_property_readonly("seed", &ScalableFilter::seed, "The hash seed.");
}

}  // namespace blockbloom::python
