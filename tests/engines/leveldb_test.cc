// blockbloom inside a real LevelDB 1.23 (Debian's libleveldb): no false
// negatives through the whole read path, absent keys rejected at the filter's
// rate (file reads counted with an Env wrapper), reopening with other
// policies, and fail-open on filter blocks damaged on disk.
#include "blockbloom/leveldb.h"

#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "src/engines/leveldb_counting_env.h"
#include "src/engines/leveldb_table.h"
#include "tests/engines/engine_test_util.h"

namespace blockbloom {
namespace {

using testing::AbsentKey;
using testing::PresentKey;
using testing::ScratchDir;
using testing::ValueFor;

constexpr int kKeys = 200'000;

struct Db {
  std::unique_ptr<internal::CountingEnv> env =
      std::make_unique<internal::CountingEnv>();
  std::unique_ptr<leveldb::DB> db;
};

Db Open(const std::string& path, const leveldb::FilterPolicy* policy) {
  Db d;
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy;
  options.env = d.env.get();
  options.max_open_files = 1000;  // keep every table (and filter) open
  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  d.db.reset(db);
  return d;
}

void Fill(const std::string& path, const leveldb::FilterPolicy* policy) {
  Db d = Open(path, policy);
  for (int start = 0; start < kKeys; start += 1000) {
    leveldb::WriteBatch batch;
    for (int i = start; i < start + 1000; ++i) {
      batch.Put(PresentKey(i), ValueFor(i));
    }
    ASSERT_TRUE(d.db->Write(leveldb::WriteOptions(), &batch).ok());
  }
  d.db->CompactRange(nullptr, nullptr);  // flush and compact everything
}

struct Counts {
  int missing = 0;       // present keys not found or with a wrong value
  int found_absent = 0;  // absent keys found (must be 0)
  uint64_t absent_reads = 0;
};

// Every present key is found; every absent key is not, and the file reads
// its lookups cost are counted.
Counts Check(const std::string& path, const leveldb::FilterPolicy* policy) {
  Db d = Open(path, policy);
  leveldb::ReadOptions read;
  read.fill_cache = false;
  Counts c;
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    leveldb::Status s = d.db->Get(read, PresentKey(i), &value);
    c.missing += !s.ok() || value != ValueFor(i);
  }
  d.env->Reset();
  for (int i = 0; i < kKeys; ++i) {
    c.found_absent += !d.db->Get(read, AbsentKey(i), &value).IsNotFound();
  }
  c.absent_reads = d.env->reads();
  return c;
}

TEST(LevelDBTest, NoFalseNegativesAndAbsentKeysSkipTheDisk) {
  ScratchDir dir("leveldb_basic");
  std::unique_ptr<const leveldb::FilterPolicy> ours(NewLevelDBFilterPolicy(10));
  ASSERT_STREQ(ours->Name(), "blockbloom.v1");
  Fill(dir.path(), ours.get());
  const Counts c = Check(dir.path(), ours.get());
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  const double fpr = static_cast<double>(c.absent_reads) / kKeys;
  std::printf(
      "LevelDB + blockbloom: %llu file reads for %d absent keys (%.3f%%)\n",
      static_cast<unsigned long long>(c.absent_reads), kKeys, 100 * fpr);
  // Filters of ~37 keys at 10 bits/key: 0.7-0.9% expected. Bounds that a
  // broken filter (0 or ~100%) or a weak one cannot meet.
  EXPECT_GT(fpr, 0.002);
  EXPECT_LT(fpr, 0.012);
}

TEST(LevelDBTest, ReopenWithOtherPoliciesGivesCorrectAnswers) {
  ScratchDir dir("leveldb_reopen");
  std::unique_ptr<const leveldb::FilterPolicy> ours(NewLevelDBFilterPolicy(10));
  std::unique_ptr<const leveldb::FilterPolicy> builtin(
      leveldb::NewBloomFilterPolicy(10));
  Fill(dir.path(), ours.get());
  // The built-in policy and no policy ignore our filters: every lookup reads.
  for (const leveldb::FilterPolicy* other :
       {builtin.get(), static_cast<const leveldb::FilterPolicy*>(nullptr)}) {
    const Counts c = Check(dir.path(), other);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
    EXPECT_GT(c.absent_reads, kKeys * 0.9);
  }
  // And a DB written with the built-in filter, read with ours.
  ScratchDir dir2("leveldb_reopen_builtin");
  Fill(dir2.path(), builtin.get());
  const Counts c = Check(dir2.path(), ours.get());
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

// Whole filter blocks (filters, offsets, everything) in bits per key.
double FilterBlockBitsPerKey(const std::string& dir, const std::string& name) {
  uint64_t bytes = 0;
  for (const std::string& file : testing::FilesEndingIn(dir, ".ldb")) {
    internal::LevelDBFilterBlock block;
    if (internal::FindLevelDBFilterBlock(testing::ReadFile(file), name,
                                         &block)) {
      bytes += block.size;
    }
  }
  return 8.0 * static_cast<double>(bytes) / kKeys;
}

TEST(LevelDBTest, AsSmallAndAsAccurateAsTheBuiltInFilter) {
  ScratchDir dir("leveldb_size"), dir2("leveldb_size_builtin");
  std::unique_ptr<const leveldb::FilterPolicy> ours(NewLevelDBFilterPolicy(10));
  std::unique_ptr<const leveldb::FilterPolicy> builtin(
      leveldb::NewBloomFilterPolicy(10));
  Fill(dir.path(), ours.get());
  Fill(dir2.path(), builtin.get());
  const Counts c = Check(dir.path(), ours.get());
  const Counts b = Check(dir2.path(), builtin.get());
  const double our_bits = FilterBlockBitsPerKey(dir.path(), ours->Name());
  const double their_bits = FilterBlockBitsPerKey(dir2.path(), builtin->Name());
  std::printf(
      "LevelDB at 10 bits/key: blockbloom %.2f bits/key, FPR %.3f%%; "
      "built-in %.2f bits/key, FPR %.3f%%\n",
      our_bits, 100.0 * c.absent_reads / kKeys, their_bits,
      100.0 * b.absent_reads / kKeys);
  EXPECT_GT(our_bits, 9);
  EXPECT_GT(their_bits, 9);
}

TEST(LevelDBTest, DamagedFilterBlocksFailOpen) {
  ScratchDir dir("leveldb_corrupt");
  std::unique_ptr<const leveldb::FilterPolicy> ours(NewLevelDBFilterPolicy(10));
  Fill(dir.path(), ours.get());
  int damaged = 0;
  for (const std::string& file : testing::FilesEndingIn(dir.path(), ".ldb")) {
    std::string table = testing::ReadFile(file);
    internal::LevelDBFilterBlock block;
    ASSERT_TRUE(internal::FindLevelDBFilterBlock(table, ours->Name(), &block))
        << file;
    // Clear one bit in every 7th byte: bits that keys set are lost, which
    // without a checksum would be false negatives.
    for (size_t i = block.offset; i < block.filters_end; i += 7) {
      table[i] = static_cast<char>(table[i] & 0xfe);
      ++damaged;
    }
    testing::WriteFile(file, table);
  }
  ASSERT_GT(damaged, 1000);
  // LevelDB does not verify the filter block's checksum by default
  // (paranoid_checks is off), so only blockbloom's CRC stands between the
  // damage and wrong answers.
  const Counts c = Check(dir.path(), ours.get());
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
  // Most filters failed open: absent keys now cost reads.
  EXPECT_GT(c.absent_reads, kKeys / 2);
}

TEST(LevelDBTest, PolicyOptionsAreValidated) {
  FilterPolicy::Options bad;
  bad.bits_per_key = -1;
  EXPECT_FALSE(NewLevelDBFilterPolicy(bad).ok());
  FilterPolicy::Options seeded;
  seeded.seed = 42;
  EXPECT_TRUE(NewLevelDBFilterPolicy(seeded).ok());
  // Out-of-range simple arguments are clamped, never a null policy.
  std::unique_ptr<const leveldb::FilterPolicy> p(NewLevelDBFilterPolicy(-3));
  ASSERT_NE(p, nullptr);
  std::string block;
  leveldb::Slice keys[2] = {"a", "b"};
  block = "keep";
  p->CreateFilter(keys, 2, &block);
  ASSERT_EQ(block.substr(0, 4), "keep");
  const leveldb::Slice filter(block.data() + 4, block.size() - 4);
  EXPECT_TRUE(p->KeyMayMatch("a", filter));
  EXPECT_TRUE(p->KeyMayMatch("b", filter));
  // Empty key sets (LevelDB passes n = 0) give a valid, empty filter.
  std::string empty;
  p->CreateFilter(keys, 0, &empty);
  EXPECT_FALSE(p->KeyMayMatch("a", empty));
  // Garbage fails open. An empty filter matches nothing: LevelDB's contract
  // (its own filter block writes an empty filter for a range with no keys,
  // and util/bloom_test.cc's EmptyFilter asserts it).
  EXPECT_TRUE(p->KeyMayMatch("a", "not a filter"));
  EXPECT_FALSE(p->KeyMayMatch("a", ""));
}

}  // namespace
}  // namespace blockbloom
