// Helpers shared by the tests of the mutable filters (tests/memory): a
// filter from its Create(), and its false-positive rate measured against its
// own EstimatedFpRate().
#ifndef BLOCKBLOOM_TESTS_MEMORY_MEMORY_TEST_UTIL_H_
#define BLOCKBLOOM_TESTS_MEMORY_MEMORY_TEST_UTIL_H_

#include <cmath>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace blockbloom::testing {

// The filter a Create() returned; a test failure if it returned an error.
template <typename F>
F Created(absl::StatusOr<F> f) {
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

struct FpRateMeasurement {
  double measured;  // the share of the absent keys answered "may contain"
  double expected;  // f.EstimatedFpRate()
  double sigma;     // the standard deviation of `measured` if `expected` holds
};

// Probes `probes` keys "<prefix><i>" that were never added.
template <typename F>
FpRateMeasurement MeasureFpRate(F& f, int probes, const char* prefix) {
  int positives = 0;
  for (int i = 0; i < probes; ++i) {
    positives += f.MayContain(absl::StrCat(prefix, i));
  }
  FpRateMeasurement m;
  m.measured = static_cast<double>(positives) / probes;
  m.expected = f.EstimatedFpRate();
  m.sigma = std::sqrt(m.expected * (1 - m.expected) / probes);
  return m;
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_MEMORY_MEMORY_TEST_UTIL_H_
