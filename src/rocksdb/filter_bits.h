// RocksDB's FilterBitsBuilder and FilterBitsReader, which its public headers
// only forward-declare: they left the public API in RocksDB 7.0 (PR #9592),
// and their definitions live in table/block_based/filter_policy_internal.h,
// which RocksDB does not install. A custom filter policy must subclass them,
// so this header declares them again with EXACTLY the virtual functions, in
// the order, of the RocksDB release it is compiled against: a call from
// librocksdb goes through a vtable slot by position, and a missing or extra
// function shifts every slot after it.
//
// Three layouts of FilterBitsBuilder exist; the header of every release tag
// from v7.0.1 through v11.8.1 has one of them (checked tag by tag; the
// reader is the same in all):
//   kLayout70   7.0 - 9.5    AddKey, EstimateEntriesAdded, Finish(buf),
//                            Finish(buf, status), MaybePostVerify,
//                            ApproximateNumEntries
//   kLayout96   9.6 - 10.8   AddKeyAndAlt after AddKey (PR #12931)
//   kLayout109  10.9 - 11.x  as 9.6, then CalculateSpace, EstimatedFpRate
//                            (PR #14111)
// The layout is chosen from rocksdb/version.h at compile time. The library
// loaded at run time must be of the same layout (library_version.h checks it
// before a builder or reader is handed to RocksDB). Outside the verified
// range the build stops: a new release may add a slot.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_
#define BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#include <cstddef>
#include <cstdint>
#include <memory>

// The verified range: 7.8 through 11.x, the releases the adapter is built
// and tested against (scripts/check-rocksdb; docs/ROCKSDB.md). 7.0 - 7.7
// share 7.8's layout but were never tried; RocksDB 12 may change the classes.
#define BLOCKBLOOM_ROCKSDB_VERSION (ROCKSDB_MAJOR * 100 + ROCKSDB_MINOR)
#if BLOCKBLOOM_ROCKSDB_VERSION < 708 || BLOCKBLOOM_ROCKSDB_VERSION >= 1200
#error \
    "blockbloom's RocksDB adapter supports RocksDB 7.8 through 11.x (it \
mirrors RocksDB-internal classes: src/rocksdb/filter_bits.h); this RocksDB \
is outside that range. Check the virtual functions of \
table/block_based/filter_policy_internal.h for your version and add its \
layout, or build without the RocksDB adapter."
#endif

#if BLOCKBLOOM_ROCKSDB_VERSION >= 1009
#define BLOCKBLOOM_ROCKSDB_LAYOUT 109
#elif BLOCKBLOOM_ROCKSDB_VERSION >= 906
#define BLOCKBLOOM_ROCKSDB_LAYOUT 96
#else
#define BLOCKBLOOM_ROCKSDB_LAYOUT 70
#endif

namespace ROCKSDB_NAMESPACE {

class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  // 7.0: a key or a prefix; adjacent duplicates are possible.
  virtual void AddKey(const Slice& key) = 0;
#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 96
  // 9.6 (PR #12931): a key and its prefix (whole-key filtering with a prefix
  // extractor), de-duplicated on hashes against the previous key and the
  // previous alt; the next AddKey de-duplicates against the key only.
  virtual void AddKeyAndAlt(const Slice& key, const Slice& alt) = 0;
#endif
  // 7.0: 0 exactly when nothing was added (TableProperties::
  // num_filter_entries).
  virtual size_t EstimateEntriesAdded() = 0;
  // 7.0: ownership of the filter's memory passes to the caller through *buf.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  // 7.0.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* /*status*/) {
    return Finish(buf);
  }
  // 7.0: detect_filter_construct_corruption's check of the finished filter.
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) {
    return Status::OK();
  }
  // 7.0: how many keys fit `bytes` (partitioned filters cut by it).
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
#if BLOCKBLOOM_ROCKSDB_LAYOUT >= 109
  // 10.9 (PR #14111): the bytes of a filter of num_entries entries, with
  // its metadata (the table builder's size estimate, which cuts files).
  virtual size_t CalculateSpace(size_t num_entries) = 0;
  // 10.9 (PR #14111): the false-positive rate of a `bytes`-byte filter of
  // num_entries entries.
  virtual double EstimatedFpRate(size_t num_entries, size_t bytes) = 0;
#endif
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
