// Shared blockbloom filters in Redis and Redis Cluster.
//
// Many processes (app servers guarding one database against cache
// penetration, a crawler fleet deduplicating URLs) share one filter that
// lives in Redis. blockbloom's layout puts every key in ONE 64-byte block, so
//
//   * a query is one `GETRANGE` of 64 bytes, probed here with the same SIMD
//     kernel as an in-process Filter (one round trip, and less server CPU
//     than schemes that read k bits: docs/BENCHMARKS.md, "Shared filters in
//     Redis");
//   * an add is one atomic `BITFIELD` command that sets the key's k bits.
//
// Batches pipeline many keys per round trip (grouped per node in a
// cluster). Answers are bit-for-bit those of an in-process blockbloom::Filter
// of the same shape and seed holding the same keys.
//
//   auto redis = blockbloom::redis::Connection::Connect(
//       *blockbloom::redis::ParseUrl("redis://127.0.0.1:6379"));
//   if (!redis.ok()) return redis.status();
//   blockbloom::redis::SharedFilterOptions options;
//   options.expected_keys = 10'000'000;
//   options.fp_rate = 0.01;
//   options.seed = secret_seed;  // the same in every process
//   auto users = blockbloom::redis::SharedFilter::OpenOrCreate(
//       redis->get(), "users", options);
//   if (!users.ok()) return users.status();
//   users->Add("user:42");
//   if (!users->MayContainOrFailOpen("user:43")) { /* absent: skip the DB */ }
//
// Keys in Redis (prefix "bb:" by default, name "users"):
//   bb:{users}                  metadata: shape, seed fingerprint, shards, ...
//   bb:{users}:<gen>:<i>        shard i of generation <gen> (placement
//   kTogether) bb:{users:<gen>:<i>}        the same with placement kSpread
// A shard is a string of up to `shard_bytes` of blocks plus an 8-byte trailer
// holding the generation; it is created at full size, so GETRANGE never
// returns short data. The text between braces is the Redis Cluster hash tag:
// kTogether keeps a filter in one slot (one node), kSpread spreads its shards
// over the cluster's slots (see docs/REDIS.md).
//
// Threading: a Connection, and every SharedFilter opened on it, is used by
// one thread at a time (like a hiredis context). Give each thread its own
// Connection; many Connections may share one filter in Redis (adds are
// atomic: concurrent adders never lose each other's bits).
//
// Errors: every call returns an absl::Status naming what failed: Unavailable
// (connection refused or lost; the next call reconnects), DeadlineExceeded
// (a timeout), NotFound (no such filter), FailedPrecondition (wrong type at a
// key, parameters that do not match the stored filter, the wrong seed),
// DataLoss (a shard missing or short: deleted or evicted behind our back),
// PermissionDenied (AUTH failed). A caller that prefers extra database reads
// to errors uses MayContainOrFailOpen: "unknown" becomes "may contain", never
// a false negative.
#ifndef BLOCKBLOOM_REDIS_CLIENT_H_
#define BLOCKBLOOM_REDIS_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/sizing.h"

namespace blockbloom::redis {

namespace internal {
class Router;
struct Scratch;
}  // namespace internal

// Where and how to connect.
struct ConnectionOptions {
  // A standalone server, or any node of a cluster (the others are found with
  // CLUSTER SLOTS).
  std::string host = "127.0.0.1";
  int port = 6379;
  // AUTH: with only a password, `AUTH password` (requirepass); with both,
  // `AUTH username password` (an ACL user).
  std::string username;
  std::string password;
  // SELECT this database after connecting (standalone servers only).
  int database = 0;
  absl::Duration connect_timeout = absl::Seconds(1);
  // Per command or pipelined batch round trip: a reply slower than this
  // fails the call with DeadlineExceeded and drops the connection (its
  // replies would be out of step); the next call reconnects.
  absl::Duration command_timeout = absl::Seconds(1);
  enum class Mode {
    kAuto,        // ask the server: cluster if `cluster_enabled:1`
    kStandalone,  // one server
    kCluster,     // route by key slot, follow MOVED and ASK
  };
  Mode mode = Mode::kAuto;
};

// Parses "redis://[[user]:password@]host[:port][/database]" (port 6379 by
// default; "[::1]" for IPv6; %XX escapes in user and password), with query
// options "?cluster=yes|no|auto", "connect_timeout=<ms>", "timeout=<ms>"
// (the command timeout). InvalidArgument with the reason for anything else,
// including other schemes (rediss://, unix sockets: not supported).
absl::StatusOr<ConnectionOptions> ParseUrl(std::string_view url);

// Connections to one Redis server or to every node of a cluster.
class Connection {
 public:
  // Connects (and authenticates) to options.host:port and, in cluster mode,
  // loads the slot map. Unavailable, DeadlineExceeded or PermissionDenied
  // with the server's reason on failure.
  static absl::StatusOr<std::unique_ptr<Connection>> Connect(
      const ConnectionOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool is_cluster() const;
  // Sends PING to every node it knows (reconnecting if needed).
  absl::Status Ping();
  // The eviction policy that applies to a shared filter's keys:
  // "noeviction" if no node can evict (no maxmemory, or that policy), else
  // the maxmemory-policy of the first node that can ("allkeys-lru", ...).
  // An evicting server may drop a filter's shards at any time (its answers
  // then fail with DataLoss); a volatile-* policy drops only keys with a
  // TTL. An error if CONFIG is not allowed (some managed services).
  absl::StatusOr<std::string> EvictionPolicy();
  // Round trips made so far (a pipelined batch to one node counts once),
  // and MOVED/ASK redirections followed: for tests and monitoring.
  uint64_t round_trips() const;
  uint64_t redirections() const;

 private:
  friend struct SharedFilterAccess;
  explicit Connection(std::unique_ptr<internal::Router> router);
  std::unique_ptr<internal::Router> router_;
};

// Where a filter's shards live in a cluster (no effect on one server).
enum class Placement {
  // One hash tag for the whole filter: every shard on one node, in one slot.
  // Best for filters of up to a few GiB: a batch is one round trip.
  kTogether,
  // A hash tag per shard: shards land on different slots and so, in a
  // cluster of several nodes, on different nodes (spreading memory and load;
  // pseudo-random, so uneven for few shards). A batch is one round trip per
  // node, sent in parallel.
  kSpread,
};

// How to create a shared filter. Size it from expected_keys and either
// fp_rate or bits_per_key (as ShapeForFpRate / ShapeForBitsPerKey), or give
// an explicit shape (32-bit lanes).
struct SharedFilterOptions {
  uint64_t expected_keys = 0;
  double fp_rate = 0.01;    // used when bits_per_key is 0
  double bits_per_key = 0;  // if > 0, wins over fp_rate
  FilterShape shape;        // if num_blocks > 0, wins over both
  // The hash seed; every process must use the same one. Keep it secret where
  // attackers choose keys (see HashKey). Redis stores only a fingerprint of
  // it, so opening with another seed fails with FailedPrecondition.
  uint64_t seed = 0;
  // Bytes of blocks per shard key (rounded down to whole 64-byte blocks).
  // Redis moves, expires and deletes whole keys, and growing or freeing a
  // huge string blocks the server for a time that grows with its size
  // (docs/BENCHMARKS.md, "Server-side cost of big strings"), so big filters are
  // split into keys of this size. At most 512 MiB - 8 (Redis's string limit).
  uint64_t shard_bytes = uint64_t{32} << 20;
  Placement placement = Placement::kTogether;
  // Prefix of every Redis key of the filter.
  std::string key_prefix = "bb:";
  // If set, every key of the filter expires after this long (see Expire).
  absl::Duration ttl = absl::InfiniteDuration();
  // If set, Create and Publish look at it between round trips: once it is
  // true they stop, delete the shards written so far and return Cancelled.
  // Meant for a SIGINT handler (a lock-free atomic is async-signal-safe).
  const std::atomic<bool>* cancel = nullptr;
};

// Until a Create or Publish makes them part of the filter, its shards carry
// this expiry (renewed while the upload goes on): an upload killed midway
// (SIGKILL, a crash, a lost connection) leaves nothing behind for longer.
// DeleteOrphans removes such shards at once.
inline constexpr absl::Duration kPendingShardTtl = absl::Minutes(10);

// A Bloom filter shared through Redis. Cheap to move; holds a pointer to its
// Connection, which must outlive it.
class SharedFilter {
 public:
  // Creates the filter `name` (any bytes but '{' and '}'): every shard at
  // full size first (with kPendingShardTtl until the filter exists), then
  // the metadata with SET NX, so two creators cannot both win. AlreadyExists
  // if the name is taken.
  static absl::StatusOr<SharedFilter> Create(
      Connection* connection, std::string_view name,
      const SharedFilterOptions& options);
  // Opens an existing filter and checks that every shard is there at full
  // size. `seed` must be the one it was created with. NotFound if there is
  // no such filter, FailedPrecondition on a wrong seed or a metadata key that
  // is not ours, DataLoss if shards are missing.
  static absl::StatusOr<SharedFilter> Open(Connection* connection,
                                           std::string_view name, uint64_t seed,
                                           std::string_view key_prefix = "bb:");
  // Opens the filter if it exists and its shape, seed and placement are what
  // `options` asks for (FailedPrecondition naming the first difference if
  // not), or creates it. What every process of a fleet calls at start-up.
  static absl::StatusOr<SharedFilter> OpenOrCreate(
      Connection* connection, std::string_view name,
      const SharedFilterOptions& options);
  // Deletes the filter: its metadata and all of its shards. OK if it does
  // not exist.
  static absl::Status Delete(Connection* connection, std::string_view name,
                             std::string_view key_prefix = "bb:");
  // Removes the shards of `name` that no published filter uses: left by a
  // Create or Publish that was killed or lost its connection before it
  // finished (they expire after kPendingShardTtl anyway), or by a Publish
  // killed between its switch and the old shards' removal. Only strings
  // named and tagged as shards of `name` (trailer = generation) go. Scans
  // every node's keyspace (SCAN): O(keys in the database), a maintenance
  // call. A Create or Publish of `name` under way at the same time loses its
  // shards (and fails). Returns how many keys it removed.
  static absl::StatusOr<uint64_t> DeleteOrphans(
      Connection* connection, std::string_view name,
      std::string_view key_prefix = "bb:");
  // OK if `name` can name a shared filter: 1 to 1000 bytes, no '{' or '}'
  // (they would change the Redis Cluster hash tag); InvalidArgument with
  // the rule otherwise. Every call that takes a name checks it.
  static absl::Status ValidateName(std::string_view name);

  // Publishes a locally built filter (32-bit lanes, e.g. built with
  // compact_small_filters = false, or read back with OpenFilter) under
  // `name`: bulk-build at in-process speed, then upload. The shards are
  // written under a new generation (with kPendingShardTtl until they are
  // published) and the metadata is switched last, so readers see the old
  // filter or the new one, never a mix; the old generation's shards are
  // deleted. Then every shard is checked: one already gone (a server that
  // evicts keys) is DataLoss, and the new filter is removed again. With
  // replace = false, AlreadyExists if the name is taken. Only placement,
  // shard_bytes, key_prefix, ttl and cancel of `options` are used.
  static absl::StatusOr<SharedFilter> Publish(
      Connection* connection, std::string_view name, const Filter& filter,
      const SharedFilterOptions& options, bool replace = false);

  SharedFilter(SharedFilter&&) noexcept;
  SharedFilter& operator=(SharedFilter&&) noexcept;
  ~SharedFilter();

  // Adds `key`: one BITFIELD command setting its k bits, atomically. True if
  // any of them was clear (the key was new to the filter), as Guava's put.
  absl::StatusOr<bool> Add(std::string_view key);
  // False if `key` is definitely not in the set; true if it may be. One
  // GETRANGE of the key's 64-byte block.
  absl::StatusOr<bool> MayContain(std::string_view key);
  // MayContain, with "unknown" (any error) answered as "may contain": for a
  // guard in front of a database, where an error must cost a lookup, never a
  // wrong "absent". `error`, if not null, receives the error (OK otherwise).
  bool MayContainOrFailOpen(std::string_view key,
                            absl::Status* error = nullptr);

  // Batches: one pipelined round trip per node per `pipeline_depth` keys.
  // added[i] / results[i] for keys[i]; the spans must have equal sizes
  // (checked; a mismatch aborts). AddBatch returns how many keys were new.
  absl::StatusOr<uint64_t> AddBatch(absl::Span<const std::string_view> keys,
                                    absl::Span<bool> added = {});
  absl::Status MayContainBatch(absl::Span<const std::string_view> keys,
                               absl::Span<bool> results);
  // MayContainBatch that answers true for every key it could not check.
  void MayContainBatchOrFailOpen(absl::Span<const std::string_view> keys,
                                 absl::Span<bool> results,
                                 absl::Status* error = nullptr);

  // Expiry for ALL of the filter's keys (metadata and every shard), set in
  // one pipelined round trip per node; InfiniteDuration() removes it.
  absl::Status Expire(absl::Duration ttl);
  // The remaining time to live of the metadata key (InfiniteDuration if none).
  absl::StatusOr<absl::Duration> Ttl();
  // Checks that the metadata still describes this filter and that every
  // shard is there at full size with this generation's trailer. DataLoss or
  // NotFound naming the first key that is not.
  absl::Status Check();
  // The number of distinct keys that most likely set the filter's bits (one
  // BITCOUNT per shard; O(filter size) on the server: not for hot paths).
  absl::StatusOr<uint64_t> ApproximateCount();

  // Downloads the whole filter as a filter block (blockbloom/format.h, full
  // encoding): write it to a file, or OpenFilter() it to probe locally. Reads
  // in pieces of 1 MiB per round trip; adds made during the download may or
  // may not be included. The key count in the footer is estimated from the
  // bits (ApproximateCount).
  absl::StatusOr<std::string> Download(const WriteOptions& options = {});

  const std::string& name() const { return name_; }
  const FilterShape& shape() const { return shape_; }
  uint64_t seed() const { return seed_; }
  uint64_t num_shards() const { return num_shards_; }
  uint64_t blocks_per_shard() const { return blocks_per_shard_; }
  Placement placement() const { return placement_; }
  // The Redis keys of the filter: the metadata key, then each shard.
  std::vector<std::string> RedisKeys() const;
  // Keys per pipelined round trip in the batch calls (default 64).
  void set_pipeline_depth(size_t depth) { pipeline_depth_ = depth ? depth : 1; }

 private:
  SharedFilter() = default;
  friend struct SharedFilterAccess;

  Connection* connection_ = nullptr;
  std::string name_;
  std::string prefix_;
  FilterShape shape_;
  uint64_t seed_ = 0;
  uint64_t generation_ = 0;
  uint64_t num_shards_ = 0;
  uint64_t blocks_per_shard_ = 0;
  Placement placement_ = Placement::kTogether;
  std::vector<std::string> shard_keys_;
  std::vector<uint16_t> shard_slots_;  // cluster slot of each shard key
  std::string meta_key_;
  size_t pipeline_depth_ = 64;
  std::unique_ptr<internal::Scratch> scratch_;
};

}  // namespace blockbloom::redis

#endif  // BLOCKBLOOM_REDIS_CLIENT_H_
