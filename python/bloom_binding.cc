// blockbloom.BloomFilter: the mutable Bloom filter with Guava's names.
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

void DefineBloomFilter(py::module_& m) {
  // The in-memory filters: Guava-like names. They keep the GIL.
  py::class_<BloomFilter>(m, "BloomFilter", R"doc(A mutable Bloom filter
(Guava's BloomFilter): put keys, ask might_contain.

Same layout and file format as Filter. Every call holds the GIL (the GIL is
what makes writes exclusive); for many threads querying a finished set, use
to_filter() and an immutable Filter.)doc")
      .def_static(
          "create",
          [](uint64_t expected_insertions, double fpp,
             std::optional<uint64_t> seed) {
            BloomFilterOptions options;
            options.seed = seed;
            return Take(BloomFilter::Create(expected_insertions, fpp, options));
          },
          py::arg("expected_insertions"), py::arg("fpp") = 0.03, py::kw_only(),
          py::arg("seed") = py::none(),
          "A filter for expected_insertions distinct keys at a false-positive "
          "rate of at most fpp once they are in (Guava's create). seed: the "
          "hash seed; None (default) draws a random one, pass the same seed "
          "to filters you want to merge.")
      .def_static(
          "create_with_bits_per_key",
          [](uint64_t expected_insertions, double bits_per_key,
             std::optional<uint64_t> seed) {
            BloomFilterOptions options;
            options.seed = seed;
            return Take(BloomFilter::CreateWithBitsPerKey(
                expected_insertions, bits_per_key, options));
          },
          py::arg("expected_insertions"), py::arg("bits_per_key"),
          py::kw_only(), py::arg("seed") = py::none(),
          "A filter of bits_per_key bits per expected insertion.")
      .def_static(
          "from_bytes",
          [](py::object data, bool verify_checksum) {
            Buffer buffer(data, "data");
            ReadOptions options;
            options.verify_checksum = verify_checksum;
            return Take(BloomFilter::Deserialize(
                {reinterpret_cast<const uint8_t*>(buffer.data()),
                 buffer.size()},
                options));
          },
          py::arg("data"), py::kw_only(), py::arg("verify_checksum") = true,
          "A mutable copy of a serialized filter (to_bytes, Filter.to_bytes, "
          "CLI files).")
      .def(
          "to_bytes",
          [](const BloomFilter& self, const std::string& encoding,
             const std::string& compression, int zstd_level) {
            return py::bytes(Take(self.Serialize(
                MakeWriteOptions(encoding, compression, zstd_level))));
          },
          py::kw_only(), py::arg("encoding") = "auto",
          py::arg("compression") = "none", py::arg("zstd_level") = 3,
          "The filter in the blockbloom file format (as Filter.to_bytes).")
      .def(
          "to_filter",
          [](const BloomFilter& self) {
            std::string bytes = Take(self.Serialize());
            return PyFilter::FromBytes(py::bytes(bytes), true, 0, false);
          },
          "An immutable Filter with the same keys (a copy).")
      .def(
          "copy", [](const BloomFilter& self) { return Take(self.Clone()); },
          "A deep copy (Guava's copy).")
      .def(
          "put",
          [](BloomFilter& self, py::object key) {
            return self.Add(KeyBytes(key));
          },
          py::arg("key"),
          "Adds key (str or bytes). True if the filter changed: the key was "
          "certainly not in it before.")
      .def(
          "put_hash",
          [](BloomFilter& self, uint64_t hash) { return self.AddHash(hash); },
          py::arg("hash"), "put for a key's hash, hash_key(key, seed).")
      .def(
          "put_all",
          [](BloomFilter& self, py::object keys) -> py::object {
            if (py::isinstance<BloomFilter>(keys)) {
              Check(self.Merge(keys.cast<const BloomFilter&>()));
              return py::none();
            }
            if (py::isinstance<PyFilter>(keys)) {
              Check(self.Merge(keys.cast<const PyFilter&>().filter()));
              return py::none();
            }
            size_t added = 0;
            KeyList(keys).ForEachChunk(
                false, [&](size_t, absl::Span<const std::string_view> views) {
                  added += self.AddBatch(views);
                });
            return py::int_(added);
          },
          py::arg("keys"),
          "Adds every key of an iterable of str/bytes and returns how many "
          "were new; or, given another BloomFilter or Filter, merges it "
          "(Guava's putAll: the union; same shape and seed required) and "
          "returns None.")
      .def(
          "put_hashes",
          [](BloomFilter& self, py::object hashes) {
            HashBuffer buffer(hashes);
            return self.AddHashBatch(buffer.span());
          },
          py::arg("hashes"),
          "Adds every hash of a numpy uint64 array; returns how many were "
          "new.")
      .def(
          "put_fixed",
          [](BloomFilter& self, py::object keys, std::optional<size_t> width) {
            FixedKeys fixed(keys, width);
            size_t added = 0;
            fixed.ForEachChunk(
                [&](size_t, absl::Span<const std::string_view> views) {
                  added += self.AddBatch(views);
                });
            return added;
          },
          py::arg("keys"), py::arg("width") = py::none(),
          "Adds every fixed-width key of a buffer (see Filter.from_fixed); "
          "returns how many were new.")
      .def(
          "might_contain",
          [](const BloomFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"),
          "False if key was certainly never put; True if it may have been.")
      .def(
          "__contains__",
          [](const BloomFilter& self, py::object key) {
            return self.MayContain(KeyBytes(key));
          },
          py::arg("key"), "`key in filter`: might_contain(key).")
      .def(
          "might_contain_hash",
          [](const BloomFilter& self, uint64_t hash) {
            return self.MayContainHash(hash);
          },
          py::arg("hash"), "might_contain for a key's hash.")
      .def(
          "might_contain_many",
          [](const BloomFilter& self, py::object keys) {
            KeyList list(keys);
            auto [array, out] = NewBoolArray(list.size());
            list.ForEachChunk(
                false,
                [&, out = out](size_t first,
                               absl::Span<const std::string_view> views) {
                  self.MayContainBatch(
                      views, absl::MakeSpan(out + first, views.size()));
                });
            return array;
          },
          py::arg("keys"),
          "might_contain of every key of an iterable, as a numpy bool array.")
      .def(
          "might_contain_hashes",
          [](const BloomFilter& self, py::object hashes) {
            HashBuffer buffer(hashes);
            auto [array, out] = NewBoolArray(buffer.span().size());
            self.MayContainHashBatch(buffer.span(),
                                     absl::MakeSpan(out, buffer.span().size()));
            return array;
          },
          py::arg("hashes"),
          "might_contain_hash of every hash of a numpy uint64 array.")
      .def(
          "might_contain_fixed",
          [](const BloomFilter& self, py::object keys,
             std::optional<size_t> width) {
            FixedKeys fixed(keys, width);
            auto [array, out] = NewBoolArray(fixed.size());
            fixed.ForEachChunk(
                [&](size_t first, absl::Span<const std::string_view> views) {
                  self.MayContainBatch(
                      views, absl::MakeSpan(out + first, views.size()));
                });
            return array;
          },
          py::arg("keys"), py::arg("width") = py::none(),
          "might_contain of every fixed-width key of a buffer.")
      .def(
          "merge",
          [](BloomFilter& self, py::object other) {
            if (py::isinstance<PyFilter>(other)) {
              Check(self.Merge(other.cast<const PyFilter&>().filter()));
            } else if (py::isinstance<BloomFilter>(other)) {
              Check(self.Merge(other.cast<const BloomFilter&>()));
            } else {
              throw py::type_error("expected a BloomFilter or Filter, not " +
                                   TypeName(other));
            }
          },
          py::arg("other"),
          "Union with another BloomFilter or Filter of the same shape and "
          "seed (InvalidArgumentError otherwise, nothing changed).")
      .def(
          "intersect",
          [](BloomFilter& self, py::object other) {
            if (py::isinstance<PyFilter>(other)) {
              Check(self.Intersect(other.cast<const PyFilter&>().filter()));
            } else if (py::isinstance<BloomFilter>(other)) {
              Check(self.Intersect(other.cast<const BloomFilter&>()));
            } else {
              throw py::type_error("expected a BloomFilter or Filter, not " +
                                   TypeName(other));
            }
          },
          py::arg("other"),
          "Intersection (bitwise AND) with a compatible filter.")
      .def(
          "is_compatible",
          [](const BloomFilter& self, const BloomFilter& other) {
            return self.CheckCompatible(other).ok();
          },
          py::arg("other"),
          "True if other has the same shape and seed (Guava's "
          "isCompatible).")
      .def("approximate_element_count", &BloomFilter::ApproximateCount,
           "Distinct keys put, estimated from the set bits (Guava's "
           "approximateElementCount).")
      .def("estimated_fpr", &BloomFilter::EstimatedFpRate,
           "The estimated false-positive rate from the current bits "
           "(Guava's expectedFpp). Reads every block.")
      .def("clear", &BloomFilter::Clear, "Removes every key.")
      .def_property_readonly("num_insertions", &BloomFilter::num_insertions,
                             "put calls that returned True.")
      .def_property_readonly("seed", &BloomFilter::seed, "The hash seed.")
      .def_property_readonly(
          "num_bits",
          [](const BloomFilter& self) { return 8 * self.size_bytes(); },
          "Bits of filter.")
      .def_property_readonly("num_blocks", &BloomFilter::num_blocks,
                             "Number of blocks.")
      .def_property_readonly("num_probes", &BloomFilter::num_probes,
                             "Bits set per key (k).")
      .def("__repr__", [](const BloomFilter& self) {
        return "<blockbloom.BloomFilter num_bits=" +
               std::to_string(8 * self.size_bytes()) +
               " num_insertions=" + std::to_string(self.num_insertions()) + ">";
      });
}

}  // namespace blockbloom::python
