// Level-aware filters in a real RocksDB: the same keys loaded into three
// leveled LSM trees (>= 4 populated levels plus L0), with
//   builtin       RocksDB's own Bloom filter, 10 bits/key on every file,
//   uniform       blockbloom, 10 bits/key on every file,
//   level-aware   blockbloom with level_aware = true, its average budget
//                 tuned so that the total filter bytes (sum of the tables'
//                 filter_size) match "uniform" within 2%,
// then absent and present Gets on each, interleaved, with the block cache off
// (every data block read is a file read). Reports per Get: false-positive
// filter hits (statistics BLOOM_FILTER_FULL_POSITIVE minus
// BLOOM_FILTER_FULL_TRUE_POSITIVE), file reads (PerfContext
// block_read_count), and Gets/s as median [min-max] over the repetitions.
//
//   blockbloom_rocksdb_levels_demo [--keys=5000000] [--dir=/tmp/...]
//       [--gets=200000] [--reps=5] [--phase=all|build|measure]
//       [--level_bits=0 (0: tune)] [--keep_uniform]
//
// The tree: no compression, 16-byte values, 512 KiB write buffers and
// max_bytes_for_level_base, 64 KiB tables, level_compaction_dynamic_level_bytes
// (levels sized from the last one up, each 10x the one above), keys inserted
// in a scattered order so that compactions rewrite tables. After the load,
// the L0 files are compacted down and two final flushes each put 1/800 of the
// keys (spread over the whole key range) in L0: every Get probes 2 L0 files
// and one file per level, the same in all three trees.
//
// docs/BENCHMARKS.md ("Level-aware filters in RocksDB") has a run and the
// commands (build under the shared quiet lock, measure under the exclusive
// one, pinned).
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"
#include "tests/rocksdb/rocksdb_compactions.h"

ABSL_FLAG(int, keys, 5'000'000, "present keys to load");
ABSL_FLAG(int, gets, 200'000, "absent and present Gets per repetition");
ABSL_FLAG(int, reps, 5, "timed repetitions (interleaved across the trees)");
ABSL_FLAG(double, bits_per_key, 10, "bits/key of the uniform filters");
ABSL_FLAG(double, level_bits, 0,
          "average budget of the level-aware policy; 0: tune it so that its "
          "total filter bytes match the uniform blockbloom tree's (+-2%)");
ABSL_FLAG(std::string, dir, "", "where the trees go (default: under /tmp)");
ABSL_FLAG(std::string, phase, "all",
          "all | build (load the trees) | measure (Gets on built trees)");
ABSL_FLAG(bool, keep_uniform, false,
          "build: keep the builtin and uniform trees already in --dir and "
          "(re)build the level-aware one only");

namespace {

using blockbloom::internal::WaitForCompactions;
using Clock = std::chrono::steady_clock;

std::string Key(int i) { return absl::StrFormat("user%010d", i); }
std::string Present(int i) { return Key(2 * i); }
std::string Absent(int i) { return Key(2 * i + 1); }
std::string Value(int i) {
  std::string v = absl::StrFormat("v%d-", i);
  v.resize(16, 'v');
  return v;
}

// The keys held back for the two final L0 flushes: 1 in 400, spread evenly
// (each flush, half of them, fits one 512 KiB write buffer).
bool Late(int i) { return i % 400 == 37; }

struct Tree {
  std::string name;
  std::string path;
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  std::unique_ptr<rocksdb::DB> db;
  std::shared_ptr<rocksdb::Statistics> stats;
};

rocksdb::Options TreeOptions(const Tree& t) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 512 << 10;
  o.max_bytes_for_level_base = 512 << 10;
  // Small tables, so that the smallest level keeps a few of them.
  o.target_file_size_base = 64 << 10;
  o.level_compaction_dynamic_level_bytes = true;
  o.max_bytes_for_level_multiplier = 10;
  o.max_background_jobs = 2;
  o.max_open_files = -1;  // every table open, its filter in memory
  o.statistics = t.stats;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = t.policy;
  table.no_block_cache = true;  // every data block read is a file read
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return o;
}

// `frozen`: no compactions, so that the trees measured are the trees built.
bool Open(Tree* t, bool frozen = false) {
  t->stats = rocksdb::CreateDBStatistics();
  rocksdb::Options options = TreeOptions(*t);
  options.disable_auto_compactions = frozen;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      blockbloom::rocksdb_compat::OpenDB(options, t->path, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", t->path.c_str(), s.ToString().c_str());
    return false;
  }
  t->db.reset(raw);
  return true;
}

bool Build(Tree* t, int keys) {
  std::filesystem::remove_all(t->path);
  if (!Open(t)) return false;
  rocksdb::DB* db = t->db.get();
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  // A scattered order: i = j * P mod keys, P a prime not dividing keys.
  const int64_t p = keys % 1'000'003 == 0 ? 999'983 : 1'000'003;
  for (int64_t j = 0; j < keys; ++j) {
    const int i = static_cast<int>(j * p % keys);
    if (Late(i)) continue;
    if (!db->Put(w, Present(i), Value(i)).ok()) return false;
  }
  if (!db->Flush(rocksdb::FlushOptions()).ok()) return false;
  WaitForCompactions(db);
  // L0 files left by the load go down into the base level.
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> l0;
  int base = 0;
  for (const auto& level : meta.levels) {
    if (level.level == 0) {
      for (const auto& f : level.files) l0.push_back(f.name);
    } else if (base == 0 && !level.files.empty()) {
      base = level.level;
    }
  }
  if (!l0.empty() && base > 0) {
    rocksdb::Status s =
        db->CompactFiles(rocksdb::CompactionOptions(), l0, base);
    if (!s.ok()) {
      std::fprintf(stderr, "CompactFiles: %s\n", s.ToString().c_str());
      return false;
    }
  }
  WaitForCompactions(db);
  // Two flushes, each half of the held-back keys, left in L0.
  if (!db->SetOptions({{"disable_auto_compactions", "true"}}).ok()) {
    return false;
  }
  for (int half = 0; half < 2; ++half) {
    for (int i = 0; i < keys; ++i) {
      if (Late(i) && (i / 400) % 2 == half) {
        if (!db->Put(w, Present(i), Value(i)).ok()) return false;
      }
    }
    if (!db->Flush(rocksdb::FlushOptions()).ok()) return false;
  }
  t->db.reset();
  return true;
}

struct LevelStats {
  int files = 0;
  uint64_t entries = 0, filter_bytes = 0;
};

// Files, keys and filter bytes per level; returns the total filter bytes.
uint64_t Describe(const Tree& t, bool print) {
  rocksdb::ColumnFamilyMetaData meta;
  t.db->GetColumnFamilyMetaData(&meta);
  rocksdb::TablePropertiesCollection props;
  t.db->GetPropertiesOfAllTables(&props);
  std::map<std::string, std::shared_ptr<const rocksdb::TableProperties>>
      by_name;
  for (const auto& [path, p] : props) {
    by_name[std::filesystem::path(path).filename().string()] = p;
  }
  std::map<int, LevelStats> levels;
  uint64_t total = 0;
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      auto it = by_name.find(std::filesystem::path(f.name).filename().string());
      if (it == by_name.end()) continue;
      LevelStats& l = levels[level.level];
      ++l.files;
      l.entries += it->second->num_entries;
      l.filter_bytes += it->second->filter_size;
      total += it->second->filter_size;
    }
  }
  if (print) {
    std::printf("  %-12s", t.name.c_str());
    for (const auto& [level, l] : levels) {
      std::printf(" | L%d: %d files, %.2fM keys, %.2f bits/key", level, l.files,
                  l.entries / 1e6,
                  l.entries ? 8.0 * l.filter_bytes / l.entries : 0.0);
    }
    std::printf(" | filters %.3f MB\n", total / 1e6);
  }
  return total;
}

struct Sample {
  double absent_per_s = 0, present_per_s = 0;
};

struct Counts {
  uint64_t gets = 0, false_hits = 0, absent_reads = 0, present_reads = 0;
  int missing = 0, found_absent = 0;
};

// One repetition on one tree: `gets` absent then `gets` present Gets at
// pseudo-random keys (the same keys for every tree).
Sample Measure(Tree* t, int keys, int gets, int rep, Counts* c) {
  rocksdb::DB* db = t->db.get();
  rocksdb::ReadOptions ro;
  std::string value;
  uint64_t x = 0x9e3779b97f4a7c15ull * (rep + 1);
  std::vector<int> picks(gets);
  for (int& i : picks) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    i = static_cast<int>((x >> 33) % keys);
  }
  Sample s;
  const uint64_t positive0 =
      t->stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  const uint64_t true0 =
      t->stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  rocksdb::get_perf_context()->Reset();
  Clock::time_point start = Clock::now();
  for (int i : picks) {
    c->found_absent += !db->Get(ro, Absent(i), &value).IsNotFound();
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  s.absent_per_s = gets / secs;
  c->absent_reads += rocksdb::get_perf_context()->block_read_count;
  c->false_hits +=
      (t->stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE) -
       positive0) -
      (t->stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE) -
       true0);
  rocksdb::get_perf_context()->Reset();
  start = Clock::now();
  for (int i : picks) {
    c->missing += !db->Get(ro, Present(i), &value).ok() || value != Value(i);
  }
  secs = std::chrono::duration<double>(Clock::now() - start).count();
  s.present_per_s = gets / secs;
  c->present_reads += rocksdb::get_perf_context()->block_read_count;
  c->gets += gets;
  return s;
}

std::string MedianRange(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return absl::StrFormat("%.0fk [%.0f-%.0fk]", v[v.size() / 2] / 1e3,
                         v.front() / 1e3, v.back() / 1e3);
}

std::shared_ptr<const rocksdb::FilterPolicy> LevelAware(double budget) {
  blockbloom::FilterPolicy::Options o;
  o.bits_per_key = budget;
  o.levels.level_aware = true;
  return *blockbloom::NewRocksDBFilterPolicy(o);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Level-aware vs uniform filters in a leveled RocksDB (see the source's "
      "header comment).");
  absl::ParseCommandLine(argc, argv);
  const int keys = absl::GetFlag(FLAGS_keys);
  const int gets = absl::GetFlag(FLAGS_gets);
  const int reps = std::max(1, absl::GetFlag(FLAGS_reps));
  const double bits = absl::GetFlag(FLAGS_bits_per_key);
  const std::string phase = absl::GetFlag(FLAGS_phase);
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir = std::string(tmp ? tmp : "/tmp") + "/blockbloom_rocksdb_levels_demo";
  }
  std::filesystem::create_directories(dir);
  const std::string budget_file = dir + "/level_bits";

  std::vector<Tree> trees(3);
  trees[0] = {"builtin", dir + "/builtin",
              std::shared_ptr<const rocksdb::FilterPolicy>(
                  rocksdb::NewBloomFilterPolicy(bits)),
              nullptr, nullptr};
  trees[1] = {"uniform", dir + "/uniform",
              blockbloom::NewRocksDBFilterPolicy(bits), nullptr, nullptr};
  double budget = absl::GetFlag(FLAGS_level_bits);
  if (budget <= 0 && phase == "measure") {
    // The budget the build phase settled on.
    if (FILE* f = std::fopen(budget_file.c_str(), "r")) {
      if (std::fscanf(f, "%lf", &budget) != 1) budget = 0;
      std::fclose(f);
    }
  }
  trees[2] = {"level-aware", dir + "/level_aware",
              LevelAware(budget > 0 ? budget : bits), nullptr, nullptr};

  if (phase == "all" || phase == "build") {
    std::printf("Loading %d keys into 3 trees under %s\n", keys, dir.c_str());
    for (int t = 0; t < 2 && !absl::GetFlag(FLAGS_keep_uniform); ++t) {
      if (!Build(&trees[t], keys)) return 1;
    }
    if (!Open(&trees[1], /*frozen=*/true)) return 1;
    const uint64_t target = Describe(trees[1], false);
    trees[1].db.reset();
    // The level-aware tree, its budget retuned until its filters weigh the
    // same as the uniform tree's (the model tree is not exactly the real one:
    // the base level is partly full, L0 holds flushes).
    double b = budget > 0 ? budget : bits;
    for (int attempt = 0;; ++attempt) {
      trees[2].policy = LevelAware(b);
      if (!Build(&trees[2], keys)) return 1;
      if (!Open(&trees[2], /*frozen=*/true)) return 1;
      const uint64_t got = Describe(trees[2], false);
      trees[2].db.reset();
      const double ratio = static_cast<double>(got) / target;
      std::printf(
          "  level-aware budget %.3f bits/key: filters %.4f x uniform\n", b,
          ratio);
      if (budget > 0 || std::abs(ratio - 1) <= 0.003 || attempt == 3) break;
      // Memory is nearly proportional to the budget.
      b /= ratio;
    }
    budget = b;
    if (FILE* f = std::fopen(budget_file.c_str(), "w")) {
      std::fprintf(f, "%.17g\n", budget);
      std::fclose(f);
    }
  }
  if (phase == "build") return 0;

  for (Tree& t : trees) {
    if (!Open(&t, /*frozen=*/true)) return 1;
  }
  std::printf("\nTrees (%d keys; level-aware budget %.3f bits/key):\n", keys,
              budget);
  uint64_t filter_bytes[3];
  for (int t = 0; t < 3; ++t) filter_bytes[t] = Describe(trees[t], true);

  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  std::vector<Counts> counts(3);
  std::vector<std::vector<double>> absent_rate(3), present_rate(3);
  // One untimed pass to warm the page cache, then the timed repetitions,
  // interleaved so that drifting machine load hits all trees alike.
  for (int rep = -1; rep < reps; ++rep) {
    for (int t = 0; t < 3; ++t) {
      Counts scratch;
      const Sample s =
          Measure(&trees[t], keys, gets, rep, rep < 0 ? &scratch : &counts[t]);
      if (rep >= 0) {
        absent_rate[t].push_back(s.absent_per_s);
        present_rate[t].push_back(s.present_per_s);
      }
    }
  }
  std::printf("\n%-12s %10s %13s %13s %13s %20s %20s %8s\n", "filters",
              "filter MB", "FP hits/Get", "reads/absent", "reads/present",
              "absent Gets/s", "present Gets/s", "errors");
  bool ok = true;
  for (int t = 0; t < 3; ++t) {
    const Counts& c = counts[t];
    const int errors = c.missing + c.found_absent;
    ok = ok && errors == 0;
    std::printf("%-12s %10.3f %13.5f %13.5f %13.5f %20s %20s %8d\n",
                trees[t].name.c_str(), filter_bytes[t] / 1e6,
                static_cast<double>(c.false_hits) / c.gets,
                static_cast<double>(c.absent_reads) / c.gets,
                static_cast<double>(c.present_reads) / c.gets,
                MedianRange(absent_rate[t]).c_str(),
                MedianRange(present_rate[t]).c_str(), errors);
  }
  const double uniform_hits = static_cast<double>(counts[1].false_hits);
  const double aware_hits = static_cast<double>(counts[2].false_hits);
  std::printf(
      "\nlevel-aware vs uniform blockbloom: %.2fx fewer false-positive filter "
      "hits per absent Get at %.2f%% of its filter bytes\n",
      aware_hits > 0 ? uniform_hits / aware_hits : 0.0,
      100.0 * filter_bytes[2] / filter_bytes[1]);
  if (!ok) std::printf("ERROR: false negatives or absent keys found\n");
  return ok ? 0 : 1;
}
