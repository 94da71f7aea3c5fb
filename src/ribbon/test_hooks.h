// Test hooks of the ribbon builder: force the paths a build almost never
// takes (another salt, then giving up) with real keys.
#ifndef BLOCKBLOOM_SRC_RIBBON_TEST_HOOKS_H_
#define BLOCKBLOOM_SRC_RIBBON_TEST_HOOKS_H_

namespace blockbloom::internal::ribbon {

// While one lives, builds allow at most `max_layers` layers instead of
// kMaxLayers (1: any build of more than ~2,000 keys bumps some and fails
// with every salt). Not thread-safe against concurrent builds.
class ScopedMaxLayersForTest {
 public:
  explicit ScopedMaxLayersForTest(int max_layers);
  ~ScopedMaxLayersForTest();
  ScopedMaxLayersForTest(const ScopedMaxLayersForTest&) = delete;
  ScopedMaxLayersForTest& operator=(const ScopedMaxLayersForTest&) = delete;

 private:
  int saved_;
};

// While one lives, the first `count` salts of every build are treated as
// failed once banded (as if a layer bumped past the last one): the retry
// with the next salt, and with kMaxAttempts or more the failure, on any
// keys. Not thread-safe against concurrent builds.
class ScopedFailingSaltsForTest {
 public:
  explicit ScopedFailingSaltsForTest(int count);
  ~ScopedFailingSaltsForTest();
  ScopedFailingSaltsForTest(const ScopedFailingSaltsForTest&) = delete;
  ScopedFailingSaltsForTest& operator=(const ScopedFailingSaltsForTest&) =
      delete;

 private:
  int saved_;
};

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_TEST_HOOKS_H_
