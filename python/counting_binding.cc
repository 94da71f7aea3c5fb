// blockbloom.CountingFilter: 4-bit counters, so keys can be removed.
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

void DefineCountingFilter(py::module_& m) {
  py::class_<CountingFilter>(m, "CountingFilter", R"doc(A Bloom filter with
4-bit counters, so keys can be removed. Remove only keys that were added: removing
a false positive can make added keys answer False. Holds the GIL.)doc")
      .def_static(
          "create",
          [](uint64_t expected_items, double fpp,
             std::optional<uint64_t> seed) {
            CountingFilterOptions options;
            options.seed = seed;
            return Take(CountingFilter::Create(expected_items, fpp, options));
          },
          py::arg("expected_items"), py::arg("fpp") = 0.01, py::kw_only(),
          py::arg("seed") = py::none(),
          "A counting filter for expected_items keys at rate fpp; seed None "
          "draws a random one.")
      .def(
          "add",
          [](CountingFilter& self, py::object key) {
            return self.Add(KeyBytes(key));
          },
          py::arg("key"),
          "Adds key; True if it was certainly not present before.")
      .def(
          "remove",
          [](CountingFilter& self, py::object key) {
            return self.Remove(KeyBytes(key));
          },
          py::arg("key"),
          "Removes a key that was added; False (and nothing changed) if the "
          "filter answers absent for it.")
      .def(
          "might_contain",
          [](const CountingFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"), "False if key is certainly not present.")
      .def(
          "__contains__",
          [](const CountingFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"), "`key in filter`: might_contain(key).")
      .def(
          "count_upper_bound",
          [](const CountingFilter& self, py::object key) {
            return self.CountUpperBound(KeyBytes(key));
          },
          py::arg("key"),
          "An upper bound on how many times key is present (capped at 15).")
      .def("approximate_element_count", &CountingFilter::ApproximateCount,
           "Distinct keys present, estimated from the counters.")
      .def("estimated_fpr", &CountingFilter::EstimatedFpRate,
           "The estimated false-positive rate from the current counters.")
      .def("saturated_counters", &CountingFilter::SaturatedCounters,
           "Counters stuck at 15.")
      .def("clear", &CountingFilter::Clear, "Removes everything.")
      .def_property_readonly("num_items", &CountingFilter::num_items,
                             "add calls minus successful remove calls.")
      .def_property_readonly("seed", &CountingFilter::seed, "The hash seed.")
      .def(
          "to_filter_bytes",
          [](const CountingFilter& self) {
            std::string bytes;
            Check(self.AppendMembershipFilter(&bytes));
            return py::bytes(bytes);
          },
          "The membership (non-zero counters) as a serialized read-only "
          "filter: Filter.from_bytes reads it. The counters are not kept.");
}

}  // namespace blockbloom::python
