// The ribbon encoding (docs/FORMAT.md, "Ribbon encoding"): ribbon filters of
// every size round trip (what InspectFilter says, the same answers, probed
// where the bytes lie at any alignment); the writer refuses what the
// encoding does not hold; the reader refuses a damaged layer table even
// with checksums off, and a version 4 reader's reserved tag 0xFF stays
// reserved.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

std::string Key(uint64_t i) { return absl::StrCat("key-", i); }

Filter BuildRibbon(uint64_t n, double bits_per_key, double fp_rate,
                   uint64_t seed) {
  FilterOptions options;
  options.kind = FilterKind::kRibbon;
  options.bits_per_key = bits_per_key;
  options.fp_rate = fp_rate;
  options.seed = seed;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (uint64_t i = 0; i < n; ++i) builder.Add(Key(i));
  return *builder.Finish();
}

TEST(RibbonEncodingTest, RoundTripsAtEverySize) {
  for (const uint64_t n : {0, 2000, 3000, 50000, 300000}) {
    for (const double fp_rate : {0.0, 0.01, 0.0007}) {
      SCOPED_TRACE(::testing::Message() << n << " keys, rate " << fp_rate);
      const Filter filter = BuildRibbon(n, 8.3, fp_rate, n * 31 + 1);
      ASSERT_EQ(filter.kind(), FilterKind::kRibbon);
      WriteStats stats;
      std::string block = "prefix";
      ASSERT_TRUE(AppendFilter(filter, {}, &block, &stats).ok());
      EXPECT_EQ(block.substr(0, 6), "prefix");
      EXPECT_EQ(stats.encoding, Encoding::kRibbon);
      EXPECT_EQ(stats.payload_bytes, filter.bits().size());
      EXPECT_EQ(stats.total_bytes, block.size() - 6);
      // The footer and 8 bytes per layer; at most 12 layers.
      EXPECT_GE(stats.overhead_bytes, 44u);
      EXPECT_LE(stats.overhead_bytes, 44u + 8 * 12);
      EXPECT_EQ(static_cast<uint8_t>(block.back()), 0x9F);

      // At an odd address, exactly sized: any overread is ASan's.
      std::unique_ptr<uint8_t[]> copy(new uint8_t[block.size() - 6 + 1]);
      std::memcpy(copy.get() + 1, block.data() + 6, block.size() - 6);
      const absl::Span<const uint8_t> bytes(copy.get() + 1, block.size() - 6);
      absl::StatusOr<FilterInfo> info = InspectFilter(bytes);
      ASSERT_TRUE(info.ok()) << info.status();
      EXPECT_EQ(info->encoding, Encoding::kRibbon);
      EXPECT_EQ(info->kind, FilterKind::kRibbon);
      EXPECT_EQ(info->major_version, 5);
      EXPECT_TRUE(info->num_keys_known);
      EXPECT_EQ(info->num_keys, n);
      EXPECT_EQ(info->seed, n * 31 + 1);
      EXPECT_EQ(info->bits_bytes, filter.bits().size());
      EXPECT_EQ(info->total_bytes, bytes.size());

      absl::StatusOr<Filter> read = OpenFilter(bytes);
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->kind(), FilterKind::kRibbon);
      EXPECT_FALSE(read->owns_bits());
      EXPECT_EQ(read->num_keys(), n);
      EXPECT_EQ(read->seed(), filter.seed());
      EXPECT_EQ(read->EstimatedFpRate(), filter.EstimatedFpRate());
      for (uint64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(read->MayContain(Key(i))) << i;
      }
      for (uint64_t i = 0; i < 20000; ++i) {
        const std::string absent = absl::StrCat("absent-", i);
        ASSERT_EQ(read->MayContain(absent), filter.MayContain(absent));
      }
    }
  }
}

TEST(RibbonEncodingTest, TheWriterRefusesWhatTheEncodingDoesNotHold) {
  const Filter ribbon = BuildRibbon(5000, 7, 0, 0);
  ASSERT_EQ(ribbon.kind(), FilterKind::kRibbon);
  std::string block = "x";
  for (const Encoding encoding : {Encoding::kCompact, Encoding::kFull,
                                  Encoding::kAccurate, Encoding::kInPlace}) {
    WriteOptions write;
    write.encoding = encoding;
    EXPECT_EQ(AppendFilter(ribbon, write, &block).code(),
              absl::StatusCode::kInvalidArgument);
  }
  WriteOptions zstd;
  zstd.encoding = Encoding::kFull;
  zstd.compression = Compression::kZstd;
  EXPECT_EQ(AppendFilter(ribbon, zstd, &block).code(),
            absl::StatusCode::kInvalidArgument);
  zstd.encoding = Encoding::kRibbon;
  EXPECT_EQ(AppendFilter(ribbon, zstd, &block).code(),
            absl::StatusCode::kInvalidArgument);
  // A blocked filter is not a ribbon.
  FilterBuilder builder = *FilterBuilder::Create({});
  builder.Add("a");
  WriteOptions as_ribbon;
  as_ribbon.encoding = Encoding::kRibbon;
  EXPECT_EQ(AppendFilter(*builder.Finish(), as_ribbon, &block).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(block, "x");
}

TEST(RibbonEncodingTest, ADamagedLayerTableIsRefusedWithoutChecksums) {
  const Filter filter = BuildRibbon(20000, 7, 0, 0);
  const std::string good = *SerializeFilter(filter);
  const size_t table_at = filter.bits().size();
  ReadOptions unchecked;
  unchecked.verify_checksum = false;
  ASSERT_TRUE(OpenFilter(AsBytes(good), unchecked).ok());
  // Layer 0's block count one more, or its upper start past its blocks:
  // the layers no longer add up to the payload.
  for (const size_t at : {table_at, table_at + 4}) {
    std::string bad = good;
    bad[at + 2] = static_cast<char>(bad[at + 2] + 1);
    absl::StatusOr<Filter> read = OpenFilter(AsBytes(bad), unchecked);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss)
        << read.status();
  }
  // r of 0 and of 32.
  for (const char r : {0, 32}) {
    std::string bad = good;
    bad[bad.size() - 44 + 28] = r;
    EXPECT_EQ(OpenFilter(AsBytes(bad), unchecked).status().code(),
              absl::StatusCode::kDataLoss);
  }
}

TEST(RibbonEncodingTest, TheLastReservedTagStaysReserved) {
  std::string block = *SerializeFilter(BuildRibbon(3000, 7, 0, 0));
  block.back() = static_cast<char>(0xFF);
  EXPECT_EQ(OpenFilter(AsBytes(block)).status().code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace blockbloom
