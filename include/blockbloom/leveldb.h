// blockbloom as a LevelDB filter policy (LevelDB 1.23, Debian's libleveldb).
//
//   leveldb::Options options;
//   std::unique_ptr<const leveldb::FilterPolicy> policy(
//       blockbloom::NewLevelDBFilterPolicy(10));
//   options.filter_policy = policy.get();   // outlives the DB
//   leveldb::DB::Open(options, path, &db);
//
// LevelDB builds one filter per ~2 KiB of data-block offsets (in practice one
// per data block, ~37-140 keys), so filters use the compact encoding: 3 bytes
// of trailer with a CRC, and no rounding of the bits to 64-byte lines.
// Filters are stored under "filter.blockbloom.v1": a DB written with another
// policy (or none) is read correctly, with its old filters ignored, and a DB
// written with this one can be reopened with any other policy.
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

// The same with every option (seed, checksum verification); InvalidArgument
// for invalid options.
absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>>
NewLevelDBFilterPolicy(const FilterPolicy::Options& options);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LEVELDB_H_
