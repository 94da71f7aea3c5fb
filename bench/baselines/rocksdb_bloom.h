// RocksDB 7.8's built-in Bloom filter (FastLocalBloom, format_version 5),
// driven through its own FilterPolicy: NewBloomFilterPolicy(bits/key), the
// builder from GetBuilderWithContext() and the reader from
// GetFilterBitsReader(). Debian's librocksdb is a portable build: its reader
// runs the scalar probe. The declarations of the builder and reader classes
// come from src/rocksdb/filter_bits.h.
#ifndef BLOCKBLOOM_BENCH_BASELINES_ROCKSDB_BLOOM_H_
#define BLOCKBLOOM_BENCH_BASELINES_ROCKSDB_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "rocksdb/filter_policy.h"
#include "rocksdb/slice.h"
#include "src/rocksdb/filter_bits.h"

// Whether this translation unit is compiled with RTTI (GCC and Clang say so
// with __GXX_RTTI).
#if defined(__GXX_RTTI)
#define BLOCKBLOOM_BENCH_HAVE_RTTI 1
#else
#define BLOCKBLOOM_BENCH_HAVE_RTTI 0
#endif

namespace blockbloom::bench::rocksdb_builtin {

// One NewBloomFilterPolicy(bits_per_key).
class Policy {
 public:
  explicit Policy(double bits_per_key);
  ~Policy();
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  // A fresh builder, as the block-based table builder makes one for each
  // filter (default BlockBasedTableOptions: format_version 5, so
  // FastLocalBloom).
  std::unique_ptr<rocksdb::FilterBitsBuilder> NewBuilder() const;

  // A reader over filter bytes it does not own (they must outlive it).
  // Aborts if RocksDB returns no built-in reader for them.
  std::unique_ptr<rocksdb::BuiltinFilterBitsReader> NewReader(
      const uint8_t* data, size_t size) const;

  const rocksdb::FilterPolicy& policy() const { return *policy_; }

 private:
  std::unique_ptr<const rocksdb::FilterPolicy> policy_;
};

inline rocksdb::Slice ToSlice(std::string_view s) {
  return rocksdb::Slice(s.data(), s.size());
}

// RocksDB's batch probe (MultiGet's): at most 32 keys per call; larger n is
// split into calls of 32.
inline void MayMatchBatch(rocksdb::FilterBitsReader& reader,
                          const std::string_view* keys, size_t n,
                          bool* results) {
  constexpr size_t kMaxBatch = 32;  // MultiGetContext::MAX_BATCH_SIZE
  rocksdb::Slice slices[kMaxBatch];
  rocksdb::Slice* pointers[kMaxBatch];
  for (size_t start = 0; start < n; start += kMaxBatch) {
    const size_t m = n - start < kMaxBatch ? n - start : kMaxBatch;
    for (size_t j = 0; j < m; ++j) {
      slices[j] = ToSlice(keys[start + j]);
      pointers[j] = &slices[j];
    }
    reader.MayMatch(static_cast<int>(m), pointers, results + start);
  }
}

// The dynamic type RocksDB chose for a reader (the mangled typeid name);
// empty in a build without RTTI (BLOCKBLOOM_BENCH_HAVE_RTTI 0), as against
// a RocksDB built without it.
std::string_view ReaderTypeName(const rocksdb::FilterBitsReader& reader);

}  // namespace blockbloom::bench::rocksdb_builtin

#endif  // BLOCKBLOOM_BENCH_BASELINES_ROCKSDB_BLOOM_H_
