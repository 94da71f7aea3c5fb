// The public Filter and FilterBuilder: no false negatives on random and
// adversarial key sets, options, wrapping caller-owned bits, batch APIs.
#include "blockbloom/filter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/hash.h"
#include "blockbloom/sizing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/core/hash_chunks.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

Filter Build(const std::vector<std::string>& keys, FilterOptions options = {}) {
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (const std::string& key : keys) builder->Add(key);
  absl::StatusOr<Filter> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *std::move(filter);
}

void ExpectAllPresent(const Filter& filter,
                      const std::vector<std::string>& keys) {
  size_t missing = 0;
  for (const std::string& key : keys) missing += !filter.MayContain(key);
  EXPECT_EQ(missing, 0u);
  // The batch path too.
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::unique_ptr<bool[]> results(new bool[views.size()]);
  filter.MayContainBatch(views, absl::MakeSpan(results.get(), views.size()));
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_TRUE(results[i]) << "batch false negative at " << i;
  }
}

TEST(FilterTest, NoFalseNegativesOneMillionRandomKeys) {
  std::mt19937_64 rng(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 1'000'000; ++i) {
    const uint64_t v = rng();
    keys.emplace_back(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  ExpectAllPresent(Build(keys), keys);
}

std::string Uint64Bytes(uint64_t v, bool big_endian) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) {
    const int shift = big_endian ? 56 - 8 * i : 8 * i;
    s[i] = static_cast<char>(v >> shift);
  }
  return s;
}

TEST(FilterTest, NoFalseNegativesSequentialIntegersBothEndiannesses) {
  for (bool big_endian : {false, true}) {
    std::vector<std::string> keys;
    for (uint64_t i = 0; i < 200'000; ++i) {
      keys.push_back(Uint64Bytes(i, big_endian));
    }
    Filter filter = Build(keys);
    ExpectAllPresent(filter, keys);
    // Structured keys must not hurt accuracy either.
    uint64_t positives = 0;
    for (uint64_t i = 1'000'000; i < 1'400'000; ++i) {
      positives += filter.MayContain(Uint64Bytes(i, big_endian));
    }
    EXPECT_LT(positives, 400'000 * 0.0099 * 1.1);
  }
}

TEST(FilterTest, NoFalseNegativesForKeysSharingALongPrefix) {
  const std::string prefix(100, 'p');
  std::vector<std::string> keys;
  for (int i = 0; i < 100'000; ++i) keys.push_back(absl::StrCat(prefix, i));
  ExpectAllPresent(Build(keys), keys);
}

TEST(FilterTest, NoFalseNegativesForEmptyTinyAndHugeKeys) {
  std::vector<std::string> keys = {"", std::string(1 << 20, 'z')};
  for (int c = 0; c < 256; ++c)
    keys.push_back(std::string(1, static_cast<char>(c)));
  ExpectAllPresent(Build(keys), keys);
  // The empty key and a 1 MiB key alone.
  ExpectAllPresent(Build({""}), {""});
  ExpectAllPresent(Build({std::string(1 << 20, 'q')}),
                   {std::string(1 << 20, 'q')});
}

TEST(FilterTest, EmptyBuilderGivesAFilterThatContainsNothing) {
  Filter filter = Build({});
  EXPECT_EQ(filter.num_keys(), 0u);
  EXPECT_EQ(filter.num_blocks(), 1u);
  EXPECT_EQ(filter.bits().size(), 2u);  // one block of 1-bit lanes
  EXPECT_EQ(filter.EstimatedFpRate(), 0.0);
  for (int i = 0; i < 1000; ++i)
    EXPECT_FALSE(filter.MayContain(absl::StrCat(i)));
}

TEST(FilterTest, SizesFromBitsPerKeyIncludingFractional) {
  std::vector<std::string> keys;
  for (int i = 0; i < 10'000; ++i) keys.push_back(absl::StrCat("k", i));
  FilterOptions options;
  options.bits_per_key = 9.5;
  Filter filter = Build(keys, options);
  EXPECT_EQ(filter.num_blocks(), (10'000 * 95 + 5119) / 5120);  // ceil
  EXPECT_EQ(filter.num_keys(), 10'000u);
  EXPECT_EQ(filter.bits().size(), filter.num_blocks() * 64);
  EXPECT_TRUE(filter.owns_bits());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(filter.bits().data()) % 64, 0u);
}

TEST(FilterTest, SizesFromTargetFpRate) {
  std::vector<std::string> keys;
  for (int i = 0; i < 100'000; ++i) keys.push_back(absl::StrCat("k", i));
  FilterOptions options;
  options.fp_rate = 0.001;
  Filter filter = Build(keys, options);
  EXPECT_LE(filter.EstimatedFpRate(), 0.001);
  EXPECT_GT(filter.EstimatedFpRate(), 0.0009);  // not oversized
  uint64_t positives = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    positives += filter.MayContain(absl::StrCat("absent", i));
  }
  EXPECT_LT(positives, 1000 + 4 * 32);  // expected <= 1000, 4 sigma
  ExpectAllPresent(filter, keys);
}

TEST(FilterTest, FixedShapeGoesStraightIntoTheFilter) {
  FilterOptions options;
  options.shape = {100, 7};
  FilterBuilder builder = *FilterBuilder::Create(options);
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    keys.push_back(absl::StrCat("k", i));
    builder.Add(keys.back());
  }
  Filter filter = *builder.Finish();
  EXPECT_EQ(filter.shape(), (FilterShape{100, 7}));
  EXPECT_EQ(filter.num_keys(), 5000u);
  ExpectAllPresent(filter, keys);
  // The builder is reusable after Finish, with the same shape.
  builder.Add("again");
  Filter second = *builder.Finish();
  EXPECT_EQ(second.shape(), (FilterShape{100, 7}));
  EXPECT_TRUE(second.MayContain("again"));
  EXPECT_EQ(second.num_keys(), 1u);
}

TEST(FilterTest, SameKeysGiveTheSameBitsWhateverTheBuildPath) {
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back(absl::StrCat("k", i));
  Filter sized = Build(keys);
  FilterOptions fixed;
  fixed.shape = sized.shape();
  Filter direct = Build(keys, fixed);
  ASSERT_EQ(sized.bits().size(), direct.bits().size());
  EXPECT_EQ(0, std::memcmp(sized.bits().data(), direct.bits().data(),
                           sized.bits().size()));
}

// Both build paths (hashes kept in chunks and inserted at Finish; a fixed
// shape inserting in batches as keys arrive) set exactly the bits the scalar
// reference sets, at counts around the chunk and batch boundaries.
TEST(FilterTest, BuildersSetExactlyTheReferenceBits) {
  std::mt19937_64 rng(17);
  std::vector<uint64_t> hashes(350000);  // past the first 2 MiB chunk
  for (uint64_t& h : hashes) h = rng();
  for (size_t n : {size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{257},
                   size_t{1023}, size_t{1024}, size_t{1025}, size_t{1281},
                   size_t{87296}, size_t{87297}, hashes.size()}) {
    for (const bool fixed : {false, true}) {
      // Small filters are one block of narrow lanes (the scalar kernels);
      // compact_small_filters = false keeps them on 32-bit lanes.
      for (const bool compact : {false, true}) {
        FilterOptions options;
        options.compact_small_filters = compact;
        if (fixed) options.shape = *ShapeForBitsPerKey(n + 1, 10, compact);
        FilterBuilder builder = *FilterBuilder::Create(options);
        for (size_t i = 0; i < n; ++i) builder.AddHash(hashes[i]);
        const Filter filter = *builder.Finish();
        ASSERT_EQ(filter.num_keys(), n);
        const FilterShape shape = filter.shape();
        std::vector<uint8_t> want(shape.size_bytes());
        const internal::FilterRef ref = {
            want.data(), shape.num_blocks,
            internal::LaneSetsFor(std::max(shape.num_probes, 1)), 0,
            static_cast<uint32_t>(shape.lane_bits)};
        for (size_t i = 0; i < n; ++i) {
          internal::ReferenceInsert(ref, want.data(), hashes[i]);
        }
        ASSERT_EQ(0,
                  std::memcmp(filter.bits().data(), want.data(), want.size()))
            << "n " << n << (fixed ? " fixed shape" : " sized at Finish")
            << " lane bits " << shape.lane_bits;
      }
    }
  }
}

// A builder keeps a cursor into its hash storage: moving it mid-build must
// move the keys along, and leave the source empty but usable.
TEST(FilterTest, BuilderMovedMidwayKeepsItsKeys) {
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back(absl::StrCat("m", i));
  for (const bool fixed : {false, true}) {
    FilterOptions options;
    if (fixed) options.shape = *ShapeForBitsPerKey(keys.size(), 10);
    const Filter direct = Build(keys, options);
    FilterBuilder first = *FilterBuilder::Create(options);
    for (size_t i = 0; i < 1500; ++i) first.Add(keys[i]);
    FilterBuilder second = std::move(first);
    for (size_t i = 1500; i < keys.size(); ++i) second.Add(keys[i]);
    const Filter moved = *second.Finish();
    EXPECT_EQ(moved.num_keys(), keys.size());
    ASSERT_EQ(moved.bits().size(), direct.bits().size());
    EXPECT_EQ(0, std::memcmp(moved.bits().data(), direct.bits().data(),
                             direct.bits().size()));
    // The moved-from builder holds nothing and still builds.
    EXPECT_EQ(first.num_keys(), 0u);  // NOLINT(bugprone-use-after-move)
    first.Add("after");
    EXPECT_TRUE(first.Finish()->MayContain("after"));
    // Move-assignment too.
    FilterBuilder third = *FilterBuilder::Create(options);
    third.Add("x");
    third = std::move(second);  // second was finished: empty
    third.Add("y");
    const Filter assigned = *third.Finish();
    EXPECT_EQ(assigned.num_keys(), 1u);
    EXPECT_TRUE(assigned.MayContain("y"));
  }
}

TEST(FilterTest, HashChunksKeepEveryHashInOrder) {
  internal::HashChunks chunks;
  EXPECT_TRUE(chunks.empty());
  constexpr uint64_t kCount = 700000;  // two 2 MiB chunks and a partial one
  uint64_t* next = nullptr;
  uint64_t* end = nullptr;
  std::vector<size_t> capacities;
  for (uint64_t i = 0; i < kCount; ++i) {
    if (next == end) {
      next = chunks.NewChunk(&end);
      capacities.push_back(static_cast<size_t>(end - next));
    }
    *next++ = i * 0x9e3779b97f4a7c15;
  }
  EXPECT_THAT(capacities, ::testing::ElementsAre(256, 1024, 4096, 16384, 65536,
                                                 262144, 262144, 262144));
  uint64_t expected = 0;
  chunks.Drain(next, [&](const uint64_t* h, size_t n) {
    for (size_t j = 0; j < n; ++j, ++expected) {
      ASSERT_EQ(h[j], expected * 0x9e3779b97f4a7c15);
    }
  });
  EXPECT_EQ(expected, kCount);
  EXPECT_TRUE(chunks.empty());
  next = chunks.NewChunk(&end);  // usable again, from the smallest chunk
  EXPECT_EQ(end - next, 256);
}

// Big hash chunks are kept for the next builder (src/core/hash_chunks.cc),
// with the last build's hashes still in them: a build after another must
// still equal a build that never stored hashes (a fixed shape inserts
// them as they come).
TEST(FilterTest, BuildsInSequenceEqualDirectInserts) {
  constexpr int kKeys = 600000;  // two big chunks and a partial one
  for (int round = 0; round < 3; ++round) {
    FilterBuilder builder = *FilterBuilder::Create({});
    for (int i = 0; i < kKeys; ++i) {
      builder.Add(absl::StrCat("round", round, "-key", i));
    }
    const Filter filter = *builder.Finish();
    FilterOptions fixed;
    fixed.shape = filter.shape();
    FilterBuilder direct = *FilterBuilder::Create(fixed);
    for (int i = 0; i < kKeys; ++i) {
      direct.Add(absl::StrCat("round", round, "-key", i));
    }
    const Filter expected = *direct.Finish();
    ASSERT_TRUE(filter.bits() == expected.bits()) << "round " << round;
  }
}

TEST(FilterTest, AdjacentDuplicatesCountOnce) {
  FilterBuilder builder = *FilterBuilder::Create({});
  for (int i = 0; i < 100; ++i) {
    builder.Add("a");
    builder.Add("a");
    builder.Add("b");
  }
  EXPECT_EQ(builder.num_keys(), 200u);  // a, b, a, b, ...: not adjacent
  Filter filter = *builder.Finish();
  EXPECT_TRUE(filter.MayContain("a"));
  EXPECT_TRUE(filter.MayContain("b"));
  FilterBuilder runs = *FilterBuilder::Create({});
  for (int i = 0; i < 100; ++i) runs.Add("a");
  EXPECT_EQ(runs.num_keys(), 1u);
}

TEST(FilterTest, SeedChangesTheBitsAndIsKept) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(absl::StrCat("k", i));
  FilterOptions seeded;
  seeded.seed = 0xfeedface;
  Filter a = Build(keys), b = Build(keys, seeded);
  EXPECT_EQ(b.seed(), 0xfeedfaceu);
  ExpectAllPresent(b, keys);
  EXPECT_NE(0, std::memcmp(a.bits().data(), b.bits().data(), a.bits().size()));
  // Probing by hash with the filter's seed is the same as probing by key.
  for (const std::string& key : keys) {
    EXPECT_TRUE(b.MayContainHash(HashKey(key, b.seed())));
  }
}

TEST(FilterTest, HashKeyIsXxh3) {
  // XXH3_64bits("") and with seed 0 are the same; seeded values differ.
  EXPECT_EQ(HashKey(""), 0x2d06800538d394c2u);
  EXPECT_EQ(HashKey("", 0), HashKey(""));
  EXPECT_NE(HashKey("abc", 1), HashKey("abc", 0));
}

// src/core/key_hash.h calls XXH3's short-key paths directly (Hash64 up to 16
// bytes, Hash64ShortKey up to 32): both must give XXH3_64bits_withSeed's
// value for every length and seed.
TEST(FilterTest, InlineHashIsXxh3ForEveryLength) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0xfeedfacecafe}}) {
    for (size_t len = 0; len <= bytes.size(); ++len) {
      for (size_t at : {size_t{0}, size_t{3}}) {
        if (at + len > bytes.size()) continue;
        const std::string_view key(bytes.data() + at, len);
        ASSERT_EQ(internal::Hash64(key, seed),
                  XXH3_64bits_withSeed(key.data(), key.size(), seed))
            << len << " bytes at " << at << ", seed " << seed;
        ASSERT_EQ(HashKey(key, seed), internal::Hash64(key, seed));
        if (len <= internal::kShortKeyBytes) {
          ASSERT_EQ(internal::Hash64ShortKey(key, seed),
                    internal::Hash64(key, seed));
        }
      }
    }
  }
}

TEST(FilterTest, HashBatchMatchesSingleProbes) {
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back(absl::StrCat("k", i));
  Filter filter = Build(keys);
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 4000; ++i)
    hashes.push_back(HashKey(absl::StrCat("k", i)));
  std::unique_ptr<bool[]> results(new bool[hashes.size()]);
  filter.MayContainHashBatch(hashes,
                             absl::MakeSpan(results.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    EXPECT_EQ(results[i], filter.MayContainHash(hashes[i])) << i;
    if (i < 2000) {
      EXPECT_TRUE(results[i]);
    }
  }
  // Empty batches are fine.
  filter.MayContainHashBatch({}, {});
  filter.MayContainBatch({}, {});
}

TEST(FilterDeathTest, BatchWithMismatchedResultsAborts) {
  Filter filter = Build({"a"});
  std::vector<uint64_t> hashes(3);
  bool results[2];
  EXPECT_DEATH(filter.MayContainHashBatch(hashes, absl::MakeSpan(results, 2)),
               "batch probe of 3 keys given 2 results");
}

TEST(FilterTest, WrapProbesCallerOwnedUnalignedBitsWithoutCopying) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back(absl::StrCat("k", i));
  Filter built = Build(keys);
  std::vector<uint8_t> storage(built.bits().size() + 3);
  std::memcpy(storage.data() + 3, built.bits().data(), built.bits().size());
  absl::Span<const uint8_t> bits(storage.data() + 3, built.bits().size());
  absl::StatusOr<Filter> wrapped =
      Filter::Wrap(bits, built.shape(), built.seed(), built.num_keys());
  ASSERT_TRUE(wrapped.ok()) << wrapped.status();
  EXPECT_FALSE(wrapped->owns_bits());
  EXPECT_EQ(wrapped->bits().data(), storage.data() + 3);
  ExpectAllPresent(*wrapped, keys);
  for (int i = 0; i < 10000; ++i) {
    const std::string key = absl::StrCat("absent", i);
    EXPECT_EQ(wrapped->MayContain(key), built.MayContain(key));
  }
  EXPECT_EQ(wrapped->EstimatedFpRate(), built.EstimatedFpRate());
}

TEST(FilterTest, WrapRejectsBadShapesAndSizes) {
  std::vector<uint8_t> bits(128);
  EXPECT_THAT(Filter::Wrap(bits, {2, 0}, 0, 0).status().message(),
              HasSubstr("num_probes"));
  EXPECT_THAT(Filter::Wrap(bits, {2, 17}, 0, 0).status().message(),
              HasSubstr("num_probes"));
  EXPECT_THAT(Filter::Wrap(bits, {0, 6}, 0, 0).status().message(),
              HasSubstr("num_blocks"));
  EXPECT_THAT(Filter::Wrap(bits, {3, 6}, 0, 0).status().message(),
              HasSubstr("needs 192 bytes of bits, got 128"));
  EXPECT_TRUE(Filter::Wrap(bits, {2, 6}, 0, 0).ok());
}

TEST(FilterTest, CreateRejectsBadOptions) {
  FilterOptions o;
  o.bits_per_key = 0;
  EXPECT_EQ(FilterBuilder::Create(o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o.bits_per_key = -1;
  EXPECT_FALSE(FilterBuilder::Create(o).ok());
  o.bits_per_key = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(FilterBuilder::Create(o).ok());
  o.bits_per_key = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(FilterBuilder::Create(o).ok());
  o = {};
  o.fp_rate = 1;
  EXPECT_THAT(FilterBuilder::Create(o).status().message(),
              HasSubstr("fp_rate"));
  o.fp_rate = -0.1;
  EXPECT_FALSE(FilterBuilder::Create(o).ok());
  o = {};
  o.shape = {10, 0};
  EXPECT_THAT(FilterBuilder::Create(o).status().message(),
              HasSubstr("num_probes"));
  o.shape = {(uint64_t{1} << 32) + 1, 6};
  EXPECT_THAT(FilterBuilder::Create(o).status().message(),
              HasSubstr("num_blocks"));
}

TEST(FilterTest, SmallFiltersUseNarrowLanesAndStayAccurate) {
  // LevelDB-sized filters: 37 keys at 10 bits/key in 48 bytes, not 64.
  double expected = 0;
  uint64_t positives = 0, probes = 0;
  for (int f = 0; f < 3000; ++f) {
    std::vector<std::string> keys;
    for (int i = 0; i < 37; ++i) keys.push_back(absl::StrCat(f, "/key", i));
    Filter filter = Build(keys);
    ASSERT_EQ(filter.lane_bits(), 24);
    ASSERT_EQ(filter.bits().size(), 48u);
    ExpectAllPresent(filter, keys);
    expected = filter.EstimatedFpRate();
    for (int i = 0; i < 200; ++i) {
      positives += filter.MayContain(absl::StrCat(f, "/absent", i));
      ++probes;
    }
  }
  const double measured = static_cast<double>(positives) / probes;
  EXPECT_NEAR(measured, expected, 4 * std::sqrt(expected / probes));
  EXPECT_LT(expected, 0.0099);
  // Opting out gives 32-bit lanes and whole blocks.
  FilterOptions wide;
  wide.compact_small_filters = false;
  std::vector<std::string> keys = {"a", "b", "c"};
  Filter filter = Build(keys, wide);
  EXPECT_EQ(filter.lane_bits(), 32);
  EXPECT_EQ(filter.bits().size(), 64u);
  ExpectAllPresent(filter, keys);
}

TEST(FilterTest, NarrowFiltersWrapAndBatchLikeWideOnes) {
  std::vector<std::string> keys;
  for (int i = 0; i < 140; ++i) keys.push_back(absl::StrCat("k", i));
  Filter built = Build(keys);
  ASSERT_EQ(built.num_blocks(), 1u);
  ASSERT_EQ(built.lane_bits(), 88);
  std::vector<uint8_t> storage(built.bits().size() + 1);
  std::memcpy(storage.data() + 1, built.bits().data(), built.bits().size());
  Filter wrapped = *Filter::Wrap(
      absl::MakeConstSpan(storage.data() + 1, built.bits().size()),
      built.shape(), built.seed(), built.num_keys());
  ExpectAllPresent(wrapped, keys);
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 1000; ++i)
    hashes.push_back(HashKey(absl::StrCat("x", i)));
  std::unique_ptr<bool[]> results(new bool[hashes.size()]);
  wrapped.MayContainHashBatch(hashes,
                              absl::MakeSpan(results.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    EXPECT_EQ(results[i], built.MayContainHash(hashes[i]));
  }
}

TEST(FilterTest, MatchAllAnswersMaybeToEverything) {
  Filter all = Filter::MatchAll();
  EXPECT_TRUE(all.is_match_all());
  EXPECT_TRUE(all.MayContain("anything"));
  EXPECT_TRUE(all.MayContainHash(12345));
  EXPECT_EQ(all.EstimatedFpRate(), 1.0);
  EXPECT_TRUE(all.bits().empty());
  std::vector<std::string_view> keys = {"a", "b", "c"};
  bool results[3] = {false, false, false};
  all.MayContainBatch(keys, absl::MakeSpan(results, 3));
  EXPECT_TRUE(results[0] && results[1] && results[2]);
  Filter built = Build({"a"});
  EXPECT_FALSE(built.is_match_all());
}

TEST(FilterTest, ReportsItsSimdTarget) { EXPECT_STRNE(ActiveSimdTarget(), ""); }

TEST(FilterTest, KindsHaveTheirNames) {
  EXPECT_STREQ(FilterKindName(FilterKind::kBlocked), "blocked");
  EXPECT_STREQ(FilterKindName(FilterKind::kSpread), "spread");
  EXPECT_STREQ(FilterKindName(FilterKind::kSet), "set");
  EXPECT_STREQ(FilterKindName(FilterKind::kStandard), "standard");
  EXPECT_STREQ(FilterKindName(FilterKind::kRibbon), "ribbon");
}

// Pins the bits a fixed key set produces: a change to the hash, the layout or
// the sizing shows up here (and would break every stored filter).
TEST(FilterTest, BitsArePinned) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(absl::StrCat("golden", i));
  Filter filter = Build(keys);
  EXPECT_EQ(filter.shape(), (FilterShape{20, 7}));
  const std::string_view bytes(
      reinterpret_cast<const char*>(filter.bits().data()),
      filter.bits().size());
  EXPECT_EQ(HashKey(bytes), 0x4e25cd3f90d8b2fau) << std::hex << HashKey(bytes);
}

}  // namespace
}  // namespace blockbloom
