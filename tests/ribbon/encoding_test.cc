// The ribbon encoding (docs/FORMAT.md, "Ribbon encoding"): ribbon filters of
// every size round trip in both footers (what InspectFilter says, the same
// answers, probed where the bytes lie at any alignment); the writer uses the
// short footer and refuses what the encoding does not hold; the reader
// refuses a damaged layer table even with checksums off, and a version 4
// reader's reserved tag 0xFF stays reserved.
#include "src/ribbon/encoding.h"

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
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

// Writes `filter` after "prefix": the writer's choice (the short footer),
// or the long footer (what version 5 wrote, and what the writer falls back
// to for a filter the short one cannot say).
std::string Write(const Filter& filter, bool long_footer,
                  const FilterOrigin& origin, WriteStats* stats) {
  std::string block = "prefix";
  if (long_footer) {
    internal::ribbon::AppendLongRibbon(filter, origin, &block);
  } else {
    WriteOptions write;
    write.origin = origin;
    EXPECT_TRUE(AppendFilter(filter, write, &block, stats).ok());
    EXPECT_EQ(stats->payload_bytes, filter.bits().size());
    EXPECT_EQ(stats->total_bytes, block.size() - 6);
  }
  EXPECT_EQ(block.substr(0, 6), "prefix");
  return block.substr(6);
}

// The filter's layer count, as the long footer states it (byte 29).
int FilterInfoLayers(const Filter& filter) {
  std::string block;
  internal::ribbon::AppendLongRibbon(filter, {}, &block);
  return static_cast<uint8_t>(block[block.size() - 44 + 29]);
}

TEST(RibbonEncodingTest, RoundTripsAtEverySizeInBothFooters) {
  for (const uint64_t n : {0, 2000, 3000, 50000, 300000}) {
    for (const double fp_rate : {0.0, 0.01, 0.0007}) {
      const uint64_t seed = n % 2 == 0 ? n * 31 + 1 : 0;
      const Filter filter = BuildRibbon(n, 8.3, fp_rate, seed);
      ASSERT_EQ(filter.kind(), FilterKind::kRibbon);
      const int layers = FilterInfoLayers(filter);
      for (const bool long_footer : {false, true}) {
        for (const FilterOrigin origin :
             {FilterOrigin{}, FilterOrigin{2, true, 517}}) {
          SCOPED_TRACE(::testing::Message()
                       << n << " keys, rate " << fp_rate << ", long footer "
                       << long_footer << ", origin level " << origin.level);
          WriteStats stats;
          const std::string block = Write(filter, long_footer, origin, &stats);
          const uint64_t overhead = block.size() - filter.bits().size();
          if (long_footer) {
            EXPECT_EQ(static_cast<uint8_t>(block.back()), 0x9F);
            EXPECT_EQ(overhead, 44u + 8 * layers);
          } else {
            EXPECT_EQ(stats.encoding, Encoding::kRibbon);
            EXPECT_EQ(static_cast<uint8_t>(block.back()), 0x7F);
            // 11 bytes, + 8 with a seed, + 2 with an origin.
            EXPECT_EQ(overhead, 11u + 8 * layers + (seed != 0 ? 8 : 0) +
                                    (origin.recorded() ? 2 : 0));
          }

          // At an odd address, exactly sized: any overread is ASan's.
          std::unique_ptr<uint8_t[]> copy(new uint8_t[block.size() + 1]);
          std::memcpy(copy.get() + 1, block.data(), block.size());
          const absl::Span<const uint8_t> bytes(copy.get() + 1, block.size());
          absl::StatusOr<FilterInfo> info = InspectFilter(bytes);
          ASSERT_TRUE(info.ok()) << info.status();
          EXPECT_EQ(info->encoding, Encoding::kRibbon);
          EXPECT_EQ(info->kind, FilterKind::kRibbon);
          EXPECT_EQ(info->major_version, long_footer ? 5 : 6);
          EXPECT_EQ(info->minor_version,
                    long_footer && origin.recorded() ? 1 : 0);
          EXPECT_EQ(info->origin, origin);
          EXPECT_TRUE(info->num_keys_known);
          EXPECT_EQ(info->num_keys, n);
          EXPECT_EQ(info->seed, seed);
          EXPECT_EQ(info->bits_bytes, filter.bits().size());
          EXPECT_EQ(info->overhead_bytes, overhead);
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
  // r of 0, in the short footer (bits 0-4 of the 7th byte from the end)
  // and in the long one (byte 28); and r of 32 in the long one.
  std::string bad = good;
  bad[bad.size() - 7] = static_cast<char>(bad[bad.size() - 7] & 0xE0);
  EXPECT_EQ(OpenFilter(AsBytes(bad), unchecked).status().code(),
            absl::StatusCode::kDataLoss);
  std::string long_good;
  internal::ribbon::AppendLongRibbon(filter, {}, &long_good);
  ASSERT_TRUE(OpenFilter(AsBytes(long_good), unchecked).ok());
  for (const char r : {0, 32}) {
    std::string bad_long = long_good;
    bad_long[bad_long.size() - 44 + 28] = r;
    EXPECT_EQ(OpenFilter(AsBytes(bad_long), unchecked).status().code(),
              absl::StatusCode::kDataLoss);
  }
  // More layers than the block has bytes for, and more than 12.
  for (const int layers : {9, 13, 15}) {
    std::string many = good;
    many[many.size() - 6] =
        static_cast<char>((many[many.size() - 6] & 0xF0) | layers);
    EXPECT_EQ(OpenFilter(AsBytes(many), unchecked).status().code(),
              absl::StatusCode::kDataLoss)
        << layers;
  }
}

// Flags of a later version (the short footer's reserved bits) are
// Unimplemented, once the checksum says they were written so.
TEST(RibbonEncodingTest, LaterFlagsAreUnimplemented) {
  const std::string good = *SerializeFilter(BuildRibbon(3000, 7, 0, 0));
  for (const auto& [back, bit] :
       {std::pair<int, int>{6, 0x40}, {6, 0x80}, {7, 0x80}}) {
    std::string later = good;
    later[later.size() - back] =
        static_cast<char>(later[later.size() - back] | bit);
    const uint32_t sum = static_cast<uint32_t>(
        XXH3_64bits((later.substr(0, later.size() - 5) + later.back()).data(),
                    later.size() - 4));
    std::memcpy(later.data() + later.size() - 5, &sum, 4);
    EXPECT_EQ(OpenFilter(AsBytes(later)).status().code(),
              absl::StatusCode::kUnimplemented)
        << back << " " << bit;
  }
}

// What corruption_test checks of the short footer, for the long one: every
// bit flip is refused, with an origin recorded (minor version 1) or not.
TEST(RibbonEncodingTest, EveryBitFlipOfTheLongFooterIsRefused) {
  const Filter filter = BuildRibbon(600, 10, 0, 7);
  for (const FilterOrigin origin :
       {FilterOrigin{}, FilterOrigin{4, false, 3}}) {
    std::string good;
    internal::ribbon::AppendLongRibbon(filter, origin, &good);
    ASSERT_TRUE(OpenFilter(AsBytes(good)).ok());
    for (size_t byte = 0; byte < good.size(); ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = good;
        bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
        ASSERT_FALSE(OpenFilter(AsBytes(bad)).ok()) << byte << " " << bit;
      }
    }
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
