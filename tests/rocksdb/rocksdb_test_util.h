// Helpers for the tests that run blockbloom inside a real RocksDB: opening a
// DB, filling it, counting Get results and filter statistics, and reading
// table properties.
#ifndef BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_TEST_UTIL_H_
#define BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_TEST_UTIL_H_

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/rocksdb/db_open.h"
#include "tests/policy/engine_test_util.h"

namespace blockbloom::testing {

inline std::unique_ptr<rocksdb::DB> OpenDB(const rocksdb::Options& options,
                                           const std::string& path) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<rocksdb::DB>(db);
}

// Options with `policy` as full filters, no block cache (every data block
// read is a file read), statistics on.
inline rocksdb::Options OptionsWith(
    std::shared_ptr<const rocksdb::FilterPolicy> policy) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = std::move(policy);
  table.no_block_cache = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

inline void PutRange(rocksdb::DB* db, int begin, int end,
                     rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  for (int i = begin; i < end; ++i) {
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), cf, PresentKey(i), ValueFor(i)).ok());
  }
}

struct GetCounts {
  int missing = 0;       // present keys not found or with a wrong value
  int found_absent = 0;  // absent keys found (must be 0)
  uint64_t useful = 0;  // absent Gets the filter answered (BLOOM_FILTER_USEFUL)
  uint64_t absent = 0;  // absent Gets made
  // The share of absent-key filter probes that passed: 1 - useful / absent.
  double fp_rate() const {
    return absent ? 1.0 - static_cast<double>(useful) / absent : 0;
  }
};

// Gets present keys [begin, end) and absent keys [begin, end); counts the
// filter's rejections of the absent ones from `stats`.
inline GetCounts CheckGets(rocksdb::DB* db, rocksdb::Statistics* stats,
                           int begin, int end,
                           rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  GetCounts c;
  std::string value;
  for (int i = begin; i < end; ++i) {
    rocksdb::Status s =
        db->Get(rocksdb::ReadOptions(), cf, PresentKey(i), &value);
    c.missing += !s.ok() || value != ValueFor(i);
  }
  const uint64_t before = stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  for (int i = begin; i < end; ++i) {
    c.found_absent +=
        !db->Get(rocksdb::ReadOptions(), cf, AbsentKey(i), &value).IsNotFound();
  }
  c.useful = stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) - before;
  c.absent = end - begin;
  return c;
}

// Every live table's properties (path -> properties).
inline rocksdb::TablePropertiesCollection Tables(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  rocksdb::TablePropertiesCollection props;
  rocksdb::Status s = db->GetPropertiesOfAllTables(cf, &props);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return props;
}

// Filter bits per key over all tables (filter_size / num_entries), and the
// number of tables with a blockbloom filter.
struct FilterTotals {
  uint64_t filter_bytes = 0;
  uint64_t entries = 0;
  int tables = 0;
  int blockbloom_tables = 0;
  double bits_per_key() const {
    return entries ? 8.0 * static_cast<double>(filter_bytes) / entries : 0;
  }
};
inline FilterTotals Totals(const rocksdb::TablePropertiesCollection& props) {
  FilterTotals t;
  for (const auto& [path, p] : props) {
    t.filter_bytes += p->filter_size;
    t.entries += p->num_entries;
    ++t.tables;
    t.blockbloom_tables +=
        p->filter_policy_name == "blockbloom.v1" && p->filter_size > 0;
  }
  return t;
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_ROCKSDB_ROCKSDB_TEST_UTIL_H_
