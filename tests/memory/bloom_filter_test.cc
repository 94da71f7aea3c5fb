// BloomFilter: every operation, in both modes; the same bits as the
// immutable Filter built from the same keys; serialization through the
// filter block format; compatibility errors.
#include "blockbloom/bloom_filter.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/memory/memory_test_util.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Keys(const std::string& prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(absl::StrCat(prefix, i));
  return keys;
}

std::vector<std::string_view> Views(const std::vector<std::string>& keys) {
  return {keys.begin(), keys.end()};
}

BloomFilterOptions Seeded(uint64_t seed, bool concurrent = false) {
  BloomFilterOptions options;
  options.seed = seed;
  options.concurrent = concurrent;
  return options;
}

BloomFilter Make(uint64_t n, double fp_rate, BloomFilterOptions options) {
  return testing::Created(BloomFilter::Create(n, fp_rate, options));
}

class BloomFilterModeTest : public ::testing::TestWithParam<bool> {
 protected:
  bool concurrent() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(Modes, BloomFilterModeTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& mode) {
                           return mode.param ? "Concurrent" : "SingleWriter";
                         });

TEST_P(BloomFilterModeTest, AddReturnsWhetherNewAndNoFalseNegatives) {
  BloomFilter f = Make(20'000, 0.01, Seeded(1, concurrent()));
  EXPECT_EQ(f.concurrent(), concurrent());
  const std::vector<std::string> keys = Keys("k", 20'000);
  size_t added = 0;
  for (const std::string& key : keys) added += f.Add(key);
  // Every key is new except the few that were false positives when added.
  EXPECT_GT(added, keys.size() * 0.99);
  EXPECT_EQ(f.num_insertions(), added);
  for (const std::string& key : keys) {
    ASSERT_TRUE(f.MayContain(key)) << key;
    ASSERT_FALSE(f.Add(key)) << "a second Add changes nothing: " << key;
  }
  EXPECT_EQ(f.num_insertions(), added);
  // Hash entry points agree with the key ones.
  EXPECT_TRUE(f.MayContainHash(HashKey(keys[7], f.seed())));
  EXPECT_FALSE(f.AddHash(HashKey(keys[7], f.seed())));
}

TEST_P(BloomFilterModeTest, BatchesMatchSingleCalls) {
  const std::vector<std::string> keys = Keys("batch-", 5000);
  std::vector<std::string> with_repeats = keys;
  with_repeats.push_back(keys[3]);  // a repeat answers false the 2nd time
  const std::vector<std::string_view> views = Views(with_repeats);

  BloomFilter single = Make(5000, 0.01, Seeded(2, concurrent()));
  std::vector<bool> want;
  for (std::string_view key : views) want.push_back(single.Add(key));

  BloomFilter batch = Make(5000, 0.01, Seeded(2, concurrent()));
  std::unique_ptr<bool[]> added(new bool[views.size()]);
  const size_t count =
      batch.AddBatch(views, absl::MakeSpan(added.get(), views.size()));
  size_t want_count = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_EQ(added[i], want[i]) << i;
    want_count += want[i];
  }
  EXPECT_FALSE(added[views.size() - 1]);
  EXPECT_EQ(count, want_count);
  EXPECT_EQ(batch.num_insertions(), want_count);
  EXPECT_THAT(batch.bits(), ::testing::ElementsAreArray(single.bits()));

  // Without per-key results.
  BloomFilter quiet = Make(5000, 0.01, Seeded(2, concurrent()));
  EXPECT_EQ(quiet.AddBatch(views), want_count);
  EXPECT_THAT(quiet.bits(), ::testing::ElementsAreArray(single.bits()));

  // Batch queries over present and absent keys.
  std::vector<std::string> probes = keys;
  for (const std::string& k : Keys("absent-", 5000)) probes.push_back(k);
  const std::vector<std::string_view> probe_views = Views(probes);
  std::unique_ptr<bool[]> results(new bool[probes.size()]);
  batch.MayContainBatch(probe_views,
                        absl::MakeSpan(results.get(), probes.size()));
  for (size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(results[i], single.MayContain(probes[i])) << i;
  }
  std::vector<uint64_t> hashes;
  for (std::string_view p : probe_views) hashes.push_back(HashKey(p, 2));
  batch.MayContainHashBatch(hashes,
                            absl::MakeSpan(results.get(), hashes.size()));
  for (size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(results[i], single.MayContain(probes[i])) << i;
  }
}

TEST(BloomFilterTest, SameBitsAsTheImmutableFilter) {
  // The one layout: a BloomFilter and a FilterBuilder with the same shape
  // and seed hold identical bits, in both modes.
  const std::vector<std::string> keys = Keys("same-", 30'000);
  absl::StatusOr<FilterShape> shape = ShapeForFpRate(30'000, 0.01, false);
  ASSERT_TRUE(shape.ok());
  FilterOptions options;
  options.shape = *shape;
  options.seed = 77;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  ASSERT_TRUE(builder.ok());
  for (const std::string& key : keys) builder->Add(key);
  absl::StatusOr<Filter> built = builder->Finish();
  ASSERT_TRUE(built.ok());
  for (bool concurrent : {false, true}) {
    absl::StatusOr<BloomFilter> f =
        BloomFilter::CreateWithShape(*shape, Seeded(77, concurrent));
    ASSERT_TRUE(f.ok());
    for (const std::string& key : keys) f->Add(key);
    EXPECT_THAT(f->bits(), ::testing::ElementsAreArray(built->bits()));
  }
}

TEST(BloomFilterTest, CreateSizesLikeTheSizingFunctions) {
  BloomFilter a = Make(1'000'000, 0.01, Seeded(0));
  EXPECT_EQ(a.shape(), *ShapeForFpRate(1'000'000, 0.01, false));
  absl::StatusOr<BloomFilter> b =
      BloomFilter::CreateWithBitsPerKey(1'000'000, 10, Seeded(0));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->shape(), *ShapeForBitsPerKey(1'000'000, 10, false));
  EXPECT_EQ(b->size_bytes(), b->num_blocks() * 64);
  // Tiny filters still get whole 64-byte blocks.
  EXPECT_EQ(Make(3, 0.01, {}).shape().lane_bits, 32);
}

TEST(BloomFilterTest, InvalidArguments) {
  EXPECT_EQ(BloomFilter::Create(0, 0.01).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BloomFilter::Create(10, 1.5).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BloomFilter::CreateWithBitsPerKey(10, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BloomFilter::CreateWithShape({0, 6, 32}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BloomFilter::Create(uint64_t{1} << 62, 1e-9).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(BloomFilterTest, RandomSeedByDefault) {
  BloomFilter a = Make(100, 0.01, {});
  BloomFilter b = Make(100, 0.01, {});
  EXPECT_NE(a.seed(), b.seed());
  EXPECT_NE(NewRandomSeed(), NewRandomSeed());
}

TEST_P(BloomFilterModeTest, ClearEmptiesTheFilter) {
  BloomFilter f = Make(1000, 0.01, Seeded(3, concurrent()));
  for (const std::string& key : Keys("c", 1000)) f.Add(key);
  EXPECT_GT(f.ApproximateCount(), 900u);
  f.Clear();
  EXPECT_EQ(f.num_insertions(), 0u);
  EXPECT_EQ(f.ApproximateCount(), 0u);
  EXPECT_EQ(f.EstimatedFpRate(), 0.0);
  for (uint8_t byte : f.bits()) ASSERT_EQ(byte, 0);
  EXPECT_TRUE(f.Add("c1"));
  EXPECT_EQ(f.num_insertions(), 1u);
}

TEST_P(BloomFilterModeTest, MergeIsTheUnion) {
  const std::vector<std::string> a_keys = Keys("a", 4000);
  const std::vector<std::string> b_keys = Keys("b", 4000);
  BloomFilter a = Make(10'000, 0.01, Seeded(4, concurrent()));
  BloomFilter b = Make(10'000, 0.01, Seeded(4, !concurrent()));
  BloomFilter both = Make(10'000, 0.01, Seeded(4));
  for (const std::string& k : a_keys) {
    a.Add(k);
    both.Add(k);
  }
  for (const std::string& k : b_keys) {
    b.Add(k);
    both.Add(k);
  }
  ASSERT_TRUE(a.Merge(b).ok());
  // Bitwise OR of the two is exactly the filter of all keys.
  EXPECT_THAT(a.bits(), ::testing::ElementsAreArray(both.bits()));
  EXPECT_NEAR(static_cast<double>(a.num_insertions()), 8000, 8000 * 0.03);
  // Merging an immutable Filter works too, and with itself changes nothing.
  BloomFilter c = Make(10'000, 0.01, Seeded(4, concurrent()));
  ASSERT_TRUE(c.Merge(a.View()).ok());
  EXPECT_THAT(c.bits(), ::testing::ElementsAreArray(both.bits()));
  ASSERT_TRUE(c.Merge(c).ok());
  EXPECT_THAT(c.bits(), ::testing::ElementsAreArray(both.bits()));
}

TEST_P(BloomFilterModeTest, IntersectKeepsCommonKeys) {
  const std::vector<std::string> common = Keys("common", 3000);
  BloomFilter a = Make(10'000, 0.01, Seeded(5, concurrent()));
  BloomFilter b = Make(10'000, 0.01, Seeded(5));
  for (const std::string& k : common) {
    a.Add(k);
    b.Add(k);
  }
  const std::vector<std::string> only_a = Keys("only-a", 3000);
  const std::vector<std::string> only_b = Keys("only-b", 3000);
  for (const std::string& k : only_a) a.Add(k);
  for (const std::string& k : only_b) b.Add(k);
  ASSERT_TRUE(a.Intersect(b).ok());
  for (const std::string& k : common) ASSERT_TRUE(a.MayContain(k)) << k;
  // Keys of one side survive only as false positives, at about the rate
  // the intersected bits predict.
  size_t survivors = 0;
  for (const std::string& k : only_a) survivors += a.MayContain(k);
  const double rate = a.EstimatedFpRate();
  EXPECT_LT(static_cast<double>(survivors),
            3000 * rate + 5 * std::sqrt(3000 * rate) + 5);
  // The count estimate is close to the common keys (plus a little).
  EXPECT_NEAR(static_cast<double>(a.ApproximateCount()), 3000, 3000 * 0.25);
  EXPECT_EQ(a.num_insertions(), a.ApproximateCount());
}

TEST(BloomFilterTest, IncompatibleFiltersAreRefused) {
  BloomFilter a = Make(10'000, 0.01, Seeded(6));
  for (const std::string& k : Keys("x", 100)) a.Add(k);
  const std::vector<uint8_t> before(a.bits().begin(), a.bits().end());

  BloomFilter other_size = Make(20'000, 0.01, Seeded(6));
  absl::Status s = a.Merge(other_size);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("different shapes"));
  EXPECT_THAT(s.message(), HasSubstr("blocks"));

  absl::StatusOr<BloomFilter> other_k = BloomFilter::CreateWithShape(
      {a.num_blocks(), a.num_probes() + 1, 32}, Seeded(6));
  ASSERT_TRUE(other_k.ok());
  EXPECT_THAT(a.Intersect(*other_k).message(), HasSubstr("k = "));

  BloomFilter other_seed = Make(10'000, 0.01, Seeded(7));
  s = a.Merge(other_seed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("seed"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("7")));  // kept secret
  EXPECT_EQ(a.Intersect(other_seed).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(a.Merge(Filter::MatchAll()).message(), HasSubstr("MatchAll"));
  EXPECT_TRUE(a.CheckCompatible(Make(10'000, 0.01, Seeded(6))).ok());
  // Nothing changed.
  EXPECT_THAT(a.bits(), ::testing::ElementsAreArray(before));
}

TEST_P(BloomFilterModeTest, SerializesThroughTheFilterBlockFormat) {
  BloomFilter f = Make(50'000, 0.01, Seeded(8, concurrent()));
  const std::vector<std::string> keys = Keys("ser", 40'000);
  for (const std::string& k : keys) f.Add(k);
  for (Encoding encoding : {Encoding::kAuto, Encoding::kFull}) {
    for (Compression compression : {Compression::kNone, Compression::kZstd}) {
      WriteOptions w;
      w.encoding = encoding;
      w.compression = compression;
      absl::StatusOr<std::string> bytes = f.Serialize(w);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      // An immutable reader sees the same filter...
      absl::StatusOr<Filter> read = OpenFilter(AsBytes(*bytes));
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->shape(), f.shape());
      EXPECT_EQ(read->seed(), f.seed());
      EXPECT_EQ(read->num_keys(), f.num_insertions());
      EXPECT_THAT(read->bits(), ::testing::ElementsAreArray(f.bits()));
      // ...and it loads back into a mutable one that keeps working.
      BloomFilterOptions options;
      options.concurrent = concurrent();
      absl::StatusOr<BloomFilter> back =
          BloomFilter::Deserialize(AsBytes(*bytes), {}, options);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->num_insertions(), f.num_insertions());
      EXPECT_THAT(back->bits(), ::testing::ElementsAreArray(f.bits()));
      for (const std::string& k : keys) ASSERT_TRUE(back->MayContain(k));
      EXPECT_TRUE(back->Add("a new key"));
    }
  }
  // Damage is caught by the format's checksum.
  std::string bytes = *f.Serialize();
  bytes[100] ^= 1;
  EXPECT_EQ(BloomFilter::Deserialize(AsBytes(bytes)).status().code(),
            absl::StatusCode::kDataLoss);
}

// Small filters from storage engines are one block of 16 lanes of any width
// (narrower or wider than 32 bits); they load and grow like any other.
TEST(BloomFilterTest, FromFilterCopiesAnyShapeIncludingSmallFilters) {
  for (int n : {40, 500}) {  // 25-bit and 313-bit lanes at 10 bits/key
    FilterOptions options;
    options.seed = 9;
    absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
    ASSERT_TRUE(builder.ok());
    const std::vector<std::string> keys = Keys("small", n);
    for (const std::string& k : keys) builder->Add(k);
    absl::StatusOr<Filter> small = builder->Finish();
    ASSERT_TRUE(small.ok());
    ASSERT_NE(small->lane_bits(), 32);
    for (bool concurrent : {false, true}) {
      SCOPED_TRACE(absl::StrCat("n ", n, " w ", small->lane_bits(),
                                concurrent ? " concurrent" : ""));
      absl::StatusOr<BloomFilter> f =
          BloomFilter::FromFilter(*small, Seeded(9, concurrent));
      ASSERT_TRUE(f.ok()) << f.status();
      EXPECT_EQ(f->num_insertions(), static_cast<uint64_t>(n));
      EXPECT_THAT(f->bits(), ::testing::ElementsAreArray(small->bits()));
      for (const std::string& k : keys) ASSERT_TRUE(f->MayContain(k));
      EXPECT_NEAR(f->EstimatedFpRate(), small->EstimatedFpRate(),
                  small->EstimatedFpRate() * 0.6);
      const std::vector<std::string> more = Keys("more", n / 2);
      for (const std::string& k : more) f->Add(k);
      for (const std::string& k : more) ASSERT_TRUE(f->MayContain(k));
      for (const std::string& k : keys) ASSERT_TRUE(f->MayContain(k));
      EXPECT_NEAR(static_cast<double>(f->ApproximateCount()), 1.5 * n,
                  0.15 * n);
      // It writes back as a filter of the same shape.
      absl::StatusOr<std::string> bytes = f->Serialize();
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      absl::StatusOr<Filter> read = OpenFilter(AsBytes(*bytes));
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->shape(), small->shape());
    }
    // A seed that contradicts the filter's is refused.
    EXPECT_THAT(BloomFilter::FromFilter(*small, Seeded(10)).status().message(),
                HasSubstr("seed"));
  }
  EXPECT_EQ(BloomFilter::FromFilter(Filter::MatchAll()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BloomFilterTest, SmallFiltersRoundTripInEitherEncoding) {
  BloomFilter f = Make(50, 0.01, Seeded(14));  // under 1 KiB: compact
  const std::vector<std::string> keys = Keys("tiny", 50);
  for (const std::string& k : keys) f.Add(k);
  for (Encoding encoding : {Encoding::kAuto, Encoding::kFull}) {
    WriteOptions w;
    w.encoding = encoding;
    absl::StatusOr<std::string> bytes = f.Serialize(w);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<BloomFilter> back =
        BloomFilter::Deserialize(AsBytes(*bytes));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_THAT(back->bits(), ::testing::ElementsAreArray(f.bits()));
    for (const std::string& k : keys) ASSERT_TRUE(back->MayContain(k));
    if (encoding == Encoding::kFull) {
      EXPECT_EQ(back->num_insertions(), f.num_insertions());
    } else {  // no count stored: estimated from the bits
      EXPECT_NEAR(static_cast<double>(back->num_insertions()), 50, 5);
    }
  }
}

TEST_P(BloomFilterModeTest, CloneIsIndependent) {
  BloomFilter f = Make(1000, 0.01, Seeded(11, concurrent()));
  f.Add("one");
  absl::StatusOr<BloomFilter> copy = f.Clone();
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->concurrent(), concurrent());
  EXPECT_EQ(copy->num_insertions(), 1u);
  copy->Add("two");
  EXPECT_TRUE(copy->MayContain("one"));
  EXPECT_TRUE(copy->MayContain("two"));
  EXPECT_FALSE(f.MayContain("two"));
}

TEST(BloomFilterTest, ViewAnswersLikeTheFilter) {
  BloomFilter f = Make(1000, 0.01, Seeded(12));
  for (const std::string& k : Keys("v", 1000)) f.Add(k);
  const Filter view = f.View();
  EXPECT_FALSE(view.owns_bits());
  EXPECT_EQ(view.bits().data(), f.bits().data());
  for (const std::string& k : Keys("v", 2000)) {
    ASSERT_EQ(view.MayContain(k), f.MayContain(k));
  }
}

TEST(BloomFilterDeathTest, BatchSizeMismatchAborts) {
  BloomFilter f = Make(100, 0.01, Seeded(13));
  std::vector<std::string_view> keys = {"a", "b"};
  bool results[1];
  EXPECT_DEATH(f.MayContainBatch(keys, absl::MakeSpan(results, 1)),
               "2 keys given 1 results");
  EXPECT_DEATH(f.AddBatch(keys, absl::MakeSpan(results, 1)),
               "2 keys given 1 results");
}

}  // namespace
}  // namespace blockbloom
