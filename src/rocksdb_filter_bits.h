// RocksDB 7.8's hidden filter-bits interfaces, declared here so that code
// outside RocksDB can drive its built-in filters (the benchmarks) and, later,
// plug its own filter into RocksDB (the RocksDB adapter).
//
// Why this file exists
// --------------------
// Since RocksDB 7.0, rocksdb/filter_policy.h only forward-declares
// FilterBitsBuilder and FilterBitsReader, yet FilterPolicy still traffics in
// them: GetBuilderWithContext() returns a FilterBitsBuilder*, and
// GetFilterBitsReader() a FilterBitsReader*. Their definitions live in
// table/block_based/filter_policy_internal.h, which Debian's librocksdb-dev
// does not ship. To call through those pointers (or to derive from the
// classes), a program must declare the classes itself, with EXACTLY the
// virtual functions of the library it links, in the same order: the vtable
// is the ABI. A mismatch compiles and then calls the wrong function.
//
// Verified for RocksDB 7.8.3 (Debian 12's librocksdb7.8) in two ways:
//  - against the library binary: the relocations of the vtables in
//    librocksdb.so.7.8.3 (`readelf -rW`) show, for a FilterBitsBuilder
//    subclass, slots {~dtor, ~dtor(deleting), AddKey, EstimateEntriesAdded,
//    Finish(buf), FilterBitsBuilder::Finish(buf, status),
//    FilterBitsBuilder::MaybePostVerify, ApproximateNumEntries, ...} and, for
//    a reader, {~dtor, ~dtor(deleting), MayMatch(key),
//    FilterBitsReader::MayMatch(int, Slice**, bool*), HashMayMatch}; the
//    named slots are the exported default implementations, which pin the
//    order of their neighbours;
//  - by behaviour: bench/baselines_test.cc builds filters with RocksDB's own
//    builder through these declarations (entry counts, sizes, trailer bytes)
//    and probes them with its reader (single, batch and by hash), against an
//    independent implementation of the same format.
// The same order is what the v7.8.3 source declares. It changes in later
// versions (8.x adds AddKeyAndAlt, for one), hence the version check below:
// on another RocksDB this header refuses to compile rather than guess.
//
// Rules for users
// ---------------
// - Include this instead of guessing; include it after (or instead of
//   including) rocksdb/filter_policy.h. Link with -lrocksdb.
// - The non-pure virtual functions are declared, not defined: calls and
//   derived classes bind to the library's own exported definitions
//   (FilterBitsBuilder::Finish(buf, status), MaybePostVerify,
//   FilterBitsReader::MayMatch(int, Slice**, bool*)), so their behaviour is
//   RocksDB's, not a copy of it.
// - Objects returned by RocksDB are owned by the caller: delete them (the
//   destructors are virtual). A Slice returned by Finish() points into the
//   buffer handed back through `buf`.
// - A builder passed to RocksDB from a custom FilterPolicy is owned by
//   RocksDB; RocksDB calls the batch MayMatch with at most 32 keys.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_
#define BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "rocksdb/filter_policy.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/version.h"

#if !(ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR == 8)
#error \
    "src/rocksdb_filter_bits.h mirrors RocksDB 7.8's FilterBitsBuilder/Reader \
vtables; re-verify them against this RocksDB version's \
table/block_based/filter_policy_internal.h before changing this check"
#endif

namespace ROCKSDB_NAMESPACE {

// Takes a filter's keys, then produces the filter bytes.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}

  // Adds a key (keys come in sorted order; adjacent duplicates happen).
  virtual void AddKey(const Slice& key) = 0;

  // The number of distinct keys added so far (an estimate for some
  // implementations).
  virtual size_t EstimateEntriesAdded() = 0;

  // Builds the filter from the keys added. The returned Slice points into
  // *buf, whose ownership passes to the caller.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;

  // As above; *status reports a construction error (e.g. detected memory
  // corruption of the buffered hashes). Defined in librocksdb.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* status);

  // Checks the filter just built against the keys (when configured to).
  // Defined in librocksdb (OK by default).
  virtual Status MaybePostVerify(const Slice& filter_content);

  // About how many keys a filter of `bytes` bytes holds at this builder's
  // configuration.
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};

// Answers membership queries on the bytes of one filter. It does not copy
// them: they must outlive the reader.
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}

  // False if `entry` is definitely not in the filter.
  virtual bool MayMatch(const Slice& entry) = 0;

  // may_match[i] = MayMatch(*keys[i]) for i < num_keys (RocksDB passes at
  // most 32). Defined in librocksdb; built-in readers override it with a
  // prefetching version.
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match);
};

// The base of RocksDB's built-in readers (FastLocalBloom, Ribbon, legacy
// Bloom): what GetFilterBitsReader() returns for filters RocksDB built. Adds
// a probe by the key's 64-bit hash (XXH3-64, seed 0, for FastLocalBloom).
// Only valid on readers RocksDB made for built-in filter bytes.
class BuiltinFilterBitsReader : public FilterBitsReader {
 public:
  ~BuiltinFilterBitsReader() override {}
  virtual bool HashMayMatch(const uint64_t h) = 0;
};

}  // namespace ROCKSDB_NAMESPACE

#endif  // BLOCKBLOOM_SRC_ROCKSDB_FILTER_BITS_H_
