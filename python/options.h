// Python keyword arguments as blockbloom options (encodings, compression,
// bits/key or fpr), and filter kinds as names.
#ifndef BLOCKBLOOM_PYTHON_OPTIONS_H_
#define BLOCKBLOOM_PYTHON_OPTIONS_H_

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
#include "absl/strings/str_cat.h"
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

inline Encoding ParseEncoding(const std::string& name) {
  if (name == "auto") return Encoding::kAuto;
  if (name == "compact") return Encoding::kCompact;
  if (name == "full") return Encoding::kFull;
  if (name == "ribbon") return Encoding::kRibbon;
  throw py::value_error(
      "encoding must be 'auto', 'compact', 'full' or 'ribbon', not '" + name +
      "'");
}

inline WriteOptions MakeWriteOptions(const std::string& encoding,
                                     const std::string& compression,
                                     int zstd_level) {
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

// The kinds a builder makes (FilterOptions::kind) by name (FilterKindName):
// those FilterBuilder::Create accepts, whichever the library has.
inline FilterKind ParseBuildKind(const std::string& name) {
  const auto builds = [](FilterKind kind) {
    FilterOptions options;
    options.kind = kind;
    return FilterBuilder::Create(options).ok();
  };
  std::string names;
  for (int k = 0; k < 256; ++k) {
    const FilterKind kind = static_cast<FilterKind>(k);
    if (name == FilterKindName(kind) && builds(kind)) return kind;
  }
  for (int k = 0; k < 256; ++k) {
    const FilterKind kind = static_cast<FilterKind>(k);
    if (std::string(FilterKindName(kind)) == "unknown" || !builds(kind)) {
      continue;
    }
    names +=
        (names.empty() ? "'" : ", '") + std::string(FilterKindName(kind)) + "'";
  }
  throw py::value_error("kind must be one of " + names + ", not '" + name +
                        "'");
}

inline FilterOptions MakeFilterOptions(double bits_per_key,
                                       std::optional<double> fpr, uint64_t seed,
                                       const std::string& kind = "blocked") {
  FilterOptions options;
  options.kind = ParseBuildKind(kind);
  options.bits_per_key = bits_per_key;
  if (fpr.has_value()) {
    // InvalidArgumentError (a ValueError too), as the C++ options checks
    // raise it: BloomFilter.create's fpr, bits_per_key <= 0 here.
    if (!(*fpr > 0 && *fpr < 1)) {
      RaiseStatus(absl::InvalidArgumentError(
          absl::StrCat("fpr must be in (0, 1), got ", *fpr)));
    }
    options.fp_rate = *fpr;
  }
  options.seed = seed;
  return options;
}

}  // namespace blockbloom::python

#endif  // BLOCKBLOOM_PYTHON_OPTIONS_H_
