// Helpers shared by the policy and engine tests: scratch directories, key
// names, a policy's filter block, and locating a filter block inside a table
// file to damage it.
#ifndef BLOCKBLOOM_TESTS_POLICY_ENGINE_TEST_UTIL_H_
#define BLOCKBLOOM_TESTS_POLICY_ENGINE_TEST_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "blockbloom/filter_policy.h"
#include "gtest/gtest.h"

namespace blockbloom::testing {

// A fresh directory under $TEST_TMPDIR (or /tmp), removed at destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    const char* base = std::getenv("TEST_TMPDIR");
    path_ = std::filesystem::path(base ? base : "/tmp") /
            absl::StrFormat("blockbloom_%s_%d", name, getpid());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Present keys are the even numbers, absent keys the odd ones, so every
// absent key falls inside some table's key range and its filter is asked.
inline std::string PresentKey(int i) {
  return absl::StrFormat("user%010d", 2 * i);
}
inline std::string AbsentKey(int i) {
  return absl::StrFormat("user%010d", 2 * i + 1);
}
inline std::string ValueFor(int i) {
  std::string v = absl::StrFormat("value-%d-", i);
  v.resize(100, 'v');  // 100-byte values, as in the measurements
  return v;
}

// The filter block `policy` writes for `keys` (a failure fails the test).
inline std::string PolicyBlock(const FilterPolicy& policy,
                               const std::vector<std::string>& keys) {
  FilterPolicy::Builder builder = policy.NewBuilder();
  for (const auto& k : keys) builder.AddKey(k);
  std::string block;
  EXPECT_TRUE(builder.Finish(&block).ok());
  return block;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

inline std::vector<std::string> FilesEndingIn(const std::string& dir,
                                              const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_POLICY_ENGINE_TEST_UTIL_H_
