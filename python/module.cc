// blockbloom._blockbloom: the Python binding (pybind11 + the numpy buffer
// protocol). This file makes the module: its exceptions and hash functions,
// then each class from its own file (python/bindings.h). The Python-facing
// documentation is in the docstrings below and in
// python/blockbloom/_blockbloom.pyi; the package is python/blockbloom.
//
// Rules the binding keeps:
// - Keys are str (encoded UTF-8) or bytes-like; a key's hash is
//   blockbloom::HashKey of those bytes, so filters interchange with C++ and
//   the CLI.
// - Batches over numpy arrays and buffers run with the GIL released and call
//   the C++ batch probes (Filter::MayContainBatch / MayContainHashBatch)
//   directly on the buffer's memory; fixed-width keys become string_views in
//   chunks of kChunk keys (cache-resident), with no Python object per key.
//   Lists of keys are read under the GIL (one C call per key to get its
//   bytes) and probed with the GIL released; a list is first copied into a
//   tuple so that no other thread can free a key while the probe runs.
// - Nothing touches a Python object (a reference count) while the GIL is
//   released: each release is scoped to the C++ work alone.
// - The mutable filters (BloomFilter, CountingFilter, ScalableFilter) keep
//   the GIL for every call: the GIL is what makes their writes exclusive.
// - Every absl::Status error becomes a Python exception carrying its message
//   (the mapping is RaiseStatus below and the package docstring).
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
#include "blockbloom/version.h"
#include "python/bindings.h"
#include "python/buffers.h"
#include "python/filter.h"
#include "python/options.h"
#include "python/status.h"

namespace blockbloom::python {
namespace {

void DefineModule(py::module_& m) {
  m.doc() =
      "The C++ core of the blockbloom package (import blockbloom instead).";

  // Exceptions. FilterError is the base of every error a blockbloom
  // absl::Status becomes.
  g_filter_error = PyErr_NewExceptionWithDoc(
      "blockbloom.FilterError",
      "Base class of the errors blockbloom's C++ core reports (an "
      "absl::Status that is not OK); the message is the status message.\n"
      "Status codes without a subclass of their own (Internal, ...) raise "
      "FilterError itself.",
      PyExc_Exception, nullptr);
  auto subclass = [&](const char* name, const char* doc, PyObject* other) {
    PyObject* bases = other == nullptr ? PyTuple_Pack(1, g_filter_error)
                                       : PyTuple_Pack(2, g_filter_error, other);
    PyObject* type = PyErr_NewExceptionWithDoc(name, doc, bases, nullptr);
    Py_DECREF(bases);
    return type;
  };
  g_invalid_argument_error = subclass(
      "blockbloom.InvalidArgumentError",
      "InvalidArgument or OutOfRange: an option or argument out of range "
      "(also a ValueError).",
      PyExc_ValueError);
  g_corrupt_filter_error = subclass(
      "blockbloom.CorruptFilterError",
      "DataLoss: the bytes are not a valid blockbloom filter (truncated, "
      "damaged, a checksum mismatch, not a filter).",
      nullptr);
  g_unsupported_filter_error = subclass(
      "blockbloom.UnsupportedFilterError",
      "Unimplemented: a filter of a newer format version or an unknown hash "
      "or codec.",
      nullptr);
  g_resource_exhausted_error = subclass(
      "blockbloom.ResourceExhaustedError",
      "ResourceExhausted: a size over a configured limit (decompression "
      "limits, ScalableFilter's max_bytes) or memory that cannot be had "
      "(also a MemoryError).",
      PyExc_MemoryError);
  m.attr("FilterError") = py::handle(g_filter_error);
  m.attr("InvalidArgumentError") = py::handle(g_invalid_argument_error);
  m.attr("CorruptFilterError") = py::handle(g_corrupt_filter_error);
  m.attr("UnsupportedFilterError") = py::handle(g_unsupported_filter_error);
  m.attr("ResourceExhaustedError") = py::handle(g_resource_exhausted_error);
  // The C++ library's Version() (blockbloom/version.h), which is also the
  // package's version (setup.py reads the same header).
  m.attr("__version__") = std::string(Version());

  m.def(
      "hash_key",
      [](py::object key, uint64_t seed) {
        return HashKey(KeyBytes(key), seed);
      },
      py::arg("key"), py::arg("seed") = 0,
      "The 64-bit hash blockbloom uses for `key` (str is hashed as its UTF-8 "
      "bytes): XXH3-64 with `seed`, equal to C++ blockbloom::HashKey.");
  m.def(
      "hash_keys",
      [](py::object keys, uint64_t seed) {
        KeyList list(keys);
        uint64_t* out = nullptr;
        py::object array = NewUint64Array(list.size(), &out);
        list.ForEachChunk(
            true, [&](size_t first, absl::Span<const std::string_view> views) {
              for (size_t i = 0; i < views.size(); ++i) {
                out[first + i] = HashKey(views[i], seed);
              }
            });
        return array;
      },
      py::arg("keys"), py::arg("seed") = 0,
      "hash_key of every key of an iterable of str/bytes, as a numpy uint64 "
      "array.");
  m.def(
      "hash_fixed",
      [](py::object keys, std::optional<size_t> width, uint64_t seed) {
        FixedKeys fixed(keys, width);
        uint64_t* out = nullptr;
        py::object array = NewUint64Array(fixed.size(), &out);
        {
          py::gil_scoped_release release;
          for (size_t i = 0; i < fixed.size(); ++i) {
            out[i] = HashKey(fixed.key(i), seed);
          }
        }
        return array;
      },
      py::arg("keys"), py::arg("width") = py::none(), py::arg("seed") = 0,
      "hash_key of every fixed-width key of a buffer (see "
      "Filter.may_contain_fixed), as a numpy uint64 array.");
  m.def(
      "active_simd_target", [] { return std::string(ActiveSimdTarget()); },
      "The SIMD instruction set the probes of filters made from now on run "
      "with (\"AVX3\", \"AVX2\", \"SSE4\", ...).");
  m.def(
      "set_simd_target",
      [](const std::string& name) {
        if (absl::Status s = SetSimdTarget(name); !s.ok()) RaiseStatus(s);
      },
      py::arg("name"),
      "Chooses the SIMD target of the filters made from now on: one of "
      "active_simd_target's names this CPU has, \"best\" (the widest) or "
      "\"auto\" (the default rule); the environment variable "
      "BLOCKBLOOM_SIMD_TARGET takes the same. InvalidArgumentError otherwise.");

  DefineFilter(m);
  DefineBloomFilter(m);
  DefineCountingFilter(m);
  DefineScalableFilter(m);
}

}  // namespace
}  // namespace blockbloom::python

PYBIND11_MODULE(_blockbloom, m) { blockbloom::python::DefineModule(m); }
