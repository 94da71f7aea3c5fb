// The one version (blockbloom/version.h): Version() spells the header's
// numbers, the C API reports the same string, and CMake's project(VERSION)
// read the same header.
#include "blockbloom/version.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "blockbloom/c.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

TEST(VersionTest, IsTheHeadersNumbers) {
  EXPECT_EQ(Version(), absl::StrCat(kVersionMajor, ".", kVersionMinor, ".",
                                    kVersionPatch));
  EXPECT_GE(kVersionMajor, 0);
  EXPECT_GE(kVersionMinor, 0);
  EXPECT_GE(kVersionPatch, 0);
}

TEST(VersionTest, IsStable) {
  // A static string: the same bytes at every call.
  EXPECT_EQ(Version().data(), Version().data());
}

TEST(VersionTest, CApiIsVersion) {
  ASSERT_NE(blockbloom_version(), nullptr);
  EXPECT_EQ(std::string_view(blockbloom_version()), Version());
}

}  // namespace
}  // namespace blockbloom
