// blockbloom as a LevelDB filter policy (LevelDB 1.23, Debian's libleveldb).
//
//   leveldb::Options options;
//   std::unique_ptr<const leveldb::FilterPolicy> policy(
//       blockbloom::NewLevelDBFilterPolicy(10));
//   options.filter_policy = policy.get();   // outlives the DB
//   leveldb::DB::Open(options, path, &db);
//
// LevelDB builds one filter per ~2 KiB of data-block offsets (in practice one
// per data block, ~37-140 keys) and hands KeyMayMatch that filter's bytes
// with every probe. Each filter takes exactly the bytes LevelDB's built-in
// Bloom filter takes for the same keys, in one of two modes:
//  - default: a standard Bloom filter (k bits anywhere in the filter) and a
//    one-byte tag, the in-place encoding (src/exact_size/in_place.h,
//    docs/FORMAT.md). KeyMayMatch probes it where LevelDB keeps it: no copy,
//    no cache, no allocation, no lock. Fewer false positives than the
//    built-in at every bits/key, and faster probes. No checksum of its own:
//    damage is LevelDB's to catch (its CRC32C of the filter block, with
//    options.paranoid_checks), as for its built-in filter.
//  - FilterPolicy::Options::fewer_false_positives: the accurate encoding, the
//    more accurate of a one-block Bloom filter and a compressed fingerprint
//    set (the set wins from ~7 bits/key: about half the false positives at
//    10), with a CRC-16 of its own. KeyMayMatch verifies a filter the first
//    time a thread sees it and probes a per-thread cache of verified copies
//    (FilterPolicy::Options::probe_cache_bytes). For data on disk, where a
//    false positive is a read; probes are slower with thousands of filters.
// docs/LEVELDB.md, "Which LevelDB mode", compares the two.
//
// Neither mode stores the seed: use the same seed for a DB. LevelDB keeps
// filters under "filter." + Name() and ignores those of another name. Name()
// is "blockbloom.v1", except for a default-mode policy with a non-zero seed:
// "blockbloom.v1.seed-<check of the seed>", so a DB reopened with another
// seed ignores those filters instead of misreading them (the accurate
// encoding's CRC covers the seed: another seed reads as damage and fails open).
// A DB written with another policy (or none) is read correctly, with its old
// filters ignored, and a DB written with this one can be reopened with any
// other policy. Under the same name, either mode reads the other's filters
// and every earlier encoding.
#ifndef BLOCKBLOOM_LEVELDB_H_
#define BLOCKBLOOM_LEVELDB_H_

#include <leveldb/filter_policy.h>

#include "absl/status/statusor.h"
#include "blockbloom/filter_policy.h"

namespace blockbloom {

// A new policy with `bits_per_key` bits of filter per key (fractional values
// allowed; values below 1, and NaN, are taken as 1). The caller owns it, as
// with leveldb::NewBloomFilterPolicy, and it must outlive every DB using it.
// KeyMayMatch answers "no" for an empty filter (LevelDB's filter for a range
// with no keys) and fails open: a filter it cannot read (of another format
// version, or, in the accurate encoding, damaged or of another seed) answers
// "may match". A damaged default-mode filter is not detected here (see
// above).
const leveldb::FilterPolicy* NewLevelDBFilterPolicy(double bits_per_key);

// The same with every option (seed, fewer_false_positives, checksum
// verification and cache budget of the accurate encoding); InvalidArgument for
// invalid options. `exact_size` is always set.
absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>>
NewLevelDBFilterPolicy(const FilterPolicy::Options& options);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LEVELDB_H_
