// The RocksDB adapter's origin, counters and learned plan in a real DB:
// every block it writes records its level and column family (format 4.1),
// old blocks without one still read, the readers count their probes by level
// of creation, and a DB planned by learning has no false negatives, also
// when reopened by a policy that remembers nothing. Hot ranges: under
// lookups that favour a key range, the tables over it get more bits/key.
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/levels/probe_counters.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/test_hooks.h"
#include "tests/rocksdb/rocksdb_compactions.h"
#include "tests/rocksdb/rocksdb_test_util.h"

namespace blockbloom {
namespace {

using internal::WaitForCompactions;
using testing::CheckGets;
using testing::OpenDB;
using testing::PresentKey;
using testing::ScratchDir;
using testing::ValueFor;

std::shared_ptr<const rocksdb::FilterPolicy> Policy(bool learned) {
  FilterPolicy::Options o;
  o.bits_per_key = 10;
  o.levels.level_aware = true;
  o.levels.level_learned = learned;
  return *NewRocksDBFilterPolicy(o);
}

rocksdb::Options SmallTree(std::shared_ptr<const rocksdb::FilterPolicy> p) {
  rocksdb::Options o = testing::OptionsWith(std::move(p));
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 64 << 10;
  o.max_bytes_for_level_base = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.level_compaction_dynamic_level_bytes = true;
  o.max_background_jobs = 2;
  o.max_open_files = -1;  // every table (and filter) open
  return o;
}

void Load(rocksdb::DB* db, int n) {
  for (int j = 0; j < n; ++j) {
    const int i = static_cast<int>(j * 7919LL % n);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  WaitForCompactions(db);
}

std::string Block(const FilterOrigin& origin, int keys) {
  FilterOptions options;
  options.bits_per_key = 10;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (int i = 0; i < keys; ++i) builder.Add(absl::StrCat("k", i));
  WriteOptions write;
  write.origin = origin;
  return *SerializeFilter(*builder.Finish(), write);
}

std::map<int, LevelReport> ByLevel(const rocksdb::FilterPolicy* p) {
  std::map<int, LevelReport> out;
  for (const LevelReport& r : RocksDBFilterReport(p)) out[r.level] = r;
  return out;
}

// Exact counts in this thread (the counters sample one probe in 8).
class RocksDBLearnedTest : public ::testing::Test {
 protected:
  RocksDBLearnedTest() { internal::SampleEveryProbeForTest(true); }
  ~RocksDBLearnedTest() override { internal::SampleEveryProbeForTest(false); }
};

TEST_F(RocksDBLearnedTest, ReadersCountByOriginAndReadOldBlocks) {
  auto policy = Policy(false);
  const std::string old_block = Block({}, 1000);  // format 4.0: no origin
  const std::string new_block =
      Block({.level = 2, .bottommost = false, .group = 7}, 1000);
  {
    std::unique_ptr<rocksdb::FilterBitsReader> old_reader(
        policy->GetFilterBitsReader(old_block));
    std::unique_ptr<rocksdb::FilterBitsReader> new_reader(
        policy->GetFilterBitsReader(new_block));
    for (int i = 0; i < 1000; ++i) {
      const std::string key = absl::StrCat("k", i);
      ASSERT_TRUE(old_reader->MayMatch(key));
      ASSERT_TRUE(new_reader->MayMatch(key));
    }
    for (int i = 0; i < 3000; ++i) new_reader->MayMatch(absl::StrCat("a", i));
    // Batches count too.
    std::string keys[4] = {"k1", "k2", "a1", "a2"};
    rocksdb::Slice slices[4], *ptrs[4];
    bool may[4];
    for (int i = 0; i < 4; ++i) {
      slices[i] = keys[i];
      ptrs[i] = &slices[i];
    }
    new_reader->MayMatch(4, ptrs, may);
    EXPECT_TRUE(may[0] && may[1]);

    // Tables built by no column family of this process: the report shows
    // the blocks without an origin only (level -1).
    const auto rows = ByLevel(policy.get());
    ASSERT_EQ(rows.count(-1), 1u);
    EXPECT_EQ(rows.at(-1).probes, 1000u);
    EXPECT_EQ(rows.at(-1).positives, 1000u);
    EXPECT_EQ(rows.at(-1).tables, 1u);
    EXPECT_EQ(rows.at(-1).keys, 1000u);
  }
  // Readers gone: nothing live.
  const auto rows = ByLevel(policy.get());
  EXPECT_EQ(rows.at(-1).tables, 0u);
}

// A MultiGet batch of any size (the single probe below kBatchFrom keys,
// the batch kernel from there) answers as single probes do, and counts each
// key once.
TEST_F(RocksDBLearnedTest, BatchesOfEverySizeAnswerAndCountAsSingleProbes) {
  auto policy = Policy(false);
  const std::string block =
      Block({.level = 2, .bottommost = false, .group = 7}, 1000);
  std::unique_ptr<rocksdb::FilterBitsReader> reader(
      policy->GetFilterBitsReader(block));
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back(absl::StrCat("k", i));
  for (int i = 0; i < 60; ++i) keys.push_back(absl::StrCat("absent", i));
  std::vector<bool> single;
  for (const std::string& key : keys) single.push_back(reader->MayMatch(key));
  uint64_t probes = keys.size(), positives = 0;
  for (bool may : single) positives += may;
  for (int n : {1, 2, 3, 7, 8, 9, 31, 32, 33, 64, 70, 100}) {
    std::vector<rocksdb::Slice> slices(n);
    std::vector<rocksdb::Slice*> ptrs(n);
    // Keys from an offset, so that every batch mixes present and absent.
    const int from = (n * 7) % (static_cast<int>(keys.size()) - n + 1);
    for (int i = 0; i < n; ++i) {
      slices[i] = keys[from + i];
      ptrs[i] = &slices[i];
    }
    std::unique_ptr<bool[]> may(new bool[n]);
    reader->MayMatch(n, ptrs.data(), may.get());
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(may[i], single[from + i]) << "n = " << n << ", key " << i;
      positives += may[i];
    }
    probes += n;
  }
  const auto rows = ByLevel(policy.get());
  ASSERT_EQ(rows.count(2), 1u);
  EXPECT_EQ(rows.at(2).probes, probes);
  EXPECT_EQ(rows.at(2).positives, positives);
}

// Bottommost blocks of any level are one row (the plan's group for them),
// at the deepest level one was written at; the others keep their level's.
TEST_F(RocksDBLearnedTest, BottommostBlocksAreOneRowAtTheDeepestLevel) {
  auto policy = Policy(true);
  const std::string blocks[] = {
      Block({.level = 3, .bottommost = true, .group = 7}, 1000),
      Block({.level = 5, .bottommost = true, .group = 7}, 2000),
      Block({.level = 2, .bottommost = false, .group = 7}, 500)};
  std::vector<std::unique_ptr<rocksdb::FilterBitsReader>> readers;
  for (const std::string& b : blocks) {
    readers.emplace_back(policy->GetFilterBitsReader(b));
  }
  int bottom_rows = 0;
  for (const LevelReport& r : RocksDBFilterReport(policy.get())) {
    if (r.bottommost) {
      ++bottom_rows;
      EXPECT_EQ(r.level, 5);
      EXPECT_EQ(r.tables, 2u);
      EXPECT_EQ(r.keys, 3000u);
    } else if (r.level == 2) {
      EXPECT_EQ(r.tables, 1u);
      EXPECT_EQ(r.keys, 500u);
    } else {
      EXPECT_EQ(r.tables, 0u) << "level " << r.level;
    }
  }
  EXPECT_EQ(bottom_rows, 1) << RocksDBFilterReportText(policy.get());
  EXPECT_NE(RocksDBFilterReportText(policy.get()).find("level=5 bottommost=1"),
            std::string::npos);
}

TEST_F(RocksDBLearnedTest, EveryTableRecordsItsLevelAndIsCounted) {
  ScratchDir dir("rocksdb_learned_origin");
  auto policy = Policy(false);
  rocksdb::Options options = SmallTree(policy);
  auto db = OpenDB(options, dir.path());
  constexpr int kKeys = 150'000;
  Load(db.get(), kKeys);
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, 20'000);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);

  // Every live table's filter was read with an origin: rows by level of
  // creation, none of unknown origin, and the live keys add up.
  uint64_t keys = 0, tables = 0, probes = 0;
  for (const LevelReport& r : RocksDBFilterReport(policy.get())) {
    EXPECT_GE(r.level, 0) << RocksDBFilterReportText(policy.get());
    EXPECT_EQ(r.column_family, "default");
    EXPECT_EQ(r.plan, "model");
    EXPECT_EQ(r.kind, "blocked");
    keys += r.keys;
    tables += r.tables;
    probes += r.probes;
  }
  const testing::FilterTotals totals =
      testing::Totals(testing::Tables(db.get()));
  EXPECT_EQ(tables, static_cast<uint64_t>(totals.tables));
  EXPECT_EQ(keys, totals.entries);
  // Every filter probe RocksDB made was counted (this thread counts every
  // probe): its own tickers count one per probe, useful or not. Not "40,000
  // Gets, at least one probe each": an absent key between two tables' key
  // ranges, on every level, probes no filter at all.
  rocksdb::Statistics* stats = options.statistics.get();
  EXPECT_EQ(probes,
            stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) +
                stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE));
  // Each present key's table was probed.
  EXPECT_GE(probes, 20'000u);
}

TEST_F(RocksDBLearnedTest, LearnedPlanHasNoFalseNegativesAcrossReopen) {
  ScratchDir dir("rocksdb_learned_reopen");
  constexpr int kKeys = 120'000;
  {
    auto policy = Policy(true);
    rocksdb::Options options = SmallTree(policy);
    auto db = OpenDB(options, dir.path());
    // Loaded in two halves, with Gets between, so that the second half's
    // tables are built under a plan learned from the first half's probes.
    Load(db.get(), kKeys / 2);
    CheckGets(db.get(), options.statistics.get(), 0, 30'000);
    for (int i = kKeys / 2; i < kKeys; ++i) {
      ASSERT_TRUE(
          db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
    }
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    WaitForCompactions(db.get());
    const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    const auto rows = RocksDBFilterReport(policy.get());
    ASSERT_FALSE(rows.empty());
    for (const LevelReport& r : rows) EXPECT_EQ(r.plan, "learned");
  }
  // A new policy object: no memory of the plan, every table still read.
  auto fresh = Policy(true);
  rocksdb::Options options = SmallTree(fresh);
  auto db = OpenDB(options, dir.path());
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  EXPECT_LT(c.fp_rate(), 0.05);
}

// RocksDB's default level sizes (level_compaction_dynamic_level_bytes =
// false): a partly full last level, filled by bottommost tables written at
// the levels above and moved down whole. The learned plan keeps the budget
// there, as the model plan does: those tables are planned as the last
// level's, whatever level wrote them. Planned by their level of creation,
// bench/rocksdb/level_tree_bench's tree of this shape took 11.7 bits/key
// for a budget of 10.4.
TEST_F(RocksDBLearnedTest, DefaultLevelSizesKeepTheBudget) {
  ScratchDir dir("rocksdb_learned_default_levels");
  constexpr int kKeys = 200'000;
  auto policy = Policy(true);
  rocksdb::Options options = SmallTree(policy);
  options.level_compaction_dynamic_level_bytes = false;
  options.max_bytes_for_level_base = 16 << 10;
  options.target_file_size_base = 16 << 10;
  options.write_buffer_size = 8 << 10;
  // The levels that wrote bottommost tables.
  std::mutex mu;
  std::set<int> bottom_levels;
  internal::SetRocksDBBuildObserverForTest(
      [&](const internal::RocksDBBuiltFilter& b) {
        std::lock_guard<std::mutex> lock(mu);
        if (b.is_bottommost && b.level >= 1) bottom_levels.insert(b.level);
      });
  auto db = OpenDB(options, dir.path());
  // Random order, with absent Gets every 10,000 writes (the plan learns
  // from them while the tree grows).
  std::string value;
  for (int j = 0; j < kKeys; ++j) {
    const int i = static_cast<int>(j * 7919LL % kKeys);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
    if ((j + 1) % 10'000 == 0) {
      for (int g = 0; g < 1'000; ++g) {
        db->Get(rocksdb::ReadOptions(), testing::AbsentKey(g * 197 % kKeys),
                &value)
            .PermitUncheckedError();
      }
    }
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  WaitForCompactions(db.get());
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  const std::string report = RocksDBFilterReportText(policy.get());
  // Bottommost tables hold most keys.
  uint64_t bottom_keys = 0, all_keys = 0;
  for (const LevelReport& r : RocksDBFilterReport(policy.get())) {
    all_keys += r.keys;
    if (r.bottommost) bottom_keys += r.keys;
  }
  EXPECT_GT(bottom_keys, all_keys / 2) << report;
  // Some were written above the deepest level and moved down whole (which
  // levels wrote them depends on how far compactions lagged the writes).
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  int deepest = 0;
  for (const auto& f : files) deepest = std::max(deepest, f.level);
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_FALSE(bottom_levels.empty()) << report;
    EXPECT_LT(*bottom_levels.begin(), deepest) << report;
  }
  const double bits = testing::Totals(testing::Tables(db.get())).bits_per_key();
  EXPECT_LT(bits, 10 * 1.05) << report;
  EXPECT_GT(bits, 10 * 0.9) << report;
  db.reset();
  internal::SetRocksDBBuildObserverForTest(nullptr);
}

// The tables of the deepest level, their bits/key, split by whether their
// keys lie in [PresentKey(0), PresentKey(hot_end)).
struct DeepestLevel {
  int level = 0;
  double hot_bits = 0, cold_bits = 0;  // key-weighted means
  uint64_t hot_keys = 0, cold_keys = 0;
};
DeepestLevel Deepest(rocksdb::DB* db, int hot_end) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  rocksdb::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  DeepestLevel out;
  for (const auto& f : files) out.level = std::max(out.level, f.level);
  for (const auto& f : files) {
    if (f.level != out.level) continue;
    const auto p = props.find(f.db_path + f.name);
    if (p == props.end()) continue;
    const uint64_t n = p->second->num_entries;
    const double bits = 8.0 * static_cast<double>(p->second->filter_size);
    if (f.largestkey < PresentKey(hot_end)) {
      out.hot_bits += bits;
      out.hot_keys += n;
    } else if (f.smallestkey >= PresentKey(hot_end)) {
      out.cold_bits += bits;
      out.cold_keys += n;
    }
  }
  if (out.hot_keys > 0) out.hot_bits /= static_cast<double>(out.hot_keys);
  if (out.cold_keys > 0) out.cold_bits /= static_cast<double>(out.cold_keys);
  return out;
}

TEST_F(RocksDBLearnedTest, HotRangesGiveTheTablesProbedMostMoreBits) {
  constexpr int kKeys = 120'000;
  constexpr int kHotEnd = kKeys / 20;  // 5% of the keys take 90% of Gets
  for (const bool hot_ranges : {true, false}) {
    SCOPED_TRACE(hot_ranges);
    ScratchDir dir("rocksdb_hot_ranges");
    FilterPolicy::Options o;
    o.bits_per_key = 10;
    o.levels.level_aware = true;
    o.levels.level_learned = true;
    o.levels.hot_ranges = hot_ranges;
    auto policy = *NewRocksDBFilterPolicy(o);
    rocksdb::Options options = SmallTree(policy);
    auto db = OpenDB(options, dir.path());
    // Written in four parts with skewed Gets of absent keys between them,
    // so that the later parts' compactions rebuild the deepest level's
    // tables after the probes were seen.
    std::string value;
    uint64_t rng = 1;
    for (int part = 0; part < 4; ++part) {
      for (int j = part; j < kKeys; j += 4) {
        const int i = static_cast<int>(j * 7919LL % kKeys);
        ASSERT_TRUE(
            db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
      }
      ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
      WaitForCompactions(db.get());
      for (int g = 0; g < 40'000; ++g) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint64_t r = rng >> 33;
        const int i = static_cast<int>(r % 10 != 0 ? (r / 10) % kHotEnd
                                                   : (r / 10) % kKeys);
        EXPECT_TRUE(
            db->Get(rocksdb::ReadOptions(), testing::AbsentKey(i), &value)
                .IsNotFound());
      }
    }
    // Everything there, nothing absent found.
    const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    const DeepestLevel d = Deepest(db.get(), kHotEnd);
    ASSERT_GT(d.hot_keys, 0u);
    ASSERT_GT(d.cold_keys, 0u);
    // The deepest level's tables are bottommost: their row is the
    // bottommost tables' (LevelReport::bottommost).
    const auto rows = RocksDBFilterReport(policy.get());
    const auto bottom =
        std::find_if(rows.begin(), rows.end(),
                     [](const LevelReport& r) { return r.bottommost; });
    ASSERT_NE(bottom, rows.end()) << RocksDBFilterReportText(policy.get());
    EXPECT_EQ(bottom->level, d.level);
    const LevelReport& r = *bottom;
    if (hot_ranges) {
      EXPECT_GT(d.hot_bits, d.cold_bits + 2)
          << d.hot_bits << " " << d.cold_bits;
      EXPECT_GT(r.hot_range_tables, 0u);
      EXPECT_GT(r.hot_range_changed, 0u);
      EXPECT_GT(r.hot_range_mean_change, 0.3);
      // The level's memory stays about the plan's: the cold tables (95% of
      // the keys) pay for the hot ones.
      EXPECT_LT(d.cold_bits, r.bits_per_key + 0.5);
    } else {
      EXPECT_LT(std::abs(d.hot_bits - d.cold_bits), 1.0)
          << d.hot_bits << " " << d.cold_bits;
      EXPECT_EQ(r.hot_range_tables, 0u);
    }
  }
}

}  // namespace
}  // namespace blockbloom
