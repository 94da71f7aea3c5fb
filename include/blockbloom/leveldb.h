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
//  - default: a standard Bloom filter and a one-byte tag (the in-place
//    encoding, docs/FORMAT.md), probed where LevelDB keeps it (no copy, no
//    cache, no allocation, no lock): fewer false positives than the built-in
//    at every bits/key, faster probes. No checksum of its own: damage is
//    LevelDB's to catch (its CRC32C of the filter block, with
//    options.paranoid_checks), as for its built-in filter.
//  - FilterPolicy::Options::fewer_false_positives: a compressed fingerprint
//    set where it is more accurate (~7+ bits/key; about half the false
//    positives at 10) with a CRC-16 of its own, probed through a per-thread
//    cache of verified copies. For data on disk, where a false positive is a
//    read; slower probes with thousands of filters. README, "Which LevelDB
//    mode".
// Filters are stored under "filter.blockbloom.v1" (with a seed, in the
// default mode, "filter.blockbloom.v1.seed-<check>"): a DB written with
// another policy (or none) is read correctly, with its old filters ignored,
// and a DB written with this one can be reopened with any other policy.
// Either mode reads the other's tables and every earlier encoding.
#ifndef BLOCKBLOOM_LEVELDB_H_
#define BLOCKBLOOM_LEVELDB_H_

#include <leveldb/filter_policy.h>

#include "absl/status/statusor.h"
#include "blockbloom/filter_policy.h"

namespace blockbloom {

// A new policy with `bits_per_key` bits of filter per key (fractional values
// allowed; values below 1, and NaN, are taken as 1). The caller owns it, as
// with leveldb::NewBloomFilterPolicy, and it must outlive every DB using it.
// KeyMayMatch fails open: a filter it cannot read (damaged on disk, or of
// another format version) answers "may match".
const leveldb::FilterPolicy* NewLevelDBFilterPolicy(double bits_per_key);

// The same with every option (seed, fewer_false_positives, checksum
// verification and cache budget of the accuracy mode); InvalidArgument for
// invalid options. `packed` is always set.
absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>>
NewLevelDBFilterPolicy(const FilterPolicy::Options& options);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LEVELDB_H_
