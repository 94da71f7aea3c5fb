// blockbloom in the RocksDB configurations users run (7.8 through 11.x):
// partitioned filters with a two-level index in a tiny block cache, prefix
// extractors with and without whole-key filtering, format_version 4 and 5,
// 7.5 and 20 bits/key, two column families, read-only opens, SstFileWriter +
// IngestExternalFile, optimize_filters_for_hits, and compactions running
// under readers. Each checks that no present key is missed and no absent key
// found, and that absent keys pass the filter at the rate this layout
// predicts (blockbloom/sizing.h; at 10 bits/key 0.96%, as RocksDB's own
// FastLocalBloom).
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "blockbloom/rocksdb.h"
#include "blockbloom/sizing.h"
#include "gtest/gtest.h"
#include "src/rocksdb/db_open.h"
#include "tests/rocksdb/rocksdb_test_util.h"

namespace blockbloom {
namespace {

using testing::AbsentKey;
using testing::CheckGets;
using testing::GetCounts;
using testing::OpenDB;
using testing::PresentKey;
using testing::PutRange;
using testing::ScratchDir;
using testing::Tables;
using testing::Totals;
using testing::ValueFor;

constexpr int kKeys = 100'000;

// This layout's expected false-positive rate for `n` keys at `bits_per_key`.
double Predicted(double bits_per_key, uint64_t n) {
  return *EstimatedFpRate(*ShapeForBitsPerKey(n, bits_per_key), n);
}

// The observed rate must be the predicted one within 5 standard deviations
// of the count, plus 10% for what the prediction leaves out (partition and
// file boundaries).
void ExpectFpRate(const GetCounts& c, double predicted, const char* what) {
  const double sigma = std::sqrt(predicted * (1 - predicted) / c.absent);
  std::printf("%s: FPR %.4f%% (predicted %.4f%%) over %llu absent keys\n", what,
              100 * c.fp_rate(), 100 * predicted,
              static_cast<unsigned long long>(c.absent));
  EXPECT_NEAR(c.fp_rate(), predicted, 5 * sigma + 0.1 * predicted) << what;
}

void ExpectCorrect(const GetCounts& c, const char* what) {
  EXPECT_EQ(c.missing, 0) << what;
  EXPECT_EQ(c.found_absent, 0) << what;
}

rocksdb::BlockBasedTableOptions TableOptions(double bits_per_key) {
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = NewRocksDBFilterPolicy(bits_per_key);
  table.no_block_cache = true;
  return table;
}

rocksdb::Options OptionsFor(const rocksdb::BlockBasedTableOptions& table) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// Fills [0, kKeys), flushes and compacts everything into the last level
// (rewriting it: no trivial move).
void FillAndCompact(rocksdb::DB* db,
                    rocksdb::ColumnFamilyHandle* cf = nullptr) {
  PutRange(db, 0, kKeys, cf);
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions(), cf).ok());
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction =
      rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(compact, cf, nullptr, nullptr).ok());
}

TEST(RocksDBConfigTest, PartitionedFiltersTwoLevelIndexTinyCache) {
  ScratchDir dir("rocksdb_partitioned");
  rocksdb::BlockBasedTableOptions table = TableOptions(10);
  table.no_block_cache = false;
  table.partition_filters = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.metadata_block_size = 4096;
  table.cache_index_and_filter_blocks = true;
  // Smaller than the filter partitions together: they come and go.
  table.block_cache = rocksdb::NewLRUCache(64 << 10);
  // Each partition verified as it is cut (MaybePostVerify per Finish).
  table.detect_filter_construct_corruption = true;
  rocksdb::Options options = OptionsFor(table);
  auto db = OpenDB(options, dir.path());
  FillAndCompact(db.get());
  const auto totals = Totals(Tables(db.get()));
  EXPECT_EQ(totals.blockbloom_tables, totals.tables);
  const GetCounts c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  ExpectCorrect(c, "partitioned");
  // A partition holds about (4096 - 56) * 8 / 10 = 3232 keys.
  ExpectFpRate(c, Predicted(10, 3232), "partitioned");
  // The partitions (4 KiB each) did not fit and were read again.
  EXPECT_GT(
      options.statistics->getTickerCount(rocksdb::BLOCK_CACHE_FILTER_MISS),
      3 * totals.filter_bytes / 4096 / 2);
}

// What the Bloom tickers count depends on the release: RocksDB 8.3 (PR
// #11460, "Changed the meaning of various Bloom filter stats") moved the
// filtering of iterators to the new *_LEVEL_SEEK_* tickers, and a Get that
// the filter answers by prefix (whole-key filtering off) to
// BLOOM_FILTER_PREFIX_USEFUL. Before it, BLOOM_FILTER_USEFUL counted every
// Get the filter answered, by key or by prefix, and BLOOM_FILTER_PREFIX_*
// the prefix checks of iterators.
#define BLOCKBLOOM_SEEK_TICKERS (ROCKSDB_MAJOR * 100 + ROCKSDB_MINOR >= 803)

// Gets the filter answered ("not there"), whole key or prefix.
uint64_t GetsFiltered(rocksdb::Statistics* stats) {
#if BLOCKBLOOM_SEEK_TICKERS
  return stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) +
         stats->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
#else
  return stats->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
#endif
}

// Iterator seeks (per sorted run) that asked the filter, and those it
// answered ("no key of this prefix").
uint64_t SeeksChecked(rocksdb::Statistics* stats) {
#if BLOCKBLOOM_SEEK_TICKERS
  return stats->getTickerCount(rocksdb::LAST_LEVEL_SEEK_FILTERED) +
         stats->getTickerCount(rocksdb::LAST_LEVEL_SEEK_FILTER_MATCH) +
         stats->getTickerCount(rocksdb::NON_LAST_LEVEL_SEEK_FILTERED) +
         stats->getTickerCount(rocksdb::NON_LAST_LEVEL_SEEK_FILTER_MATCH);
#else
  return stats->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_CHECKED);
#endif
}
uint64_t SeeksFiltered(rocksdb::Statistics* stats) {
#if BLOCKBLOOM_SEEK_TICKERS
  return stats->getTickerCount(rocksdb::LAST_LEVEL_SEEK_FILTERED) +
         stats->getTickerCount(rocksdb::NON_LAST_LEVEL_SEEK_FILTERED);
#else
  return stats->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
#endif
}

// Prefix keys: 9-byte prefixes "p0000012:" with 5 keys each; even prefixes
// are present.
std::string PrefixKey(int prefix, int suffix) {
  return absl::StrFormat("p%07d:%03d", prefix, suffix);
}

class RocksDBPrefixTest : public ::testing::TestWithParam<bool> {};

TEST_P(RocksDBPrefixTest, PrefixExtractor) {
  const bool whole_key = GetParam();
  ScratchDir dir(whole_key ? "rocksdb_prefix_whole" : "rocksdb_prefix_only");
  rocksdb::BlockBasedTableOptions table = TableOptions(10);
  table.whole_key_filtering = whole_key;
  rocksdb::Options options = OptionsFor(table);
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(9));
  auto db = OpenDB(options, dir.path());
  constexpr int kPrefixes = 20'000, kPerPrefix = 5;
  for (int p = 0; p < kPrefixes; ++p) {
    for (int s = 0; s < kPerPrefix; ++s) {
      ASSERT_TRUE(
          db->Put(rocksdb::WriteOptions(), PrefixKey(2 * p, s), ValueFor(s))
              .ok());
    }
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(
      db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  rocksdb::Statistics* stats = options.statistics.get();
  std::string value;
  int missing = 0, found_absent = 0;
  for (int p = 0; p < kPrefixes; ++p) {
    for (int s = 0; s < kPerPrefix; ++s) {
      missing +=
          !db->Get(rocksdb::ReadOptions(), PrefixKey(2 * p, s), &value).ok();
    }
  }
  // Absent keys of present prefixes: only whole-key filtering can reject
  // them.
  uint64_t before = GetsFiltered(stats);
  for (int p = 0; p < kPrefixes; ++p) {
    found_absent +=
        !db->Get(rocksdb::ReadOptions(), PrefixKey(2 * p, 7), &value)
             .IsNotFound();
  }
  GetCounts in_prefix;
  in_prefix.absent = kPrefixes;
  in_prefix.useful = GetsFiltered(stats) - before;
  // Absent prefixes: rejected by the whole key or by the prefix.
  before = GetsFiltered(stats);
  for (int p = 0; p < kPrefixes; ++p) {
    found_absent +=
        !db->Get(rocksdb::ReadOptions(), PrefixKey(2 * p + 1, 0), &value)
             .IsNotFound();
  }
  GetCounts other_prefix;
  other_prefix.absent = kPrefixes;
  other_prefix.useful = GetsFiltered(stats) - before;
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(found_absent, 0);
  // Entries: every key and every prefix with whole-key filtering, the
  // prefixes alone without.
  const uint64_t entries = whole_key ? kPrefixes * (kPerPrefix + 1) : kPrefixes;
  const double predicted = Predicted(10, entries);
  if (whole_key) {
    ExpectFpRate(in_prefix, predicted, "whole key, absent key");
  } else {
    EXPECT_EQ(in_prefix.useful, 0u);  // the prefix is there: may match
  }
  ExpectFpRate(other_prefix, predicted, "absent prefix");

  // Prefix seeks find every key of a present prefix.
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  int seen = 0;
  for (int p = 0; p < kPrefixes; p += 97) {
    for (it->Seek(PrefixKey(2 * p, 0).substr(0, 9)); it->Valid(); it->Next()) {
      ++seen;
    }
    ASSERT_TRUE(it->status().ok());
  }
  EXPECT_EQ(seen, ((kPrefixes + 96) / 97) * kPerPrefix);
  EXPECT_GT(SeeksChecked(stats), 0u);
  // And seeks to absent prefixes are answered by the filter, at its rate.
  const uint64_t checked = SeeksChecked(stats);
  const uint64_t filtered = SeeksFiltered(stats);
  int found = 0;
  for (int p = 0; p < kPrefixes; ++p) {
    it->Seek(PrefixKey(2 * p + 1, 0).substr(0, 9));
    found += it->Valid();
    ASSERT_TRUE(it->status().ok());
  }
  EXPECT_EQ(found, 0);
  // One check per seek (one sorted run after the compaction), but the last
  // prefix's: it lies past the file's last key.
  GetCounts seeks;
  seeks.absent = SeeksChecked(stats) - checked;
  EXPECT_GE(seeks.absent, static_cast<uint64_t>(kPrefixes - 1));
  EXPECT_LE(seeks.absent, static_cast<uint64_t>(kPrefixes));
  seeks.useful = SeeksFiltered(stats) - filtered;
  ExpectFpRate(seeks, predicted, "absent prefix, seek");
}

INSTANTIATE_TEST_SUITE_P(WholeKeyFiltering, RocksDBPrefixTest,
                         ::testing::Bool());

struct FormatCase {
  int format_version;
  double bits_per_key;
};

class RocksDBFormatTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(RocksDBFormatTest, FormatVersionAndDensity) {
  const FormatCase p = GetParam();
  ScratchDir dir(absl::StrFormat("rocksdb_format_%d_%g", p.format_version,
                                 p.bits_per_key));
  rocksdb::BlockBasedTableOptions table = TableOptions(p.bits_per_key);
  table.format_version = p.format_version;
  rocksdb::Options options = OptionsFor(table);
  auto db = OpenDB(options, dir.path());
  FillAndCompact(db.get());
  const auto totals = Totals(Tables(db.get()));
  EXPECT_EQ(totals.blockbloom_tables, totals.tables);
  // bits/key as asked, plus the 56-byte trailer and block rounding.
  EXPECT_NEAR(totals.bits_per_key(), p.bits_per_key, 0.05);
  const GetCounts c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  ExpectCorrect(c, "format");
  ExpectFpRate(c, Predicted(p.bits_per_key, kKeys), "format");
}

INSTANTIATE_TEST_SUITE_P(Versions, RocksDBFormatTest,
                         ::testing::Values(FormatCase{4, 7.5},
                                           FormatCase{4, 20},
                                           FormatCase{5, 7.5},
                                           FormatCase{5, 20}));

TEST(RocksDBConfigTest, TwoColumnFamilies) {
  ScratchDir dir("rocksdb_two_cfs");
  rocksdb::Options options = OptionsFor(TableOptions(10));
  auto db = OpenDB(options, dir.path());
  rocksdb::ColumnFamilyOptions second(options);
  second.table_factory.reset(
      rocksdb::NewBlockBasedTableFactory(TableOptions(20)));
  rocksdb::ColumnFamilyHandle* cf = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(second, "second", &cf).ok());
  FillAndCompact(db.get());
  FillAndCompact(db.get(), cf);
  EXPECT_NEAR(Totals(Tables(db.get())).bits_per_key(), 10, 0.05);
  EXPECT_NEAR(Totals(Tables(db.get(), cf)).bits_per_key(), 20, 0.05);
  const GetCounts a = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  const GetCounts b =
      CheckGets(db.get(), options.statistics.get(), 0, kKeys, cf);
  ExpectCorrect(a, "default cf");
  ExpectCorrect(b, "second cf");
  ExpectFpRate(a, Predicted(10, kKeys), "default cf");
  ExpectFpRate(b, Predicted(20, kKeys), "second cf");
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(cf).ok());
}

TEST(RocksDBConfigTest, OpenForReadOnly) {
  ScratchDir dir("rocksdb_read_only");
  rocksdb::Options options = OptionsFor(TableOptions(10));
  {
    auto db = OpenDB(options, dir.path());
    FillAndCompact(db.get());
  }
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(
      blockbloom::rocksdb_compat::OpenDBForReadOnly(options, dir.path(), &raw)
          .ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  const GetCounts c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  ExpectCorrect(c, "read-only");
  ExpectFpRate(c, Predicted(10, kKeys), "read-only");
}

TEST(RocksDBConfigTest, SstFileWriterAndIngestExternalFile) {
  ScratchDir dir("rocksdb_ingest");
  rocksdb::Options options = OptionsFor(TableOptions(10));
  const std::string file = dir.path() + "/ingest.sst";
  {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
    ASSERT_TRUE(writer.Open(file).ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(writer.Put(PresentKey(i), ValueFor(i)).ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  auto db = OpenDB(options, dir.path() + "/db");
  ASSERT_TRUE(
      db->IngestExternalFile({file}, rocksdb::IngestExternalFileOptions())
          .ok());
  const auto totals = Totals(Tables(db.get()));
  EXPECT_EQ(totals.tables, 1);
  EXPECT_EQ(totals.blockbloom_tables, 1);
  const GetCounts c = CheckGets(db.get(), options.statistics.get(), 0, kKeys);
  ExpectCorrect(c, "ingested");
  ExpectFpRate(c, Predicted(10, kKeys), "ingested");
}

// optimize_filters_for_hits: RocksDB writes no filter in the last level;
// upper levels keep theirs. The same as with the built-in policy.
TEST(RocksDBConfigTest, OptimizeFiltersForHits) {
  for (const bool builtin : {false, true}) {
    ScratchDir dir(builtin ? "rocksdb_hits_builtin" : "rocksdb_hits");
    rocksdb::BlockBasedTableOptions table = TableOptions(10);
    if (builtin) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    rocksdb::Options options = OptionsFor(table);
    options.optimize_filters_for_hits = true;
    auto db = OpenDB(options, dir.path());
    FillAndCompact(db.get());  // the last level: no filters
    const auto bottom = Totals(Tables(db.get()));
    EXPECT_GT(bottom.tables, 0);
    EXPECT_EQ(bottom.filter_bytes, 0u);
    // A flush on top of it: L0, with a filter.
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(kKeys), ValueFor(kKeys))
            .ok());
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    const auto both = Totals(Tables(db.get()));
    EXPECT_EQ(both.tables, bottom.tables + 1);
    EXPECT_GT(both.filter_bytes, 0u);
    EXPECT_EQ(both.blockbloom_tables, builtin ? 0 : 1);
    const GetCounts c =
        CheckGets(db.get(), options.statistics.get(), 0, kKeys + 1);
    ExpectCorrect(c, builtin ? "hits, built-in" : "hits, blockbloom");
    if (!builtin) {
      // Absent keys outside the L0 table's one-key range skip its filter;
      // the last level has none: nothing is rejected but correctly read.
      EXPECT_EQ(c.useful, 0u);
    }
  }
}

// Flushes and compactions replace tables while readers look keys up: no read
// may miss a key or find an absent one.
TEST(RocksDBConfigTest, CompactionsUnderConcurrentReaders) {
  ScratchDir dir("rocksdb_concurrent");
  rocksdb::Options options = OptionsFor(TableOptions(10));
  options.write_buffer_size = 256 << 10;  // many flushes
  options.level0_file_num_compaction_trigger = 2;
  options.max_bytes_for_level_base = 1 << 20;
  options.target_file_size_base = 256 << 10;
  options.max_background_jobs = 2;
  auto db = OpenDB(options, dir.path());
  constexpr int kFirst = 50'000;
  PutRange(db.get(), 0, kFirst);
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  std::atomic<bool> done{false};
  std::atomic<int> missing{0}, found_absent{0};
  std::atomic<long> reads{0};
  auto reader = [&](int seed) {
    std::string value;
    uint32_t x = seed * 2654435761u + 1;
    while (!done.load()) {
      x = x * 1664525u + 1013904223u;
      const int i = static_cast<int>(x % kFirst);
      rocksdb::Status s =
          db->Get(rocksdb::ReadOptions(), PresentKey(i), &value);
      if (!s.ok() || value != ValueFor(i)) missing.fetch_add(1);
      if (!db->Get(rocksdb::ReadOptions(), AbsentKey(i), &value).IsNotFound()) {
        found_absent.fetch_add(1);
      }
      reads.fetch_add(2);
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  // The writer: more keys in a scattered order (overlapping tables, so
  // compactions rewrite them), then a full compaction.
  for (int j = 0; j < 2 * kFirst; ++j) {
    const int i = kFirst + static_cast<int>((j * 7919LL) % (2 * kFirst));
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
  }
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction =
      rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
  done.store(true);
  r1.join();
  r2.join();
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(found_absent.load(), 0);
  EXPECT_GT(reads.load(), 1000);
  EXPECT_GT(options.statistics->getTickerCount(rocksdb::COMPACT_WRITE_BYTES),
            0u);
  const auto totals = Totals(Tables(db.get()));
  EXPECT_EQ(totals.blockbloom_tables, totals.tables);
  const GetCounts c =
      CheckGets(db.get(), options.statistics.get(), 0, 3 * kFirst);
  ExpectCorrect(c, "after concurrent compactions");
}

}  // namespace
}  // namespace blockbloom
