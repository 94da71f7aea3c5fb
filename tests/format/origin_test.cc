// A filter's origin (format 4.1: the full encoding's footer bytes 46-47,
// minor version 1; the ribbon encoding's footers since 5.1 and 6; the
// compact encoding's tags 0x50-0x6F since 7): written only where asked, read
// back, and invisible to a 1.0 reader's answers.
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

Filter BuildRibbon(int n) {
  FilterOptions options;
  options.kind = FilterKind::kRibbon;
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
  // Small filters stay compact under kAuto, with an origin too (format 7;
  // before it they became full, with a 56-byte footer).
  const Filter small = Build(20);
  const std::string without = Write(small, {});
  EXPECT_EQ(InspectFilter(AsBytes(without))->encoding, Encoding::kCompact);
  EXPECT_EQ(InspectFilter(AsBytes(without))->major_version, 1);
  const std::string with = Write(small, {.level = 0, .group = 3});
  const FilterInfo compact = *InspectFilter(AsBytes(with));
  EXPECT_EQ(compact.encoding, Encoding::kCompact);
  EXPECT_EQ(compact.major_version, 7);
  EXPECT_EQ(compact.origin.group, 3);
  EXPECT_TRUE(compact.num_keys_known);
  EXPECT_EQ(compact.num_keys, 20u);
  EXPECT_EQ(with.size(), without.size() + 6);
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
  options.encoding = Encoding::kAccurate;
  EXPECT_THAT(SerializeFilter(Build(20), options).status().message(),
              HasSubstr("encodings record a filter's origin"));
  // Nor does an exact-size filter under kAuto (its encodings have no room).
  FilterOptions exact;
  exact.exact_size = true;
  FilterBuilder builder = *FilterBuilder::Create(exact);
  for (int i = 0; i < 40; ++i) builder.Add(absl::StrCat("key", i));
  options.encoding = Encoding::kAuto;
  EXPECT_EQ(SerializeFilter(*builder.Finish(), options).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Compressed full blocks carry it too.
  options.encoding = Encoding::kFull;
  options.compression = Compression::kZstd;
  const std::string zstd = *SerializeFilter(filter, options);
  EXPECT_EQ(InspectFilter(AsBytes(zstd))->origin.level, 1);
  EXPECT_TRUE(OpenFilter(AsBytes(zstd)).ok());
}

// The compact encoding records an origin and the key count (format 7, tags
// 0x60 and 0x50 + k - 1: six bytes more); the bits are those of the block
// without it, the answers the same, and its CRC covers both fields and the
// tag: every flipped bit and every truncation is refused.
TEST(FilterOriginTest, TheCompactEncodingRecordsAnOriginAndTheKeyCount) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x0123456789abcdef}}) {
    FilterOptions options;
    options.bits_per_key = 10;
    options.seed = seed;
    for (int n : {0, 37, 700}) {
      FilterBuilder builder = *FilterBuilder::Create(options);
      for (int i = 0; i < n; ++i) builder.Add(absl::StrCat("key", i));
      const Filter filter = *builder.Finish();
      const std::string plain = Write(filter, {}, Encoding::kCompact);
      for (const FilterOrigin origin :
           {FilterOrigin{0, false, 0}, FilterOrigin{2, true, 517},
            FilterOrigin{FilterOrigin::kMaxLevel, true,
                         FilterOrigin::kMaxGroup}}) {
        const std::string block = Write(filter, origin);
        ASSERT_EQ(block.size(), plain.size() + 6);
        EXPECT_EQ(block.substr(0, filter.bits().size() + (seed ? 8 : 0)),
                  plain.substr(0, filter.bits().size() + (seed ? 8 : 0)));
        EXPECT_EQ(static_cast<uint8_t>(block.back()) & 0xF0,
                  seed ? 0x50 : 0x60);
        const FilterInfo info = *InspectFilter(AsBytes(block));
        EXPECT_EQ(info.encoding, Encoding::kCompact);
        EXPECT_EQ(info.origin, origin);
        EXPECT_EQ(info.seed, seed);
        EXPECT_EQ(info.num_keys, static_cast<uint64_t>(n));
        absl::StatusOr<Filter> read = OpenFilter(AsBytes(block));
        ASSERT_TRUE(read.ok()) << read.status();
        EXPECT_EQ(read->num_keys(), static_cast<uint64_t>(n));
        for (int i = 0; i < 2000; ++i) {
          const std::string key = absl::StrCat(i < n ? "key" : "absent", i);
          ASSERT_EQ(read->MayContain(key), filter.MayContain(key)) << key;
        }
      }
      const std::string block = Write(filter, {.level = 3, .group = 9});
      for (size_t bit = 0; bit < block.size() * 8; ++bit) {
        std::string bad = block;
        bad[bit / 8] ^= static_cast<char>(1 << (bit % 8));
        ASSERT_FALSE(OpenFilter(AsBytes(bad)).ok()) << "bit " << bit;
      }
      for (size_t size = 0; size < block.size(); ++size) {
        ASSERT_FALSE(OpenFilter(AsBytes(block.substr(0, size))).ok())
            << "size " << size;
      }
    }
  }
}

// The ribbon encoding records an origin too (format 6's short footer, two
// bytes more; the RocksDB adapter records it for ribbons as for blocked
// filters), and one out of range is refused as for the full encoding.
TEST(FilterOriginTest, TheRibbonEncodingRecordsAnOrigin) {
  const Filter filter = BuildRibbon(20000);
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

// A reader that wants the filter and its origin (the RocksDB adapter's)
// reads the footer once: OpenFilter's `info` is InspectFilter's answer.
TEST(FilterOriginTest, OpenFilterGivesWhatInspectFilterSays) {
  const Filter ribbon_filter = BuildRibbon(5000);
  const Filter small = Build(50);
  const Filter large = Build(20000);
  const FilterOrigin origin{3, true, 41};
  WriteOptions zstd;
  zstd.encoding = Encoding::kFull;
  zstd.compression = Compression::kZstd;
  zstd.origin = origin;
  for (const std::string& block :
       {Write(small, origin), Write(large, origin), Write(large, {}),
        Write(ribbon_filter, origin), *SerializeFilter(large, zstd)}) {
    const FilterInfo inspected = *InspectFilter(AsBytes(block));
    FilterInfo info;
    ASSERT_TRUE(OpenFilter(AsBytes(block), {}, &info).ok());
    EXPECT_EQ(info.encoding, inspected.encoding);
    EXPECT_EQ(info.kind, inspected.kind);
    EXPECT_EQ(info.origin, inspected.origin);
    EXPECT_EQ(info.num_keys, inspected.num_keys);
    EXPECT_EQ(info.compression, inspected.compression);
    EXPECT_EQ(info.total_bytes, block.size());
    FilterInfo fail_open;
    const Filter filter =
        OpenFilterOrMatchAll(AsBytes(block), {}, nullptr, &fail_open);
    EXPECT_FALSE(filter.is_match_all());
    EXPECT_EQ(fail_open.origin, inspected.origin);
  }
  // A block that does not open leaves `info` as it was.
  std::string bad = Write(large, origin);
  bad[10] ^= 1;  // the checksum catches it
  FilterInfo untouched;
  untouched.num_keys = 7;
  EXPECT_FALSE(OpenFilter(AsBytes(bad), {}, &untouched).ok());
  EXPECT_TRUE(OpenFilterOrMatchAll(AsBytes(bad), {}, nullptr, &untouched)
                  .is_match_all());
  EXPECT_EQ(untouched.num_keys, 7u);
  EXPECT_FALSE(untouched.origin.recorded());
}

}  // namespace
}  // namespace blockbloom
