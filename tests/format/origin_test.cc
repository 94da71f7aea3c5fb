// A filter's origin (format 4.1: the full encoding's footer bytes 46-47,
// minor version 1; the ribbon encoding's footers since 5.1 and 6): written
// only where asked, read back, and invisible to a 1.0 reader's answers.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

constexpr size_t kFooter = 56;

Filter Build(int n) {
  FilterOptions options;
  options.bits_per_key = 10;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (int i = 0; i < n; ++i) builder.Add(absl::StrCat("key", i));
  return *builder.Finish();
}

std::string Write(const Filter& filter, const FilterOrigin& origin,
                  Encoding encoding = Encoding::kAuto) {
  WriteOptions options;
  options.encoding = encoding;
  options.origin = origin;
  return *SerializeFilter(filter, options);
}

TEST(FilterOriginTest, RoundTripsEveryLevelAndGroup) {
  const Filter filter = Build(2000);
  for (int level : {0, 1, 6, FilterOrigin::kMaxLevel}) {
    for (int group : {0, 1, 517, FilterOrigin::kMaxGroup}) {
      for (bool bottommost : {false, true}) {
        const FilterOrigin origin{level, bottommost, group};
        const std::string block = Write(filter, origin);
        const FilterInfo info = *InspectFilter(AsBytes(block));
        EXPECT_EQ(info.origin, origin);
        EXPECT_EQ(info.minor_version, 1);
        EXPECT_EQ(info.encoding, Encoding::kFull);
      }
    }
  }
}

TEST(FilterOriginTest, WithoutAnOriginTheBlockIsVersion10ByteForByte) {
  const Filter filter = Build(2000);
  WriteOptions full;
  full.encoding = Encoding::kFull;
  const std::string plain = *SerializeFilter(filter, full);
  EXPECT_EQ(Write(filter, {}, Encoding::kFull), plain);
  const FilterInfo info = *InspectFilter(AsBytes(plain));
  EXPECT_FALSE(info.origin.recorded());
  EXPECT_EQ(info.minor_version, 0);
  // Small filters stay compact under kAuto without an origin, and become
  // full with one (the compact encoding has no room for it).
  const Filter small = Build(20);
  EXPECT_EQ(InspectFilter(AsBytes(Write(small, {})))->encoding,
            Encoding::kCompact);
  const std::string with = Write(small, {.level = 0, .group = 3});
  EXPECT_EQ(InspectFilter(AsBytes(with))->encoding, Encoding::kFull);
  EXPECT_EQ(InspectFilter(AsBytes(with))->origin.group, 3);
}

// What a reader of format 4.0 sees: the same bytes but for the minor
// version, the origin (reserved bytes to it) and the checksum that covers
// them; it reads a newer minor version as 1.0 (FormatErrorsTest.
// NewerMinorVersionIsRead), so its answers are the same.
TEST(FilterOriginTest, OnlyTheMinorVersionOriginAndChecksumDiffer) {
  const Filter filter = Build(5000);
  WriteOptions full;
  full.encoding = Encoding::kFull;
  const std::string plain = *SerializeFilter(filter, full);
  const std::string with = Write(filter, {.level = 2, .group = 9});
  ASSERT_EQ(plain.size(), with.size());
  const size_t footer = plain.size() - kFooter;
  for (size_t i = 0; i < plain.size(); ++i) {
    const size_t at = i - footer;
    const bool may_differ = i >= footer && (at == 43 || at == 46 || at == 47 ||
                                            (at >= 48 && at < 52));
    if (!may_differ) {
      ASSERT_EQ(plain[i], with[i]) << "byte " << i;
    }
  }
  const Filter a = *OpenFilter(AsBytes(plain));
  const Filter b = *OpenFilter(AsBytes(with));
  for (int i = 0; i < 20'000; ++i) {
    const std::string key = absl::StrCat(i % 2 ? "key" : "absent", i);
    ASSERT_EQ(a.MayContain(key), b.MayContain(key)) << key;
  }
}

TEST(FilterOriginTest, TheChecksumCoversIt) {
  std::string block = Write(Build(2000), {.level = 1, .group = 5});
  block[block.size() - kFooter + 46] ^= 0x04;  // level 1 -> 5
  EXPECT_EQ(OpenFilter(AsBytes(block)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(FilterOriginTest, WriterRules) {
  const Filter filter = Build(2000);
  WriteOptions options;
  options.origin = {.level = FilterOrigin::kMaxLevel + 1};
  EXPECT_THAT(SerializeFilter(filter, options).status().message(),
              HasSubstr("level in [0, 30]"));
  options.origin = {.level = 1, .group = FilterOrigin::kMaxGroup + 1};
  EXPECT_EQ(SerializeFilter(filter, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.origin = {.level = 1};
  options.encoding = Encoding::kCompact;
  EXPECT_THAT(SerializeFilter(Build(20), options).status().message(),
              HasSubstr("encodings record a filter's origin"));
  // Compressed full blocks carry it too.
  options.encoding = Encoding::kFull;
  options.compression = Compression::kZstd;
  const std::string zstd = *SerializeFilter(filter, options);
  EXPECT_EQ(InspectFilter(AsBytes(zstd))->origin.level, 1);
  EXPECT_TRUE(OpenFilter(AsBytes(zstd)).ok());
}

// The ribbon encoding records an origin too (format 6's short footer, two
// bytes more; the RocksDB adapter records it for ribbons as for blocked
// filters), and one out of range is refused as for the full encoding.
TEST(FilterOriginTest, TheRibbonEncodingRecordsAnOrigin) {
  FilterOptions ribbon;
  ribbon.kind = FilterKind::kRibbon;
  ribbon.bits_per_key = 10;
  FilterBuilder builder = *FilterBuilder::Create(ribbon);
  for (int i = 0; i < 20000; ++i) builder.Add(absl::StrCat("key", i));
  const Filter filter = *builder.Finish();
  ASSERT_EQ(filter.kind(), FilterKind::kRibbon);
  const std::string plain = Write(filter, {});
  EXPECT_FALSE(InspectFilter(AsBytes(plain))->origin.recorded());
  for (const FilterOrigin origin :
       {FilterOrigin{0, false, 0}, FilterOrigin{2, true, 517},
        FilterOrigin{FilterOrigin::kMaxLevel, true, FilterOrigin::kMaxGroup}}) {
    const std::string block = Write(filter, origin);
    EXPECT_EQ(block.size(), plain.size() + 2);
    const FilterInfo info = *InspectFilter(AsBytes(block));
    EXPECT_EQ(info.encoding, Encoding::kRibbon);
    EXPECT_EQ(info.origin, origin);
    absl::StatusOr<Filter> read = OpenFilter(AsBytes(block));
    ASSERT_TRUE(read.ok()) << read.status();
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(read->MayContain(absl::StrCat("key", i)));
    }
  }
  WriteOptions options;
  options.origin = {.level = FilterOrigin::kMaxLevel + 1};
  const auto written = SerializeFilter(filter, options);
  EXPECT_EQ(written.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(written.status().message(), HasSubstr("origin"));
}

}  // namespace
}  // namespace blockbloom
