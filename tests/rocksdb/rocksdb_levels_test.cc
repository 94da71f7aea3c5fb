// Level-aware blockbloom filters in a real leveled RocksDB: no false
// negatives, each table's bits/key is what LevelAllocator derives from its
// FilterBuildingContext, and the tables of each level carry the plan's
// density (table properties filter_size / num_entries). Universal and FIFO
// compaction, and files of unknown level, get the budget itself.
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "blockbloom/level_allocation.h"
#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/rocksdb/test_hooks.h"
#include "tests/rocksdb/rocksdb_compactions.h"
#include "tests/rocksdb/rocksdb_test_util.h"

namespace blockbloom {
namespace {

using internal::RocksDBBuiltFilter;
using internal::WaitForCompactions;
using testing::CheckGets;
using testing::OpenDB;
using testing::PresentKey;
using testing::ScratchDir;
using testing::ValueFor;

// Records every filter the adapter builds.
class Recorder {
 public:
  Recorder() {
    internal::SetRocksDBBuildObserverForTest(
        [this](const RocksDBBuiltFilter& f) {
          std::lock_guard<std::mutex> lock(mu_);
          built_.push_back(f);
        });
  }
  ~Recorder() { internal::SetRocksDBBuildObserverForTest(nullptr); }
  std::vector<RocksDBBuiltFilter> built() {
    std::lock_guard<std::mutex> lock(mu_);
    return built_;
  }

 private:
  std::mutex mu_;
  std::vector<RocksDBBuiltFilter> built_;
};

LevelAllocator Allocator(double bits) {
  LevelAllocator::Options o;
  o.bits_per_key = bits;
  return *LevelAllocator::Create(o);
}

std::shared_ptr<const rocksdb::FilterPolicy> LevelAwarePolicy(double bits) {
  FilterPolicy::Options o;
  o.bits_per_key = bits;
  o.levels.level_aware = true;
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
  return o;
}

// Keys in a scattered order, so that compactions rewrite tables (no trivial
// moves). `settle`: wait for leveled compactions to finish (universal
// compaction may report a pending compaction indefinitely).
void LoadScattered(rocksdb::DB* db, int n, bool settle = true) {
  for (int j = 0; j < n; ++j) {
    const int i = static_cast<int>(j * 7919LL % n);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), PresentKey(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  if (settle) WaitForCompactions(db);
}

// Bits/key of a built filter: its size over its keys, less what the
// 56-byte trailer and rounding up to whole 64-byte blocks add.
void ExpectDensity(double bits_per_key, uint64_t keys, uint64_t bytes) {
  const double slack = 8.0 * (56 + 64) / keys;
  const double actual = 8.0 * bytes / keys;
  EXPECT_GE(actual, bits_per_key - 0.01);
  EXPECT_LE(actual, bits_per_key + slack + 0.01);
}

TEST(RocksDBLevelsTest, EveryTableGetsItsLevelsBitsAndNoKeyIsMissed) {
  ScratchDir dir("rocksdb_levels");
  constexpr int kKeys = 150'000;  // with 64 KiB levels: L0 + 4 levels
  const LevelAllocator alloc = Allocator(10);
  Recorder recorder;
  rocksdb::Options options = SmallTree(LevelAwarePolicy(10));
  auto db = OpenDB(options, dir.path());
  LoadScattered(db.get(), kKeys);

  // Each filter built: the bits/key LevelAllocator gives for its context,
  // and a filter of that density.
  const std::vector<RocksDBBuiltFilter> built = recorder.built();
  ASSERT_GT(built.size(), 50u);
  for (const RocksDBBuiltFilter& f : built) {
    LevelHint hint;
    hint.level = f.level;
    hint.first_level = f.first_level;
    hint.last_level = f.last_level;
    hint.is_bottommost = f.is_bottommost;
    // A flush may also get the budget: when L0's tables hold most live
    // keys (kept flushes; here a young tree's L0 piling up on a busy
    // machine, before compactions catch up).
    if (f.level != 0 || f.bits_per_key != 10) {
      EXPECT_DOUBLE_EQ(f.bits_per_key, alloc.BitsPerKey(hint))
          << "level " << f.level << " last " << f.last_level;
    }
    if (f.num_keys > 0) ExpectDensity(f.bits_per_key, f.num_keys, f.bytes);
  }
  // Dynamic level sizes: the first compaction goes to the last level (6),
  // and the policy learned it; L0 goes into the first populated level.
  const int first = built.back().first_level;
  const int last = built.back().last_level;
  EXPECT_EQ(last, options.num_levels - 1);
  EXPECT_GE(first, 2);

  // The live tables: each is one of the filters built (matched by key count
  // and filter size), at the level it was written at or below (RocksDB moves
  // a table down without rewriting it when nothing below overlaps it: a
  // "trivial move", which keeps its filter). The tables written at their
  // level, once the policy knew the tree (levels first..6), carry the plan's
  // density for a tree of those levels.
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  const auto props = testing::Tables(db.get());
  std::map<std::string, std::shared_ptr<const rocksdb::TableProperties>>
      by_name;
  for (const auto& [path, p] : props) {
    by_name[std::filesystem::path(path).filename().string()] = p;
  }
  std::multimap<std::pair<uint64_t, uint64_t>, const RocksDBBuiltFilter*>
      by_size;
  for (const RocksDBBuiltFilter& f : built) {
    by_size.insert({{f.num_keys, f.bytes}, &f});
  }
  const std::vector<double> plan = alloc.Plan(last - first + 1);
  auto planned = [&](int level) { return plan[level - first + 1]; };
  int populated = 0, moved = 0, tables = 0;
  for (const auto& level : meta.levels) {
    if (level.level == 0 || level.files.empty()) continue;
    ++populated;
    uint64_t keys = 0, bytes = 0;
    int written_here = 0;
    for (const auto& f : level.files) {
      const auto& p =
          by_name.at(std::filesystem::path(f.name).filename().string());
      ++tables;
      // Filters of the same key count and size can have been built at
      // several levels (RocksDB's background compactions decide which):
      // the table is the one built at its level if there is one, else one
      // built above it and moved down.
      const auto [begin, end] =
          by_size.equal_range({p->num_entries, p->filter_size});
      ASSERT_NE(begin, end) << f.name;
      auto match = end;
      for (auto it = begin; it != end; ++it) {
        if (it->second->level > level.level) continue;
        if (match == end || it->second->level > match->second->level) {
          match = it;
        }
      }
      ASSERT_NE(match, end)
          << f.name << ": only built below level " << level.level;
      if (match->second->level != level.level) {
        ++moved;
        continue;
      }
      if (match->second->first_level != first ||
          match->second->last_level != last) {
        continue;  // written while the tree was shallower
      }
      ++written_here;
      keys += p->num_entries;
      bytes += p->filter_size;
    }
    if (keys == 0) continue;
    std::printf(
        "L%d: %zu tables (%d written here), %.2f bits/key (plan %.2f)\n",
        level.level, level.files.size(), written_here, 8.0 * bytes / keys,
        planned(level.level));
    const double slack = 8.0 * (56 + 64) * written_here / keys;
    EXPECT_GE(8.0 * bytes / keys, planned(level.level) - 0.01) << level.level;
    EXPECT_LE(8.0 * bytes / keys, planned(level.level) + slack + 0.01)
        << level.level;
  }
  // Several levels were exercised: filters were built for L0 and at least
  // two levels below it, and at least two levels hold tables at the end.
  // (How many stay populated is RocksDB's timing: under ASan, compactions
  // that lag behind the writes once left only L5 and L6.)
  std::set<int> built_levels;
  for (const RocksDBBuiltFilter& f : built) built_levels.insert(f.level);
  EXPECT_GE(built_levels.size(), 3u);
  EXPECT_GE(populated, 2);
  std::printf("%d of %d tables were moved down after being written\n", moved,
              tables);
  EXPECT_LT(moved, tables / 4);

  // A flush now: an L0 table at the plan's L0 density.
  const size_t before = recorder.built().size();
  ASSERT_TRUE(
      db->Put(rocksdb::WriteOptions(), PresentKey(kKeys), ValueFor(kKeys))
          .ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  const std::vector<RocksDBBuiltFilter> after = recorder.built();
  ASSERT_GT(after.size(), before);
  EXPECT_EQ(after[before].level, 0);
  EXPECT_DOUBLE_EQ(after[before].bits_per_key, plan[0]);

  const auto c = CheckGets(db.get(), options.statistics.get(), 0, kKeys + 1);
  EXPECT_EQ(c.missing, 0);
  EXPECT_EQ(c.found_absent, 0);
}

TEST(RocksDBLevelsTest, UniversalFifoAndIngestedFilesGetTheBudget) {
  for (const auto style :
       {rocksdb::kCompactionStyleUniversal, rocksdb::kCompactionStyleFIFO}) {
    ScratchDir dir("rocksdb_levels_style");
    Recorder recorder;
    rocksdb::Options options = SmallTree(LevelAwarePolicy(8));
    options.compaction_style = style;
    options.level_compaction_dynamic_level_bytes = false;
    if (style == rocksdb::kCompactionStyleFIFO) options.num_levels = 1;
    auto db = OpenDB(options, dir.path());
    LoadScattered(db.get(), 30'000, /*settle=*/false);
    const auto built = recorder.built();
    ASSERT_FALSE(built.empty());
    for (const auto& f : built) EXPECT_EQ(f.bits_per_key, 8) << f.level;
    const auto c = CheckGets(db.get(), options.statistics.get(), 0, 30'000);
    EXPECT_EQ(c.missing, 0);
    EXPECT_EQ(c.found_absent, 0);
  }
  // SstFileWriter: level unknown (-1).
  ScratchDir dir("rocksdb_levels_ingest");
  Recorder recorder;
  rocksdb::Options options = SmallTree(LevelAwarePolicy(8));
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(dir.path() + "/x.sst").ok());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(writer.Put(PresentKey(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  const auto built = recorder.built();
  ASSERT_EQ(built.size(), 1u);
  EXPECT_EQ(built[0].level, -1);
  EXPECT_EQ(built[0].bits_per_key, 8);
}

}  // namespace
}  // namespace blockbloom
