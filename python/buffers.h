// Python objects as blockbloom inputs and outputs, without a copy where the
// memory allows: a key's bytes (str as UTF-8), buffers of hashes and of
// fixed-width keys, lists of keys held for a GIL-free probe, numpy results.
#ifndef BLOCKBLOOM_PYTHON_BUFFERS_H_
#define BLOCKBLOOM_PYTHON_BUFFERS_H_

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
#include "python/status.h"

namespace blockbloom::python {

namespace py = pybind11;

// Fixed-width keys are turned into string_views this many at a time.
inline constexpr size_t kChunk = 4096;

inline std::string TypeName(py::handle object) {
  return Py_TYPE(object.ptr())->tp_name;
}

// The bytes of one key: str (UTF-8), bytes, bytearray, or a bytes-like
// object. The view is valid while `object` lives (and, for bytearray and
// other buffers, is not resized: callers hold the GIL).
inline std::string_view KeyBytes(py::handle object) {
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
inline std::pair<py::object, bool*> NewBoolArray(size_t n) {
  py::array_t<bool> array(static_cast<py::ssize_t>(n));
  bool* data = array.mutable_data();
  return {std::move(array), data};
}

inline py::object NewUint64Array(size_t n, uint64_t** data) {
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

}  // namespace blockbloom::python

#endif  // BLOCKBLOOM_PYTHON_BUFFERS_H_
