// The main demo: the same keys loaded into LevelDB and RocksDB with no
// filter, the engine's own Bloom filter, and blockbloom at the same bits/key;
// then absent and present lookups, and one table of what each filter costs
// and saves.
//
//   blockbloom_engine_demo [--keys=200000] [--bits_per_key=10]
//                          [--value_size=100] [--rounds=5] [--dir=/tmp/...]
//
// "filter bits/key" is the whole filter block (LevelDB: every filter of a
// table plus LevelDB's offsets; RocksDB: the table property filter_size)
// over the keys. "file reads" counts data blocks read from files by absent
// lookups (LevelDB: an Env wrapper, fill_cache = false; RocksDB: PerfContext
// block_read_count, block cache off), so with a filter, reads/lookups is the
// filter's false-positive rate.
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "blockbloom/leveldb.h"
#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"
#include "tests/leveldb/leveldb_counting_env.h"
#include "tests/leveldb/leveldb_table.h"

ABSL_FLAG(int, keys, 200'000, "keys to load (and as many absent lookups)");
ABSL_FLAG(double, bits_per_key, 10, "bits/key for both Bloom filters");
ABSL_FLAG(int, value_size, 100, "value size in bytes");
ABSL_FLAG(std::string, dir, "", "scratch directory (default: under /tmp)");
ABSL_FLAG(int, rounds, 5,
          "timed rounds of lookups, interleaved across the databases; the "
          "table shows medians (and min-max for absent Get/s)");

namespace {

using Clock = std::chrono::steady_clock;

std::string Key(int i) { return absl::StrFormat("user%010d", i); }
// Present keys are even, absent odd: every absent key falls inside a table.
std::string Present(int i) { return Key(2 * i); }
std::string Absent(int i) { return Key(2 * i + 1); }
std::string Value(int i, int size) {
  std::string v = absl::StrFormat("v%d-", i);
  v.resize(static_cast<size_t>(size), 'x');
  return v;
}

struct Row {
  std::string engine, filter;
  double filter_bits_per_key = 0;
  uint64_t absent_reads = 0;
  // One entry per round.
  std::vector<double> absent_per_sec, present_per_sec;
  std::vector<double> absent_multiget_per_sec;  // RocksDB only, batches of 32
  int wrong = 0;  // present keys missing or absent keys found: must be 0
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2]
                      : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double PerSecond(int n, Clock::time_point start) {
  return n / std::chrono::duration<double>(Clock::now() - start).count();
}

// ---------------------------------------------------------------- LevelDB

// A loaded database, timed round by round: Round() runs every present and
// every absent lookup once.
class LevelDBRun {
 public:
  LevelDBRun(const std::string& dir, const std::string& name,
             const leveldb::FilterPolicy* policy, int n, int value_size)
      : n_(n) {
    row_.engine = "LevelDB";
    row_.filter = name;
    leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = policy;
    options.env = &env_;
    options.max_open_files = 5000;
    leveldb::DB* raw = nullptr;
    if (!leveldb::DB::Open(options, dir, &raw).ok()) {
      std::fprintf(stderr, "cannot open LevelDB at %s\n", dir.c_str());
      std::exit(1);
    }
    db_.reset(raw);
    for (int start = 0; start < n; start += 1000) {
      leveldb::WriteBatch batch;
      for (int i = start; i < std::min(n, start + 1000); ++i) {
        batch.Put(Present(i), Value(i, value_size));
      }
      db_->Write(leveldb::WriteOptions(), &batch);
    }
    db_->CompactRange(nullptr, nullptr);

    uint64_t filter_bytes = 0;
    if (policy != nullptr) {
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".ldb") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        blockbloom::internal::LevelDBFilterBlock block;
        if (blockbloom::internal::FindLevelDBFilterBlock(
                s.str(), policy->Name(), &block)) {
          filter_bytes += block.size;
        }
      }
    }
    row_.filter_bits_per_key = 8.0 * static_cast<double>(filter_bytes) / n;
  }

  void Round() {
    leveldb::ReadOptions read;
    read.fill_cache = false;
    std::string value;
    auto start = Clock::now();
    for (int i = 0; i < n_; ++i) {
      row_.wrong += !db_->Get(read, Present(i), &value).ok();
    }
    row_.present_per_sec.push_back(PerSecond(n_, start));
    env_.Reset();
    start = Clock::now();
    for (int i = 0; i < n_; ++i) {
      row_.wrong += !db_->Get(read, Absent(i), &value).IsNotFound();
    }
    row_.absent_per_sec.push_back(PerSecond(n_, start));
    row_.absent_reads = env_.reads();
  }

  const Row& row() const { return row_; }

 private:
  const int n_;
  Row row_;
  blockbloom::internal::CountingEnv env_;
  std::unique_ptr<leveldb::DB> db_;
};

// ---------------------------------------------------------------- RocksDB

class RocksDBRun {
 public:
  RocksDBRun(const std::string& dir, const std::string& name,
             std::shared_ptr<const rocksdb::FilterPolicy> policy, int n,
             int value_size)
      : n_(n) {
    row_.engine = "RocksDB";
    row_.filter = name;
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy = std::move(policy);
    table.no_block_cache = true;  // every data block lookup is a file read
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    rocksdb::DB* raw = nullptr;
    if (!blockbloom::rocksdb_compat::OpenDB(options, dir, &raw).ok()) {
      std::fprintf(stderr, "cannot open RocksDB at %s\n", dir.c_str());
      std::exit(1);
    }
    db_.reset(raw);
    for (int i = 0; i < n; ++i) {
      db_->Put(rocksdb::WriteOptions(), Present(i), Value(i, value_size));
    }
    db_->Flush(rocksdb::FlushOptions());
    db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);

    rocksdb::TablePropertiesCollection props;
    db_->GetPropertiesOfAllTables(&props);
    uint64_t filter_bytes = 0;
    for (const auto& [file, p] : props) filter_bytes += p->filter_size;
    row_.filter_bits_per_key = 8.0 * static_cast<double>(filter_bytes) / n;
  }

  void Round() {
    std::string value;
    auto start = Clock::now();
    for (int i = 0; i < n_; ++i) {
      row_.wrong += !db_->Get(rocksdb::ReadOptions(), Present(i), &value).ok();
    }
    row_.present_per_sec.push_back(PerSecond(n_, start));
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    start = Clock::now();
    for (int i = 0; i < n_; ++i) {
      row_.wrong +=
          !db_->Get(rocksdb::ReadOptions(), Absent(i), &value).IsNotFound();
    }
    row_.absent_per_sec.push_back(PerSecond(n_, start));
    row_.absent_reads = rocksdb::get_perf_context()->block_read_count;
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);

    // Absent keys through the batched MultiGet, 32 at a time.
    constexpr int kBatch = 32;
    std::vector<std::string> keys(kBatch);
    std::vector<rocksdb::Slice> slices(kBatch);
    std::vector<rocksdb::PinnableSlice> values(kBatch);
    std::vector<rocksdb::Status> statuses(kBatch);
    start = Clock::now();
    int done = 0;
    for (int base = 0; base + kBatch <= n_; base += kBatch, done += kBatch) {
      for (int j = 0; j < kBatch; ++j) {
        keys[j] = Absent(base + j);
        slices[j] = keys[j];
        values[j].Reset();
      }
      db_->MultiGet(rocksdb::ReadOptions(), db_->DefaultColumnFamily(), kBatch,
                    slices.data(), values.data(), statuses.data(),
                    /*sorted_input=*/true);
      for (int j = 0; j < kBatch; ++j) row_.wrong += !statuses[j].IsNotFound();
    }
    row_.absent_multiget_per_sec.push_back(PerSecond(done, start));
  }

  const Row& row() const { return row_; }

 private:
  const int n_;
  Row row_;
  std::unique_ptr<rocksdb::DB> db_;
};

// blockbloom's median absent Get/s over the built-in's, for an engine.
double AbsentRatio(const std::vector<Row>& rows, const std::string& engine) {
  double ours = 0, theirs = 0;
  for (const Row& r : rows) {
    if (r.engine != engine) continue;
    if (r.filter == "blockbloom") ours = Median(r.absent_per_sec);
    if (r.filter.rfind("built-in", 0) == 0) theirs = Median(r.absent_per_sec);
  }
  return theirs > 0 ? ours / theirs : 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Loads the same keys into LevelDB and RocksDB with no filter, the "
      "engine's Bloom filter and blockbloom, and compares absent lookups.");
  absl::ParseCommandLine(argc, argv);
  const int n = absl::GetFlag(FLAGS_keys);
  const double bpk = absl::GetFlag(FLAGS_bits_per_key);
  const int value_size = absl::GetFlag(FLAGS_value_size);
  std::string base = absl::GetFlag(FLAGS_dir);
  if (base.empty()) {
    base = absl::StrFormat("/tmp/blockbloom_demo_%d", getpid());
  }
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);

  std::unique_ptr<const leveldb::FilterPolicy> leveldb_builtin(
      leveldb::NewBloomFilterPolicy(static_cast<int>(bpk)));
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_ours(
      blockbloom::NewLevelDBFilterPolicy(bpk));
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  std::printf(
      "%d keys (%d-byte values), %d absent and %d present lookups, "
      "%.4g bits/key; %d rounds interleaved across the databases, medians\n\n",
      n, value_size, n, n, bpk, rounds);
  LevelDBRun leveldb_none(base + "/leveldb_none", "none", nullptr, n,
                          value_size);
  LevelDBRun leveldb_builtin_run(base + "/leveldb_builtin", "built-in Bloom",
                                 leveldb_builtin.get(), n, value_size);
  LevelDBRun leveldb_ours_run(base + "/leveldb_blockbloom", "blockbloom",
                              leveldb_ours.get(), n, value_size);
  RocksDBRun rocksdb_none(base + "/rocksdb_none", "none", nullptr, n,
                          value_size);
  RocksDBRun rocksdb_builtin(base + "/rocksdb_builtin",
                             "built-in (FastLocalBloom)",
                             std::shared_ptr<const rocksdb::FilterPolicy>(
                                 rocksdb::NewBloomFilterPolicy(bpk)),
                             n, value_size);
  RocksDBRun rocksdb_ours(base + "/rocksdb_blockbloom", "blockbloom",
                          blockbloom::NewRocksDBFilterPolicy(bpk), n,
                          value_size);
  for (int round = 0; round < rounds; ++round) {
    // The filtered pairs back to back, in alternating order, so that they
    // see the same machine.
    leveldb_none.Round();
    if (round % 2 == 0) {
      leveldb_builtin_run.Round();
      leveldb_ours_run.Round();
    } else {
      leveldb_ours_run.Round();
      leveldb_builtin_run.Round();
    }
    rocksdb_none.Round();
    if (round % 2 == 0) {
      rocksdb_builtin.Round();
      rocksdb_ours.Round();
    } else {
      rocksdb_ours.Round();
      rocksdb_builtin.Round();
    }
  }
  const std::vector<Row> rows = {
      leveldb_none.row(), leveldb_builtin_run.row(), leveldb_ours_run.row(),
      rocksdb_none.row(), rocksdb_builtin.row(),     rocksdb_ours.row()};

  std::printf(
      "| engine | filter | filter bits/key | FPR | file reads, absent | "
      "absent Get/s (min-max) | absent MultiGet/s (32) | present Get/s |\n"
      "|---|---|---|---|---|---|---|---|\n");
  int wrong = 0;
  for (const Row& r : rows) {
    const bool has_filter = r.filter != "none";
    const std::string bits =
        has_filter ? absl::StrFormat("%.2f", r.filter_bits_per_key) : "-";
    const std::string fpr =
        has_filter ? absl::StrFormat("%.3f%%", 100.0 * r.absent_reads / n)
                   : "-";
    const std::string multiget =
        r.engine == "RocksDB"
            ? absl::StrFormat("%.0f", Median(r.absent_multiget_per_sec))
            : "-";
    std::printf(
        "| %s | %s | %s | %s | %llu | %.0f (%.0f-%.0f) | %s | %.0f |\n",
        r.engine.c_str(), r.filter.c_str(), bits.c_str(), fpr.c_str(),
        static_cast<unsigned long long>(r.absent_reads),
        Median(r.absent_per_sec),
        *std::min_element(r.absent_per_sec.begin(), r.absent_per_sec.end()),
        *std::max_element(r.absent_per_sec.begin(), r.absent_per_sec.end()),
        multiget.c_str(), Median(r.present_per_sec));
    wrong += r.wrong;
  }
  std::printf(
      "\nabsent Get/s, blockbloom / built-in (medians): LevelDB %.2fx, "
      "RocksDB %.2fx\n",
      AbsentRatio(rows, "LevelDB"), AbsentRatio(rows, "RocksDB"));
  std::filesystem::remove_all(base);
  if (wrong != 0) {
    std::printf("\nWRONG ANSWERS: %d\n", wrong);
    return 2;
  }
  std::printf("\nEvery present key was found and no absent key was.\n");
  return 0;
}
