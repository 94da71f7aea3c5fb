// Realistic small leveled trees in RocksDB 7.8 (issue 33): false-positive
// file reads per absent Get, filter memory and Get/s for RocksDB's Bloom
// filter (10 bits/key), RocksDB's Ribbon filter at about the same memory,
// blockbloom at uniform 10 bits/key, the model plan (level_aware), the
// learned plan (level_aware + level_learned), and the learned plan over both
// kinds (learned_ribbon: ribbon_from_level = 1, ribbon_saves = kFalseReads:
// ribbons of the plan's real bits below L0, at the budget's memory).
//
// A tree: --keys keys written in random, ascending or Zipfian order (Zipfian:
// hot keys rewritten, fewer distinct keys), T = 10, tiny levels and files
// (max_bytes_for_level_base = target_file_size_base = write_buffer_size =
// --level_base) so that a few hundred thousand keys make L0 + 4 levels.
// While it is written, every --chunk writes are followed by --chunk / 10
// lookups of the workload (half present, half absent keys), so that the
// learned plan sees the workload it will serve; then --gets absent Gets
// (and as many present ones) are measured. Lookups: uniform over the key
// space, Zipfian (hot keys; absent keys next to them), or range-local
// (batches of 1,000 keys within 0.2% of the key space). The L0 backlog
// case stops compactions for the last tenth of the writes (a write burst):
// about a dozen L0 files are probed by each Get.
//
// Absent keys sit right after a present key's place (2 * id + 1), each Get
// a new key there (--repeat_absent: the same key per place).
// FP reads per absent Get = BLOOM_FILTER_FULL_POSITIVE over the absent Gets
// (every positive of an absent key is a false one, and each costs a data
// block read). Filter memory: the sum of filter_size over every live table
// over the sum of num_entries. No block cache (every data block read is a
// file read; the OS page cache holds the files): Get/s are ratios from one
// run on one machine, not absolute numbers.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"
#include "tests/rocksdb/rocksdb_compactions.h"

ABSL_FLAG(int, keys, 200'000, "writes per tree");
ABSL_FLAG(int, value_bytes, 24, "value size");
ABSL_FLAG(int, level_base, 8 << 10, "max_bytes_for_level_base, bytes");
ABSL_FLAG(int, file_bytes, 64 << 10,
          "target_file_size_base and twice write_buffer_size, bytes");
ABSL_FLAG(int, chunk, 20'000, "writes between lookup batches");
ABSL_FLAG(int, gets, 200'000, "measured absent Gets (and present ones)");
ABSL_FLAG(std::string, orders, "random,ascending,zipf",
          "insert orders (empty: only the L0 backlog case, with --backlog)");
ABSL_FLAG(std::string, lookups, "uniform,zipf,local", "lookup workloads");
ABSL_FLAG(std::string, policies,
          "bloom10,ribbon,uniform,model,learned,learned_ribbon", "filters");
ABSL_FLAG(bool, backlog, true, "also the L0 backlog case (random, uniform)");
ABSL_FLAG(bool, dynamic_levels, true,
          "level_compaction_dynamic_level_bytes (false: RocksDB 7.8's "
          "default, level sizes from the top, a partly full last level)");
ABSL_FLAG(double, ribbon_bits, 14.3,
          "Ribbon's Bloom-equivalent bits/key (about 10 bits/key of memory)");
ABSL_FLAG(double, budget, 10, "blockbloom's bits/key (uniform, budgets)");
ABSL_FLAG(bool, repeat_absent, false,
          "absent keys are the same key per id (hot absent keys repeat), "
          "not a new key at the same place each Get");
ABSL_FLAG(bool, report, false, "print each learned plan's report");
ABSL_FLAG(std::string, dir, "", "scratch folder (default /tmp)");
ABSL_FLAG(bool, keep, false, "keep each DB (its LOG has the plan changes)");

namespace {

std::string Key(uint64_t id) { return absl::StrFormat("k%012u", id); }

// An absent key right after present key 2 * id (before 2 * id + 2): each
// call a new one unless --repeat_absent. A fixed absent key that one filter
// happens to pass passes every time it is looked up, so with repeated keys
// the count of false reads is a lottery over a few hot keys (a Zipfian row
// moved many-fold between runs); new keys at the same places measure each
// filter's rate where the workload probes it.
std::string AbsentKey(uint64_t id) {
  static uint64_t serial = 0;
  if (absl::GetFlag(FLAGS_repeat_absent)) return Key(2 * id + 1);
  return absl::StrFormat("k%012u.%u", 2 * id + 1, ++serial);
}

// Zipf(0.99) over [0, n): rejection-free inverse CDF on a table.
class Zipf {
 public:
  Zipf(uint64_t n, uint64_t seed) : rng_(seed) {
    cdf_.reserve(n);
    double sum = 0;
    for (uint64_t i = 1; i <= n; ++i) {
      sum += 1.0 / std::pow(static_cast<double>(i), 0.99);
      cdf_.push_back(sum);
    }
    for (double& c : cdf_) c /= sum;
  }
  uint64_t Next() {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
    return std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
  }

 private:
  std::mt19937_64 rng_;
  std::vector<double> cdf_;
};

// Spreads ranks over the key space (hot keys are not neighbours).
uint64_t Scatter(uint64_t rank, uint64_t n) {
  return (rank * 0x9E3779B97F4A7C15ULL >> 11) % n;
}

class Lookups {
 public:
  Lookups(const std::string& kind, uint64_t n, uint64_t seed)
      : kind_(kind), n_(n), rng_(seed), zipf_(kind == "zipf" ? n : 1, seed) {}
  // The id of the next lookup; present keys are 2 * id, absent 2 * id + 1.
  uint64_t Next() {
    if (kind_ == "zipf") return Scatter(zipf_.Next(), n_);
    if (kind_ == "local") {
      if (left_ == 0) {
        center_ = rng_() % n_;
        left_ = 1000;
      }
      --left_;
      const uint64_t width = std::max<uint64_t>(n_ / 500, 1);
      return (center_ + rng_() % width) % n_;
    }
    return rng_() % n_;
  }

 private:
  std::string kind_;
  uint64_t n_;
  std::mt19937_64 rng_;
  Zipf zipf_;
  uint64_t center_ = 0;
  int left_ = 0;
};

std::shared_ptr<const rocksdb::FilterPolicy> MakePolicy(
    const std::string& name) {
  const double budget = absl::GetFlag(FLAGS_budget);
  if (name == "bloom10") {
    return std::shared_ptr<const rocksdb::FilterPolicy>(
        rocksdb::NewBloomFilterPolicy(10));
  }
  if (name == "ribbon") {
    return std::shared_ptr<const rocksdb::FilterPolicy>(
        rocksdb::NewRibbonFilterPolicy(absl::GetFlag(FLAGS_ribbon_bits)));
  }
  blockbloom::FilterPolicy::Options o;
  o.bits_per_key = budget;
  // "_flat": the learned plan without hot ranges (every table of a level
  // at the plan's bits; FilterPolicy::LevelOptions::hot_ranges = false).
  const bool flat = absl::EndsWith(name, "_flat");
  const std::string base = flat ? name.substr(0, name.size() - 5) : name;
  o.levels.level_aware =
      base == "model" || base == "learned" || base == "learned_ribbon";
  o.levels.level_learned = base == "learned" || base == "learned_ribbon";
  o.levels.hot_ranges = !flat;
  if (base == "learned_ribbon") {
    o.levels.ribbon_from_level = 1;
    o.levels.ribbon_saves =
        blockbloom::FilterPolicy::LevelOptions::RibbonSaving::kFalseReads;
  }
  return *blockbloom::NewRocksDBFilterPolicy(o);
}

struct Result {
  double fp_reads = 0;      // per absent Get
  double bits_per_key = 0;  // filter memory over live entries
  double absent_gets_per_s = 0;
  double present_gets_per_s = 0;
  int levels = 0;  // populated levels below L0
  int l0_files = 0;
  uint64_t filter_bytes = 0;
  int missing = 0;  // present keys not found (must be 0)
};

Result RunTree(const std::string& order, const std::string& lookup,
               const std::string& policy_name, bool backlog) {
  const int keys = absl::GetFlag(FLAGS_keys);
  const int base = absl::GetFlag(FLAGS_level_base);
  const std::string root =
      absl::GetFlag(FLAGS_dir).empty() ? "/tmp" : absl::GetFlag(FLAGS_dir);
  const std::string path =
      absl::StrFormat("%s/blockbloom_level_tree_%d_%s_%s_%s", root, getpid(),
                      order, lookup, policy_name);
  std::filesystem::remove_all(path);
  auto policy = MakePolicy(policy_name);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  options.compression = rocksdb::kNoCompression;
  options.write_buffer_size = absl::GetFlag(FLAGS_file_bytes) / 2;
  options.max_bytes_for_level_base = base;
  options.target_file_size_base = absl::GetFlag(FLAGS_file_bytes);
  options.max_bytes_for_level_multiplier = 10;
  options.level_compaction_dynamic_level_bytes =
      absl::GetFlag(FLAGS_dynamic_levels);
  options.max_background_jobs = 2;
  options.max_open_files = -1;
  // L0 stays near RocksDB's trigger (4 files) while loading: writes wait
  // for compactions beyond 12 files. The backlog case piles up L0 files
  // without a limit.
  options.level0_slowdown_writes_trigger = backlog ? 1000 : 8;
  options.level0_stop_writes_trigger = backlog ? 1000 : 12;
  options.soft_pending_compaction_bytes_limit = 0;
  options.hard_pending_compaction_bytes_limit = 0;
  options.delayed_write_rate = 256 << 20;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = policy;
  table.no_block_cache = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(options, path, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::unique_ptr<rocksdb::DB> db(raw);

  // The ids written: a permutation, ascending, or Zipfian rewrites.
  const uint64_t space = static_cast<uint64_t>(keys);
  std::vector<uint64_t> ids(keys);
  std::mt19937_64 rng(42);
  if (order == "zipf") {
    Zipf zipf(space, 7);
    for (uint64_t& id : ids) id = Scatter(zipf.Next(), space);
  } else {
    for (int i = 0; i < keys; ++i) ids[i] = i;
    if (order == "random") std::shuffle(ids.begin(), ids.end(), rng);
  }
  std::vector<bool> written(space);
  const std::string value(absl::GetFlag(FLAGS_value_bytes), 'v');
  Lookups lookups(lookup, space, 99);
  const int chunk = absl::GetFlag(FLAGS_chunk);
  std::string got;
  const auto lookup_batch = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const uint64_t id = lookups.Next();
      db->Get(rocksdb::ReadOptions(), (i & 1) ? AbsentKey(id) : Key(2 * id),
              &got)
          .PermitUncheckedError();
    }
  };
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // the tree is what is measured
  for (int i = 0; i < keys; ++i) {
    if (backlog && i == keys - keys / 10) {
      blockbloom::internal::WaitForCompactions(db.get());
      db->SetOptions({{"disable_auto_compactions", "true"}})
          .PermitUncheckedError();
    }
    db->Put(write, Key(2 * ids[i]), value).PermitUncheckedError();
    written[ids[i]] = true;
    if ((i + 1) % chunk == 0) lookup_batch(chunk / 10);
  }
  db->Flush(rocksdb::FlushOptions()).PermitUncheckedError();
  if (!backlog) blockbloom::internal::WaitForCompactions(db.get());

  Result r;
  // The absent Gets.
  const int gets = absl::GetFlag(FLAGS_gets);
  rocksdb::Statistics* stats = options.statistics.get();
  const uint64_t pos0 =
      stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < gets; ++i) {
    const uint64_t id = lookups.Next();
    if (!db->Get(rocksdb::ReadOptions(), AbsentKey(id), &got).IsNotFound()) {
      r.missing = -1000000;  // an absent key found: impossible
    }
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  r.absent_gets_per_s = gets / took.count();
  r.fp_reads =
      static_cast<double>(
          stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE) - pos0) /
      gets;
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < gets; ++i) {
    const uint64_t id = lookups.Next();
    const bool found = db->Get(rocksdb::ReadOptions(), Key(2 * id), &got).ok();
    if (found != static_cast<bool>(written[id])) ++r.missing;
  }
  took = std::chrono::steady_clock::now() - start;
  r.present_gets_per_s = gets / took.count();

  rocksdb::TablePropertiesCollection props;
  db->GetPropertiesOfAllTables(&props).PermitUncheckedError();
  uint64_t entries = 0;
  for (const auto& [file, p] : props) {
    r.filter_bytes += p->filter_size;
    entries += p->num_entries;
  }
  r.bits_per_key = entries ? 8.0 * r.filter_bytes / entries : 0;
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  for (const auto& level : meta.levels) {
    if (level.level == 0) {
      r.l0_files = static_cast<int>(level.files.size());
    } else if (!level.files.empty()) {
      ++r.levels;
    }
  }
  if (absl::GetFlag(FLAGS_report) && absl::StartsWith(policy_name, "learned")) {
    std::printf("%s", blockbloom::RocksDBFilterReportText(
                          policy.get(),
                          stats->getTickerCount(rocksdb::NUMBER_KEYS_READ))
                          .c_str());
  }
  db.reset();
  if (!absl::GetFlag(FLAGS_keep)) std::filesystem::remove_all(path);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::vector<std::string> orders =
      absl::StrSplit(absl::GetFlag(FLAGS_orders), ',', absl::SkipEmpty());
  const std::vector<std::string> lookups =
      absl::StrSplit(absl::GetFlag(FLAGS_lookups), ',');
  const std::vector<std::string> policies =
      absl::StrSplit(absl::GetFlag(FLAGS_policies), ',');
  std::printf(
      "| tree | lookups | filter | levels (+L0 files) | bits/key | FP reads "
      "per absent Get | x Bloom 10 | x Ribbon | absent Get/s | present "
      "Get/s |\n|---|---|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  const auto run = [&](const std::string& order, const std::string& lookup,
                       bool backlog) {
    std::vector<Result> results;
    double bloom = 0, ribbon = 0;
    for (const std::string& p : policies) {
      results.push_back(RunTree(order, lookup, p, backlog));
      if (p == "bloom10") bloom = results.back().fp_reads;
      if (p == "ribbon") ribbon = results.back().fp_reads;
    }
    for (size_t i = 0; i < policies.size(); ++i) {
      const Result& r = results[i];
      failures += r.missing != 0;
      absl::PrintF(
          "| %s%s | %s | %s | %d (+%d) | %.2f | %.5f | %s | %s | %.0f | %.0f "
          "|%s\n",
          order, backlog ? ", L0 backlog" : "", lookup, policies[i], r.levels,
          r.l0_files, r.bits_per_key, r.fp_reads,
          bloom > 0 ? absl::StrFormat("%.2fx", r.fp_reads / bloom) : "-",
          ribbon > 0 ? absl::StrFormat("%.2fx", r.fp_reads / ribbon) : "-",
          r.absent_gets_per_s, r.present_gets_per_s,
          r.missing != 0 ? " WRONG ANSWERS" : "");
      std::fflush(stdout);
    }
  };
  for (const std::string& order : orders) {
    for (const std::string& lookup : lookups) run(order, lookup, false);
  }
  if (absl::GetFlag(FLAGS_backlog)) run("random", "uniform", true);
  return failures == 0 ? 0 : 1;
}
