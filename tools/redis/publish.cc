// blockbloom redis publish: a filter file into Redis as a shared filter.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <cstdint>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "tools/filter_file.h"
#include "tools/flags.h"
#include "tools/interrupt_guard.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

namespace {

// A server that evicts keys under memory pressure can drop a filter's
// shards at any time (queries then fail open with DataLoss): say so before
// publishing. volatile-* policies evict only keys with a TTL (--expire).
void WarnIfTheServerEvicts(const Connected& c, bool expires) {
  absl::StatusOr<std::string> policy = c.connection->EvictionPolicy();
  if (!policy.ok()) return;  // CONFIG not allowed: cannot tell
  const bool allkeys = absl::StartsWith(*policy, "allkeys-");
  const bool volatile_ttl = absl::StartsWith(*policy, "volatile-") && expires;
  if (!allkeys && !volatile_ttl) return;
  std::fputs(
      absl::StrCat(
          "blockbloom redis: warning: ", c.where,
          " evicts keys when short of memory (maxmemory-policy ", *policy,
          allkeys ? "" : ", and --expire gives the filter's keys a TTL",
          "): it may drop the shared filter's shards at any time, and its "
          "answers then fail (open). Use maxmemory-policy noeviction",
          allkeys ? " (or volatile-*, without --expire)" : "",
          " on a server that holds filters\n")
          .c_str(),
      stderr);
}

// A shard holds at least one 64-byte block, and a shard plus its 8-byte
// trailer is at most one Redis string (512 MiB).
constexpr uint64_t kMinShardBytes = 64;
constexpr uint64_t kMaxShardBytes = (uint64_t{512} << 20) - 8;

}  // namespace

int Publish(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    return UsageError(kCommand, absl::StrCat("redis publish expects one FILTER "
                                             "file, got ",
                                             args.size() - 1, " arguments"));
  }
  redis::SharedFilterOptions options;
  options.shard_bytes = absl::GetFlag(FLAGS_shard_bytes).bytes;
  options.ttl = absl::GetFlag(FLAGS_expire);
  // The library's limits (SharedFilter::Publish), checked before connecting.
  if (options.shard_bytes < kMinShardBytes ||
      options.shard_bytes > kMaxShardBytes) {
    return UsageError(
        kCommand,
        absl::StrCat("--shard_bytes must be in [", kMinShardBytes, ", ",
                     kMaxShardBytes, "] (64 bytes to 512 MiB - 8), not ",
                     options.shard_bytes));
  }
  if (options.ttl <= absl::ZeroDuration()) {
    return UsageError(kCommand, "--expire must be positive (or inf)");
  }
  absl::StatusOr<std::unique_ptr<FilterFile>> file =
      LoadFilterFile(args[1], FilterFileLimitsFromFlags());
  if (!file.ok()) return Fail(kCommand, kExitBadInput, file.status());
  const Filter& filter = *(*file)->filter;
  if (filter.lane_bits() != 32) {
    // Lane width is part of where a key's bits go: a compact filter cannot
    // be converted without its keys.
    return Fail(
        kCommand, kExitBadInput,
        absl::StrFormat("%s: a small compact filter (%d-bit lanes) cannot be "
                        "shared: Redis holds 64-byte blocks of 32-bit lanes; "
                        "rebuild it with 'blockbloom build "
                        "--nocompact_small_filters'",
                        args[1], filter.lane_bits()));
  }
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  WarnIfTheServerEvicts(c, options.ttl != absl::InfiniteDuration());
  const std::string name = absl::GetFlag(FLAGS_name);
  const absl::Time start = absl::Now();
  // Ctrl-C (or SIGTERM, SIGHUP) during the upload: the library stops
  // between round trips and deletes the shards it wrote; a second one ends
  // the process at once (the shards then expire after kPendingShardTtl).
  InterruptGuard interrupt;
  options.cancel = &interrupt.flag();
  absl::StatusOr<redis::SharedFilter> shared = redis::SharedFilter::Publish(
      c.connection.get(), name, filter, options, absl::GetFlag(FLAGS_replace));
  if (!shared.ok()) {
    if (absl::IsCancelled(shared.status()) && interrupt.signal() != 0) {
      Fail(kCommand, kExitRedis,
           absl::StrCat("interrupted: nothing was published to ", c.where,
                        " (the shards written so far were deleted)"));
      interrupt.Reraise();  // end as the signal would have
    }
    if (absl::IsAlreadyExists(shared.status())) {
      return Fail(
          kCommand, kExitRedis,
          absl::StrCat(c.where, ": a shared filter named ", Quoted(name),
                       " already exists; give --replace to replace "
                       "it"));
    }
    return RedisError(c, shared.status());
  }
  // The compact encoding stores no key count (the filter then says 0).
  const FilterInfo& info = (*file)->info;
  const std::string keys = info.num_keys_known
                               ? absl::StrCat(info.num_keys, " keys")
                               : std::string("key count not stored");
  Print(absl::StrFormat(
      "published %s to %s as %s: %d bytes of bits in %d shard%s, k = %d, %s, "
      "%.2f s\n",
      args[1], c.where, Quoted(name), filter.shape().size_bytes(),
      shared->num_shards(), shared->num_shards() == 1 ? "" : "s",
      filter.num_probes(), keys, absl::ToDoubleSeconds(absl::Now() - start)));
  if (filter.seed() != 0) {
    // Redis keeps only a fingerprint of the seed.
    Print(absl::StrFormat(
        "its seed is %d: give --seed=%d to download, query and info\n",
        filter.seed(), filter.seed()));
  }
  return FinishOutput(kCommand, stdout,
                      "the filter was published; only this report was lost");
}

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
