// blockbloom's RocksDB policy and OPTIONS files: the id carries every setting,
// RocksDB's loaders (LoadLatestOptions, CreateFromString,
// GetBlockBasedTableOptionsFromString) give back the same policy once it is
// registered, a DB reopened from its OPTIONS file keeps writing blockbloom
// filters, and detect_filter_construct_corruption catches a filter damaged
// while it is built.
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/object_registry.h>
#include <rocksdb/utilities/options_util.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/rocksdb/db_open.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/policy_id.h"
#include "src/rocksdb/test_hooks.h"
#include "tests/rocksdb/rocksdb_test_util.h"

namespace blockbloom {
namespace {

using testing::CheckGets;
using testing::OpenDB;
using testing::OptionsWith;
using testing::PutRange;
using testing::ScratchDir;
using testing::Tables;
using testing::Totals;

FilterPolicy::Options Unusual() {
  FilterPolicy::Options o;
  o.bits_per_key = 7.3;  // not a round number: must survive exactly
  o.seed = 0x9e3779b97f4a7c15;
  o.verify_checksum = false;
  o.levels.level_aware = true;
  o.levels.level_size_multiplier = 8;
  o.levels.level_moved_fraction = 0.25;
  o.levels.ribbon_from_level = 2;
  return o;
}

void ExpectSameOptions(const FilterPolicy::Options& a,
                       const FilterPolicy::Options& b) {
  EXPECT_EQ(a.bits_per_key, b.bits_per_key);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.verify_checksum, b.verify_checksum);
  EXPECT_EQ(a.levels.level_aware, b.levels.level_aware);
  EXPECT_EQ(a.levels.level_size_multiplier, b.levels.level_size_multiplier);
  EXPECT_EQ(a.levels.level_moved_fraction, b.levels.level_moved_fraction);
  EXPECT_EQ(a.levels.ribbon_from_level, b.levels.ribbon_from_level);
  EXPECT_EQ(a.levels.ribbon_saves, b.levels.ribbon_saves);
  EXPECT_EQ(a.levels.level_learned, b.levels.level_learned);
  EXPECT_EQ(a.levels.hot_ranges, b.levels.hot_ranges);
}

TEST(RocksDBPolicyIdTest, RoundTripsEverySetting) {
  const FilterPolicy::Options o = Unusual();
  const std::string id = internal::RocksDBPolicyId(o);
  EXPECT_EQ(id,
            "blockbloom.v1:7.3:seed:11400714819323198485:verify_checksum:0:"
            "level_aware:1:level_size_multiplier:8:level_moved_fraction:0.25:"
            "ribbon_from_level:2");
  absl::StatusOr<FilterPolicy::Options> back =
      internal::ParseRocksDBPolicyId(id);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameOptions(*back, o);
  // Fractional bits/key come back bit-exact (shortest round-trip decimal).
  FilterPolicy::Options third;
  third.bits_per_key = 10.0 / 3;
  EXPECT_EQ(internal::ParseRocksDBPolicyId(internal::RocksDBPolicyId(third))
                ->bits_per_key,
            10.0 / 3);
  // Without ribbon levels the id is what earlier versions wrote.
  EXPECT_EQ(internal::RocksDBPolicyId(third).find("ribbon"), std::string::npos);
  third.levels.ribbon_from_level = -1;
  EXPECT_EQ(internal::ParseRocksDBPolicyId(internal::RocksDBPolicyId(third))
                ->levels.ribbon_from_level,
            -1);
  // ribbon_saves only when it is not the default.
  EXPECT_EQ(internal::RocksDBPolicyId(third).find("ribbon_saves"),
            std::string::npos);
  third.levels.ribbon_saves =
      FilterPolicy::LevelOptions::RibbonSaving::kFalseReads;
  const std::string saves = internal::RocksDBPolicyId(third);
  EXPECT_NE(saves.find(":ribbon_saves:false_reads"), std::string::npos);
  EXPECT_EQ(internal::ParseRocksDBPolicyId(saves)->levels.ribbon_saves,
            FilterPolicy::LevelOptions::RibbonSaving::kFalseReads);
  EXPECT_EQ(
      internal::ParseRocksDBPolicyId("blockbloom.v1:10:ribbon_saves:memory")
          ->levels.ribbon_saves,
      FilterPolicy::LevelOptions::RibbonSaving::kMemory);
  EXPECT_FALSE(
      internal::ParseRocksDBPolicyId("blockbloom.v1:10:ribbon_saves:disk")
          .ok());
  // hot_ranges only when a learned policy turns it off: other ids stay
  // what earlier versions wrote.
  FilterPolicy::Options learned;
  learned.levels.level_aware = true;
  learned.levels.level_learned = true;
  EXPECT_EQ(internal::RocksDBPolicyId(learned).find("hot_ranges"),
            std::string::npos);
  learned.levels.hot_ranges = false;
  const std::string flat = internal::RocksDBPolicyId(learned);
  EXPECT_NE(flat.find(":level_learned:1:hot_ranges:0"), std::string::npos);
  ExpectSameOptions(*internal::ParseRocksDBPolicyId(flat), learned);
}

TEST(RocksDBPolicyIdTest, OldIdAndPairsInAnyOrder) {
  absl::StatusOr<FilterPolicy::Options> old =
      internal::ParseRocksDBPolicyId("blockbloom.v1");
  ASSERT_TRUE(old.ok());
  ExpectSameOptions(*old, FilterPolicy::Options());
  absl::StatusOr<FilterPolicy::Options> some = internal::ParseRocksDBPolicyId(
      "blockbloom.v1:12:level_aware:true:seed:7");
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ(some->bits_per_key, 12);
  EXPECT_EQ(some->seed, 7u);
  EXPECT_TRUE(some->levels.level_aware);
  EXPECT_TRUE(some->verify_checksum);
}

TEST(RocksDBPolicyIdTest, RejectsWhatDoesNotParse) {
  for (const char* bad :
       {"bloomfilter:10:false", "blockbloom.v2:10",
        "blockbloom.v1:", "blockbloom.v1:ten", "blockbloom.v1:10:seed",
        "blockbloom.v1:10:seed:-1", "blockbloom.v1:10:colour:blue",
        "blockbloom.v1:10:level_aware:maybe", "blockbloom.v1:10:seed:1:seed",
        "blockbloom.v1:10:ribbon_from_level:one",
        "blockbloom.v1:10:ribbon_from_level:1.5"}) {
    EXPECT_FALSE(internal::ParseRocksDBPolicyId(bad).ok()) << bad;
  }
}

TEST(RocksDBOptionsTest, GetIdCarriesTheSettingsAndNamesStayStable) {
  auto policy = *NewRocksDBFilterPolicy(Unusual());
  EXPECT_STREQ(policy->Name(), "blockbloom.v1");
  // The metaindex key of existing DBs: "fullfilter.blockbloom.v1".
  EXPECT_STREQ(policy->CompatibilityName(), "blockbloom.v1");
  EXPECT_EQ(policy->GetId(), internal::RocksDBPolicyId(Unusual()));
  EXPECT_EQ(RocksDBFilterPolicyOptions(nullptr), nullptr);
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(
      rocksdb::NewBloomFilterPolicy(10));
  EXPECT_EQ(RocksDBFilterPolicyOptions(builtin.get()), nullptr);
}

TEST(RocksDBOptionsTest, CreateFromStringGivesOurPolicy) {
  RegisterRocksDBFilterPolicy();
  rocksdb::ConfigOptions config;
  const std::string id = internal::RocksDBPolicyId(Unusual());
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  rocksdb::Status s =
      rocksdb::FilterPolicy::CreateFromString(config, id, &policy);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(RocksDBFilterPolicyOptions(policy.get()), nullptr);
  ExpectSameOptions(*RocksDBFilterPolicyOptions(policy.get()), Unusual());
  EXPECT_EQ(policy->GetId(), id);

  // The id earlier versions wrote: the default options.
  s = rocksdb::FilterPolicy::CreateFromString(config, "blockbloom.v1", &policy);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(RocksDBFilterPolicyOptions(policy.get()), nullptr);
  ExpectSameOptions(*RocksDBFilterPolicyOptions(policy.get()),
                    FilterPolicy::Options());

  // A damaged id is an error, not a silent "no filter".
  s = rocksdb::FilterPolicy::CreateFromString(
      config, "blockbloom.v1:10:colour:blue", &policy);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown setting"), std::string::npos);
  s = rocksdb::FilterPolicy::CreateFromString(config, "blockbloom.v1:-3",
                                              &policy);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = rocksdb::FilterPolicy::CreateFromString(
      config, "blockbloom.v1:10:ribbon_from_level:-2", &policy);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST(RocksDBOptionsTest, RegistersWithAGivenLibrary) {
  auto registry = rocksdb::ObjectRegistry::NewInstance();
  registry->AddLibrary("blockbloom", AddRocksDBFilterPolicyFactory, "");
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  rocksdb::Status s =
      registry->NewSharedObject("blockbloom.v1:9:seed:3", &policy);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(RocksDBFilterPolicyOptions(policy.get()), nullptr);
  EXPECT_EQ(RocksDBFilterPolicyOptions(policy.get())->bits_per_key, 9);
  EXPECT_EQ(RocksDBFilterPolicyOptions(policy.get())->seed, 3u);
}

TEST(RocksDBOptionsTest, BlockBasedTableOptionsFromString) {
  rocksdb::ConfigOptions config;
  rocksdb::BlockBasedTableOptions table;
  const std::string id = internal::RocksDBPolicyId(Unusual());
  rocksdb::Status s = rocksdb::GetBlockBasedTableOptionsFromString(
      config, rocksdb::BlockBasedTableOptions(),
      "block_size=8192;filter_policy=" + id + ";whole_key_filtering=true",
      &table);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(table.block_size, 8192u);
  ASSERT_NE(RocksDBFilterPolicyOptions(table.filter_policy.get()), nullptr);
  ExpectSameOptions(*RocksDBFilterPolicyOptions(table.filter_policy.get()),
                    Unusual());
  // And back to a string: the id again.
  std::string text;
  std::shared_ptr<rocksdb::TableFactory> factory(
      rocksdb::NewBlockBasedTableFactory(table));
  s = factory->GetOptionString(config, &text);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(text.find("filter_policy=" + id), std::string::npos) << text;
}

const rocksdb::BlockBasedTableOptions* TableOptionsOf(
    const rocksdb::ColumnFamilyOptions& cf) {
  return cf.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
}

TEST(RocksDBOptionsTest, OptionsFileRoundTripAndReopenKeepsFilters) {
  ScratchDir dir("rocksdb_options_file");
  FilterPolicy::Options settings = Unusual();
  settings.levels.level_aware = false;  // every table at exactly 7.3 bits/key
  {
    rocksdb::Options options = OptionsWith(*NewRocksDBFilterPolicy(settings));
    auto db = OpenDB(options, dir.path());
    PutRange(db.get(), 0, 20'000);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  }
  // What a program that only loads options sees (default ConfigOptions).
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadLatestOptions(rocksdb::ConfigOptions(),
                                                 dir.path(), &db_options, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(cfs.size(), 1u);
  const auto* table = TableOptionsOf(cfs[0].options);
  ASSERT_NE(table, nullptr);
  ASSERT_NE(RocksDBFilterPolicyOptions(table->filter_policy.get()), nullptr)
      << "loaded filter_policy: "
      << (table->filter_policy ? table->filter_policy->GetId() : "nullptr");
  ExpectSameOptions(*RocksDBFilterPolicyOptions(table->filter_policy.get()),
                    settings);

  // Reopen with exactly the loaded options: new tables still get blockbloom
  // filters at the stored density, and the OPTIONS file written on this open
  // still names the policy with its settings.
  db_options.statistics = rocksdb::CreateDBStatistics();
  {
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    s = blockbloom::rocksdb_compat::OpenDB(db_options, dir.path(), cfs,
                                           &handles, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<rocksdb::DB> db(raw);
    PutRange(db.get(), 20'000, 40'000);
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    const auto props = Tables(db.get());
    ASSERT_EQ(props.size(), 2u);
    for (const auto& [path, p] : props) {
      EXPECT_EQ(p->filter_policy_name, "blockbloom.v1") << path;
      const double bits = 8.0 * p->filter_size / p->num_entries;
      EXPECT_NEAR(bits, 7.3, 0.1) << path;  // + 56-byte trailer, block rounding
    }
    const auto c = CheckGets(db.get(), db_options.statistics.get(), 0, 40'000);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    EXPECT_GT(c.useful, c.absent * 9 / 10);  // the filters are used
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  }
  cfs.clear();
  s = rocksdb::LoadLatestOptions(rocksdb::ConfigOptions(), dir.path(),
                                 &db_options, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectSameOptions(*RocksDBFilterPolicyOptions(
                        TableOptionsOf(cfs[0].options)->filter_policy.get()),
                    settings);
}

TEST(RocksDBOptionsTest, OptionsFileOfEarlierVersionsLoadsTheDefaults) {
  ScratchDir dir("rocksdb_options_old");
  {
    auto db = OpenDB(OptionsWith(NewRocksDBFilterPolicy(10)), dir.path());
    PutRange(db.get(), 0, 100);
  }
  // Rewrite the OPTIONS file the way earlier versions wrote it.
  int rewritten = 0;
  for (const std::string& file : testing::FilesEndingIn(dir.path(), "")) {
    if (file.find("/OPTIONS-") == std::string::npos) continue;
    std::string text = testing::ReadFile(file);
    // Every "filter_policy=blockbloom...": to the end of its line.
    constexpr std::string_view kKey = "filter_policy=blockbloom";
    for (size_t at = text.find(kKey); at != std::string::npos;
         at = text.find(kKey, at + 1)) {
      const size_t end = text.find('\n', at);
      text.replace(at, (end == std::string::npos ? text.size() : end) - at,
                   "filter_policy=blockbloom.v1");
    }
    testing::WriteFile(file, text);
    ++rewritten;
  }
  ASSERT_GT(rewritten, 0);
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadLatestOptions(rocksdb::ConfigOptions(),
                                                 dir.path(), &db_options, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const FilterPolicy::Options* loaded = RocksDBFilterPolicyOptions(
      TableOptionsOf(cfs[0].options)->filter_policy.get());
  ASSERT_NE(loaded, nullptr);
  ExpectSameOptions(*loaded, FilterPolicy::Options());
}

// ---------------------------------------------------------------------------
// detect_filter_construct_corruption

rocksdb::Options DetectingOptions(bool detect, bool partitioned = false) {
  rocksdb::Options options = OptionsWith(NewRocksDBFilterPolicy(10));
  rocksdb::BlockBasedTableOptions table =
      *options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  table.detect_filter_construct_corruption = detect;
  if (partitioned) {
    table.partition_filters = true;
    table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// Replaces one key's hash by its complement between the builder keeping it and
// the filter receiving it: the filter then lacks that key.
class HashCorruption {
 public:
  HashCorruption() {
    internal::SetRocksDBHashHookForTest([this](uint64_t* h) {
      if (seen_.fetch_add(1) == 1000) *h = ~*h;
    });
  }
  ~HashCorruption() { internal::SetRocksDBHashHookForTest(nullptr); }

 private:
  std::atomic<int> seen_{0};
};

TEST(RocksDBPostVerifyTest, CleanFiltersPass) {
  ScratchDir dir("rocksdb_verify_clean");
  rocksdb::Options options = DetectingOptions(true);
  auto db = OpenDB(options, dir.path());
  PutRange(db.get(), 0, 20'000);
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, 20'000);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

class RocksDBPostVerifyCorruptionTest : public ::testing::TestWithParam<bool> {
};

TEST_P(RocksDBPostVerifyCorruptionTest, FailsTheFlush) {
  const bool partitioned = GetParam();
  ScratchDir dir(partitioned ? "rocksdb_verify_corrupt_partitioned"
                             : "rocksdb_verify_corrupt");
  rocksdb::Options options = DetectingOptions(true, partitioned);
  auto db = OpenDB(options, dir.path());
  PutRange(db.get(), 0, 20'000);
  rocksdb::Status flush;
  {
    HashCorruption corrupt;
    flush = db->Flush(rocksdb::FlushOptions());
  }
  // RocksDB drops the table, reports Corruption, and (a background error)
  // stops accepting writes until the DB is reopened.
  EXPECT_TRUE(flush.IsCorruption()) << flush.ToString();
  EXPECT_NE(flush.ToString().find("blockbloom filter just built rejects"),
            std::string::npos)
      << flush.ToString();
  EXPECT_TRUE(Tables(db.get()).empty());
  EXPECT_FALSE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
  db.reset();
  // Nothing was lost: the keys are still in the WAL and a reopen flushes
  // them with a good filter.
  db = OpenDB(options, dir.path());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const auto c = CheckGets(db.get(), options.statistics.get(), 0, 20'000);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

// Full filters, and partitioned ones (each partition verified as it is cut).
INSTANTIATE_TEST_SUITE_P(FullAndPartitioned, RocksDBPostVerifyCorruptionTest,
                         ::testing::Bool());

TEST(RocksDBPostVerifyTest, WithoutDetectionTheDamageGoesUnnoticed) {
  // The control: the same corruption with detection off is written out (and
  // the damaged key is then a false negative of the filter, which is what
  // detect_filter_construct_corruption exists to prevent).
  ScratchDir dir("rocksdb_verify_off");
  rocksdb::Options options = DetectingOptions(false);
  auto db = OpenDB(options, dir.path());
  PutRange(db.get(), 0, 20'000);
  HashCorruption corrupt;
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
}

TEST(RocksDBPostVerifyTest, DamagedFilterBitsAreCaught) {
  // Straight through the builder: the finished filter's bits damaged before
  // RocksDB verifies it.
  auto policy = NewRocksDBFilterPolicy(10);
  rocksdb::BlockBasedTableOptions table;
  table.detect_filter_construct_corruption = true;
  rocksdb::FilterBuildingContext context(table);
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(context));
  for (int i = 0; i < 5000; ++i) builder->AddKey(testing::PresentKey(i));
  std::unique_ptr<const char[]> buf;
  rocksdb::Slice filter = builder->Finish(&buf);
  std::string copy(filter.data(), filter.size());
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
  // Verify again after a new round of keys, on damaged bytes.
  for (int i = 0; i < 5000; ++i) builder->AddKey(testing::PresentKey(i));
  filter = builder->Finish(&buf);
  std::string damaged(filter.data(), filter.size());
  std::memset(damaged.data(), 0, damaged.size() / 2);
  rocksdb::Status s = builder->MaybePostVerify(rocksdb::Slice(damaged));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace blockbloom
