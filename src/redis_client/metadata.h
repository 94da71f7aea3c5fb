// A shared filter's metadata key and the names of its keys in Redis.
//
// The metadata is one short line of text, so that `redis-cli GET bb:{name}`
// tells an operator what the filter is:
//
//   blockbloom-redis/1 blocks=156250 k=6 lane_bits=32 shard_blocks=524288
//   shards=1 placement=together generation=3f2a... seed_check=9c41...
//
// (one line). The version after the slash changes when an old reader would
// misread the filter; unknown fields are ignored, so fields can be added.
// The seed itself is not stored: `seed_check` is HashKey of a fixed string
// with the seed, which tells a wrong seed from the right one without
// revealing it to whoever can read Redis.
#ifndef BLOCKBLOOM_SRC_REDIS_CLIENT_METADATA_H_
#define BLOCKBLOOM_SRC_REDIS_CLIENT_METADATA_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "blockbloom/redis_client.h"
#include "blockbloom/sizing.h"

namespace blockbloom::redis::internal {

inline constexpr int kMetadataVersion = 1;
// Each shard string ends with 8 bytes after its blocks: the generation,
// big-endian, so that `BITFIELD GET i64` reads it back as a number.
inline constexpr uint64_t kTrailerBytes = 8;
// Redis's default proto-max-bulk-len: the largest string.
inline constexpr uint64_t kMaxStringBytes = uint64_t{512} << 20;

struct Metadata {
  FilterShape shape;
  uint64_t blocks_per_shard = 0;
  uint64_t num_shards = 0;
  Placement placement = Placement::kTogether;
  // A random number drawn when the filter's shards are created; it is in
  // their key names and trailers, so a new filter under an old name never
  // shares keys with the old one.
  uint64_t generation = 0;
  uint64_t seed_check = 0;
};

uint64_t SeedCheck(uint64_t seed);
// A fresh non-zero generation below 2^63 (positive as a signed 64-bit
// number: BITFIELD has no u64).
uint64_t NewGeneration();

std::string EncodeMetadata(const Metadata& metadata);
// FailedPrecondition if `text` is not blockbloom metadata (naming `key`),
// Unimplemented for a newer version, DataLoss for a damaged one.
absl::StatusOr<Metadata> ParseMetadata(std::string_view text,
                                       std::string_view key);

// InvalidArgument unless `name` is non-empty, at most 1000 bytes and free
// of '{' and '}' (they would change the cluster hash tag).
absl::Status ValidateName(std::string_view name);
std::string MetadataKey(std::string_view prefix, std::string_view name);
std::string ShardKey(std::string_view prefix, std::string_view name,
                     Placement placement, uint64_t generation, uint64_t shard);

}  // namespace blockbloom::redis::internal

#endif  // BLOCKBLOOM_SRC_REDIS_CLIENT_METADATA_H_
