// The kind per level (FilterPolicy::LevelOptions::ribbon_from_level) in a real
// leveled RocksDB 7.8: flushes and L0 get blocked filters, the levels below
// ribbons at the same rate in fewer bytes; no present key is missed; the
// setting survives the OPTIONS file; partitioned filters and
// detect_filter_construct_corruption work with ribbon blocks, and the latter
// catches a damaged one. With ribbon_saves = kFalseReads and a learned
// level-aware plan, the tree keeps the budget's memory and its filters pass
// far fewer absent keys.
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/rocksdb/db_open.h"
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

constexpr int kKeys = 150'000;
constexpr int kFlushed = 1500;

FilterPolicy::Options RibbonBelowL0() {
  FilterPolicy::Options o;
  o.bits_per_key = 10;
  o.levels.ribbon_from_level = 1;
  return o;
}

// The learned level-aware plan over both kinds (ribbon_saves kFalseReads).
FilterPolicy::Options LearnedBothKinds() {
  FilterPolicy::Options o = RibbonBelowL0();
  o.levels.level_aware = true;
  o.levels.level_learned = true;
  o.levels.ribbon_saves = FilterPolicy::LevelOptions::RibbonSaving::kFalseReads;
  return o;
}

rocksdb::Options SmallTree(std::shared_ptr<const rocksdb::FilterPolicy> p) {
  rocksdb::Options o = testing::OptionsWith(std::move(p));
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 256 << 10;
  o.max_bytes_for_level_base = 512 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_background_jobs = 2;
  return o;
}

// Keys in a scattered order (compactions rewrite tables), then everything
// compacted into the last level, then one more flush for an L0 table.
void Load(rocksdb::DB* db) {
  for (int j = 0; j < kKeys; ++j) {
    const int i = static_cast<int>(j * 7919LL % kKeys);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  WaitForCompactions(db);
}

// Filter bits/key per level of the live tables with at least 1000 keys
// (smaller ones may get the blocked kind at the same rate), and their keys
// per level into `keys` if given.
std::map<int, double> BitsPerKeyByLevel(
    rocksdb::DB* db, std::map<int, uint64_t>* keys = nullptr) {
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::map<std::string, std::shared_ptr<const rocksdb::TableProperties>>
      by_name;
  for (const auto& [path, p] : testing::Tables(db)) {
    by_name[std::filesystem::path(path).filename().string()] = p;
  }
  std::map<int, std::pair<uint64_t, uint64_t>> totals;  // bytes, keys
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      const auto& p =
          by_name.at(std::filesystem::path(f.name).filename().string());
      EXPECT_EQ(p->filter_policy_name, "blockbloom.v1") << f.name;
      if (p->num_entries < 1000) continue;
      totals[level.level].first += p->filter_size;
      totals[level.level].second += p->num_entries;
    }
  }
  std::map<int, double> bits;
  for (const auto& [level, t] : totals) {
    bits[level] = 8.0 * t.first / t.second;
    if (keys != nullptr) (*keys)[level] = t.second;
    std::printf("L%d: %.2f filter bits/key over %llu keys\n", level,
                bits[level], static_cast<unsigned long long>(t.second));
  }
  return bits;
}

// The share of filter probes by absent Gets of keys [0, n) that passed
// (each Get probes every L0 table and one table per deeper level; a
// rejection counts as BLOOM_FILTER_USEFUL, a pass as
// BLOOM_FILTER_FULL_POSITIVE).
double AbsentProbeRate(rocksdb::DB* db, rocksdb::Statistics* stats, int n) {
  const uint64_t useful = stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  const uint64_t passed =
      stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  std::string value;
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), testing::AbsentKey(i), &value)
                    .IsNotFound());
  }
  const double p =
      stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE) - passed;
  const double u = stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) - useful;
  std::printf("absent keys: %.0f filter probes, %.3f%% passed\n", p + u,
              100 * p / (p + u));
  return p / (p + u);
}

void ExpectRibbonBelowL0(const std::map<int, double>& bits,
                         int min_ribbon_levels) {
  int ribbon_levels = 0;
  for (const auto& [level, b] : bits) {
    if (level == 0) {
      EXPECT_GE(b, 9.99);  // blocked at 10 bits/key
    } else {
      // A ribbon at the blocked kind's 10-bit rate (0.96%): ~7 bits/key.
      // (Tables of a few thousand keys add up to 1 bit/key of trailer.)
      EXPECT_LT(b, 9.0) << "L" << level;
      ++ribbon_levels;
    }
  }
  EXPECT_GE(ribbon_levels, min_ribbon_levels);
}

// The latest OPTIONS file of the DB at `path` (its DB options and column
// families into *db_options and *cfs, to reopen it with) and the blockbloom
// policy options it names for the first column family; null (with a test
// failure) if it names none. The options live as long as *cfs.
const FilterPolicy::Options* LoadPolicyOptions(
    const std::string& path, rocksdb::DBOptions* db_options,
    std::vector<rocksdb::ColumnFamilyDescriptor>* cfs) {
  rocksdb::Status s = rocksdb::LoadLatestOptions(rocksdb::ConfigOptions(), path,
                                                 db_options, cfs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok() || cfs->empty()) return nullptr;
  const auto* table =
      (*cfs)[0]
          .options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  EXPECT_NE(table, nullptr);
  return table == nullptr
             ? nullptr
             : RocksDBFilterPolicyOptions(table->filter_policy.get());
}

TEST(RocksDBKindTest, RibbonBelowL0NoFalseNegativesAndOptionsFileReopen) {
  ScratchDir dir("rocksdb_kind");
  {
    const auto policy = *NewRocksDBFilterPolicy(RibbonBelowL0());
    rocksdb::Options options = SmallTree(policy);
    auto db = OpenDB(options, dir.path());
    Load(db.get());
    // One more flush (one table: less than a write buffer): an L0 table,
    // blocked.
    testing::PutRange(db.get(), kKeys, kKeys + kFlushed);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    const std::map<int, double> bits = BitsPerKeyByLevel(db.get());
    ASSERT_TRUE(bits.count(0));
    ExpectRibbonBelowL0(bits, 2);
    const auto c =
        CheckGets(db.get(), options.statistics.get(), 0, kKeys + kFlushed);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    // Every filter at the blocked kind's 10-bit rate, 0.96%.
    EXPECT_LT(AbsentProbeRate(db.get(), options.statistics.get(), kKeys),
              0.0125);
    // Ribbons record their origin too (format 6): every probe is counted
    // at the level that built its table, none as of unknown origin, and
    // the ribbon levels were probed.
    uint64_t probes_below_l0 = 0;
    // The report names the kind each level's new tables get.
    for (const LevelReport& r : RocksDBFilterReport(policy.get())) {
      EXPECT_GE(r.level, 0) << RocksDBFilterReportText(policy.get());
      EXPECT_EQ(r.kind, r.level >= 1 ? "ribbon" : "blocked");
      if (r.level >= 1) probes_below_l0 += r.probes;
    }
    EXPECT_GT(probes_below_l0, 0u) << RocksDBFilterReportText(policy.get());
  }
  // The OPTIONS file names the setting; a DB reopened from it keeps it.
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  const FilterPolicy::Options* loaded =
      LoadPolicyOptions(dir.path(), &db_options, &cfs);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->levels.ribbon_from_level, 1);
  EXPECT_EQ(loaded->bits_per_key, 10);
  db_options.statistics = rocksdb::CreateDBStatistics();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(db_options, dir.path(),
                                                         cfs, &handles, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction =
      rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
  const std::map<int, double> bits = BitsPerKeyByLevel(db.get());
  EXPECT_FALSE(bits.count(0));
  ExpectRibbonBelowL0(bits, 1);
  const auto c =
      CheckGets(db.get(), db_options.statistics.get(), 0, kKeys + kFlushed);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  // All in the last level now: one ribbon per absent Get, ~0.96%.
  EXPECT_LT(AbsentProbeRate(db.get(), db_options.statistics.get(), kKeys),
            0.0125);
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
}

// ribbon_saves = kFalseReads with a learned level-aware plan (its prior is
// the model's plan over both kinds' curves): the levels below L0 get ribbons
// of the plan's real bits and take about the budget's memory (10 bits/key,
// as a blocked tree: trailers and small tables add a little),
// the filters pass a fraction of the blocked kind's 0.96%, no present key
// is missed, and the OPTIONS file keeps the setting.
TEST(RocksDBKindTest, RibbonSavesFalseReadsAtTheBudgetsMemory) {
  ScratchDir dir("rocksdb_kind_false_reads");
  {
    const auto policy = *NewRocksDBFilterPolicy(LearnedBothKinds());
    rocksdb::Options options = SmallTree(policy);
    options.level_compaction_dynamic_level_bytes = true;
    auto db = OpenDB(options, dir.path());
    Load(db.get());
    testing::PutRange(db.get(), kKeys, kKeys + kFlushed);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    std::map<int, uint64_t> keys;
    const std::map<int, double> bits = BitsPerKeyByLevel(db.get(), &keys);
    // The report gives the plan's kind per level: blocked for L0, ribbons
    // for the levels that hold keys below it.
    for (const LevelReport& r : RocksDBFilterReport(policy.get())) {
      if (r.level == 0) {
        EXPECT_EQ(r.kind, "blocked");
      } else if (keys.count(r.level)) {
        EXPECT_EQ(r.kind, "ribbon") << "L" << r.level;
      }
      EXPECT_EQ(r.plan, "learned");
    }
    // The levels below L0 hold the budget's memory, ribbons of real bits
    // (~10 bits/key; the plan moves some to the upper levels); L0's few
    // blocked tables get more (each is probed by every Get).
    double below_bits = 0, below_keys = 0;
    for (const auto& [level, b] : bits) {
      if (level == 0) {
        EXPECT_GE(b, 10.0);
        continue;
      }
      below_bits += b * keys.at(level);
      below_keys += keys.at(level);
    }
    ASSERT_GT(below_keys, 0);
    std::printf("L1 and below: %.2f filter bits/key\n",
                below_bits / below_keys);
    EXPECT_GT(below_bits / below_keys, 9.0);
    EXPECT_LT(below_bits / below_keys, 11.0);
    const auto c =
        CheckGets(db.get(), options.statistics.get(), 0, kKeys + kFlushed);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    // The ribbon at ~10 real bits/key: ~0.1-0.3% against 0.96%.
    EXPECT_LT(AbsentProbeRate(db.get(), options.statistics.get(), kKeys),
              0.005);
  }
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  const FilterPolicy::Options* loaded =
      LoadPolicyOptions(dir.path(), &db_options, &cfs);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->levels.ribbon_saves,
            FilterPolicy::LevelOptions::RibbonSaving::kFalseReads);
  EXPECT_TRUE(loaded->levels.level_learned);
}

// kKeys ascending keys, flushed, compactions done.
std::unique_ptr<rocksdb::DB> LoadAscending(const rocksdb::Options& options,
                                           const std::string& path) {
  auto db = OpenDB(options, path);
  testing::PutRange(db.get(), 0, kKeys);
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  WaitForCompactions(db.get());
  return db;
}

// Ascending keys (a time series): every table is a flush's, moved down
// whole, so L0's filters are the tree's. The learned plan sees that the
// tables built at L0 hold most live keys and gives them ribbons at the
// budget, where a blocked L0 at the model's 18-45 bits/key held every key.
TEST(RocksDBKindTest, KeptFlushesGetRibbonsAtTheBudget) {
  ScratchDir dir("rocksdb_kind_ascending");
  const auto policy = *NewRocksDBFilterPolicy(LearnedBothKinds());
  rocksdb::Options options = SmallTree(policy);
  options.level_compaction_dynamic_level_bytes = true;
  auto db = LoadAscending(options, dir.path());
  const testing::FilterTotals totals =
      testing::Totals(testing::Tables(db.get()));
  const double bits = totals.bits_per_key();
  std::printf("ascending: %.2f filter bits/key in %d tables\n", bits,
              totals.tables);
  // The budget (10), with the first flushes' plan (the model's, before
  // anything was live) and the footers.
  EXPECT_LT(bits, 11.0);
  const auto rows = RocksDBFilterReport(policy.get());
  bool l0 = false;
  for (const LevelReport& r : rows) {
    if (r.level != 0) continue;
    l0 = true;
    EXPECT_EQ(r.kind, "ribbon") << RocksDBFilterReportText(policy.get());
    EXPECT_EQ(r.keys, totals.entries);
  }
  EXPECT_TRUE(l0) << RocksDBFilterReportText(policy.get());
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  // Ribbons at ~10 bits/key: ~0.1-0.2%, where the blocked kind at the
  // budget passes 0.96%.
  EXPECT_LT(AbsentProbeRate(db.get(), options.statistics.get(), kKeys), 0.005);
}

// The same tree under the model plan (level_aware without learning): the
// kept flushes' tables get the budget, not the model's L0 bits (12.9
// bits/key for a budget of 10.4 in level_tree_bench's ascending trees).
TEST(RocksDBKindTest, KeptFlushesTakeTheBudgetInTheModelPlan) {
  ScratchDir dir("rocksdb_kind_ascending_model");
  FilterPolicy::Options o;
  o.bits_per_key = 10;
  o.levels.level_aware = true;
  const auto policy = *NewRocksDBFilterPolicy(o);
  rocksdb::Options options = SmallTree(policy);
  options.level_compaction_dynamic_level_bytes = true;
  auto db = LoadAscending(options, dir.path());
  const double bits = testing::Totals(testing::Tables(db.get())).bits_per_key();
  // The budget and the footers; the first flushes (before any was live)
  // took the model's L0 bits.
  EXPECT_LT(bits, 11.0);
  EXPECT_GT(bits, 9.5);
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

// Partitioned filters (one ribbon per ~4 KiB partition at 10 bits/key:
// ~3200 keys) and post-verification of each partition as it is cut.
TEST(RocksDBKindTest, PartitionedRibbonWithPostVerify) {
  ScratchDir dir("rocksdb_kind_partitioned");
  FilterPolicy::Options o = RibbonBelowL0();
  o.levels.ribbon_from_level = 0;  // flushes too
  rocksdb::Options options = testing::OptionsWith(*NewRocksDBFilterPolicy(o));
  rocksdb::BlockBasedTableOptions table =
      *options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  table.partition_filters = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.detect_filter_construct_corruption = true;
  table.no_block_cache = false;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDB(options, dir.path());
  testing::PutRange(db.get(), 0, 100'000);
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction =
      rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
  const testing::FilterTotals t = testing::Totals(testing::Tables(db.get()));
  std::printf("partitioned: %.2f filter bits/key\n", t.bits_per_key());
  EXPECT_LT(t.bits_per_key(), 8.0);  // ribbons, with partition overhead
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, 100'000);
  std::printf("partitioned: %.3f%%\n", 100 * c.fp_rate());
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  EXPECT_LT(c.fp_rate(), 0.0125);
}

// detect_filter_construct_corruption catches a ribbon that lacks a key: one
// hash complemented between the builder keeping it and the filter getting
// it (as in rocksdb_options_test's corruption test for the blocked kind).
TEST(RocksDBKindTest, PostVerifyCatchesADamagedRibbon) {
  ScratchDir dir("rocksdb_kind_verify");
  FilterPolicy::Options o = RibbonBelowL0();
  o.levels.ribbon_from_level = 0;  // the flush builds a ribbon
  rocksdb::Options options = testing::OptionsWith(*NewRocksDBFilterPolicy(o));
  rocksdb::BlockBasedTableOptions table =
      *options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  table.detect_filter_construct_corruption = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDB(options, dir.path());
  testing::PutRange(db.get(), 0, 20'000);
  std::atomic<int> seen{0};
  internal::SetRocksDBHashHookForTest([&seen](uint64_t* h) {
    if (seen.fetch_add(1) == 1000) *h = ~*h;
  });
  const rocksdb::Status flush = db->Flush(rocksdb::FlushOptions());
  internal::SetRocksDBHashHookForTest(nullptr);
  EXPECT_TRUE(flush.IsCorruption()) << flush.ToString();
  db.reset();
  // Reopened, the WAL's keys are flushed into a good ribbon.
  db = OpenDB(options, dir.path());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const testing::FilterTotals t = testing::Totals(testing::Tables(db.get()));
  EXPECT_LT(t.bits_per_key(), 8.0);  // a ribbon
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, 20'000);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

}  // namespace
}  // namespace blockbloom
