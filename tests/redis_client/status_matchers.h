// gMock matchers for absl::StatusOr results.
#ifndef BLOCKBLOOM_TESTS_REDIS_CLIENT_STATUS_MATCHERS_H_
#define BLOCKBLOOM_TESTS_REDIS_CLIENT_STATUS_MATCHERS_H_

#include "gmock/gmock.h"

namespace blockbloom::testing {

// The StatusOr is OK and holds `value`.
MATCHER_P(IsOkAndHolds, value, "") {
  if (!arg.ok()) {
    *result_listener << "status " << arg.status();
    return false;
  }
  return *arg == value;
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_CLIENT_STATUS_MATCHERS_H_
