#include "bench/filters/suite.h"

#include <hwy/targets.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/baselines/leveldb_bloom.h"
#include "blockbloom/sizing.h"

namespace blockbloom::bench {

const Filter& Suite::Blockbloom() {
  if (blockbloom_ == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    FilterOptions options;
    options.shape = *ShapeForBitsPerKey(num_keys_, bits_per_key_);
    FilterBuilder builder = *FilterBuilder::Create(options);
    ForEachMemberChunk([&](const uint64_t* h, size_t n) {
      for (size_t i = 0; i < n; ++i) builder.AddHash(h[i]);
    });
    blockbloom_ = std::make_unique<Filter>(*builder.Finish());
    blockbloom_huge_ = Huge(blockbloom_->bits().data(), bytes_);
    Log("blockbloom", start);
  }
  return *blockbloom_;
}

const Filter& Suite::Blockbloom4k() {
  if (blockbloom_4k_ == nullptr) {
    const Filter& f = Blockbloom();
    const auto start = std::chrono::steady_clock::now();
    bits_4k_ = PageBuffer(f.bits().size(), Pages::k4K);
    std::memcpy(bits_4k_.data(), f.bits().data(), f.bits().size());
    blockbloom_4k_ = std::make_unique<Filter>(*Filter::Wrap(
        {bits_4k_.data(), f.bits().size()}, f.shape(), 0, f.num_keys()));
    Log("blockbloom_4k copy", start);
  }
  return *blockbloom_4k_;
}

const Filter* Suite::BlockbloomAvx2() {
  if (blockbloom_avx2_ == nullptr) {
    if ((hwy::SupportedTargets() & HWY_AVX2) == 0) return nullptr;
    const Filter& f = Blockbloom();
    // A Filter keeps the kernels chosen when it is made: force the target
    // for the Wrap, then restore the normal choice.
    hwy::SetSupportedTargetsForTest(HWY_AVX2);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    blockbloom_avx2_ = std::make_unique<Filter>(
        *Filter::Wrap(f.bits(), f.shape(), 0, f.num_keys()));
    hwy::SetSupportedTargetsForTest(0);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  }
  return blockbloom_avx2_.get();
}

const fastlocal::Reader& Suite::FastLocal() {
  if (fastlocal_ == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    const int millibits = fastlocal::MillibitsPerKey(bits_per_key_);
    const int k = fastlocal::ChooseNumProbes(millibits);
    fastlocal_size_ = fastlocal::FilterBytes(num_keys_, millibits);
    const uint32_t len =
        static_cast<uint32_t>(fastlocal_size_ - fastlocal::kMetadataLen);
    fastlocal_bytes_ = PageBuffer(fastlocal_size_, Pages::k4K);
    // FastLocalBloom picks the line with the LOW half of the hash: it gets
    // the members with halves swapped (as uniform a set), so that it too
    // fills in address order.
    std::vector<uint64_t> swapped(kChunk);
    ForEachMemberChunk([&](const uint64_t* h, size_t n) {
      for (size_t i = 0; i < n; ++i) swapped[i] = (h[i] << 32) | (h[i] >> 32);
      fastlocal::AddHashes(fastlocal_bytes_.data(), len, k, swapped.data(), n);
    });
    fastlocal::WriteTrailer(fastlocal_bytes_.data(), len, k);
    fastlocal_ = std::make_unique<fastlocal::Reader>(fastlocal_bytes_.data(),
                                                     fastlocal_size_);
    Log("fastlocal", start);
  }
  return *fastlocal_;
}

const fastlocal::Reader& Suite::FastLocal2m() {
  if (fastlocal_2m_ == nullptr) {
    FastLocal();
    const auto start = std::chrono::steady_clock::now();
    fastlocal_2m_bytes_ = PageBuffer(fastlocal_size_, Pages::kHuge);
    std::memcpy(fastlocal_2m_bytes_.data(), fastlocal_bytes_.data(),
                fastlocal_size_);
    fastlocal_2m_ = std::make_unique<fastlocal::Reader>(
        fastlocal_2m_bytes_.data(), fastlocal_size_);
    Log("fastlocal 2 MiB-page copy", start);
  }
  return *fastlocal_2m_;
}

rocksdb::BuiltinFilterBitsReader& Suite::RocksDb() {
  if (rocksdb_ == nullptr) {
    FastLocal();
    rocksdb_policy_ = std::make_unique<rocksdb_builtin::Policy>(bits_per_key_);
    rocksdb_ =
        rocksdb_policy_->NewReader(fastlocal_bytes_.data(), fastlocal_size_);
  }
  return *rocksdb_;
}

Suite::ParquetRef Suite::Parquet() {
  if (parquet_.data() == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    parquet_blocks_ = bytes_ / parquet::kBlockBytes;
    parquet_ = PageBuffer(bytes_, Pages::k4K);
    const parquet::Kernels* kernels = parquet::ActiveKernels();
    ForEachMemberChunk([&](const uint64_t* h, size_t n) {
      kernels->insert_batch(parquet_.data(), parquet_blocks_, h, n);
    });
    Log("parquet", start);
  }
  return {parquet_.data(), parquet_blocks_, parquet::ActiveKernels()};
}

Suite::ParquetRef Suite::Parquet2m() {
  if (parquet_2m_.data() == nullptr) {
    Parquet();
    const auto start = std::chrono::steady_clock::now();
    parquet_2m_ = PageBuffer(bytes_, Pages::kHuge);
    std::memcpy(parquet_2m_.data(), parquet_.data(), bytes_);
    Log("parquet 2 MiB-page copy", start);
  }
  return {parquet_2m_.data(), parquet_blocks_, parquet::ActiveKernels()};
}

const standard::FilterRef& Suite::Standard() {
  if (standard_bits_.data() == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    standard_bits_ = PageBuffer(bytes_, Pages::k4K);
    standard_ = {reinterpret_cast<uint64_t*>(standard_bits_.data()),
                 uint64_t{bytes_} * 8, standard::NumProbes(bits_per_key_)};
    if (bytes_ >= kIdealStandardBytes) {
      SetIdealRandomBits(
          standard_.words, standard_.num_bits,
          num_keys_ * static_cast<uint64_t>(standard_.num_probes),
          0x57a4da7d ^ bytes_);
      Log("standard (ideal positions)", start);
    } else {
      ForEachMemberChunk([&](const uint64_t* h, size_t n) {
        standard::InsertBatch(standard_, h, n);
      });
      Log("standard", start);
    }
  }
  return standard_;
}

Suite::LevelDbRef Suite::LevelDb() {
  if (leveldb_policy_ == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    const int c = static_cast<int>(bits_per_key_);
    leveldb_policy_.reset(leveldb::NewBloomFilterPolicy(c));
    const size_t offset =
        leveldb_format::AppendEmptyFilter(num_keys_, c, &leveldb_filter_);
    const size_t bits = (leveldb_filter_.size() - offset - 1) * 8;
    std::vector<uint32_t> low(kChunk);
    ForEachMemberChunk([&](const uint64_t* h, size_t n) {
      for (size_t i = 0; i < n; ++i) low[i] = static_cast<uint32_t>(h[i]);
      leveldb_format::AddHashes(leveldb_filter_.data() + offset, bits,
                                leveldb_format::NumProbes(c), low.data(), n);
    });
    Log("leveldb", start);
  }
  return {leveldb_policy_.get(), leveldb::Slice(leveldb_filter_)};
}

const absl::flat_hash_set<uint64_t>& Suite::Set() {
  if (set_ == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    set_ = std::make_unique<absl::flat_hash_set<uint64_t>>();
    set_->reserve(num_keys_);
    ForEachMemberChunk(
        [&](const uint64_t* h, size_t n) { set_->insert(h, h + n); });
    Log("absl_set", start);
  }
  return *set_;
}

double Suite::BlockbloomHugePercent() {
  Blockbloom();
  return blockbloom_huge_;
}

double Suite::Blockbloom4kHugePercent() {
  Blockbloom4k();
  return Huge(bits_4k_.data(), bits_4k_.size());
}

double Suite::FastLocalHugePercent() {
  FastLocal();
  return Huge(fastlocal_bytes_.data(), fastlocal_size_);
}

double Suite::ParquetHugePercent() {
  Parquet();
  return Huge(parquet_.data(), bytes_);
}

double Suite::Parquet2mHugePercent() {
  Parquet2m();
  return Huge(parquet_2m_.data(), bytes_);
}

double Suite::FastLocal2mHugePercent() {
  FastLocal2m();
  return Huge(fastlocal_2m_bytes_.data(), fastlocal_size_);
}

double Suite::StandardHugePercent() {
  Standard();
  return Huge(standard_bits_.data(), bytes_);
}

double Suite::Huge(const void* p, size_t size) {
  const double f = HugePageFraction(p, size);
  return f < 0 ? -1 : 100 * f;
}

void Suite::Log(const char* what,
                std::chrono::steady_clock::time_point start) const {
  std::fprintf(stderr, "  [setup %s at %g bits/key: %s %.2f s]\n",
               SizeName(bytes_).c_str(), bits_per_key_, what, Seconds(start));
}

Suite& GetSuite(double bits_per_key, size_t bytes) {
  static std::unique_ptr<Suite>* current = new std::unique_ptr<Suite>;
  if (*current == nullptr || (*current)->bits_per_key() != bits_per_key ||
      (*current)->bytes() != bytes) {
    current->reset();  // free the previous size's filters first
    *current = std::make_unique<Suite>(bits_per_key, bytes);
  }
  return **current;
}

}  // namespace blockbloom::bench
