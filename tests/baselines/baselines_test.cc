// The baselines of the benchmark must be what they claim to be:
//  - src/rocksdb/filter_bits.h matches RocksDB 7.8.3's vtables: every
//    virtual function is called through it and behaves as documented;
//  - the FastLocalBloom reimplementation builds RocksDB's bytes exactly and
//    its probes (scalar, AVX2, batch) answer exactly like RocksDB's reader;
//  - the Parquet split block filter matches the spec's scalar pseudo-code on
//    every Highway target;
//  - the LevelDB-format builder writes exactly what LevelDB's CreateFilter
//    writes;
//  - the standard Bloom filter has no false negatives.
// No timing anywhere.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/baselines/fastlocal_bloom.h"
#include "bench/baselines/leveldb_bloom.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/baselines/rocksdb_bloom.h"
#include "bench/baselines/standard_bloom.h"
#include "gtest/gtest.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "tests/hwy_targets.h"

namespace blockbloom::bench {
namespace {

// prefix + decimal i, built by appending (GCC 12 warns falsely, with
// -Wrestrict, about "literal" + std::string).
std::string Numbered(std::string_view prefix, size_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

// Keys of assorted lengths (0 to 70 bytes), distinct for distinct i.
std::vector<std::string> MakeKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string key = Numbered("k", i);
    key += ':';
    const size_t extra = rng() % 64;
    for (size_t j = 0; j < extra; ++j) key.push_back(static_cast<char>(rng()));
    keys.push_back(std::move(key));
  }
  return keys;
}

std::vector<std::string_view> Views(const std::vector<std::string>& keys) {
  return std::vector<std::string_view>(keys.begin(), keys.end());
}

// ------------------------------------------------ RocksDB through the mirror

TEST(RocksDbMirror, EveryBuilderVirtualWorks) {
  rocksdb_builtin::Policy policy(10);
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder = policy.NewBuilder();
  ASSERT_NE(builder, nullptr);
  constexpr size_t kKeys = 1000000;
  for (size_t i = 0; i < kKeys; ++i) {
    const std::string key = Numbered("key", i);
    builder->AddKey(rocksdb_builtin::ToSlice(key));
    if (i == 10) builder->AddKey(rocksdb_builtin::ToSlice(key));  // adjacent
  }
  EXPECT_EQ(builder->EstimateEntriesAdded(), kKeys);
  // 10 bits/key: 1,250,000 bytes rounded up to whole lines, + 5 trailer bytes.
  const size_t approx = builder->ApproximateNumEntries(1250053);
  EXPECT_GE(approx, kKeys);
  EXPECT_LE(approx, kKeys + 100);
  std::unique_ptr<const char[]> buf;
  rocksdb::Status status = rocksdb::Status::Corruption("not set");
  const rocksdb::Slice filter = builder->Finish(&buf, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(filter.size(), 1250053u);
  EXPECT_EQ(filter.data(), buf.get());
  const std::string trailer(filter.data() + filter.size() - 5, 5);
  EXPECT_EQ(trailer, std::string("\xff\x00\x06\x00\x00", 5));
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());
  EXPECT_EQ(fastlocal::FilterBytes(kKeys, fastlocal::MillibitsPerKey(10)),
            filter.size());

  // The one-argument Finish on a second builder gives the same bytes.
  std::unique_ptr<rocksdb::FilterBitsBuilder> again = policy.NewBuilder();
  for (size_t i = 0; i < kKeys; ++i) {
    again->AddKey(rocksdb_builtin::ToSlice(Numbered("key", i)));
  }
  std::unique_ptr<const char[]> buf2;
  const rocksdb::Slice filter2 = again->Finish(&buf2);
  ASSERT_EQ(filter2.size(), filter.size());
  EXPECT_EQ(0, std::memcmp(filter2.data(), filter.data(), filter.size()));

  // And the reader finds every key, by key and by hash.
  std::unique_ptr<rocksdb::BuiltinFilterBitsReader> reader = policy.NewReader(
      reinterpret_cast<const uint8_t*>(filter.data()), filter.size());
  for (size_t i = 0; i < kKeys; i += 997) {
    const std::string key = Numbered("key", i);
    ASSERT_TRUE(reader->MayMatch(rocksdb_builtin::ToSlice(key)));
    ASSERT_TRUE(reader->HashMayMatch(fastlocal::Hash(key)));
  }
  // False-positive rate near the documented 0.957%.
  size_t positives = 0;
  constexpr size_t kAbsent = 200000;
  for (size_t i = 0; i < kAbsent; ++i) {
    positives +=
        reader->MayMatch(rocksdb_builtin::ToSlice(Numbered("absent", i)));
  }
  const double fpr = static_cast<double>(positives) / kAbsent;
  EXPECT_GT(fpr, 0.0080);
  EXPECT_LT(fpr, 0.0112);
}

// RocksDB reads its format_version 5 filter with FastLocalBloomBitsReader,
// the reader NewReader casts to (without RTTI it trusts the trailer).
TEST(RocksDbMirror, ReaderIsFastLocalBloom) {
#if !BLOCKBLOOM_BENCH_HAVE_RTTI
  GTEST_SKIP() << "built without RTTI (as against a RocksDB built without "
                  "it): the reader's dynamic type cannot be named";
#else
  rocksdb_builtin::Policy policy(10);
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder = policy.NewBuilder();
  for (size_t i = 0; i < 1000; ++i) {
    builder->AddKey(rocksdb_builtin::ToSlice(Numbered("key", i)));
  }
  std::unique_ptr<const char[]> buf;
  const rocksdb::Slice filter = builder->Finish(&buf);
  std::unique_ptr<rocksdb::BuiltinFilterBitsReader> reader = policy.NewReader(
      reinterpret_cast<const uint8_t*>(filter.data()), filter.size());
  EXPECT_NE(
      rocksdb_builtin::ReaderTypeName(*reader).find("FastLocalBloomBitsReader"),
      std::string_view::npos)
      << rocksdb_builtin::ReaderTypeName(*reader);
#endif
}

// -------------------------------------------- FastLocalBloom reimplementation

std::vector<uint8_t> BuildLikeRocksDb(const std::vector<std::string>& keys,
                                      double bits_per_key) {
  const int millibits = fastlocal::MillibitsPerKey(bits_per_key);
  // RocksDB drops adjacent duplicate hashes; these keys have none.
  std::vector<uint64_t> hashes;
  for (const std::string& k : keys) hashes.push_back(fastlocal::Hash(k));
  const size_t total = fastlocal::FilterBytes(keys.size(), millibits);
  std::vector<uint8_t> bytes(total);
  const size_t len = total - fastlocal::kMetadataLen;
  fastlocal::AddHashes(bytes.data(), static_cast<uint32_t>(len),
                       fastlocal::ChooseNumProbes(millibits), hashes.data(),
                       hashes.size());
  fastlocal::WriteTrailer(bytes.data(), len,
                          fastlocal::ChooseNumProbes(millibits));
  return bytes;
}

TEST(FastLocalBloom, BuildsRocksDbBytesExactly) {
  for (double bits_per_key : {2.0, 6.0, 10.0, 13.5, 16.0, 20.0, 30.0}) {
    rocksdb_builtin::Policy policy(bits_per_key);
    for (size_t n :
         {size_t{1}, size_t{7}, size_t{100}, size_t{10000}, size_t{123457}}) {
      SCOPED_TRACE("bits/key " + std::to_string(bits_per_key) + " n " +
                   std::to_string(n));
      const std::vector<std::string> keys = MakeKeys(n, n);
      std::unique_ptr<rocksdb::FilterBitsBuilder> builder = policy.NewBuilder();
      for (const std::string& k : keys) {
        builder->AddKey(rocksdb_builtin::ToSlice(k));
      }
      std::unique_ptr<const char[]> buf;
      const rocksdb::Slice theirs = builder->Finish(&buf);
      const std::vector<uint8_t> ours = BuildLikeRocksDb(keys, bits_per_key);
      ASSERT_EQ(theirs.size(), ours.size());
      ASSERT_EQ(0, std::memcmp(theirs.data(), ours.data(), ours.size()));
    }
  }
}

// Filter bytes with random lines of a given density and a valid trailer, so
// that probes pass often (dense) or rarely (sparse).
std::vector<uint8_t> RandomFilter(size_t lines, int num_probes, double density,
                                  uint64_t seed, size_t misalign) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(density);
  std::vector<uint8_t> bytes(misalign + lines * 64 + fastlocal::kMetadataLen);
  uint8_t* data = bytes.data() + misalign;
  for (size_t i = 0; i < lines * 64; ++i) {
    for (int b = 0; b < 8; ++b) data[i] |= static_cast<uint8_t>(bit(rng) << b);
  }
  fastlocal::WriteTrailer(data, lines * 64, num_probes);
  return bytes;
}

TEST(FastLocalBloom, ProbesAnswerExactlyLikeRocksDbReader) {
  const std::vector<std::string> keys = MakeKeys(4000, 99);
  const std::vector<std::string_view> views = Views(keys);
  rocksdb_builtin::Policy policy(10);  // the reader reads any k from the bytes
  size_t positives = 0, total = 0;
  for (int k : {1, 2, 3, 5, 6, 7, 8, 9, 11, 16, 17, 24}) {
    for (double density : {0.6, 0.85, 0.97}) {
      for (size_t lines : {size_t{1}, size_t{3}, size_t{1000}}) {
        for (size_t misalign : {size_t{0}, size_t{1}}) {
          SCOPED_TRACE("k " + std::to_string(k) + " density " +
                       std::to_string(density) + " lines " +
                       std::to_string(lines) + " misalign " +
                       std::to_string(misalign));
          const std::vector<uint8_t> storage =
              RandomFilter(lines, k, density, k * 1000 + lines, misalign);
          const uint8_t* data = storage.data() + misalign;
          const size_t size = storage.size() - misalign;
          std::unique_ptr<rocksdb::BuiltinFilterBitsReader> theirs =
              policy.NewReader(data, size);
          const fastlocal::Reader ours(data, size);
          ASSERT_EQ(ours.num_probes(), k);
          std::unique_ptr<bool[]> their_batch(new bool[views.size()]);
          std::unique_ptr<bool[]> our_batch(new bool[views.size()]);
          rocksdb_builtin::MayMatchBatch(*theirs, views.data(), views.size(),
                                         their_batch.get());
          ours.MayMatchKeys(views.data(), views.size(), our_batch.get());
          std::vector<uint64_t> hashes;
          for (std::string_view key : views) {
            hashes.push_back(fastlocal::Hash(key));
          }
          std::unique_ptr<bool[]> our_hash_batch(new bool[views.size()]);
          ours.MayMatchHashes(hashes.data(), hashes.size(),
                              our_hash_batch.get());
          for (size_t i = 0; i < views.size(); ++i) {
            const bool want =
                theirs->MayMatch(rocksdb_builtin::ToSlice(views[i]));
            ASSERT_EQ(theirs->HashMayMatch(hashes[i]), want) << i;
            ASSERT_EQ(their_batch[i], want) << i;
            ASSERT_EQ(ours.MayMatchKey(views[i]), want) << i;
            ASSERT_EQ(ours.MayMatchHash(hashes[i]), want) << i;
            ASSERT_EQ(ours.MayMatchHashScalar(hashes[i]), want) << i;
            if (ours.uses_avx2()) {
              ASSERT_EQ(ours.MayMatchHashAvx2(hashes[i]), want) << i;
            }
            ASSERT_EQ(our_batch[i], want) << i;
            ASSERT_EQ(our_hash_batch[i], want) << i;
            positives += want;
            ++total;
          }
        }
      }
    }
  }
  // Both answers were exercised, plenty of each.
  EXPECT_GT(positives, total / 10);
  EXPECT_LT(positives, total - total / 10);
}

TEST(FastLocalBloom, RunsTheAvx2KernelHere) {
  const std::vector<uint8_t> f = RandomFilter(1, 6, 0.5, 1, 0);
  const fastlocal::Reader reader(f.data(), f.size());
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU";
  EXPECT_TRUE(reader.uses_avx2());
}

// ------------------------------------------------------ Parquet split block

// The Parquet kernels' own dispatch (bench/baselines/parquet_sbbf.cc), not the
// library's: body gets the dispatched kernels.
template <typename Body>
void ForEachTarget(Body body) {
  blockbloom::testing::ForEachHwyTargetNamed(
      [] { return parquet::ActiveKernels()->target_name; },
      [&] { body(*parquet::ActiveKernels()); });
}

std::vector<uint64_t> RandomHashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> h = {0, ~uint64_t{0}, 0xffffffff, 0xffffffff00000000};
  std::mt19937_64 rng(seed);
  while (h.size() < n) h.push_back(rng());
  return h;
}

TEST(ParquetSbbf, KnownAnswers) {
  // XXH64 of the empty string with seed 0 (xxHash's published test vector).
  EXPECT_EQ(parquet::Hash(""), 0xef46db3751d8e999ULL);
  // Low word 1: word i gets bit SALT[i] >> 27; high word 0: block 0.
  std::vector<uint8_t> bits(2 * parquet::kBlockBytes);
  parquet::ReferenceInsert(bits.data(), 2, 1);
  for (int i = 0; i < 8; ++i) {
    uint32_t word;
    std::memcpy(&word, bits.data() + 4 * i, 4);
    EXPECT_EQ(word, 1u << (parquet::kSalt[i] >> 27)) << i;
  }
  // High word 0xffffffff: the last block.
  parquet::ReferenceInsert(bits.data(), 2, 0xffffffff00000000ULL);
  uint32_t last;
  std::memcpy(&last, bits.data() + parquet::kBlockBytes, 4);
  EXPECT_EQ(last, 1u);  // low word 0: bit 0 of every word
}

TEST(ParquetSbbf, EveryTargetMatchesTheSpec) {
  const std::vector<uint64_t> hashes = RandomHashes(3000, 7);
  for (uint64_t blocks :
       {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{97}}) {
    for (double density : {0.5, 0.85}) {
      std::mt19937_64 rng(blocks);
      std::bernoulli_distribution bit(density);
      std::vector<uint8_t> storage(blocks * parquet::kBlockBytes + 1);
      for (auto& byte : storage) {
        for (int b = 0; b < 8; ++b) byte |= static_cast<uint8_t>(bit(rng) << b);
      }
      const uint8_t* bits = storage.data() + 1;  // misaligned on purpose
      std::vector<bool> want;
      for (uint64_t h : hashes) {
        want.push_back(parquet::ReferenceMayContain(bits, blocks, h));
      }
      ForEachTarget([&](const parquet::Kernels& kernels) {
        for (size_t i = 0; i < hashes.size(); ++i) {
          ASSERT_EQ(kernels.probe(bits, blocks, hashes[i]), want[i]) << i;
        }
        for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32},
                         size_t{33}, hashes.size()}) {
          std::unique_ptr<bool[]> results(new bool[n + 1]);
          results[n] = true;  // sentinel
          kernels.probe_batch(bits, blocks, hashes.data(), n, results.get());
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(results[i], want[i]) << i;
          ASSERT_TRUE(results[n]);
        }
      });
    }
  }
  for (uint64_t blocks : {uint64_t{1}, uint64_t{5}, uint64_t{300}}) {
    std::vector<uint8_t> want(blocks * parquet::kBlockBytes);
    for (uint64_t h : hashes) parquet::ReferenceInsert(want.data(), blocks, h);
    ForEachTarget([&](const parquet::Kernels& kernels) {
      std::vector<uint8_t> got(blocks * parquet::kBlockBytes + 1);
      kernels.insert_batch(got.data() + 1, blocks, hashes.data(),
                           hashes.size());
      ASSERT_EQ(0, std::memcmp(got.data() + 1, want.data(), want.size()));
      for (uint64_t h : hashes) {
        ASSERT_TRUE(kernels.probe(got.data() + 1, blocks, h));
      }
    });
  }
}

// ------------------------------------------------------------------ LevelDB

TEST(LevelDbFormat, BuildsCreateFilterBytesExactly) {
  for (int bits_per_key : {1, 6, 10, 16, 44}) {
    std::unique_ptr<const leveldb::FilterPolicy> policy(
        leveldb::NewBloomFilterPolicy(bits_per_key));
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{5}, size_t{1000}, size_t{100000}}) {
      SCOPED_TRACE("bits/key " + std::to_string(bits_per_key) + " n " +
                   std::to_string(n));
      const std::vector<std::string> keys = MakeKeys(n, n + 3);
      std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
      std::string theirs = "earlier filters";  // CreateFilter appends
      policy->CreateFilter(slices.data(), static_cast<int>(n), &theirs);
      std::vector<uint32_t> hashes;
      for (const std::string& k : keys) {
        hashes.push_back(leveldb_format::BloomHash(k));
      }
      std::string ours = "earlier filters";
      leveldb_format::BuildFromHashes(hashes.data(), n, bits_per_key, &ours);
      ASSERT_EQ(theirs, ours);
      const leveldb::Slice filter(ours.data() + 15, ours.size() - 15);
      for (const std::string& k : keys) {
        ASSERT_TRUE(policy->KeyMayMatch(k, filter));
      }
    }
  }
}

// ----------------------------------------------------------- standard Bloom

TEST(StandardBloom, NoFalseNegativesAndTheTextbookRate) {
  constexpr size_t kKeys = 200000;
  constexpr double kBitsPerKey = 10;
  const uint64_t num_bits = static_cast<uint64_t>(kKeys * kBitsPerKey);
  std::vector<uint64_t> words((num_bits + 63) / 64);
  const standard::FilterRef f = {words.data(), num_bits,
                                 standard::NumProbes(kBitsPerKey)};
  EXPECT_EQ(f.num_probes, 7);
  const std::vector<uint64_t> present = RandomHashes(kKeys, 1);
  standard::InsertBatch(f, present.data(), present.size());
  for (uint64_t h : present) ASSERT_TRUE(standard::MayContain(f, h));
  const std::vector<uint64_t> absent = RandomHashes(400000, 2);
  std::unique_ptr<bool[]> batch(new bool[absent.size()]);
  standard::MayContainBatch(f, absent.data(), absent.size(), batch.get());
  size_t positives = 0;
  for (size_t i = 4; i < absent.size(); ++i) {  // skip the edge hashes
    ASSERT_EQ(batch[i], standard::MayContain(f, absent[i]));
    positives += batch[i];
  }
  const double fpr = static_cast<double>(positives) / (absent.size() - 4);
  const double theory = std::pow(1 - std::exp(-7.0 / kBitsPerKey), 7);
  EXPECT_NEAR(fpr, theory, theory * 0.1);
}

}  // namespace
}  // namespace blockbloom::bench
