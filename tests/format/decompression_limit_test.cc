// Decompression bombs (docs/FORMAT.md, "Reading" step 5): a small zstd block
// may not make the reader allocate much more than its size. The bombs here
// are real filters, not damaged ones: nearly empty filters of many blocks,
// which zstd shrinks by ~32000x, as an attacker's crafted block would.
#include <cstdint>
#include <string>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

// A zstd block of a filter of `bits_bytes` of bits holding one key.
std::string NearlyEmpty(uint64_t bits_bytes) {
  FilterOptions options;
  options.bits_per_key = static_cast<double>(bits_bytes * 8);
  options.compact_small_filters = false;
  FilterBuilder builder = *FilterBuilder::Create(options);
  builder.Add("the only key");
  Filter filter = *builder.Finish();
  EXPECT_EQ(filter.shape().size_bytes(), bits_bytes);
  WriteOptions write;
  write.compression = Compression::kZstd;
  return *SerializeFilter(filter, write);
}

TEST(DecompressionLimitTest, HighRatiosAreRefusedPastTheFreeSize) {
  // 128 MiB of bits in a few KB: a ratio of about 32000.
  const uint64_t bits_bytes = uint64_t{128} << 20;
  const std::string bomb = NearlyEmpty(bits_bytes);
  ASSERT_LT(bomb.size() * ReadOptions{}.max_decompression_ratio, bits_bytes);
  for (const absl::Status& s : {OpenFilter(AsBytes(bomb)).status(),
                                InspectFilter(AsBytes(bomb)).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_THAT(s.message(), HasSubstr("max_decompression_ratio"));
    EXPECT_THAT(s.message(), HasSubstr(std::to_string(bits_bytes)));
  }
  // Fail-open readers answer "may match" for it.
  absl::Status error;
  EXPECT_TRUE(OpenFilterOrMatchAll(AsBytes(bomb), {}, &error).is_match_all());
  EXPECT_EQ(error.code(), absl::StatusCode::kResourceExhausted);

  // A reader that trusts the block lifts the cap (or raises it).
  for (uint64_t ratio : {uint64_t{0}, uint64_t{1} << 20}) {
    ReadOptions trusting;
    trusting.max_decompression_ratio = ratio;
    absl::StatusOr<Filter> filter = OpenFilter(AsBytes(bomb), trusting);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_TRUE(filter->MayContain("the only key"));
  }
  // The absolute limit still applies without a ratio cap.
  ReadOptions small;
  small.max_decompression_ratio = 0;
  small.max_decompressed_bytes = bits_bytes - 1;
  EXPECT_EQ(OpenFilter(AsBytes(bomb), small).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(DecompressionLimitTest, SmallFiltersAreFreeOfTheRatioCap) {
  // Up to kRatioFreeBytes of bits, any ratio opens (an empty filter of a few
  // MiB is legitimate and cheap).
  for (uint64_t bits_bytes :
       {uint64_t{1} << 20, ReadOptions::kRatioFreeBytes}) {
    const std::string block = NearlyEmpty(bits_bytes);
    EXPECT_LT(block.size() * ReadOptions{}.max_decompression_ratio, bits_bytes);
    absl::StatusOr<Filter> filter = OpenFilter(AsBytes(block));
    ASSERT_TRUE(filter.ok()) << bits_bytes << ": " << filter.status();
    EXPECT_TRUE(filter->MayContain("the only key"));
  }
}

TEST(DecompressionLimitTest, FilledFiltersCompressFarBelowTheCap) {
  // A sparse but real filter (100 bits per key) compresses well under 2x:
  // the cap never touches a filter that holds keys.
  FilterOptions options;
  options.bits_per_key = 100;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (int i = 0; i < 200000; ++i) builder.Add("key" + std::to_string(i));
  Filter filter = *builder.Finish();
  WriteOptions write;
  write.compression = Compression::kZstd;
  const std::string block = *SerializeFilter(filter, write);
  EXPECT_GT(filter.shape().size_bytes(), ReadOptions::kRatioFreeBytes / 32);
  EXPECT_LT(filter.shape().size_bytes(), 4 * block.size());
  EXPECT_TRUE(OpenFilter(AsBytes(block)).ok());
}

}  // namespace
}  // namespace blockbloom
