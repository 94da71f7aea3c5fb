// Absent-key lookups in LevelDB when a table-file read costs what a device
// read costs: LevelDB's built-in Bloom filter, blockbloom's default
// (in-place) filters and its accurate encoding (fewer_false_positives), side
// by side in one process. Where the data is on disk, each false positive is
// a read, and the accurate encoding's half as many false positives should
// show;
// this measures how much.
//
//   leveldb_disk_reads [--keys=1000000] [--value_size=100] [--bits=10]
//                      [--read_latency_us=100] [--lookups=100000]
//                      [--rounds=5] [--dir=/tmp/...]
//
// Every table-file read waits --read_latency_us first (a busy wait in an Env
// wrapper, tests/leveldb/leveldb_counting_env.h; 100 us is an SSD's random
// read), lookups use fill_cache = false (a false positive always reads), and
// the keys are loaded in random order and compacted into one level, so an
// absent key is checked against one filter (a live multi-level tree checks
// one per level, and one per level-0 table: the false positives add up, and
// so does what fewer of them save). Each round times the same absent lookups
// on each
// database, in rotating order. Prints, per database, the median absent
// Get/s (min-max), file reads per lookup (the false positives per lookup),
// the tables per level, and the median of the per-round ratios against the
// built-in. Exits 1 if a present key is missing or an absent one found.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "blockbloom/leveldb.h"
#include "tests/leveldb/leveldb_counting_env.h"

ABSL_FLAG(int, keys, 1'000'000, "keys to load");
ABSL_FLAG(int, value_size, 100, "value size in bytes");
ABSL_FLAG(int, bits, 10, "bits/key of every filter");
ABSL_FLAG(int, read_latency_us, 100, "added to every table-file read");
ABSL_FLAG(int, lookups, 100'000, "absent lookups per database and round");
ABSL_FLAG(int, rounds, 5, "rounds");
ABSL_FLAG(std::string, dir, "", "scratch directory (default: under /tmp)");

namespace {

using Clock = std::chrono::steady_clock;

// Present keys are even, absent keys odd: every absent key falls inside the
// tables' key ranges.
std::string Key(int i) { return absl::StrFormat("user%010d", i); }

struct Db {
  std::string name;
  std::unique_ptr<const leveldb::FilterPolicy> policy;
  std::unique_ptr<blockbloom::internal::CountingEnv> env;
  std::unique_ptr<leveldb::DB> db;
  std::vector<double> per_sec;
  uint64_t reads = 0;
  int wrong = 0;
};

std::string TablesPerLevel(leveldb::DB* db) {
  std::string out;
  for (int level = 0; level < 7; ++level) {
    std::string n;
    db->GetProperty(absl::StrFormat("leveldb.num-files-at-level%d", level), &n);
    absl::StrAppend(&out, level == 0 ? "" : "/", n);
  }
  return out;
}

// Loads the keys in random order, then waits until LevelDB's background
// compactions have settled (the tables per level unchanged for a second).
void Load(Db* d, const std::string& dir, int keys, int value_size,
          std::chrono::nanoseconds latency) {
  d->env = std::make_unique<blockbloom::internal::CountingEnv>(latency);
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = d->policy.get();
  options.env = d->env.get();
  options.max_open_files = 10000;  // every table's filter stays open
  leveldb::DB* raw = nullptr;
  if (!leveldb::DB::Open(options, dir, &raw).ok()) {
    std::fprintf(stderr, "cannot open LevelDB at %s\n", dir.c_str());
    std::exit(1);
  }
  d->db.reset(raw);
  std::vector<int> order(keys);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  // Values that compress to about half, as db_bench's: half random bytes,
  // half a repeat of them (all-equal values would shrink the tables to
  // almost nothing and leave one table for every lookup).
  std::mt19937_64 rng(3);
  std::string pool(1 << 20, '\0');
  for (size_t i = 0; i < pool.size(); i += 2 * 16) {
    for (size_t j = 0; j < 16 && i + j < pool.size(); ++j) {
      pool[i + j] = static_cast<char>(' ' + rng() % 95);
      if (i + 16 + j < pool.size()) pool[i + 16 + j] = pool[i + j];
    }
  }
  for (size_t start = 0; start < order.size(); start += 1000) {
    leveldb::WriteBatch batch;
    for (size_t i = start; i < std::min(order.size(), start + 1000); ++i) {
      const size_t at = (static_cast<size_t>(order[i]) * 7919) %
                        (pool.size() - static_cast<size_t>(value_size));
      batch.Put(
          Key(2 * order[i]),
          leveldb::Slice(pool.data() + at, static_cast<size_t>(value_size)));
    }
    d->db->Write(leveldb::WriteOptions(), &batch);
  }
  // Everything into one level, as db_bench's "compact" does: a tree that
  // compactions no longer change, so that every policy is timed on the same
  // shape (lookups that read past a level's file trigger LevelDB's seek
  // compactions, which would reshape a multi-level tree while it is timed).
  d->db->CompactRange(nullptr, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "LevelDB absent lookups with a latency per table-file read: built-in "
      "vs blockbloom's default and accurate encoding");
  absl::ParseCommandLine(argc, argv);
  const int keys = std::max(1, absl::GetFlag(FLAGS_keys));
  const int value_size = std::max(1, absl::GetFlag(FLAGS_value_size));
  const int bits = std::max(1, absl::GetFlag(FLAGS_bits));
  const int lookups = std::max(1, absl::GetFlag(FLAGS_lookups));
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  const std::chrono::nanoseconds latency = std::chrono::microseconds(
      std::max(0, absl::GetFlag(FLAGS_read_latency_us)));
  std::string base = absl::GetFlag(FLAGS_dir);
  if (base.empty()) base = absl::StrFormat("/tmp/bb_disk_reads_%d", getpid());
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);

  blockbloom::FilterPolicy::Options accurate;
  accurate.bits_per_key = bits;
  accurate.fewer_false_positives = true;
  std::vector<Db> dbs(3);
  dbs[0].name = "built-in Bloom";
  dbs[0].policy.reset(leveldb::NewBloomFilterPolicy(bits));
  dbs[1].name = "blockbloom";
  dbs[1].policy.reset(blockbloom::NewLevelDBFilterPolicy(bits));
  dbs[2].name = "blockbloom, fewer_false_positives";
  dbs[2].policy = *blockbloom::NewLevelDBFilterPolicy(accurate);
  for (size_t i = 0; i < dbs.size(); ++i) {
    Load(&dbs[i], absl::StrFormat("%s/db%d", base, i), keys, value_size,
         latency);
  }

  // The same absent keys every round, and every present key once.
  std::vector<int> absent(lookups);
  std::mt19937_64 rng(11);
  for (int& a : absent) a = 2 * static_cast<int>(rng() % keys) + 1;
  leveldb::ReadOptions read;
  read.fill_cache = false;
  std::string value;
  std::vector<std::vector<double>> ratios(dbs.size());
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> this_round(dbs.size());
    for (size_t j = 0; j < dbs.size(); ++j) {
      Db& d = dbs[(j + round) % dbs.size()];
      d.env->Reset();
      const auto start = Clock::now();
      for (int a : absent) {
        d.wrong += !d.db->Get(read, Key(a), &value).IsNotFound();
      }
      const double s =
          std::chrono::duration<double>(Clock::now() - start).count();
      d.per_sec.push_back(lookups / s);
      d.reads = d.env->reads();
      this_round[(j + round) % dbs.size()] = lookups / s;
    }
    for (size_t i = 0; i < dbs.size(); ++i) {
      ratios[i].push_back(this_round[i] / this_round[0]);
    }
  }
  for (Db& d : dbs) {
    for (int i = 0; i < keys; i += 97) {
      d.wrong += !d.db->Get(read, Key(2 * i), &value).ok();
    }
  }

  std::printf(
      "%d keys (%d-byte values), %d bits/key, %d us per table-file read, %d "
      "absent lookups x %d rounds\n\n"
      "| filter | tables per level | file reads per lookup | absent Get/s "
      "(min-max) | / built-in (min-max) |\n|---|---|---|---|---|\n",
      keys, value_size, bits, absl::GetFlag(FLAGS_read_latency_us), lookups,
      rounds);
  int wrong = 0;
  for (size_t i = 0; i < dbs.size(); ++i) {
    Db& d = dbs[i];
    auto sorted = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    const std::vector<double> s = sorted(d.per_sec), r = sorted(ratios[i]);
    std::printf("| %s | %s | %.4f | %.0f (%.0f-%.0f) | %.2f (%.2f-%.2f) |\n",
                d.name.c_str(), TablesPerLevel(d.db.get()).c_str(),
                static_cast<double>(d.reads) / lookups, s[s.size() / 2],
                s.front(), s.back(), r[r.size() / 2], r.front(), r.back());
    wrong += d.wrong;
  }
  for (Db& d : dbs) d.db.reset();
  std::filesystem::remove_all(base);
  if (wrong != 0) {
    std::fprintf(stderr, "%d wrong answers\n", wrong);
    return 1;
  }
  return 0;
}
