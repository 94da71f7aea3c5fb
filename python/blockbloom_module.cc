// blockbloom._blockbloom: the Python binding (pybind11 + the numpy buffer
// protocol). The Python-facing documentation is in the docstrings below and
// in python/blockbloom/_blockbloom.pyi; the package is python/blockbloom.
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

namespace py = pybind11;

namespace blockbloom::python {
namespace {

// Fixed-width keys are turned into string_views this many at a time.
constexpr size_t kChunk = 4096;

// The exception classes, created in PYBIND11_MODULE.
PyObject* g_filter_error = nullptr;
PyObject* g_invalid_argument_error = nullptr;
PyObject* g_corrupt_filter_error = nullptr;
PyObject* g_unsupported_filter_error = nullptr;
PyObject* g_resource_exhausted_error = nullptr;

[[noreturn]] void RaiseStatus(const absl::Status& status) {
  PyObject* type = g_filter_error;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      type = g_invalid_argument_error;
      break;
    case absl::StatusCode::kDataLoss:
      type = g_corrupt_filter_error;
      break;
    case absl::StatusCode::kUnimplemented:
      type = g_unsupported_filter_error;
      break;
    case absl::StatusCode::kResourceExhausted:
      type = g_resource_exhausted_error;
      break;
    default:
      break;
  }
  const std::string message(status.message());
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

void Check(const absl::Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

template <typename T>
T Take(absl::StatusOr<T> value) {
  if (!value.ok()) RaiseStatus(value.status());
  return *std::move(value);
}

std::string TypeName(py::handle object) {
  return Py_TYPE(object.ptr())->tp_name;
}

// The bytes of one key: str (UTF-8), bytes, bytearray, or a bytes-like
// object. The view is valid while `object` lives (and, for bytearray and
// other buffers, is not resized: callers hold the GIL).
std::string_view KeyBytes(py::handle object) {
  PyObject* o = object.ptr();
  if (PyBytes_Check(o)) {
    return {PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o))};
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data == nullptr) throw py::error_already_set();
    return {data, static_cast<size_t>(size)};
  }
  if (PyByteArray_Check(o)) {
    return {PyByteArray_AS_STRING(o),
            static_cast<size_t>(PyByteArray_GET_SIZE(o))};
  }
  if (PyMemoryView_Check(o)) {
    const Py_buffer* view = PyMemoryView_GET_BUFFER(o);
    if (PyBuffer_IsContiguous(view, 'C')) {
      return {static_cast<const char*>(view->buf),
              static_cast<size_t>(view->len)};
    }
    throw py::value_error("a memoryview key must be C-contiguous");
  }
  throw py::type_error("a key must be str or bytes, not " + TypeName(object));
}

// A Py_buffer held for the life of the object (RAII).
class Buffer {
 public:
  Buffer(py::handle object, const char* what) {
    if (PyObject_GetBuffer(object.ptr(), &view_, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      throw py::type_error(std::string(what) +
                           " must be a numpy array or a bytes-like object, "
                           "not " +
                           TypeName(object));
    }
    held_ = true;
    if (!PyBuffer_IsContiguous(&view_, 'C')) {
      throw py::value_error(std::string(what) +
                            " must be C-contiguous (numpy.ascontiguousarray "
                            "makes a contiguous copy)");
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  const char* data() const { return static_cast<const char*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }
  size_t itemsize() const { return static_cast<size_t>(view_.itemsize); }
  int ndim() const { return view_.ndim; }
  Py_ssize_t shape(int i) const { return view_.shape[i]; }
  std::string format() const {
    return view_.format == nullptr ? "B" : view_.format;
  }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

// A 1-D buffer of unsigned 64-bit integers (numpy uint64, array('Q')).
class HashBuffer {
 public:
  explicit HashBuffer(py::handle object) : buffer_(object, "hashes") {
    std::string format = buffer_.format();
    if (!format.empty() &&
        (format[0] == '<' || format[0] == '=' || format[0] == '@' ||
         format[0] == '!' || format[0] == '>')) {
      if (format[0] == '>' || format[0] == '!') {
        throw py::type_error("hashes must be native-endian uint64");
      }
      format.erase(0, 1);
    }
    if (buffer_.itemsize() != 8 || (format != "Q" && format != "L")) {
      throw py::type_error(
          "hashes must be an array of uint64 (numpy dtype uint64, format "
          "'Q'), got format '" +
          buffer_.format() + "' of " + std::to_string(buffer_.itemsize()) +
          " bytes");
    }
    if (buffer_.ndim() != 1) {
      throw py::value_error("hashes must be a 1-D array, got " +
                            std::to_string(buffer_.ndim()) + " dimensions");
    }
  }
  absl::Span<const uint64_t> span() const {
    return {reinterpret_cast<const uint64_t*>(buffer_.data()),
            buffer_.size() / 8};
  }

 private:
  Buffer buffer_;
};

// Fixed-width keys: a numpy 'S<n>' array (width = itemsize), a 2-D uint8
// array (width = its second dimension), or any contiguous buffer with an
// explicit width. Each key is exactly `width` bytes, NULs included.
class FixedKeys {
 public:
  FixedKeys(py::handle object, std::optional<size_t> width)
      : buffer_(object, "keys") {
    const std::string format = buffer_.format();
    const bool plain_bytes = format == "B" || format == "b" || format == "c";
    const bool strings = !format.empty() && format.back() == 's';
    if (!plain_bytes && !strings) {
      throw py::type_error(
          "fixed-width keys must be a numpy bytes array (dtype 'S<n>'), a "
          "uint8 array or a bytes-like object, got format '" +
          format + "' (for str keys encode them, or pass a list)");
    }
    if (width.has_value()) {
      width_ = *width;
    } else if (strings) {
      width_ = buffer_.itemsize();
    } else if (buffer_.ndim() == 2) {
      width_ = static_cast<size_t>(buffer_.shape(1));
    } else {
      throw py::value_error(
          "width is required for a flat byte buffer (the bytes of each key)");
    }
    if (width_ == 0) throw py::value_error("width must be positive");
    if (buffer_.size() % width_ != 0) {
      throw py::value_error("the buffer's " + std::to_string(buffer_.size()) +
                            " bytes are not a whole number of " +
                            std::to_string(width_) + "-byte keys");
    }
  }
  size_t size() const { return buffer_.size() / width_; }
  size_t width() const { return width_; }
  std::string_view key(size_t i) const {
    return {buffer_.data() + i * width_, width_};
  }
  // Calls fn(first, views) for chunks of at most kChunk keys.
  template <typename Fn>
  void ForEachChunk(Fn fn) const {
    std::string_view views[kChunk];
    const size_t n = size();
    for (size_t first = 0; first < n; first += kChunk) {
      const size_t count = std::min(kChunk, n - first);
      for (size_t i = 0; i < count; ++i) views[i] = key(first + i);
      fn(first, absl::Span<const std::string_view>(views, count));
    }
  }

 private:
  Buffer buffer_;
  size_t width_ = 0;
};

// The keys of a Python iterable, held in a tuple: an iterable that is not a
// tuple is copied into one first, so that no other thread can free a key
// (change a list) while the GIL is released.
class KeyList {
 public:
  explicit KeyList(py::object keys) {
    if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr())) {
      throw py::type_error("expected an iterable of keys, not a single " +
                           TypeName(keys) + " (use may_contain for one key)");
    }
    PyObject* tuple = PySequence_Tuple(keys.ptr());
    if (tuple == nullptr) throw py::error_already_set();
    tuple_ = py::reinterpret_steal<py::tuple>(tuple);
  }
  size_t size() const {
    return static_cast<size_t>(PyTuple_GET_SIZE(tuple_.ptr()));
  }
  // Calls fn(first, views) for chunks of at most kChunk keys: each chunk's
  // views are made under the GIL (one C call per key), then fn runs, with
  // the GIL released if `release_gil`. Chunks keep the views in cache.
  template <typename Fn>
  void ForEachChunk(bool release_gil, Fn fn) const {
    const size_t n = size();
    std::vector<std::string_view> views(std::min(kChunk, n));
    for (size_t first = 0; first < n; first += kChunk) {
      const size_t count = std::min(kChunk, n - first);
      for (size_t i = 0; i < count; ++i) {
        views[i] = KeyBytes(
            PyTuple_GET_ITEM(tuple_.ptr(), static_cast<Py_ssize_t>(first + i)));
      }
      const absl::Span<const std::string_view> chunk(views.data(), count);
      if (release_gil) {
        py::gil_scoped_release release;
        fn(first, chunk);
      } else {
        fn(first, chunk);
      }
    }
  }

 private:
  py::tuple tuple_;
};

// A new 1-D numpy bool array of n elements, and its data.
std::pair<py::object, bool*> NewBoolArray(size_t n) {
  py::array_t<bool> array(static_cast<py::ssize_t>(n));
  bool* data = array.mutable_data();
  return {std::move(array), data};
}

py::object NewUint64Array(size_t n, uint64_t** data) {
  py::array_t<uint64_t> array(static_cast<py::ssize_t>(n));
  *data = array.mutable_data();
  return array;
}

// Bytes owned by a Filter read from bytes, 64-byte aligned (the bits of a
// full-encoding filter start at offset 0: aligned bits probe fastest).
struct AlignedBytes {
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  explicit AlignedBytes(std::string_view bytes) : size(bytes.size()) {
    const size_t rounded = std::max<size_t>(64, (bytes.size() + 63) / 64 * 64);
    data.reset(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)));
    if (data == nullptr) throw std::bad_alloc();
    std::memcpy(data.get(), bytes.data(), bytes.size());
  }
  std::unique_ptr<uint8_t, Free> data;
  size_t size;
};

Encoding ParseEncoding(const std::string& name) {
  if (name == "auto") return Encoding::kAuto;
  if (name == "compact") return Encoding::kCompact;
  if (name == "full") return Encoding::kFull;
  throw py::value_error("encoding must be 'auto', 'compact' or 'full', not '" +
                        name + "'");
}

WriteOptions MakeWriteOptions(const std::string& encoding,
                              const std::string& compression, int zstd_level) {
  WriteOptions options;
  options.encoding = ParseEncoding(encoding);
  if (compression == "zstd") {
    options.compression = Compression::kZstd;
  } else if (compression != "none") {
    throw py::value_error("compression must be 'none' or 'zstd', not '" +
                          compression + "'");
  }
  if (zstd_level < 1 || zstd_level > 19) {
    throw py::value_error("zstd_level must be in [1, 19]");
  }
  options.zstd_level = zstd_level;
  return options;
}

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kBlocked:
      return "blocked";
    case Layout::kSpread:
      return "spread";
    case Layout::kSet:
      return "set";
    case Layout::kStandard:
      return "standard";
  }
  return "unknown";
}

FilterOptions MakeFilterOptions(double bits_per_key, std::optional<double> fpr,
                                uint64_t seed) {
  FilterOptions options;
  options.bits_per_key = bits_per_key;
  if (fpr.has_value()) {
    if (!(*fpr > 0 && *fpr < 1)) {
      throw py::value_error("fpr must be in (0, 1)");
    }
    options.fp_rate = *fpr;
  }
  options.seed = seed;
  return options;
}

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

std::unique_ptr<PyFilter> Finish(FilterBuilder& builder) {
  return std::make_unique<PyFilter>(Take(builder.Finish()));
}

// Seconds per call of the C++ batch probes, timed in C++ (the minimum over
// `repeats` calls): the baseline of bench/python_bench.py.
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
      "The SIMD instruction set the probes run with on this CPU (\"AVX3\", "
      "\"AVX2\", \"SSE4\", ...).");

  py::class_<PyFilter>(m, "Filter", R"doc(An immutable blockbloom filter.

Build one with Filter.from_keys, Filter.from_hashes or Filter.from_fixed, or
read one with Filter.from_bytes / Filter.load (files of the `blockbloom` CLI
and of C++ SerializeFilter). may_contain answers False only for keys that are
certainly absent; a key that was added always answers True. Safe to query from
many threads at once; batch queries release the GIL.)doc")
      .def_static(
          "from_keys",
          [](py::object keys, double bits_per_key, std::optional<double> fpr,
             uint64_t seed) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed)));
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
          "Builds a filter of the keys of an iterable of str (hashed as "
          "UTF-8) or bytes. Sized by bits_per_key (default 10: ~0.96% false "
          "positives), or by fpr (target false-positive rate) if given. "
          "seed: the hash seed, stored with the filter.")
      .def_static(
          "from_hashes",
          [](py::object hashes, double bits_per_key, std::optional<double> fpr,
             uint64_t seed) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed)));
            HashBuffer buffer(hashes);
            {
              py::gil_scoped_release release;
              for (uint64_t hash : buffer.span()) builder.AddHash(hash);
            }
            return Finish(builder);
          },
          py::arg("hashes"), py::kw_only(), py::arg("bits_per_key") = 10.0,
          py::arg("fpr") = py::none(), py::arg("seed") = 0,
          "Builds a filter of precomputed hashes (a 1-D numpy uint64 array or "
          "uint64 buffer of hash_key(key, seed) values). The GIL is released "
          "while they are added.")
      .def_static(
          "from_fixed",
          [](py::object keys, std::optional<size_t> width, double bits_per_key,
             std::optional<double> fpr, uint64_t seed) {
            FilterBuilder builder = Take(FilterBuilder::Create(
                MakeFilterOptions(bits_per_key, fpr, seed)));
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
          py::arg("seed") = 0,
          "Builds a filter of fixed-width keys: a numpy bytes array (dtype "
          "'S<n>', width n), a 2-D uint8 array (width = columns), or any "
          "contiguous bytes-like buffer with `width`. Each key is exactly "
          "width bytes, trailing NULs included.")
      .def_static("from_bytes", &PyFilter::FromBytes, py::arg("data"),
                  py::kw_only(), py::arg("verify_checksum") = true,
                  py::arg("seed") = 0, py::arg("allow_in_place") = false,
                  "Reads a serialized filter (C++ SerializeFilter, the CLI's "
                  "files, to_bytes) from a bytes-like object; the bytes are "
                  "copied. seed is only for the packed and in-place encodings, "
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
          "encoding 'auto', 'compact' or 'full'; compression 'none' or "
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
          "layout",
          [](const PyFilter& self) {
            return std::string(LayoutName(self.filter().layout()));
          },
          "'blocked' (what from_* builds), or 'spread', 'set', 'standard' for "
          "packed filters read from bytes.")
      .def_property_readonly(
          "estimated_fpr",
          [](const PyFilter& self) { return self.filter().EstimatedFpRate(); },
          "Expected false-positive rate for num_keys keys in this shape.")
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
      .def("expected_fpp", &BloomFilter::ExpectedFpRate,
           "The false-positive probability from the current bits (Guava's "
           "expectedFpp).")
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
      .def("expected_fpp", &CountingFilter::ExpectedFpRate,
           "The false-positive probability from the current counters.")
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

  py::class_<ScalableFilter>(m, "ScalableFilter", R"doc(A filter for an
unknown number of keys: a chain of BloomFilter layers that grows, keeping the
whole chain's false-positive rate under fpp. Holds the GIL.)doc")
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
          "Reads a chain written by to_bytes.")
      .def(
          "to_bytes",
          [](const ScalableFilter& self) {
            return py::bytes(Take(self.Serialize()));
          },
          "The chain, serialized (docs/FORMAT.md, 'Scalable filter chain').")
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
      .def("expected_fpp", &ScalableFilter::ExpectedFpRate,
           "The chain's false-positive probability from the current bits.")
      .def("clear", &ScalableFilter::Clear,
           "Drops every layer but the first, and clears it.")
      .def_property_readonly("num_insertions", &ScalableFilter::num_insertions,
                             "put calls that returned True.")
      .def_property_readonly("capacity", &ScalableFilter::capacity,
                             "Keys the current layers hold at their rates.")
      .def_property_readonly("num_layers", &ScalableFilter::num_layers,
                             "Layers in the chain.")
      .def_property_readonly("size_bytes", &ScalableFilter::size_bytes,
                             "Bytes of filter bits in all layers.")
      .def_property_readonly("seed", &ScalableFilter::seed, "The hash seed.");
}

}  // namespace
}  // namespace blockbloom::python

PYBIND11_MODULE(_blockbloom, m) { blockbloom::python::DefineModule(m); }
