// The recipe of docs/ARCHITECTURE.md, "A new filter kind", proved: a kind
// defined in this folder only (table_kind.cc) is built, written, read,
// inspected, damaged and planned through the library's kind-neutral code.
#include "tests/kinds/table_kind.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/format.h"
#include "blockbloom/level_allocation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;
using testing::kTableKind;

absl::Span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string Key(int i) { return absl::StrCat("key", i); }

class TableKindTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::RegisterTableKind(); }

  static Filter Build(int n, uint64_t seed = 0) {
    FilterOptions options;
    options.kind = kTableKind;
    options.seed = seed;
    absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
    EXPECT_TRUE(builder.ok()) << builder.status();
    for (int i = 0; i < n; ++i) builder->Add(Key(i));
    absl::StatusOr<Filter> filter = builder->Finish();
    EXPECT_TRUE(filter.ok()) << filter.status();
    return *std::move(filter);
  }
};

TEST_F(TableKindTest, BuiltByFilterBuilderAndNamed) {
  const Filter filter = Build(5000, 7);
  EXPECT_EQ(filter.kind(), kTableKind);
  EXPECT_STREQ(FilterKindName(filter.kind()), "table");
  EXPECT_EQ(filter.bits().size(), 4u * 5000);
  EXPECT_EQ(filter.num_keys(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(filter.MayContain(Key(i))) << i;
  int false_positives = 0;
  for (int i = 5000; i < 105000; ++i)
    false_positives += filter.MayContain(Key(i));
  EXPECT_LE(false_positives, 2);  // n / 2^32 a probe: ~0.1 expected
  EXPECT_LT(filter.EstimatedFpRate(), 1e-5);
  // FilterBuilder's checks of any kind, then its own.
  FilterOptions shaped;
  shaped.kind = kTableKind;
  shaped.shape = {4, 6, 32};
  EXPECT_THAT(FilterBuilder::Create(shaped).status().message(),
              HasSubstr("a table filter (FilterOptions::kind) is sized by"));
  FilterOptions rated;
  rated.kind = kTableKind;
  rated.fp_rate = 0.01;
  EXPECT_THAT(FilterBuilder::Create(rated).status().message(),
              HasSubstr("no fp_rate"));
}

TEST_F(TableKindTest, RoundTripsTheFormatInPlace) {
  for (int n : {0, 1, 2, 100, 20000}) {
    const Filter filter = Build(n, 42);
    WriteStats stats;
    std::string block;
    ASSERT_TRUE(AppendFilter(filter, {}, &block, &stats).ok()) << n;
    EXPECT_EQ(block.size(), 4u * n + 17);
    EXPECT_EQ(stats.total_bytes, block.size());
    EXPECT_EQ(stats.overhead_bytes, 17u);
    absl::StatusOr<FilterInfo> info = InspectFilter(AsBytes(block));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->kind, kTableKind);
    EXPECT_EQ(info->seed, 42u);
    EXPECT_EQ(info->num_keys, static_cast<uint64_t>(n));
    FilterInfo opened_info;
    absl::StatusOr<Filter> read = OpenFilter(AsBytes(block), {}, &opened_info);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(opened_info.total_bytes, block.size());
    EXPECT_EQ(read->kind(), kTableKind);
    EXPECT_FALSE(read->owns_bits());  // probed where it lies
    if (n > 0) {
      EXPECT_EQ(read->bits().data(), AsBytes(block).data());
    }
    for (int i = 0; i < n; ++i) ASSERT_TRUE(read->MayContain(Key(i)));
    std::vector<std::string> keys;
    for (int i = 0; i < n + 50; ++i) keys.push_back(Key(i));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::unique_ptr<bool[]> results(new bool[views.size()]);
    read->MayContainBatch(views, absl::MakeSpan(results.get(), views.size()));
    for (int i = 0; i < n + 50; ++i) {
      EXPECT_EQ(results[i], read->MayContain(Key(i)));
    }
  }
}

TEST_F(TableKindTest, RefusesWhatItDoesNotWrite) {
  const Filter filter = Build(100);
  WriteOptions options;
  options.encoding = Encoding::kFull;
  EXPECT_EQ(SerializeFilter(filter, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = {};
  options.origin = {.level = 1};
  EXPECT_THAT(SerializeFilter(filter, options).status().message(),
              HasSubstr("origin"));
  options = {};
  options.compression = Compression::kZstd;
  EXPECT_EQ(SerializeFilter(filter, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Every truncation and every single flipped bit: a status, or a filter that
// still has every key (never a false negative, never a crash).
TEST_F(TableKindTest, DamageIsAnErrorNeverAFalseNegative) {
  const Filter filter = Build(40, 3);
  const std::string block = *SerializeFilter(filter);
  for (size_t size = 0; size < block.size(); ++size) {
    EXPECT_FALSE(OpenFilter(AsBytes(block.substr(0, size))).ok()) << size;
  }
  for (size_t bit = 0; bit < 8 * block.size(); ++bit) {
    std::string damaged = block;
    damaged[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    absl::StatusOr<Filter> read = OpenFilter(AsBytes(damaged));
    if (!read.ok()) continue;
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(read->MayContain(Key(i))) << bit;
  }
  // Unchecked, an unsorted table is still refused: a binary search over it
  // could miss a key.
  std::string unsorted = block;
  std::swap(unsorted[0], unsorted[4]);
  std::swap(unsorted[1], unsorted[5]);
  std::swap(unsorted[2], unsorted[6]);
  std::swap(unsorted[3], unsorted[7]);
  ReadOptions unchecked;
  unchecked.verify_checksum = false;
  EXPECT_EQ(OpenFilter(AsBytes(unsorted), unchecked).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST_F(TableKindTest, AnswersThroughThePolicy) {
  const std::string block = *SerializeFilter(Build(3000));
  FilterPolicy::Options options;
  absl::StatusOr<FilterPolicy> policy = FilterPolicy::Create(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(policy->KeyMayMatch(Key(i), AsBytes(block))) << i;
  }
  int false_positives = 0;
  for (int i = 3000; i < 13000; ++i) {
    false_positives += policy->KeyMayMatch(Key(i), AsBytes(block));
  }
  EXPECT_LE(false_positives, 1);
  absl::Status error;
  FilterInfo info;
  const Filter reader = policy->NewReader(AsBytes(block), &error, &info);
  EXPECT_TRUE(error.ok()) << error;
  EXPECT_EQ(info.kind, kTableKind);
  EXPECT_EQ(reader.kind(), kTableKind);
}

TEST_F(TableKindTest, PlannedByItsRateCurve) {
  // A kind the level planner is given without a curve takes its plug-in's.
  LevelAllocator::Options options;
  KindCurve table;
  table.kind = kTableKind;
  table.first_level = 1;
  options.kinds = {KindCurve{}, table};
  absl::StatusOr<LevelAllocator> allocator = LevelAllocator::Create(options);
  ASSERT_TRUE(allocator.ok()) << allocator.status();
  EXPECT_LT(allocator->FpRate(kTableKind, 10), 1e-3);
  // An unknown kind has no curve to take.
  options.kinds[1].kind = static_cast<FilterKind>(200);
  EXPECT_THAT(LevelAllocator::Create(options).status().message(),
              HasSubstr("fp_rate"));
}

TEST_F(TableKindTest, UnregisteredTagsAreNotFilters) {
  std::string block = *SerializeFilter(Build(10));
  block.back() = 0x31;  // a registered kind's tag that no kind owns
  const absl::Status status = OpenFilter(AsBytes(block)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("registered at run time"));
}

}  // namespace
}  // namespace blockbloom
