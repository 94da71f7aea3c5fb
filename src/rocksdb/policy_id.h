// The id of blockbloom's RocksDB filter policy: the string RocksDB writes as
// `filter_policy=` in OPTIONS files and gives back to the factory registered
// with its ObjectLibrary. It carries every setting, so a DB reopened from its
// OPTIONS file builds the same filters:
//
//   blockbloom.v1:10:seed:0:verify_checksum:1:level_aware:0:
//       level_size_multiplier:10:level_moved_fraction:0.6   (one line)
//
// The fields after the bits/key are name:value pairs, in any order when
// parsed (missing ones take their defaults); the plain "blockbloom.v1" that
// earlier versions wrote loads as the default options (10 bits/key, seed 0).
// RocksDB's option strings split on ';' and '=' and nest with braces, so the
// id uses none of them.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_POLICY_ID_H_
#define BLOCKBLOOM_SRC_ROCKSDB_POLICY_ID_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "blockbloom/filter_policy.h"

namespace blockbloom::internal {

std::string RocksDBPolicyId(const FilterPolicy::Options& options);

// InvalidArgument, naming the field, for an id that is not blockbloom.v1's
// or has a value that does not parse or is out of range (checked by
// FilterPolicy::Create).
absl::StatusOr<FilterPolicy::Options> ParseRocksDBPolicyId(std::string_view id);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ROCKSDB_POLICY_ID_H_
