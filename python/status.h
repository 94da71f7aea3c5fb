// absl::Status to Python exceptions: the exception classes (created by
// python/module.cc) and the checks every binding makes on a Status.
#ifndef BLOCKBLOOM_PYTHON_STATUS_H_
#define BLOCKBLOOM_PYTHON_STATUS_H_

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

namespace blockbloom::python {

namespace py = pybind11;

// The exception classes, created in PYBIND11_MODULE.
inline PyObject* g_filter_error = nullptr;
inline PyObject* g_invalid_argument_error = nullptr;
inline PyObject* g_corrupt_filter_error = nullptr;
inline PyObject* g_unsupported_filter_error = nullptr;
inline PyObject* g_resource_exhausted_error = nullptr;

[[noreturn]] inline void RaiseStatus(const absl::Status& status) {
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

inline void Check(const absl::Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

template <typename T>
T Take(absl::StatusOr<T> value) {
  if (!value.ok()) RaiseStatus(value.status());
  return *std::move(value);
}

}  // namespace blockbloom::python

#endif  // BLOCKBLOOM_PYTHON_STATUS_H_
