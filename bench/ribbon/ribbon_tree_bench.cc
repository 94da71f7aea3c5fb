// The kind per level in a real leveled RocksDB 7.8.3 tree: filter bytes and
// the measured false-positive rate of
//   blocked         blockbloom, 10 bits/key on every table,
//   ribbon-below-L0 blockbloom, 10 bits/key with ribbon_from_level = 1
//                   (blocked flushes and L0, ribbons at the same rate below),
//   rocksdb-ribbon  rocksdb::NewRibbonFilterPolicy(10) (its default
//                   bloom_before_level = 0: Bloom for flushes only),
//   rocksdb-bloom   rocksdb::NewBloomFilterPolicy(10),
// on the same keys. The tree: no compression, 16-byte values, 256 KiB write
// buffers and level base, 256 KiB tables, dynamic level sizes, keys inserted
// in a scattered order so compactions rewrite tables; then a final flush of
// 1/200 of the keys (an L0 table). Absent Gets count filter probes
// (BLOOM_FILTER_USEFUL + BLOOM_FILTER_FULL_POSITIVE) and positives: the rate
// per filter probe. Filter bytes: the tables' filter_size, split into L0 and
// L1+ (GetColumnFamilyMetaData).
//
//   ribbon_tree_bench [keys=1000000] [absent gets=500000]
//   ribbon_tree_bench smoke
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"
#include "tests/rocksdb/rocksdb_compactions.h"

namespace {

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%012llu",
                static_cast<unsigned long long>(i));
  return buf;
}

struct Result {
  uint64_t l0_bytes = 0, l0_keys = 0, deep_bytes = 0, deep_keys = 0;
  uint64_t probes = 0, positives = 0, gets = 0;
  int levels = 0;
};

Result Run(const std::string& dir,
           std::shared_ptr<const rocksdb::FilterPolicy> policy, int keys,
           int gets) {
  std::filesystem::remove_all(dir);
  rocksdb::Options o;
  o.create_if_missing = true;
  o.statistics = rocksdb::CreateDBStatistics();
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = std::move(policy);
  table.no_block_cache = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 256 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.target_file_size_base = 256 << 10;
  o.level_compaction_dynamic_level_bytes = true;
  o.max_background_jobs = 2;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(o, dir, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  const std::string value(16, 'v');
  auto put = [&](uint64_t i) {
    if (!db->Put(rocksdb::WriteOptions(), Key(2 * i), value).ok()) std::abort();
  };
  for (int j = 0; j < keys; ++j) put(j * 7919ULL % keys);
  db->Flush(rocksdb::FlushOptions());
  blockbloom::internal::WaitForCompactions(db.get());
  // A final flush: 1/200 of the keys (rewritten) in one L0 table.
  for (int j = 0; j < keys; j += 200) put(j);
  db->Flush(rocksdb::FlushOptions());
  blockbloom::internal::WaitForCompactions(db.get());

  Result r;
  rocksdb::TablePropertiesCollection props;
  db->GetPropertiesOfAllTables(&props);
  std::map<std::string, std::shared_ptr<const rocksdb::TableProperties>> by;
  for (const auto& [path, p] : props) {
    by[std::filesystem::path(path).filename().string()] = p;
  }
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  for (const auto& level : meta.levels) {
    if (!level.files.empty() && level.level > 0) ++r.levels;
    for (const auto& f : level.files) {
      const auto& p = by.at(std::filesystem::path(f.name).filename().string());
      (level.level == 0 ? r.l0_bytes : r.deep_bytes) += p->filter_size;
      (level.level == 0 ? r.l0_keys : r.deep_keys) += p->num_entries;
    }
  }
  rocksdb::Statistics* st = o.statistics.get();
  const uint64_t useful0 = st->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  const uint64_t pos0 = st->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  std::string v;
  for (int i = 0; i < gets; ++i) {
    // Absent keys spread over the whole key range.
    const uint64_t k = (i * 104729ULL) % keys;
    if (!db->Get(rocksdb::ReadOptions(), Key(2 * k + 1), &v).IsNotFound()) {
      std::abort();
    }
  }
  r.positives = st->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE) - pos0;
  r.probes =
      st->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) - useful0 + r.positives;
  // Present keys must all be found (0 false negatives).
  for (int i = 0; i < keys; i += 97) {
    if (!db->Get(rocksdb::ReadOptions(), Key(2 * i), &v).ok()) {
      std::fprintf(stderr, "present key %d not found\n", i);
      std::exit(1);
    }
  }
  r.gets = gets;
  db.reset();
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int keys = 1'000'000, gets = 500'000;
  if (argc > 1 && std::string(argv[1]) == "smoke") {
    keys = 20'000;
    gets = 5'000;
  } else {
    if (argc > 1) keys = std::atoi(argv[1]);
    if (argc > 2) gets = std::atoi(argv[2]);
  }
  blockbloom::FilterPolicy::Options ribbon;
  ribbon.bits_per_key = 10;
  ribbon.levels.ribbon_from_level = 1;
  const std::vector<
      std::pair<const char*, std::shared_ptr<const rocksdb::FilterPolicy>>>
      policies = {
          {"blocked", blockbloom::NewRocksDBFilterPolicy(10)},
          {"ribbon-below-L0", *blockbloom::NewRocksDBFilterPolicy(ribbon)},
          {"rocksdb-ribbon", std::shared_ptr<const rocksdb::FilterPolicy>(
                                 rocksdb::NewRibbonFilterPolicy(10))},
          {"rocksdb-bloom", std::shared_ptr<const rocksdb::FilterPolicy>(
                                rocksdb::NewBloomFilterPolicy(10))},
      };
  const std::string base =
      (std::filesystem::temp_directory_path() / "ribbon_tree_bench").string();
  std::printf("%d keys, %d absent Gets\n", keys, gets);
  std::printf(
      "| filter | levels | L0 bits/key | L1+ bits/key | all bits/key | "
      "filter bytes | rate per filter probe | probes per Get |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (const auto& [name, policy] : policies) {
    const Result r = Run(base, policy, keys, gets);
    auto bits = [](uint64_t b, uint64_t k) { return k ? 8.0 * b / k : 0.0; };
    std::printf(
        "| %s | L0 + %d | %.2f | %.2f | %.2f | %llu | %.3f%% | %.2f |\n", name,
        r.levels, bits(r.l0_bytes, r.l0_keys), bits(r.deep_bytes, r.deep_keys),
        bits(r.l0_bytes + r.deep_bytes, r.l0_keys + r.deep_keys),
        static_cast<unsigned long long>(r.l0_bytes + r.deep_bytes),
        r.probes ? 100.0 * r.positives / r.probes : 0.0,
        static_cast<double>(r.probes) / r.gets);
  }
  return 0;
}
