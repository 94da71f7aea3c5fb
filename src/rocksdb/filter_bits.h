// RocksDB 7.8's FilterBitsBuilder and FilterBitsReader, which its public
// headers only forward-declare (they left the public API in RocksDB 7.0; the
// definitions live in table/block_based/filter_policy_internal.h, which
// Debian does not ship). A custom filter policy must subclass them, so this
// header declares them again with EXACTLY the virtual functions, in the
// order, of RocksDB 7.8.3: the vtable layout must match the library's.
//
// Checked against Debian's librocksdb 7.8.3 itself: the vtables in
// filter_policy.cc.o (librocksdb.a) have, after the two destructors, 6 slots
// for FilterBitsBuilder (AddKey, EstimateEntriesAdded, Finish(buf),
// Finish(buf, status) -> FilterBitsBuilder::Finish, MaybePostVerify ->
// FilterBitsBuilder::MaybePostVerify, ApproximateNumEntries) before the
// builtin subclasses' own, and 2 for FilterBitsReader (MayMatch(key),
// MayMatch(n, keys, results) -> FilterBitsReader::MayMatch). Other RocksDB
// versions order them differently, hence the version check.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_
#define BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#if !(ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR == 8)
#error \
    "blockbloom's RocksDB adapter mirrors RocksDB 7.8's internal \
FilterBitsBuilder/FilterBitsReader (see src/rocksdb/filter_bits.h); \
this RocksDB is another version. Check the virtual functions of \
table/block_based/filter_policy_internal.h for your version and update the \
header, or build without the RocksDB adapter."
#endif

namespace ROCKSDB_NAMESPACE {

class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
  virtual size_t EstimateEntriesAdded() = 0;
  // Ownership of the filter's memory passes to the caller through *buf.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* /*status*/) {
    return Finish(buf);
  }
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) {
    return Status::OK();
  }
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};

class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};

// The built-in readers' base: it adds probing by a precomputed hash (slot 2
// of the builtin readers' vtables). Only the benchmarks use it, to drive
// RocksDB's own FastLocalBloom reader with pre-hashed keys.
class BuiltinFilterBitsReader : public FilterBitsReader {
 public:
  ~BuiltinFilterBitsReader() override {}
  virtual bool HashMayMatch(const uint64_t h) = 0;
};

}  // namespace ROCKSDB_NAMESPACE

#endif  // BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_
