#include "bench/baselines/rocksdb_bloom.h"

#include <cstdio>
#include <cstdlib>
#if BLOCKBLOOM_BENCH_HAVE_RTTI
#include <typeinfo>
#endif

#include "bench/baselines/fastlocal_bloom.h"
#include "rocksdb/table.h"

namespace blockbloom::bench::rocksdb_builtin {

Policy::Policy(double bits_per_key)
    : policy_(rocksdb::NewBloomFilterPolicy(bits_per_key)) {}

Policy::~Policy() = default;

std::unique_ptr<rocksdb::FilterBitsBuilder> Policy::NewBuilder() const {
  rocksdb::BlockBasedTableOptions table_options;
  // On by default from RocksDB 9.2: it rounds each filter to the allocator's
  // sizes, so the bytes would depend on the release and the allocator.
  table_options.optimize_filters_for_memory = false;
  rocksdb::FilterBuildingContext context(table_options);
  return std::unique_ptr<rocksdb::FilterBitsBuilder>(
      policy_->GetBuilderWithContext(context));
}

std::unique_ptr<rocksdb::BuiltinFilterBitsReader> Policy::NewReader(
    const uint8_t* data, size_t size) const {
  // RocksDB reads a trailer of {0xff (new Bloom), 0x00 (FastLocalBloom),
  // ...} behind more than the trailer with its FastLocalBloomBitsReader, a
  // BuiltinFilterBitsReader; anything else may get another reader (always
  // true or false, legacy Bloom, ribbon). The trailer, not dynamic_cast,
  // tells, so that the cast also holds in builds without RTTI (a RocksDB
  // built by its CMake has none, and then neither have we).
  if (size <= fastlocal::kMetadataLen || data[size - 5] != 0xff ||
      data[size - 4] != 0x00) {
    std::fprintf(stderr, "not a FastLocalBloom filter: no built-in reader\n");
    std::abort();
  }
  rocksdb::FilterBitsReader* reader = policy_->GetFilterBitsReader(
      rocksdb::Slice(reinterpret_cast<const char*>(data), size));
  return std::unique_ptr<rocksdb::BuiltinFilterBitsReader>(
      static_cast<rocksdb::BuiltinFilterBitsReader*>(reader));
}

std::string_view ReaderTypeName(
    [[maybe_unused]] const rocksdb::FilterBitsReader& reader) {
#if BLOCKBLOOM_BENCH_HAVE_RTTI
  return typeid(reader).name();
#else
  return {};
#endif
}

}  // namespace blockbloom::bench::rocksdb_builtin
