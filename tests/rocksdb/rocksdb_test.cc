// blockbloom inside a real RocksDB 7.8 (Debian's librocksdb): no false
// negatives through Get and MultiGet, absent keys rejected at the filter's
// rate (BLOOM_FILTER_USEFUL), MultiGet going through the batch probe,
// reopening with other policies, and fail-open on damaged filters.
#include "blockbloom/rocksdb.h"

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/rocksdb/db_open.h"
#include "src/rocksdb/filter_bits.h"
#include "src/rocksdb/test_hooks.h"
#include "tests/policy/engine_test_util.h"

namespace blockbloom {
namespace {

using testing::AbsentKey;
using testing::PresentKey;
using testing::ScratchDir;
using testing::ValueFor;

constexpr int kKeys = 200'000;

std::unique_ptr<rocksdb::DB> Open(
    const std::string& path,
    std::shared_ptr<const rocksdb::FilterPolicy> policy,
    std::shared_ptr<rocksdb::Statistics> stats = nullptr) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = std::move(stats);
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = std::move(policy);
  table.no_block_cache = true;  // every data block read is a file read
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

void Fill(const std::string& path,
          std::shared_ptr<const rocksdb::FilterPolicy> policy) {
  std::unique_ptr<rocksdb::DB> db = Open(path, std::move(policy));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(
      db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
}

struct Counts {
  int missing = 0;       // present keys not found or with a wrong value
  int found_absent = 0;  // absent keys found (must be 0)
  uint64_t useful = 0;   // absent Gets the filter answered
};

Counts Check(const std::string& path,
             std::shared_ptr<const rocksdb::FilterPolicy> policy) {
  std::shared_ptr<rocksdb::Statistics> stats = rocksdb::CreateDBStatistics();
  std::unique_ptr<rocksdb::DB> db = Open(path, std::move(policy), stats);
  Counts c;
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), PresentKey(i), &value);
    c.missing += !s.ok() || value != ValueFor(i);
  }
  stats->Reset().PermitUncheckedError();
  for (int i = 0; i < kKeys; ++i) {
    c.found_absent +=
        !db->Get(rocksdb::ReadOptions(), AbsentKey(i), &value).IsNotFound();
  }
  c.useful = stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  return c;
}

TEST(RocksDBTest, NoFalseNegativesAndAbsentKeysSkipTheDisk) {
  ScratchDir dir("rocksdb_basic");
  auto ours = NewRocksDBFilterPolicy(10);
  EXPECT_STREQ(ours->CompatibilityName(), "blockbloom.v1");
  Fill(dir.path(), ours);
  const Counts c = Check(dir.path(), ours);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  const double fpr = 1.0 - static_cast<double>(c.useful) / kKeys;
  std::printf(
      "RocksDB + blockbloom: filter rejected %llu of %d absent keys "
      "(FPR %.3f%%)\n",
      static_cast<unsigned long long>(c.useful), kKeys, 100 * fpr);
  // 10 bits/key full filters: 0.96% expected; +-4 sigma is +-0.09%.
  EXPECT_GT(fpr, 0.0085);
  EXPECT_LT(fpr, 0.0107);
}

TEST(RocksDBTest, MultiGetUsesTheBatchProbe) {
  ScratchDir dir("rocksdb_multiget");
  auto ours = NewRocksDBFilterPolicy(10);
  Fill(dir.path(), ours);
  std::unique_ptr<rocksdb::DB> db = Open(dir.path(), ours);
  const uint64_t before = internal::RocksDBBatchProbeCalls();
  int missing = 0, found_absent = 0;
  for (int start = 0; start < 20'000; start += 32) {
    std::vector<std::string> keys;
    for (int i = start; i < start + 32; ++i) {
      keys.push_back(PresentKey(i));
      keys.push_back(AbsentKey(i));
    }
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rocksdb::PinnableSlice> values(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    // The batched MultiGet (the vector<string> overload is a loop of Gets).
    db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(),
                 slices.size(), slices.data(), values.data(), statuses.data(),
                 /*sorted_input=*/true);
    for (size_t j = 0; j < keys.size(); ++j) {
      if (j % 2 == 0) {
        missing += !statuses[j].ok() ||
                   values[j].ToString() != ValueFor(start + j / 2);
      } else {
        found_absent += !statuses[j].IsNotFound();
      }
    }
  }
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(found_absent, 0);
  EXPECT_GT(internal::RocksDBBatchProbeCalls(), before);
}

TEST(RocksDBTest, ReopenWithOtherPoliciesGivesCorrectAnswers) {
  ScratchDir dir("rocksdb_reopen");
  auto ours = NewRocksDBFilterPolicy(10);
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(
      rocksdb::NewBloomFilterPolicy(10));
  Fill(dir.path(), ours);
  for (const auto& other :
       {builtin, std::shared_ptr<const rocksdb::FilterPolicy>()}) {
    const Counts c = Check(dir.path(), other);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    EXPECT_EQ(c.useful, 0u);  // our filters are not theirs to use
  }
  ScratchDir dir2("rocksdb_reopen_builtin");
  Fill(dir2.path(), builtin);
  const Counts c = Check(dir2.path(), ours);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

TEST(RocksDBTest, DamagedFiltersFailOpen) {
  // Straight through the reader: bytes that are not a filter match all.
  auto ours = NewRocksDBFilterPolicy(10);
  std::unique_ptr<rocksdb::FilterBitsReader> garbage(
      ours->GetFilterBitsReader(rocksdb::Slice("not a filter at all")));
  EXPECT_TRUE(garbage->MayMatch(rocksdb::Slice("any key")));

  // In a DB: clear bits in every filter block on disk. RocksDB's own block
  // checksum (verified by default) catches it first, and RocksDB then treats
  // the filter as "may match"; either way no answer may change.
  ScratchDir dir("rocksdb_corrupt");
  Fill(dir.path(), ours);
  int damaged = 0;
  for (const std::string& file : testing::FilesEndingIn(dir.path(), ".sst")) {
    std::string table = testing::ReadFile(file);
    // A full filter block ends in "bbf" and the tag 0xB0; 56-byte footer.
    const size_t magic = table.rfind(std::string("bbf\xb0", 4));
    ASSERT_NE(magic, std::string::npos) << file;
    const size_t footer = magic + 4 - 56;
    uint64_t payload;
    std::memcpy(&payload, table.data() + footer + 32, 8);
    for (size_t i = footer - payload; i < footer; i += 5) {
      table[i] = static_cast<char>(table[i] & 0xf0);
      ++damaged;
    }
    testing::WriteFile(file, table);
  }
  ASSERT_GT(damaged, 10'000);
  const Counts c = Check(dir.path(), ours);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

}  // namespace
}  // namespace blockbloom
