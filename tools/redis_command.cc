// blockbloom redis: shared filters in Redis (blockbloom/redis.h) from the
// command line: push a filter file, pull one back, query, describe, delete.
//
// Without hiredis at build time (no BLOCKBLOOM_HAVE_REDIS) the command is
// still listed, so that scripts get a clear error instead of "unknown
// command".
#include <signal.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "tools/commands.h"
#include "tools/flags.h"
#include "tools/report.h"

#ifdef BLOCKBLOOM_HAVE_REDIS
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/redis.h"
#include "blockbloom/sizing.h"
#include "tools/batch_prober.h"
#include "tools/filter_file.h"
#include "tools/info_lines.h"
#include "tools/json_writer.h"
#include "tools/key_reader.h"
#include "tools/output_file.h"
#include "tools/redis_password.h"
#endif

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "redis";

// The flags each subcommand takes (main checks them against the `redis` row
// of commands.cc, which has their union).
struct Subcommand {
  std::string_view name;
  std::vector<std::string_view> flags;
};

const std::vector<Subcommand>& Subcommands() {
  static const auto* subcommands = new std::vector<Subcommand>{
      {"push",
       {"url", "password_file", "name", "shard_bytes", "expire", "replace",
        "max_memory"}},
      {"pull", {"url", "password_file", "name", "seed", "o", "max_memory"}},
      {"query",
       {"url", "password_file", "name", "seed", "count", "input_format",
        "max_memory"}},
      {"info", {"url", "password_file", "name", "seed", "json"}},
      {"delete", {"url", "password_file", "name"}},
  };
  return *subcommands;
}

// Usage errors common to every subcommand: an unknown one, a flag of
// another, no --name. Returns kExitOk if the command line is fine.
int CheckCommandLine(const std::vector<std::string>& args) {
  if (args.empty()) {
    return UsageError(kCommand,
                      "expected a subcommand: push, pull, query, info or "
                      "delete");
  }
  const Subcommand* sub = nullptr;
  for (const Subcommand& s : Subcommands()) {
    if (s.name == args[0]) sub = &s;
  }
  if (sub == nullptr) {
    return UsageError(kCommand,
                      absl::StrCat("unknown subcommand '", args[0],
                                   "'; expected push, pull, query, info or "
                                   "delete"));
  }
  for (const Subcommand& other : Subcommands()) {
    for (std::string_view flag : other.flags) {
      bool ok = false;
      for (std::string_view own : sub->flags) ok = ok || own == flag;
      if (!ok && FlagGiven(flag)) {
        return UsageError(kCommand,
                          absl::StrCat(flag.size() == 1 ? "-" : "--",
                                       std::string(flag), " is not a flag of ",
                                       "redis ", std::string(sub->name)));
      }
    }
  }
  if (absl::GetFlag(FLAGS_name).empty()) {
    return UsageError(kCommand,
                      "--name=NAME is required: the shared filter's name in "
                      "Redis");
  }
#ifdef BLOCKBLOOM_HAVE_REDIS
  // A name the library would refuse is a usage error, before connecting.
  if (absl::Status s =
          redis::SharedFilter::ValidateName(absl::GetFlag(FLAGS_name));
      !s.ok()) {
    return UsageError(kCommand, absl::StrCat("--name: ", s.message()));
  }
#endif
  return kExitOk;
}

#ifdef BLOCKBLOOM_HAVE_REDIS

// A connection to --url, or the exit code after reporting why not.
struct Connected {
  std::unique_ptr<redis::Connection> connection;
  std::string where;  // "redis://host:port" for messages
  int exit_code = kExitOk;
};

Connected Connect() {
  Connected c;
  const std::string url = absl::GetFlag(FLAGS_url);
  absl::StatusOr<redis::ConnectionOptions> options = redis::ParseUrl(url);
  if (!options.ok()) {
    // The message quotes the URL without its password.
    c.exit_code = UsageError(
        kCommand, absl::StrCat("--url: ", options.status().message()));
    return c;
  }
  // The password from a file or the environment rather than the URL,
  // where `ps` shows it (tools/redis_password.h).
  absl::StatusOr<std::optional<Password>> password =
      PasswordFromFlagsOrEnvironment(!options->password.empty());
  if (!password.ok()) {
    c.exit_code = absl::IsInvalidArgument(password.status())
                      ? UsageError(kCommand, password.status())
                      : Fail(kCommand, kExitBadInput, password.status());
    return c;
  }
  std::string password_source;
  if (password->has_value()) {
    options->password = (*password)->secret;
    password_source = (*password)->source;
  }
  const bool ipv6 = options->host.find(':') != std::string::npos;
  c.where = absl::StrCat("redis://", ipv6 ? "[" : "", options->host,
                         ipv6 ? "]" : "", ":", options->port);
  absl::StatusOr<std::unique_ptr<redis::Connection>> connection =
      redis::Connection::Connect(*options);
  if (!connection.ok()) {
    // (The library's messages never include the password.)
    c.exit_code =
        Fail(kCommand, kExitRedis,
             absl::StrCat("cannot connect to ", c.where, ": ",
                          connection.status().message(),
                          absl::IsPermissionDenied(connection.status()) &&
                                  !password_source.empty()
                              ? absl::StrCat(" (the password came from ",
                                             password_source, ")")
                              : std::string()));
    return c;
  }
  c.connection = std::move(*connection);
  return c;
}

int RedisError(const Connected& c, const absl::Status& status) {
  std::string message = absl::StrCat(c.where, ": ", status.message());
  if (absl::IsFailedPrecondition(status) &&
      absl::StrContains(status.message(), "seed") && !FlagGiven("seed")) {
    // The usual cause: a filter pushed with a seed, opened without one.
    absl::StrAppend(&message,
                    " (a filter built with --seed=S is opened with the same "
                    "--seed=S)");
  }
  return Fail(kCommand, kExitRedis, message);
}

absl::StatusOr<redis::SharedFilter> OpenShared(const Connected& c) {
  return redis::SharedFilter::Open(
      c.connection.get(), absl::GetFlag(FLAGS_name), absl::GetFlag(FLAGS_seed));
}

std::string Quoted(std::string_view name) {
  return absl::StrCat("'", std::string(name), "'");
}

// While alive, SIGINT, SIGTERM and SIGHUP set flag() instead of ending the
// process (once: the next one ends it, as usual). Signals ignored by whoever
// started us stay ignored.
class InterruptGuard {
 public:
  InterruptGuard() {
    caught_ = 0;
    flag_.store(false);
    struct sigaction action = {};
    action.sa_handler = &InterruptGuard::OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_RESETHAND;
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler != SIG_IGN) {
        ::sigaction(kSignals[i], &action, nullptr);
      }
    }
  }
  ~InterruptGuard() {
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &old_[i], nullptr);
    }
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  const std::atomic<bool>& flag() const { return flag_; }
  int signal() const { return caught_; }
  // Ends the process with the signal caught (its default action).
  void Reraise() {
    std::fflush(nullptr);
    ::signal(caught_, SIG_DFL);
    ::raise(caught_);
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  static void OnSignal(int signal_number) {
    caught_ = signal_number;
    flag_.store(true);
  }
  static inline std::atomic<bool> flag_{false};
  static inline volatile std::sig_atomic_t caught_ = 0;
  struct sigaction old_[std::size(kSignals)] = {};
};
static_assert(std::atomic<bool>::is_always_lock_free,
              "a signal handler may only set a lock-free atomic");

// A server that evicts keys under memory pressure can drop a filter's
// shards at any time (queries then fail open with DataLoss): say so before
// pushing. volatile-* policies evict only keys with a TTL (--expire).
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

int Push(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    return UsageError(kCommand, absl::StrCat("redis push expects one FILTER "
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
           absl::StrCat("interrupted: nothing was pushed to ", c.where,
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
      "pushed %s to %s as %s: %d bytes of bits in %d shard%s, k = %d, %s, "
      "%.2f s\n",
      args[1], c.where, Quoted(name), filter.shape().size_bytes(),
      shared->num_shards(), shared->num_shards() == 1 ? "" : "s",
      filter.num_probes(), keys, absl::ToDoubleSeconds(absl::Now() - start)));
  if (filter.seed() != 0) {
    // Redis keeps only a fingerprint of the seed.
    Print(absl::StrFormat(
        "its seed is %d: give --seed=%d to pull, query and info\n",
        filter.seed(), filter.seed()));
  }
  return FinishOutput(kCommand, stdout,
                      "the filter was pushed; only this report was lost");
}

int Pull(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand,
                      "redis pull takes no arguments: -o FILTER "
                      "names the file to write");
  }
  const std::string output = absl::GetFlag(FLAGS_o);
  if (output.empty() || output == "-") {
    return UsageError(kCommand, "-o FILTER (a file) is required");
  }
  // Settled before connecting (tools/output_file.h): a directory or a block
  // device is refused, a device or pipe is written into.
  absl::StatusOr<OutputFile> out = OutputFile::Resolve(output);
  if (!out.ok()) return Fail(kCommand, kExitWriteError, out.status());
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  // The whole filter is held in memory to be written: within --max_memory.
  const uint64_t bits_bytes = shared->shape().size_bytes();
  const uint64_t max_memory = absl::GetFlag(FLAGS_max_memory).bytes;
  if (bits_bytes > max_memory) {
    return Fail(
        kCommand, kExitBadInput,
        absl::StrFormat("%s: shared filter %s holds %d bytes of bits, "
                        "over --max_memory=%s; give --max_memory=%s "
                        "(or more) to pull it",
                        c.where, Quoted(shared->name()), bits_bytes,
                        SizeForFlag(max_memory), SizeForFlag(bits_bytes)));
  }
  absl::StatusOr<std::string> block = shared->Download();
  if (!block.ok()) return RedisError(c, block.status());
  if (absl::Status s = out->Write(*block); !s.ok()) {
    Fail(kCommand, kExitWriteError, s);
    std::fprintf(stderr, "nothing written to %s\n", output.c_str());
    return kExitWriteError;
  }
  Print(absl::StrFormat("pulled %s from %s: %d bytes written to %s\n",
                        Quoted(shared->name()), c.where, block->size(),
                        output));
  return FinishOutput(kCommand, stdout,
                      absl::StrCat("the filter was written to ", output,
                                   "; only this report was lost"));
}

// Keys are checked in batches of at most this many keys or bytes (each batch
// is a few pipelined round trips).
constexpr size_t kBatchKeys = 4096;
constexpr size_t kBatchBytes = size_t{1} << 20;

int Query(const std::vector<std::string>& args) {
  if (args.size() > 2) {
    return UsageError(kCommand, "redis query takes at most one KEYS file");
  }
  const std::string keys_path = args.size() == 2 ? args[1] : "-";
  absl::StatusOr<InputFormat> format = InputFormatFlag();
  if (!format.ok()) return UsageError(kCommand, format.status());
  absl::StatusOr<std::unique_ptr<KeyReader>> reader =
      KeyReader::Open(keys_path, *format);
  if (!reader.ok()) return Fail(kCommand, kExitBadInput, reader.status());
  (*reader)->set_max_key_bytes(absl::GetFlag(FLAGS_max_memory).bytes,
                               "--max_memory");
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  shared->set_pipeline_depth(256);

  redis::SharedFilter& filter = *shared;
  return ProbeKeys(
      kCommand, reader->get(), kBatchKeys, kBatchBytes,
      [&filter](absl::Span<const std::string_view> keys,
                absl::Span<bool> results) {
        return filter.MayContainBatch(keys, results);
      },
      [&c](const absl::Status& status) { return RedisError(c, status); });
}

int Info(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand, "redis info takes no arguments");
  }
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  absl::StatusOr<uint64_t> count = shared->ApproximateCount();
  if (!count.ok()) return RedisError(c, count.status());
  absl::StatusOr<absl::Duration> ttl = shared->Ttl();
  if (!ttl.ok()) return RedisError(c, ttl.status());
  const FilterShape& shape = shared->shape();
  const uint64_t bits_bytes = shape.size_bytes();
  const double fp_rate = EstimatedFpRate(shape, *count).value_or(NAN);
  const double bits_per_key =
      *count == 0
          ? NAN
          : 8.0 * static_cast<double>(bits_bytes) / static_cast<double>(*count);
  const bool spread = shared->placement() == redis::Placement::kSpread;
  const std::vector<std::string> keys = shared->RedisKeys();
  const std::string ttl_text =
      *ttl == absl::InfiniteDuration() ? "none" : absl::FormatDuration(*ttl);

  std::string out;
  if (absl::GetFlag(FLAGS_json)) {
    JsonObject json;
    json.Add("server", c.where);
    json.Add("name", shared->name());
    json.Add("metadata_key", keys.front());
    json.Add("placement", spread ? "spread" : "together");
    json.Add("lane_bits", shape.lane_bits);
    json.Add("block_bytes", uint64_t{2} * shape.lane_bits);
    json.Add("num_probes", shape.num_probes);
    json.Add("seed", shared->seed());
    json.Add("num_blocks", shape.num_blocks);
    json.Add("bits_bytes", bits_bytes);
    json.Add("num_shards", shared->num_shards());
    json.Add("blocks_per_shard", shared->blocks_per_shard());
    if (*ttl == absl::InfiniteDuration()) {
      json.AddNull("ttl_seconds");
    } else {
      json.Add("ttl_seconds", absl::ToDoubleSeconds(*ttl));
    }
    json.Add("estimated_keys", *count);
    json.Add("bits_per_key", bits_per_key);
    json.Add("estimated_fp_rate", fp_rate);
    out = json.str() + "\n";
  } else {
    const auto line = [&out](const char* name, const std::string& value) {
      AppendInfoLine(&out, name, value);
    };
    line("server", c.where);
    line("name", shared->name());
    line("metadata key", keys.front());
    AppendShapeLines(&out, shape, shared->seed());
    line("size", absl::StrFormat("%d bytes of bits", bits_bytes));
    line("shards",
         absl::StrFormat("%d of up to %d blocks (placement %s)",
                         shared->num_shards(), shared->blocks_per_shard(),
                         spread ? "spread" : "together"));
    line("expires in", ttl_text);
    line("estimated distinct keys",
         absl::StrFormat("%d (from the bits set)", *count));
    if (!std::isnan(bits_per_key)) {
      line("bits per key", absl::StrFormat("%.2f", bits_per_key));
    }
    line("estimated FPR",
         absl::StrFormat("%.4g%% (for the estimated keys)", 100 * fp_rate));
  }
  Print(out);
  return FinishOutput(kCommand);
}

int Delete(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand, "redis delete takes no arguments");
  }
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  const std::string name = absl::GetFlag(FLAGS_name);
  if (absl::Status s = redis::SharedFilter::Delete(c.connection.get(), name);
      !s.ok()) {
    return RedisError(c, s);
  }
  // And what interrupted pushes left behind under the name.
  absl::StatusOr<uint64_t> orphans =
      redis::SharedFilter::DeleteOrphans(c.connection.get(), name);
  if (!orphans.ok()) return RedisError(c, orphans.status());
  Print(absl::StrFormat(
      "deleted %s from %s (nothing to do if it did not exist)%s\n",
      Quoted(name), c.where,
      *orphans == 0 ? ""
                    : absl::StrFormat("; also %d orphaned shard%s of "
                                      "interrupted pushes",
                                      *orphans, *orphans == 1 ? "" : "s")));
  return FinishOutput(kCommand, stdout,
                      "the filter was deleted; only this report was lost");
}

#endif  // BLOCKBLOOM_HAVE_REDIS

}  // namespace

int RunRedis(const std::vector<std::string>& args) {
  if (int code = CheckCommandLine(args); code != kExitOk) return code;
#ifdef BLOCKBLOOM_HAVE_REDIS
  const std::string& sub = args[0];
  if (sub == "push") return Push(args);
  if (sub == "pull") return Pull(args);
  if (sub == "query") return Query(args);
  if (sub == "info") return Info(args);
  return Delete(args);
#else
  return Fail(kCommand, kExitRedis,
              "this blockbloom was built without Redis support: install "
              "libhiredis-dev and rebuild");
#endif
}

}  // namespace blockbloom::cli
