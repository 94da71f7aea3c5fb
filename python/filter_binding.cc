// blockbloom.Filter: build, query (one key, lists, numpy batches with the
// GIL released), save and load; and the C++ timings of
// bench/python/python_bench.py.
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

namespace {

// Seconds per call of the C++ batch probes, timed in C++ (the minimum over
// `repeats` calls): the baseline of bench/python/python_bench.py.
double TimeHashBatch(const PyFilter& self, py::object hashes, int repeats) {
  HashBuffer buffer(hashes);
  std::unique_ptr<bool[]> results(new bool[buffer.span().size()]);
  double best = 1e300;
  py::gil_scoped_release release;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    self.filter().MayContainHashBatch(
        buffer.span(), absl::MakeSpan(results.get(), buffer.span().size()));
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

// The same for MayContainBatch over string_views made beforehand (the views
// are not timed: a C++ caller has its keys as views already).
double TimeKeyBatch(const PyFilter& self, py::object keys,
                    std::optional<size_t> width, int repeats) {
  FixedKeys fixed(keys, width);
  std::vector<std::string_view> views(fixed.size());
  for (size_t i = 0; i < views.size(); ++i) views[i] = fixed.key(i);
  std::unique_ptr<bool[]> results(new bool[views.size()]);
  double best = 1e300;
  py::gil_scoped_release release;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    self.filter().MayContainBatch(views,
                                  absl::MakeSpan(results.get(), views.size()));
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

void DefineFilter(py::module_& m) {
  py::class_<PyFilter>(m, "Filter", R"doc(An immutable blockbloom filter.

Build one with Filter.from_keys, Filter.from_hashes or Filter.from_fixed, or
read one with Filter.from_bytes / Filter.load (files of the `blockbloom` CLI
and of C++ SerializeFilter). may_contain answers False only for keys that are
certainly absent; a key that was added always answers True. Safe to query from
many threads at once; batch queries release the GIL.)doc")
      .def_static(
          "from_keys",
          [](py::object keys, double bits_per_key, std::optional<double> fpr,
             uint64_t seed, const std::string& kind) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed, kind)));
            if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr())) {
              throw py::type_error(
                  "keys must be an iterable of keys, not a single " +
                  TypeName(keys));
            }
            for (py::handle key : py::iter(keys)) builder.Add(KeyBytes(key));
            return Finish(builder);
          },
          py::arg("keys"), py::kw_only(), py::arg("bits_per_key") = 10.0,
          py::arg("fpr") = py::none(), py::arg("seed") = 0,
          py::arg("kind") = "blocked",
          "Builds a filter of the keys of an iterable of str (hashed as "
          "UTF-8) or bytes. Sized by bits_per_key (default 10: ~0.96% false "
          "positives), or by fpr (target false-positive rate) if given. "
          "seed: the hash seed, stored with the filter. kind: 'blocked' (the "
          "fastest) or 'ribbon' (the same rate in about 30% less memory, "
          "built and probed a few times slower; up to about a thousand "
          "keys get 'blocked' where it is smaller: see Filter.kind).")
      .def_static(
          "from_hashes",
          [](py::object hashes, double bits_per_key, std::optional<double> fpr,
             uint64_t seed, const std::string& kind) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed, kind)));
            HashBuffer buffer(hashes);
            {
              py::gil_scoped_release release;
              for (uint64_t hash : buffer.span()) builder.AddHash(hash);
            }
            return Finish(builder);
          },
          py::arg("hashes"), py::kw_only(), py::arg("bits_per_key") = 10.0,
          py::arg("fpr") = py::none(), py::arg("seed") = 0,
          py::arg("kind") = "blocked",
          "Builds a filter of precomputed hashes (a 1-D numpy uint64 array or "
          "uint64 buffer of hash_key(key, seed) values). The GIL is released "
          "while they are added.")
      .def_static(
          "from_fixed",
          [](py::object keys, std::optional<size_t> width, double bits_per_key,
             std::optional<double> fpr, uint64_t seed,
             const std::string& kind) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed, kind)));
            FixedKeys fixed(keys, width);
            {
              py::gil_scoped_release release;
              for (size_t i = 0; i < fixed.size(); ++i) {
                builder.Add(fixed.key(i));
              }
            }
            return Finish(builder);
          },
          py::arg("keys"), py::arg("width") = py::none(), py::kw_only(),
          py::arg("bits_per_key") = 10.0, py::arg("fpr") = py::none(),
          py::arg("seed") = 0, py::arg("kind") = "blocked",
          "Builds a filter of fixed-width keys: a numpy bytes array (dtype "
          "'S<n>', width n), a 2-D uint8 array (width = columns), or any "
          "contiguous bytes-like buffer with `width`. Each key is exactly "
          "width bytes, trailing NULs included.")
      .def_static(
          "from_bytes", &PyFilter::FromBytes, py::arg("data"), py::kw_only(),
          py::arg("verify_checksum") = true, py::arg("seed") = 0,
          py::arg("allow_in_place") = false,
          "Reads a serialized filter (C++ SerializeFilter, the CLI's "
          "files, to_bytes) from a bytes-like object; the bytes are "
          "copied. seed is only for the accurate and in-place encodings, "
          "which do not store it. CorruptFilterError for damaged or "
          "truncated bytes, UnsupportedFilterError for a newer "
          "version.")
      .def(
          "to_bytes",
          [](const PyFilter& self, const std::string& encoding,
             const std::string& compression, int zstd_level) {
            std::string bytes = Take(SerializeFilter(
                self.filter(),
                MakeWriteOptions(encoding, compression, zstd_level)));
            return py::bytes(bytes);
          },
          py::kw_only(), py::arg("encoding") = "auto",
          py::arg("compression") = "none", py::arg("zstd_level") = 3,
          "The filter in the blockbloom file format (C++ SerializeFilter): "
          "encoding 'auto', 'compact', 'full' or 'ribbon' (ribbon filters' "
          "own, which 'auto' picks for them); compression 'none' or "
          "'zstd' (full encoding).")
      .def(
          "may_contain",
          [](const PyFilter& self, py::object key) {
            return self.filter().MayContain(KeyBytes(key));
          },
          py::arg("key"),
          "False if `key` (str or bytes) is certainly not in the filter; True "
          "if it may be.")
      .def(
          "__contains__",
          [](const PyFilter& self, py::object key) {
            return self.filter().MayContain(KeyBytes(key));
          },
          py::arg("key"), "`key in filter`: may_contain(key).")
      .def(
          "may_contain_hash",
          [](const PyFilter& self, uint64_t hash) {
            return self.filter().MayContainHash(hash);
          },
          py::arg("hash"),
          "may_contain for a key's hash, hash_key(key, filter.seed).")
      .def(
          "may_contain_many",
          [](const PyFilter& self, py::object keys) {
            KeyList list(keys);
            auto [array, out] = NewBoolArray(list.size());
            list.ForEachChunk(
                true, [&, out = out](size_t first,
                                     absl::Span<const std::string_view> views) {
                  self.filter().MayContainBatch(
                      views, absl::MakeSpan(out + first, views.size()));
                });
            return array;
          },
          py::arg("keys"),
          "may_contain of every key of an iterable of str/bytes, as a numpy "
          "bool array. The keys' bytes are collected under the GIL 4096 at a "
          "time, each batch probed by C++ with the GIL released.")
      .def(
          "may_contain_hashes",
          [](const PyFilter& self, py::object hashes) {
            HashBuffer buffer(hashes);
            auto [array, out] = NewBoolArray(buffer.span().size());
            {
              py::gil_scoped_release release;
              self.filter().MayContainHashBatch(
                  buffer.span(), absl::MakeSpan(out, buffer.span().size()));
            }
            return array;
          },
          py::arg("hashes"),
          "may_contain_hash of every hash of a 1-D numpy uint64 array (or "
          "uint64 buffer), as a numpy bool array: one C++ batch probe with "
          "the GIL released.")
      .def(
          "may_contain_fixed",
          [](const PyFilter& self, py::object keys,
             std::optional<size_t> width) {
            FixedKeys fixed(keys, width);
            auto [array, out] = NewBoolArray(fixed.size());
            {
              py::gil_scoped_release release;
              fixed.ForEachChunk(
                  [&](size_t first, absl::Span<const std::string_view> views) {
                    self.filter().MayContainBatch(
                        views, absl::MakeSpan(out + first, views.size()));
                  });
            }
            return array;
          },
          py::arg("keys"), py::arg("width") = py::none(),
          "may_contain of every fixed-width key of a buffer (see from_fixed), "
          "as a numpy bool array: C++ batch probes with the GIL released.")
      .def_property_readonly(
          "seed", [](const PyFilter& self) { return self.filter().seed(); },
          "The hash seed.")
      .def_property_readonly(
          "num_keys",
          [](const PyFilter& self) { return self.filter().num_keys(); },
          "Distinct keys added (0 when the encoding does not store it).")
      .def_property_readonly(
          "num_bits",
          [](const PyFilter& self) { return self.filter().num_bits(); },
          "Bits of filter.")
      .def_property_readonly(
          "num_blocks",
          [](const PyFilter& self) { return self.filter().num_blocks(); },
          "Number of blocks (cache lines for 32-bit lanes).")
      .def_property_readonly(
          "num_probes",
          [](const PyFilter& self) { return self.filter().num_probes(); },
          "Bits set per key (k).")
      .def_property_readonly(
          "lane_bits",
          [](const PyFilter& self) { return self.filter().lane_bits(); },
          "Bits per lane (32 except in small filters).")
      .def_property_readonly(
          "kind",
          [](const PyFilter& self) {
            return std::string(FilterKindName(self.filter().kind()));
          },
          "'blocked' (what from_* builds by default), 'ribbon' (from_* with "
          "kind='ribbon', where it is the smaller filter), or 'spread', "
          "'set', 'standard' for exact-size filters read from bytes.")
      .def_property_readonly(
          "estimated_fpr",
          [](const PyFilter& self) { return self.filter().EstimatedFpRate(); },
          "The estimated false-positive rate for num_keys keys in this "
          "shape.")
      .def("__repr__", [](const PyFilter& self) {
        const Filter& f = self.filter();
        return "<blockbloom.Filter num_keys=" + std::to_string(f.num_keys()) +
               " num_bits=" + std::to_string(f.num_bits()) +
               " num_probes=" + std::to_string(f.num_probes()) + ">";
      });

  m.def("_time_hash_batch", &TimeHashBatch, py::arg("filter"),
        py::arg("hashes"), py::arg("repeats") = 1,
        "Benchmark helper: the fastest of `repeats` calls of the C++ "
        "MayContainHashBatch over `hashes`, in seconds, timed in C++.");
  m.def("_time_key_batch", &TimeKeyBatch, py::arg("filter"), py::arg("keys"),
        py::arg("width") = py::none(), py::arg("repeats") = 1,
        "Benchmark helper: the fastest of `repeats` calls of the C++ "
        "MayContainBatch over the fixed-width keys (views made beforehand), "
        "in seconds, timed in C++.");
}

}  // namespace blockbloom::python
