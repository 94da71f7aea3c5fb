// What the mirror of RocksDB's FilterBitsBuilder (src/rocksdb/filter_bits.h)
// adds after 7.8, tested on every release that has it:
//  - AddKeyAndAlt (9.6, layout 96): RocksDB's de-duplication contract,
//    entry for entry against RocksDB's own builder; EstimateEntriesAdded 0
//    exactly when nothing was added; every key and alt in the filter;
//  - CalculateSpace and EstimatedFpRate (10.9, layout 109): the bytes
//    Finish() makes and the rate the reader then shows;
//  - in a real DB on every release: whole-key filtering with a prefix
//    extractor (full and partitioned filters) has no false negatives for
//    Gets and prefix seeks;
//  - the check of the running library (library_version.h): another
//    layout's librocksdb fails open.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/library_version.h"
#include "src/rocksdb/test_hooks.h"
#include "tests/rocksdb/rocksdb_test_util.h"

namespace blockbloom {
namespace {

using internal::CheckRocksDBVersion;
using internal::RocksDBLayoutOf;
using testing::AbsentKey;
using testing::OpenDB;
using testing::PresentKey;
using testing::ScratchDir;
using testing::Tables;
using testing::ValueFor;

std::unique_ptr<rocksdb::FilterBitsBuilder> BuilderOf(
    const rocksdb::FilterPolicy& policy,
    const rocksdb::BlockBasedTableOptions& table, int level = -1) {
  rocksdb::FilterBuildingContext context(table);
  context.level_at_creation = level;
  return std::unique_ptr<rocksdb::FilterBitsBuilder>(
      policy.GetBuilderWithContext(context));
}

#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 96

// The same calls to our builder and to RocksDB's own (FastLocalBloom, which
// implements the contract of filter_policy_internal.h): the same count of
// entries after each.
class EntryCounter {
 public:
  EntryCounter()
      : ours_policy_(NewRocksDBFilterPolicy(10)),
        theirs_policy_(rocksdb::NewBloomFilterPolicy(10)) {
    table_.optimize_filters_for_memory = false;
    ours_ = BuilderOf(*ours_policy_, table_);
    theirs_ = BuilderOf(*theirs_policy_, table_);
  }
  // Our count after the call, checked against RocksDB's.
  size_t AddKey(const std::string& key) {
    ours_->AddKey(key);
    theirs_->AddKey(key);
    return Count();
  }
  size_t AddKeyAndAlt(const std::string& key, const std::string& alt) {
    ours_->AddKeyAndAlt(key, alt);
    theirs_->AddKeyAndAlt(key, alt);
    return Count();
  }
  size_t Count() {
    const size_t ours = ours_->EstimateEntriesAdded();
    EXPECT_EQ(ours, theirs_->EstimateEntriesAdded()) << "RocksDB's count";
    return ours;
  }

 private:
  rocksdb::BlockBasedTableOptions table_;
  std::shared_ptr<const rocksdb::FilterPolicy> ours_policy_;
  std::shared_ptr<const rocksdb::FilterPolicy> theirs_policy_;
  std::unique_ptr<rocksdb::FilterBitsBuilder> ours_, theirs_;
};

TEST(RocksDBAddKeyAndAltTest, DeDuplicatesAsRocksDBsHeaderSays) {
  // The header's example:
  //  AddKey(k1);
  //  AddKeyAndAlt(k2, a2);  // de-dup k2<>k1, k2<>a2, a2<>k1
  //  AddKeyAndAlt(k3, a3);  // de-dup k3<>k2, a3<>a2, k3<>a2, a3<>k2
  //  AddKey(k4);            // de-dup k4<>k3 BUT NOT k4<>a3
  EntryCounter c;
  EXPECT_EQ(c.Count(), 0u);
  EXPECT_EQ(c.AddKey("ab"), 1u);
  EXPECT_EQ(c.AddKeyAndAlt("ab", "a"), 2u);     // k2 = k1
  EXPECT_EQ(c.AddKeyAndAlt("ac", "a"), 3u);     // a3 = a2
  EXPECT_EQ(c.AddKeyAndAlt("b", "b"), 4u);      // a = k
  EXPECT_EQ(c.AddKeyAndAlt("bc", "b"), 5u);     // a3 = a2
  EXPECT_EQ(c.AddKey("bc"), 5u);                // k4 = k3
  EXPECT_EQ(c.AddKeyAndAlt("cd", "c"), 7u);     // both new
  EXPECT_EQ(c.AddKey("c"), 8u);                 // k4 = a3: not de-duplicated
  EXPECT_EQ(c.AddKeyAndAlt("dd", "d"), 10u);    // both new
  EXPECT_EQ(c.AddKeyAndAlt("ddd", "dd"), 11u);  // a3 = k2
  EXPECT_EQ(c.AddKeyAndAlt("e1", "e"), 13u);
  EXPECT_EQ(c.AddKeyAndAlt("e", "e"), 13u);  // k3 = a2, a3 = a2
  EXPECT_EQ(c.AddKeyAndAlt("f", "e"), 14u);  // a3 = a2
}

TEST(RocksDBAddKeyAndAltTest, AsManyEntriesAsRocksDBOverPrefixGroups) {
  // Keys in order, 1 to 5 per 9-byte prefix, some keys their own prefix.
  EntryCounter c;
  for (int p = 0; p < 2000; ++p) {
    const std::string prefix = absl::StrFormat("p%07d:", p);
    if (p % 7 == 0) c.AddKeyAndAlt(prefix, prefix);
    for (int s = 0; s < 1 + p % 5; ++s) {
      c.AddKeyAndAlt(absl::StrFormat("%s%03d", prefix, s), prefix);
    }
  }
  EXPECT_GT(c.Count(), 2000u);
}

TEST(RocksDBAddKeyAndAltTest, EntriesAreZeroExactlyWhenNothingWasAdded) {
  auto policy = NewRocksDBFilterPolicy(10);
  rocksdb::BlockBasedTableOptions table;
  // With detect_filter_construct_corruption the builder keeps hashes too.
  for (bool verify : {false, true}) {
    table.detect_filter_construct_corruption = verify;
    auto builder = BuilderOf(*policy, table);
    EXPECT_EQ(builder->EstimateEntriesAdded(), 0u);
    builder->AddKeyAndAlt("k", "k");  // one entry: the key is its prefix
    EXPECT_EQ(builder->EstimateEntriesAdded(), 1u);
    std::unique_ptr<const char[]> buf;
    rocksdb::Slice filter = builder->Finish(&buf);
    EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
    // Finish starts a new filter (partitioned filters: the next partition).
    EXPECT_EQ(builder->EstimateEntriesAdded(), 0u);
    builder->AddKeyAndAlt("ka", "k");  // "k" again: a new filter
    EXPECT_EQ(builder->EstimateEntriesAdded(), 2u);
    filter = builder->Finish(&buf);
    EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
    EXPECT_EQ(builder->EstimateEntriesAdded(), 0u);
  }
}

TEST(RocksDBAddKeyAndAltTest, EveryKeyAndAltIsInTheFilter) {
  auto policy = NewRocksDBFilterPolicy(10);
  for (bool verify : {false, true}) {
    rocksdb::BlockBasedTableOptions table;
    table.detect_filter_construct_corruption = verify;
    auto builder = BuilderOf(*policy, table);
    std::vector<std::string> keys, prefixes;
    for (int p = 0; p < 5000; ++p) {
      prefixes.push_back(absl::StrFormat("p%07d:", p));
      for (int s = 0; s < 3; ++s) {
        keys.push_back(absl::StrFormat("%s%03d", prefixes.back(), s));
        builder->AddKeyAndAlt(keys.back(), prefixes.back());
      }
    }
    EXPECT_EQ(builder->EstimateEntriesAdded(), keys.size() + prefixes.size());
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
    std::unique_ptr<rocksdb::FilterBitsReader> reader(
        policy->GetFilterBitsReader(filter));
    ASSERT_NE(reader, nullptr);
    int missing = 0;
    for (const std::string& k : keys) missing += !reader->MayMatch(k);
    for (const std::string& p : prefixes) missing += !reader->MayMatch(p);
    EXPECT_EQ(missing, 0);
  }
}

#endif  // BLOCKBLOOM_ROCKSDB_LAYOUT >= 96

#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 109

// The share of `n` absent keys the filter lets through.
double MeasuredFpRate(const rocksdb::FilterPolicy& policy,
                      const rocksdb::Slice& filter, int n) {
  std::unique_ptr<rocksdb::FilterBitsReader> reader(
      policy.GetFilterBitsReader(filter));
  EXPECT_NE(reader, nullptr);
  if (reader == nullptr) return 1;
  int passed = 0;
  for (int i = 0; i < n; ++i) passed += reader->MayMatch(AbsentKey(i));
  return static_cast<double>(passed) / n;
}

// The observed rate must be `predicted` within 5 standard deviations of the
// count, plus `slack` of it.
void ExpectRate(double measured, double predicted, int n, double slack,
                const char* what) {
  const double sigma = std::sqrt(predicted * (1 - predicted) / n);
  std::printf("%s: FPR %.4f%%, EstimatedFpRate %.4f%%\n", what, 100 * measured,
              100 * predicted);
  EXPECT_NEAR(measured, predicted, 5 * sigma + slack * predicted) << what;
}

struct SpaceCase {
  const char* name;
  double bits_per_key;
  bool ribbon;
};

// The ribbon's rate model (src/ribbon) is made for large tables: at a few
// thousand keys the measured rate can be a third off it.
constexpr double kRibbonSlack = 0.35;

class RocksDBCalculateSpaceTest : public ::testing::TestWithParam<SpaceCase> {};

TEST_P(RocksDBCalculateSpaceTest, IsWhatFinishMakesAtTheRateEstimated) {
  const SpaceCase p = GetParam();
  FilterPolicy::Options options;
  options.bits_per_key = p.bits_per_key;
  // Ribbons from L0 on (a builder for level 1 below); blocked everywhere
  // otherwise.
  if (p.ribbon) options.levels.ribbon_from_level = 0;
  auto policy = NewRocksDBFilterPolicy(options);
  ASSERT_TRUE(policy.ok()) << policy.status();
  rocksdb::BlockBasedTableOptions table;
  for (int n : {1, 10, 1000, 3232, 100'000}) {
    auto builder = BuilderOf(**policy, table, /*level=*/1);
    const size_t space = builder->CalculateSpace(n);
    for (int i = 0; i < n; ++i) builder->AddKey(PresentKey(i));
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    if (p.ribbon) {
      // A ribbon's size depends on its keys; the estimate is its own.
      EXPECT_NEAR(static_cast<double>(filter.size()),
                  static_cast<double>(space), 0.05 * space + 64)
          << p.name << ", " << n << " keys";
    } else {
      EXPECT_EQ(filter.size(), space) << p.name << ", " << n << " keys";
    }
    // RocksDB cuts partitions by ApproximateNumEntries: the space of n
    // entries holds n of them, and not many more.
    const size_t fits = builder->ApproximateNumEntries(space);
    EXPECT_GE(fits, static_cast<size_t>(n)) << p.name << ", " << n << " keys";
    EXPECT_LE(fits, static_cast<size_t>(n * 1.1 + 100))
        << p.name << ", " << n << " keys";
    if (n >= 1000) {
      constexpr int kAbsent = 200'000;
      ExpectRate(MeasuredFpRate(**policy, filter, kAbsent),
                 builder->EstimatedFpRate(n, filter.size()), kAbsent,
                 p.ribbon ? kRibbonSlack : 0.1,
                 absl::StrFormat("%s, %d keys", p.name, n).c_str());
    }
  }
  // No keys: no space; and the rate falls as the bytes grow.
  auto builder = BuilderOf(**policy, table, /*level=*/1);
  EXPECT_EQ(builder->EstimatedFpRate(0, 1000), 0.0);
  EXPECT_LT(builder->EstimatedFpRate(1000, 2 * builder->CalculateSpace(1000)),
            builder->EstimatedFpRate(1000, builder->CalculateSpace(1000)));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, RocksDBCalculateSpaceTest,
    ::testing::Values(SpaceCase{"blocked 10", 10, false},
                      SpaceCase{"blocked 7.5", 7.5, false},
                      SpaceCase{"ribbon 10", 10, true}),
    [](const ::testing::TestParamInfo<SpaceCase>& param_info) {
      return std::string(param_info.param.ribbon ? "Ribbon" : "Blocked") +
             std::to_string(param_info.index);
    });

#endif  // BLOCKBLOOM_ROCKSDB_LAYOUT >= 109

// In a DB, on every release: whole-key filtering with a prefix extractor
// (from 9.6 RocksDB adds both through AddKeyAndAlt, before through AddKey
// twice), full or partitioned filters. Gets of present keys and prefix
// seeks (prefix_same_as_start, auto_prefix_mode) find everything.
struct PrefixCase {
  bool whole_key;
  bool partitioned;
};

class RocksDBPrefixSeekTest : public ::testing::TestWithParam<PrefixCase> {};

TEST_P(RocksDBPrefixSeekTest, NoFalseNegatives) {
  const PrefixCase p = GetParam();
  ScratchDir dir(absl::StrFormat("rocksdb_mirror_prefix_%d_%d", p.whole_key,
                                 p.partitioned));
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = NewRocksDBFilterPolicy(10);
  table.whole_key_filtering = p.whole_key;
  if (p.partitioned) {
    table.partition_filters = true;
    table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 1024;
    table.cache_index_and_filter_blocks = true;
  }
  table.detect_filter_construct_corruption = true;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(9));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDB(options, dir.path());
  ASSERT_NE(db, nullptr);
  constexpr int kPrefixes = 5000;
  auto key = [](int prefix, int s) {
    return absl::StrFormat("p%07d:%03d", prefix, s);
  };
  auto per_prefix = [](int prefix) { return 1 + prefix % 4; };
  int keys = 0;
  for (int q = 0; q < kPrefixes; ++q) {
    for (int s = 0; s < per_prefix(q); ++s, ++keys) {
      ASSERT_TRUE(
          db->Put(rocksdb::WriteOptions(), key(2 * q, s), ValueFor(s)).ok());
    }
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(
      db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  // The tables have blockbloom filters holding the keys and the prefixes.
  uint64_t filter_entries = 0;
  for (const auto& [path, props] : Tables(db.get())) {
    EXPECT_EQ(props->filter_policy_name, "blockbloom.v1");
    EXPECT_GT(props->filter_size, 0u);
    filter_entries += props->num_filter_entries;
  }
  // Each partition has its own prefixes, and RocksDB may add one more
  // entry: at least all, and few more.
  const uint64_t expected = p.whole_key ? keys + kPrefixes : kPrefixes;
  EXPECT_GE(filter_entries, expected);
  EXPECT_LE(filter_entries, expected + (p.partitioned ? expected / 10 : 1));

  int missing = 0;
  std::string value;
  for (int q = 0; q < kPrefixes; ++q) {
    for (int s = 0; s < per_prefix(q); ++s) {
      missing += !db->Get(rocksdb::ReadOptions(), key(2 * q, s), &value).ok();
    }
  }
  EXPECT_EQ(missing, 0) << "present keys not found by Get";

  // Seeks within each present prefix, two ways.
  for (bool auto_prefix : {false, true}) {
    missing = 0;
    for (int q = 0; q < kPrefixes; ++q) {
      const std::string prefix = key(2 * q, 0).substr(0, 9);
      std::string upper = prefix;
      upper.back() = static_cast<char>(upper.back() + 1);
      const rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions ro;
      if (auto_prefix) {
        ro.auto_prefix_mode = true;
        ro.iterate_upper_bound = &upper_slice;
      } else {
        ro.prefix_same_as_start = true;
      }
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
      int seen = 0;
      for (it->Seek(prefix); it->Valid(); it->Next()) ++seen;
      ASSERT_TRUE(it->status().ok()) << it->status().ToString();
      missing += per_prefix(q) == seen ? 0 : 1;
      // And a seek to one key of the prefix lands on it.
      it->Seek(key(2 * q, per_prefix(q) - 1));
      missing += !(it->Valid() && it->key() == key(2 * q, per_prefix(q) - 1));
    }
    EXPECT_EQ(missing, 0) << (auto_prefix ? "auto_prefix_mode"
                                          : "prefix_same_as_start");
  }
  // Absent prefixes are found absent.
  int found = 0;
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  for (int q = 0; q < kPrefixes; ++q) {
    it->Seek(key(2 * q + 1, 0).substr(0, 9));
    found += it->Valid();
  }
  EXPECT_EQ(found, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, RocksDBPrefixSeekTest,
    ::testing::Values(PrefixCase{true, false}, PrefixCase{true, true},
                      PrefixCase{false, false}, PrefixCase{false, true}),
    [](const ::testing::TestParamInfo<PrefixCase>& param_info) {
      return std::string(param_info.param.whole_key ? "WholeKey"
                                                    : "PrefixOnly") +
             (param_info.param.partitioned ? "Partitioned" : "Full");
    });

// Partitioned filters, on every release: RocksDB cuts a partition after
// ApproximateNumEntries(metadata_block_size) keys, so ribbon partitions
// (fewer bytes per key than their Bloom-equivalent bits) come out as large
// as blocked ones, and neither kind misses a key.
std::vector<uint64_t> PartitionBytes(const FilterPolicy::Options& options,
                                     const std::string& name) {
  ScratchDir dir(name);
  std::mutex mu;
  std::vector<uint64_t> bytes;
  internal::SetRocksDBBuildObserverForTest(
      [&](const internal::RocksDBBuiltFilter& f) {
        std::lock_guard<std::mutex> lock(mu);
        bytes.push_back(f.bytes);
      });
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = *NewRocksDBFilterPolicy(options);
  table.partition_filters = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.metadata_block_size = 4096;
  table.no_block_cache = true;
#if ROCKSDB_MAJOR * 100 + ROCKSDB_MINOR >= 906
  // Partitions cut by the filter alone (9.6; the default from 10.6): cut
  // with the index's partitions, 9.x made them smaller than the filter asked.
  table.decouple_partitioned_filters = true;
#endif
  rocksdb::Options db_options = testing::OptionsWith(table.filter_policy);
  db_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDB(db_options, dir.path());
  constexpr int kKeys = 100'000;
  testing::PutRange(db.get(), 0, kKeys);
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const testing::GetCounts c =
      testing::CheckGets(db.get(), db_options.statistics.get(), 0, kKeys);
  EXPECT_EQ(c.missing, 0) << name;
  EXPECT_EQ(c.found_absent, 0) << name;
  // The filter passes about the rate it was made for (0.96% at 10), not
  // everything.
  EXPECT_LT(c.fp_rate(), 0.02) << name;
  db.reset();
  internal::SetRocksDBBuildObserverForTest(nullptr);
  std::sort(bytes.begin(), bytes.end());
  return bytes;
}

TEST(RocksDBPartitionTest, RibbonPartitionsAreAsLargeAsBlockedOnes) {
  FilterPolicy::Options options;
  options.bits_per_key = 10;
  const std::vector<uint64_t> blocked =
      PartitionBytes(options, "rocksdb_mirror_partitions_blocked");
  options.levels.ribbon_from_level = -1;  // ribbons everywhere, flushes too
  const std::vector<uint64_t> ribbon =
      PartitionBytes(options, "rocksdb_mirror_partitions_ribbon");
  ASSERT_GT(blocked.size(), 10u);
  ASSERT_GT(ribbon.size(), 10u);
  const double blocked_median = blocked[blocked.size() / 2];
  const double ribbon_median = ribbon[ribbon.size() / 2];
  std::printf(
      "partitions: %zu blocked (median %.0f bytes), %zu ribbon "
      "(median %.0f bytes)\n",
      blocked.size(), blocked_median, ribbon.size(), ribbon_median);
  EXPECT_NEAR(ribbon_median / blocked_median, 1.0, 0.15);
  EXPECT_LE(blocked_median, 4096 * 1.1);
}

// ------------------------------------------------- the running library

// A version of another layout than the one compiled in.
std::string OtherLayoutVersion() {
#if BLOCKBLOOM_ROCKSDB_LAYOUT == 70
  return "10.10.1";
#elif BLOCKBLOOM_ROCKSDB_LAYOUT == 96
  return "7.8.3";
#else
  return "9.10.0";
#endif
}

TEST(RocksDBLibraryVersionTest, LayoutsOfReleases) {
  EXPECT_EQ(RocksDBLayoutOf(7, 7), 0);
  EXPECT_EQ(RocksDBLayoutOf(7, 8), 70);
  EXPECT_EQ(RocksDBLayoutOf(8, 11), 70);
  EXPECT_EQ(RocksDBLayoutOf(9, 5), 70);
  EXPECT_EQ(RocksDBLayoutOf(9, 6), 96);
  EXPECT_EQ(RocksDBLayoutOf(10, 8), 96);
  EXPECT_EQ(RocksDBLayoutOf(10, 9), 109);
  EXPECT_EQ(RocksDBLayoutOf(11, 99), 109);
  EXPECT_EQ(RocksDBLayoutOf(12, 0), 0);
  EXPECT_EQ(RocksDBLayoutOf(ROCKSDB_MAJOR, ROCKSDB_MINOR),
            BLOCKBLOOM_ROCKSDB_LAYOUT);
}

TEST(RocksDBLibraryVersionTest, SameLayoutPassesAnotherFails) {
  const std::string compiled =
      absl::StrFormat("%d.%d.%d", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH);
  EXPECT_TRUE(CheckRocksDBVersion(compiled).ok());
  // Another patch release: the same classes.
  EXPECT_TRUE(CheckRocksDBVersion(
                  absl::StrFormat("%d.%d.99", ROCKSDB_MAJOR, ROCKSDB_MINOR))
                  .ok());
  EXPECT_TRUE(CheckRocksDBVersion(rocksdb::GetRocksVersionAsString()).ok());
  for (const std::string& running :
       {OtherLayoutVersion(), std::string("7.7.0"), std::string("12.0.0"),
        std::string(""), std::string("eleven"), std::string("11")}) {
    const absl::Status s = CheckRocksDBVersion(running);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << running;
    // Both versions named, and what to do.
    EXPECT_NE(s.message().find(compiled), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find("runs with librocksdb " + running),
              absl::string_view::npos)
        << s;
    EXPECT_NE(s.message().find("Rebuild blockbloom"), absl::string_view::npos)
        << s;
  }
}

// Resets the running version a test set, whatever the test's outcome.
struct RunningVersion {
  explicit RunningVersion(const std::string& v) {
    internal::SetRocksDBRunningVersionForTest(v);
  }
  ~RunningVersion() { internal::SetRocksDBRunningVersionForTest(""); }
};

TEST(RocksDBLibraryVersionTest, AnotherLayoutsLibraryFailsOpen) {
  // A policy made before (as by a program that loads it with its options).
  auto policy = NewRocksDBFilterPolicy(10);
  ScratchDir dir("rocksdb_mirror_mismatch");
  {
    RunningVersion mismatch(OtherLayoutVersion());
    const auto refused = NewRocksDBFilterPolicy(FilterPolicy::Options());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.status().message().find(OtherLayoutVersion()),
              absl::string_view::npos)
        << refused.status();
    rocksdb::BlockBasedTableOptions table;
    EXPECT_EQ(BuilderOf(*policy, table), nullptr);
    EXPECT_EQ(policy->GetFilterBitsReader(rocksdb::Slice("0123456789")),
              nullptr);
    // A DB writes its tables without filters, reads everything, and says
    // why in its LOG.
    table.filter_policy = policy;
    rocksdb::Options options;
    options.create_if_missing = true;
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    auto db = OpenDB(options, dir.path());
    ASSERT_NE(db, nullptr);
    testing::PutRange(db.get(), 0, 1000);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    for (const auto& [path, props] : Tables(db.get())) {
      EXPECT_EQ(props->filter_size, 0u) << path;
    }
    std::string value;
    int missing = 0;
    for (int i = 0; i < 1000; ++i) {
      missing += !db->Get(rocksdb::ReadOptions(), PresentKey(i), &value).ok();
    }
    EXPECT_EQ(missing, 0);
    db.reset();
    std::ifstream log(dir.path() + "/LOG");
    std::stringstream text;
    text << log.rdbuf();
    EXPECT_NE(text.str().find("blockbloom filters are off"), std::string::npos);
  }
  // The real library again: filters.
  EXPECT_TRUE(NewRocksDBFilterPolicy(FilterPolicy::Options()).ok());
  rocksdb::BlockBasedTableOptions table;
  EXPECT_NE(BuilderOf(*policy, table), nullptr);
}

}  // namespace
}  // namespace blockbloom
