#include "bench/baselines/rocksdb_bloom.h"

#include <cstdio>
#include <cstdlib>
#include <typeinfo>

#include "rocksdb/table.h"

namespace blockbloom::bench::rocksdb_builtin {

Policy::Policy(double bits_per_key)
    : policy_(rocksdb::NewBloomFilterPolicy(bits_per_key)) {}

Policy::~Policy() = default;

std::unique_ptr<rocksdb::FilterBitsBuilder> Policy::NewBuilder() const {
  rocksdb::BlockBasedTableOptions table_options;
  rocksdb::FilterBuildingContext context(table_options);
  return std::unique_ptr<rocksdb::FilterBitsBuilder>(
      policy_->GetBuilderWithContext(context));
}

std::unique_ptr<rocksdb::BuiltinFilterBitsReader> Policy::NewReader(
    const uint8_t* data, size_t size) const {
  rocksdb::FilterBitsReader* reader = policy_->GetFilterBitsReader(
      rocksdb::Slice(reinterpret_cast<const char*>(data), size));
  auto* builtin = dynamic_cast<rocksdb::BuiltinFilterBitsReader*>(reader);
  if (builtin == nullptr) {
    std::fprintf(stderr, "RocksDB returned no built-in filter reader\n");
    std::abort();
  }
  return std::unique_ptr<rocksdb::BuiltinFilterBitsReader>(builtin);
}

std::string_view ReaderTypeName(const rocksdb::FilterBitsReader& reader) {
  return typeid(reader).name();
}

}  // namespace blockbloom::bench::rocksdb_builtin
