// Every filter of one (bits/key, size), built on first use from the same n
// member hashes (ForEachMemberChunk). Only one Suite lives at a time
// (GetSuite), so memory stays at a few times the filter size.
#ifndef BLOCKBLOOM_BENCH_FILTERS_SUITE_H_
#define BLOCKBLOOM_BENCH_FILTERS_SUITE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "bench/baselines/fastlocal_bloom.h"
#include "bench/baselines/page_buffer.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/baselines/rocksdb_bloom.h"
#include "bench/baselines/standard_bloom.h"
#include "bench/filters/members.h"
#include "blockbloom/filter.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

namespace blockbloom::bench {

// The largest sizes some baselines run at (see docs/BENCHMARKS.md):
// LevelDB sizes one filter per ~2 KiB data block, and its 32-bit hash makes
// large filters meaningless (a 32-bit collision is a false positive: 5% at
// 256 MiB); its unblocked inserts are also the slowest to set up. The exact
// set's inserts are random cache misses too (215M of them for the 256 MiB
// filter's keys; 9.6 GB of table for the 1 GiB filter's).
constexpr size_t kMaxLevelDbBytes = 16 * MiB;
constexpr size_t kMaxSetBytes = 16 * MiB;
// From this size on, the standard filter's bits are set at n*k ideal random
// positions in address order rather than by inserting n keys (k random
// cache misses each: about two minutes for 1 GiB here).
constexpr size_t kIdealStandardBytes = 256 * MiB;

class Suite {
 public:
  Suite(double bits_per_key, size_t bytes)
      : bits_per_key_(bits_per_key),
        bytes_(bytes),
        num_keys_(static_cast<uint64_t>(static_cast<double>(bytes) * 8 /
                                        bits_per_key)) {}

  double bits_per_key() const { return bits_per_key_; }
  size_t bytes() const { return bytes_; }
  uint64_t num_keys() const { return num_keys_; }

  const Filter& Blockbloom();
  const Filter& Blockbloom4k();
  // blockbloom's own buffer probed with the AVX2 kernels forced (Highway's
  // AVX2 target), as on a CPU without AVX-512; null if this CPU has no AVX2.
  const Filter* BlockbloomAvx2();

  // FastLocalBloom bytes, read by both RocksDB's reader and ours.
  const fastlocal::Reader& FastLocal();
  // The same bytes copied to 2 MiB pages: the page setting of blockbloom's
  // own buffer, for comparisons on equal pages (see docs/BENCHMARKS.md,
  // "Noise": 4 KiB pages at DRAM sizes are erratic in this VM).
  const fastlocal::Reader& FastLocal2m();

  rocksdb::BuiltinFilterBitsReader& RocksDb();

  struct ParquetRef {
    const uint8_t* bits;
    uint64_t num_blocks;
    const parquet::Kernels* kernels;
  };
  ParquetRef Parquet();
  ParquetRef Parquet2m();  // the same bits on 2 MiB pages

  const standard::FilterRef& Standard();

  struct LevelDbRef {
    const leveldb::FilterPolicy* policy;
    leveldb::Slice filter;
  };
  LevelDbRef LevelDb();

  const absl::flat_hash_set<uint64_t>& Set();

  // Share of each probed buffer on huge pages, in percent.
  double BlockbloomHugePercent();
  double Blockbloom4kHugePercent();
  double FastLocalHugePercent();
  double ParquetHugePercent();
  double Parquet2mHugePercent();
  double FastLocal2mHugePercent();
  double StandardHugePercent();

 private:
  // The same members for every filter of this suite.
  template <typename Fn>
  void ForEachMemberChunk(Fn fn) const {
    ::blockbloom::bench::ForEachMemberChunk(num_keys_, 0x6d656d62 ^ bytes_, fn);
  }

  static double Huge(const void* p, size_t size);
  void Log(const char* what, std::chrono::steady_clock::time_point start) const;

  const double bits_per_key_;
  const size_t bytes_;
  const uint64_t num_keys_;

  std::unique_ptr<Filter> blockbloom_;
  double blockbloom_huge_ = -1;
  PageBuffer bits_4k_;
  std::unique_ptr<Filter> blockbloom_4k_;
  std::unique_ptr<Filter> blockbloom_avx2_;
  PageBuffer fastlocal_bytes_;
  size_t fastlocal_size_ = 0;
  std::unique_ptr<fastlocal::Reader> fastlocal_;
  PageBuffer fastlocal_2m_bytes_;
  std::unique_ptr<fastlocal::Reader> fastlocal_2m_;
  std::unique_ptr<rocksdb_builtin::Policy> rocksdb_policy_;
  std::unique_ptr<rocksdb::BuiltinFilterBitsReader> rocksdb_;
  PageBuffer parquet_;
  PageBuffer parquet_2m_;
  uint64_t parquet_blocks_ = 0;
  PageBuffer standard_bits_;
  standard::FilterRef standard_ = {nullptr, 0, 0};
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_policy_;
  std::string leveldb_filter_;
  std::unique_ptr<absl::flat_hash_set<uint64_t>> set_;
};

Suite& GetSuite(double bits_per_key, size_t bytes);

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_FILTERS_SUITE_H_
