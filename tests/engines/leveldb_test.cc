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

#include <cstring>
#include <memory>
#include <string>
#include <thread>

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
  // Each of our filters is at most the built-in's size for the same keys
  // (the block's offsets are the same), and twice as accurate (0.4-0.5%
  // against 0.9-1.2% for ~37-key filters).
  EXPECT_LE(our_bits, their_bits);
  EXPECT_EQ(c.missing, 0);
  EXPECT_LT(c.absent_reads, b.absent_reads * 3 / 4);
}

// The per-thread cache of verified filters (src/probe_cache.h) answers from
// the copy it verified: a filter damaged on disk after it was first read,
// and read again into the same memory, still gives right answers.
TEST(LevelDBTest, DamageAfterTheFirstReadIsAnsweredFromTheVerifiedCopy) {
  ScratchDir dir("leveldb_damage_later");
  std::unique_ptr<const leveldb::FilterPolicy> ours(NewLevelDBFilterPolicy(10));
  Fill(dir.path(), ours.get());
  const Counts before = Check(dir.path(), ours.get());
  ASSERT_EQ(before.missing, 0);
  // Clear every bit of each filter except its first and last 8 bytes (which
  // identify it in the cache): without the checksum and the cached copy,
  // every present key would be lost.
  int damaged = 0;
  for (const std::string& file : testing::FilesEndingIn(dir.path(), ".ldb")) {
    std::string table = testing::ReadFile(file);
    internal::LevelDBFilterBlock block;
    ASSERT_TRUE(internal::FindLevelDBFilterBlock(table, ours->Name(), &block));
    // The filter block: filters, then a u32 offset (from the block's
    // start) per filter up to filters_end, then that start, then base_lg.
    const size_t offsets_end = block.offset + block.size - 5;
    for (size_t at = block.filters_end; at < offsets_end; at += 4) {
      uint32_t start, end;
      std::memcpy(&start, table.data() + at, 4);
      if (at + 4 < offsets_end) {
        std::memcpy(&end, table.data() + at + 4, 4);
      } else {
        end = static_cast<uint32_t>(block.filters_end - block.offset);
      }
      for (size_t i = block.offset + start + 8; i + 8 < block.offset + end;
           ++i) {
        table[i] = 0;
        ++damaged;
      }
    }
    testing::WriteFile(file, table);
  }
  ASSERT_GT(damaged, 100000);
  // Same thread, same process: the tables are read again from disk.
  const Counts after = Check(dir.path(), ours.get());
  EXPECT_EQ(after.missing, 0);
  EXPECT_EQ(after.found_absent, 0);
  std::printf("absent-key reads: %llu before the damage, %llu after\n",
              static_cast<unsigned long long>(before.absent_reads),
              static_cast<unsigned long long>(after.absent_reads));
  // In another thread (no cache yet), the damage is caught: fail open.
  Counts other;
  std::thread([&] { other = Check(dir.path(), ours.get()); }).join();
  EXPECT_EQ(other.missing, 0);
  EXPECT_GT(other.absent_reads, kKeys / 2);
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
