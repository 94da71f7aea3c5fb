// The probe benchmarks: pre-hashed and by key, single and batched, of every
// filter of a Suite and of the memory floor.
#include <hwy/targets.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "bench/baselines/fastlocal_bloom.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/baselines/rocksdb_bloom.h"
#include "bench/baselines/standard_bloom.h"
#include "bench/filters/benchmarks.h"
#include "bench/filters/floor.h"
#include "bench/filters/harness.h"
#include "bench/filters/suite.h"
#include "blockbloom/filter.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

namespace blockbloom::bench {

void RegisterHashProbes(Registrar& r, double c, size_t bytes) {
  const std::string in = "hash";
  for (Op op : {Op::kSingle, Op::kBatch32, Op::kBatch1024}) {
    const size_t batch = BatchOf(op);
    const bool single = op == Op::kSingle;
    // blockbloom, the same bits on 4 KiB pages, and the AVX2 kernels forced.
    for (const int variant : {0, 1, 2}) {
      if (variant == 2 && !(hwy::SupportedTargets() & HWY_AVX2)) continue;
      const char* name = variant == 0   ? "blockbloom"
                         : variant == 1 ? "blockbloom_4k"
                                        : "blockbloom_avx2";
      r.Add(ProbeName(name, op, in, c, bytes), [=](State& st) {
        Suite& s = GetSuite(c, bytes);
        const Filter& f = variant == 0   ? s.Blockbloom()
                          : variant == 1 ? s.Blockbloom4k()
                                         : *s.BlockbloomAvx2();
        const double huge = variant == 1 ? s.Blockbloom4kHugePercent()
                                         : s.BlockbloomHugePercent();
        if (single)
          return SingleHash(st, huge,
                            [&](uint64_t h) { return f.MayContainHash(h); });
        BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
          f.MayContainHashBatch({h, n}, {out, n});
        });
      });
    }
    // FastLocalBloom, and the same bits on 2 MiB pages.
    for (const bool two_m : {false, true}) {
      r.Add(ProbeName(two_m ? "fastlocal_avx2_2m" : "fastlocal_avx2", op, in, c,
                      bytes),
            [=](State& st) {
              Suite& s = GetSuite(c, bytes);
              const fastlocal::Reader& f =
                  two_m ? s.FastLocal2m() : s.FastLocal();
              const double huge =
                  two_m ? s.FastLocal2mHugePercent() : s.FastLocalHugePercent();
              if (single)
                return SingleHash(
                    st, huge, [&](uint64_t h) { return f.MayMatchHash(h); });
              BatchHash(st, batch, huge,
                        [&](const uint64_t* h, size_t n, bool* out) {
                          f.MayMatchHashes(h, n, out);
                        });
            });
    }
    if (single) {  // RocksDB's reader has no batch probe by hash
      r.Add(ProbeName("rocksdb", op, in, c, bytes), [=](State& st) {
        Suite& s = GetSuite(c, bytes);
        rocksdb::BuiltinFilterBitsReader& f = s.RocksDb();
        SingleHash(st, s.FastLocalHugePercent(),
                   [&](uint64_t h) { return f.HashMayMatch(h); });
      });
    }
    // The Parquet split block filter, and the same bits on 2 MiB pages.
    for (const bool two_m : {false, true}) {
      r.Add(ProbeName(two_m ? "parquet_2m" : "parquet", op, in, c, bytes),
            [=](State& st) {
              Suite& s = GetSuite(c, bytes);
              const Suite::ParquetRef f = two_m ? s.Parquet2m() : s.Parquet();
              const double huge =
                  two_m ? s.Parquet2mHugePercent() : s.ParquetHugePercent();
              if (single) {
                return SingleHash(st, huge, [&](uint64_t h) {
                  return f.kernels->probe(f.bits, f.num_blocks, h);
                });
              }
              BatchHash(
                  st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
                    f.kernels->probe_batch(f.bits, f.num_blocks, h, n, out);
                  });
            });
    }
    r.Add(ProbeName("standard", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const standard::FilterRef f = s.Standard();
      const double huge = s.StandardHugePercent();
      if (single)
        return SingleHash(
            st, huge, [&](uint64_t h) { return standard::MayContain(f, h); });
      BatchHash(st, batch, huge, [&](const uint64_t* h, size_t n, bool* out) {
        standard::MayContainBatch(f, h, n, out);
      });
    });
    if (bytes <= kMaxSetBytes && op != Op::kBatch1024) {
      r.Add(ProbeName("absl_set", op, in, c, bytes), [=](State& st) {
        const absl::flat_hash_set<uint64_t>& set = GetSuite(c, bytes).Set();
        if (single)
          return SingleHash(st, -1,
                            [&](uint64_t h) { return set.contains(h); });
        BatchHash(st, batch, -1, [&](const uint64_t* h, size_t n, bool* out) {
          for (size_t j = 0; j < n; ++j) set.prefetch(h[j]);
          for (size_t j = 0; j < n; ++j) out[j] = set.contains(h[j]);
        });
      });
    }
    for (const bool four_k : {false, true}) {
      r.Add(ProbeName(four_k ? "floor_4k" : "floor", op, in, c, bytes),
            [=](State& st) {
              Suite& s = GetSuite(c, bytes);
              const Filter& f = four_k ? s.Blockbloom4k() : s.Blockbloom();
              const double huge = four_k ? s.Blockbloom4kHugePercent()
                                         : s.BlockbloomHugePercent();
              const FloorRef floor(f.bits().data(), f.num_blocks());
              if (single)
                return SingleHash(st, huge,
                                  [&](uint64_t h) { return floor.Single(h); });
              BatchHash(st, batch, huge,
                        [&](const uint64_t* h, size_t n, bool* out) {
                          floor.Batch(h, n, out);
                        });
            });
    }
  }
}

void RegisterKeyProbes(Registrar& r, double c, size_t bytes, size_t length) {
  const std::string in = "key" + std::to_string(length);
  for (Op op : {Op::kSingle, Op::kBatch32}) {
    const size_t batch = BatchOf(op);
    const bool single = op == Op::kSingle;
    r.Add(ProbeName("blockbloom", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom();
      const double huge = s.BlockbloomHugePercent();
      if (single)
        return SingleKey(st, length, huge,
                         [&](std::string_view k) { return f.MayContain(k); });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 f.MayContainBatch({k, n}, {out, n});
               });
    });
    r.Add(ProbeName("fastlocal_avx2", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const fastlocal::Reader& f = s.FastLocal();
      const double huge = s.FastLocalHugePercent();
      if (single)
        return SingleKey(st, length, huge,
                         [&](std::string_view k) { return f.MayMatchKey(k); });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 f.MayMatchKeys(k, n, out);
               });
    });
    r.Add(ProbeName("rocksdb", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      rocksdb::BuiltinFilterBitsReader& f = s.RocksDb();
      const double huge = s.FastLocalHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return f.MayMatch(rocksdb_builtin::ToSlice(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 rocksdb_builtin::MayMatchBatch(f, k, n, out);
               });
    });
    r.Add(ProbeName("parquet", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Suite::ParquetRef f = s.Parquet();
      const double huge = s.ParquetHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return f.kernels->probe(f.bits, f.num_blocks, parquet::Hash(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = parquet::Hash(k[j]);
                 f.kernels->probe_batch(f.bits, f.num_blocks, h, n, out);
               });
    });
    r.Add(ProbeName("standard", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const standard::FilterRef f = s.Standard();
      const double huge = s.StandardHugePercent();
      if (single) {
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return standard::MayContain(f, Xxh3(k));
        });
      }
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = Xxh3(k[j]);
                 standard::MayContainBatch(f, h, n, out);
               });
    });
    if (single && bytes <= kMaxLevelDbBytes) {  // LevelDB has no batch probe
      r.Add(ProbeName("leveldb", op, in, c, bytes), [=](State& st) {
        const Suite::LevelDbRef f = GetSuite(c, bytes).LevelDb();
        SingleKey(st, length, -1, [&](std::string_view k) {
          return f.policy->KeyMayMatch(leveldb::Slice(k.data(), k.size()),
                                       f.filter);
        });
      });
    }
    if (bytes <= kMaxSetBytes) {
      r.Add(ProbeName("absl_set", op, in, c, bytes), [=](State& st) {
        const absl::flat_hash_set<uint64_t>& set = GetSuite(c, bytes).Set();
        if (single)
          return SingleKey(st, length, -1, [&](std::string_view k) {
            return set.contains(Xxh3(k));
          });
        BatchKey(st, length, batch, -1,
                 [&](const std::string_view* k, size_t n, bool* out) {
                   uint64_t h[32];
                   for (size_t j = 0; j < n; ++j) {
                     h[j] = Xxh3(k[j]);
                     set.prefetch(h[j]);
                   }
                   for (size_t j = 0; j < n; ++j) out[j] = set.contains(h[j]);
                 });
      });
    }
    r.Add(ProbeName("floor", op, in, c, bytes), [=](State& st) {
      Suite& s = GetSuite(c, bytes);
      const Filter& f = s.Blockbloom();
      const FloorRef floor(f.bits().data(), f.num_blocks());
      const double huge = s.BlockbloomHugePercent();
      if (single)
        return SingleKey(st, length, huge, [&](std::string_view k) {
          return floor.Single(Xxh3(k));
        });
      BatchKey(st, length, batch, huge,
               [&](const std::string_view* k, size_t n, bool* out) {
                 uint64_t h[32];
                 for (size_t j = 0; j < n; ++j) h[j] = Xxh3(k[j]);
                 floor.Batch(h, n, out);
               });
    });
  }
}

}  // namespace blockbloom::bench
