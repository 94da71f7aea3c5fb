// Runs a test body once per Highway target the CPU supports, with that
// target forced for dynamic dispatch (Highway 1.0.3 needs the Update() after
// SetSupportedTargetsForTest, see ../shared/notes/build.md), then restores
// the normal choice. `check(target_name)` asserts the dispatched kernels
// really are that target's.
#ifndef BLOCKBLOOM_TESTS_HWY_TARGETS_H_
#define BLOCKBLOOM_TESTS_HWY_TARGETS_H_

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace blockbloom::testing {

template <typename Check, typename Body>
void ForEachHwyTarget(Check check, Body body) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    SCOPED_TRACE(hwy::TargetName(target));
    check(hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

// ForEachHwyTarget for kernels that record the target they were dispatched
// to: asserts that `active_target_name()` names the forced target (the
// library's internal::ActiveTargetName, or a baseline's own kernels).
template <typename ActiveName, typename Body>
void ForEachHwyTargetNamed(ActiveName active_target_name, Body body) {
  ForEachHwyTarget(
      [&](const char* name) { ASSERT_STREQ(active_target_name(), name); },
      body);
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_HWY_TARGETS_H_
