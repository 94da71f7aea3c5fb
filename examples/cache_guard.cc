// Cache-penetration guard: a shared blockbloom filter in Redis in front of a
// cache and a database.
//
// The set-up of many web services: user profiles in a database (here
// LevelDB), a Redis cache in front (GET; on a miss, read the database and
// SET the value). A user that does not exist is never cached, so an attacker
// asking for random absent ids goes through the cache to the database every
// time: cache penetration. The guard is a Bloom filter of every user id,
// shared by all app servers through Redis (blockbloom/redis_client.h):
// "definitely absent" answers without touching the cache or the database;
// only its false positives (about 1% of the attack) get through. It never turns
// away a real user (no false negatives), and if the filter cannot be read
// (Redis down, the key deleted or evicted) it fails open: "may contain", so
// traffic goes to the database as without a guard, never refused.
//
// The program fills a LevelDB database with --users profiles, builds the
// filter in-process and publishes it to Redis, then serves the same workload
// (--requests, a fraction --attack_fraction of them random absent ids) three
// times: without the guard, with it, and with the filter deleted from Redis
// behind the guard's back. It prints the database reads of each.
//
//   blockbloom_cache_guard --redis_url=redis://127.0.0.1:6379
//
// It writes keys "cache_guard:*" (cache entries expire after 10 minutes) and
// the filter "cache_guard_users" (deleted on every exit, and expiring after
// an hour should the program be killed) to that server.
#include <hiredis/hiredis.h>
#include <leveldb/db.h>
#include <leveldb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "blockbloom/filter.h"
#include "blockbloom/leveldb.h"
#include "blockbloom/redis_client.h"

ABSL_FLAG(std::string, redis_url, "",
          "The Redis server for the cache and the shared filter "
          "(redis://host:port[/db]); required.");
ABSL_FLAG(uint64_t, users, 10'000,
          "Users in the database; legitimate requests pick one uniformly.");
ABSL_FLAG(uint64_t, requests, 200'000, "Requests per run.");
ABSL_FLAG(double, attack_fraction, 0.5,
          "Fraction of the requests that ask for random absent user ids.");
ABSL_FLAG(int, db_latency_us, 0,
          "Simulated latency of each database read, in microseconds (a disk "
          "or a remote database; LevelDB here is in the page cache).");
ABSL_FLAG(double, fp_rate, 0.01, "The guard filter's false-positive rate.");
ABSL_FLAG(uint64_t, seed, 0x5eed'cafe'f00d'd00dULL,
          "The filter's hash seed (keep it secret in production: attackers "
          "who know it can pick ids that are false positives).");

namespace {

using blockbloom::redis::SharedFilter;

constexpr char kFilterName[] = "cache_guard_users";

std::string UserKey(uint64_t id) { return absl::StrCat("user:", id); }

// The database: LevelDB with user:<id> -> profile. Each read can wait
// --db_latency_us to stand for a slower store.
class Database {
 public:
  static absl::StatusOr<std::unique_ptr<Database>> Create(
      const std::string& path, uint64_t users, absl::Duration latency) {
    auto db = std::unique_ptr<Database>(new Database(latency));
    leveldb::Options options;
    options.create_if_missing = true;
    options.error_if_exists = true;
    options.filter_policy = db->policy_.get();
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(options, path, &raw);
    if (!s.ok()) return absl::InternalError(s.ToString());
    db->db_.reset(raw);
    leveldb::WriteBatch batch;
    for (uint64_t id = 0; id < users; ++id) {
      batch.Put(UserKey(id), Profile(id));
      if (batch.ApproximateSize() > (1 << 20) || id + 1 == users) {
        s = db->db_->Write(leveldb::WriteOptions(), &batch);
        if (!s.ok()) return absl::InternalError(s.ToString());
        batch.Clear();
      }
    }
    db->db_->CompactRange(nullptr, nullptr);
    return db;
  }

  static std::string Profile(uint64_t id) {
    return absl::StrFormat(R"({"id": %d, "name": "user %d", "plan": "%s"})", id,
                           id, id % 7 == 0 ? "pro" : "free");
  }

  // NotFound for an absent user.
  absl::StatusOr<std::string> Read(const std::string& key) {
    ++reads_;
    if (latency_ > absl::ZeroDuration()) absl::SleepFor(latency_);
    std::string value;
    leveldb::Status s = db_->Get(leveldb::ReadOptions(), key, &value);
    if (s.IsNotFound()) return absl::NotFoundError(key);
    if (!s.ok()) return absl::InternalError(s.ToString());
    return value;
  }

  uint64_t reads() const { return reads_; }

 private:
  explicit Database(absl::Duration latency)
      : latency_(latency), policy_(blockbloom::NewLevelDBFilterPolicy(10)) {}

  absl::Duration latency_;
  std::unique_ptr<const leveldb::FilterPolicy> policy_;
  std::unique_ptr<leveldb::DB> db_;
  uint64_t reads_ = 0;
};

// The cache: GET and SET on a hiredis connection.
class Cache {
 public:
  static absl::StatusOr<std::unique_ptr<Cache>> Connect(
      const blockbloom::redis::ConnectionOptions& options) {
    const timeval timeout = {1, 0};
    redisContext* c =
        redisConnectWithTimeout(options.host.c_str(), options.port, timeout);
    if (c == nullptr || c->err) {
      std::string error = c ? c->errstr : "out of memory";
      if (c) redisFree(c);
      return absl::UnavailableError(absl::StrCat("cache: cannot connect to ",
                                                 options.host, ":",
                                                 options.port, ": ", error));
    }
    redisSetTimeout(c, timeout);
    auto cache = std::unique_ptr<Cache>(new Cache(c));
    if (!options.password.empty()) {
      absl::Status s = options.username.empty()
                           ? cache->Check(static_cast<redisReply*>(redisCommand(
                                 c, "AUTH %s", options.password.c_str())))
                           : cache->Check(static_cast<redisReply*>(redisCommand(
                                 c, "AUTH %s %s", options.username.c_str(),
                                 options.password.c_str())));
      if (!s.ok()) return s;
    }
    if (options.database != 0) {
      absl::Status s = cache->Check(static_cast<redisReply*>(
          redisCommand(c, "SELECT %d", options.database)));
      if (!s.ok()) return s;
    }
    return cache;
  }
  ~Cache() { redisFree(context_); }

  // The cached value, or nullopt-like NotFound on a miss.
  absl::StatusOr<std::string> Get(const std::string& key) {
    auto* reply = static_cast<redisReply*>(
        redisCommand(context_, "GET %b", key.data(), key.size()));
    if (reply == nullptr) return absl::UnavailableError(context_->errstr);
    absl::StatusOr<std::string> result = absl::NotFoundError(key);
    if (reply->type == REDIS_REPLY_STRING) {
      result = std::string(reply->str, reply->len);
    } else if (reply->type == REDIS_REPLY_ERROR) {
      result = absl::InternalError(std::string(reply->str, reply->len));
    }
    freeReplyObject(reply);
    return result;
  }

  absl::Status Set(const std::string& key, const std::string& value) {
    return Check(static_cast<redisReply*>(
        redisCommand(context_, "SET %b %b EX 600", key.data(), key.size(),
                     value.data(), value.size())));
  }

 private:
  explicit Cache(redisContext* context) : context_(context) {}

  absl::Status Check(redisReply* reply) {
    if (reply == nullptr) return absl::UnavailableError(context_->errstr);
    absl::Status s = reply->type == REDIS_REPLY_ERROR
                         ? absl::InternalError(std::string(reply->str))
                         : absl::OkStatus();
    freeReplyObject(reply);
    return s;
  }

  redisContext* context_;
};

struct RunStats {
  uint64_t requests = 0;
  uint64_t refused_by_guard = 0;
  uint64_t cache_hits = 0;
  uint64_t db_reads = 0;
  uint64_t absent_at_db = 0;   // absent users that reached the database
  uint64_t missing_users = 0;  // real users answered "no such user": bugs
  uint64_t guard_errors = 0;   // filter reads that failed (fail-open)
  absl::Status first_guard_error;
  double seconds = 0;
};

// Serves --requests requests. Each is, with probability --attack_fraction,
// a random id that is not a user, otherwise a uniformly chosen user. The
// generator is seeded the same way every run: the runs see the same ids.
absl::StatusOr<RunStats> Serve(Database& db, Cache& cache, SharedFilter* guard,
                               const std::string& cache_prefix) {
  const uint64_t users = absl::GetFlag(FLAGS_users);
  const double attack = absl::GetFlag(FLAGS_attack_fraction);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<uint64_t> user(0, users - 1);
  std::uniform_int_distribution<uint64_t> stranger(users, uint64_t{1} << 48);

  RunStats stats;
  const uint64_t db_reads_before = db.reads();
  const absl::Time start = absl::Now();
  for (uint64_t i = 0; i < absl::GetFlag(FLAGS_requests); ++i) {
    const bool is_attack = coin(rng) < attack;
    const uint64_t id = is_attack ? stranger(rng) : user(rng);
    const std::string key = UserKey(id);
    ++stats.requests;
    if (guard != nullptr) {
      absl::Status error;
      const bool may_exist = guard->MayContainOrFailOpen(key, &error);
      if (!error.ok()) {
        if (stats.guard_errors++ == 0) stats.first_guard_error = error;
      }
      if (!may_exist) {
        // "No such user" without touching the cache or the database.
        ++stats.refused_by_guard;
        if (!is_attack) ++stats.missing_users;
        continue;
      }
    }
    const std::string cache_key = cache_prefix + key;
    absl::StatusOr<std::string> cached = cache.Get(cache_key);
    if (cached.ok()) {
      ++stats.cache_hits;
      continue;
    }
    if (!absl::IsNotFound(cached.status())) return cached.status();
    absl::StatusOr<std::string> profile = db.Read(key);
    if (absl::IsNotFound(profile.status())) {
      // Absent users are not cached: the penetration the guard prevents.
      ++stats.absent_at_db;
      if (!is_attack) ++stats.missing_users;
      continue;
    }
    if (!profile.ok()) return profile.status();
    if (absl::Status s = cache.Set(cache_key, *profile); !s.ok()) return s;
  }
  stats.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  stats.db_reads = db.reads() - db_reads_before;
  return stats;
}

// "false positives" only for a working guard: the absent users it let
// through. (Failing open, it lets every one through.)
void PrintRow(const char* name, const RunStats& s, bool guarded) {
  guarded = guarded && s.guard_errors == 0;
  absl::PrintF("%-22s %9d %9d %11d %9d %12d %15s %8d %10.0f\n", name,
               s.requests, s.refused_by_guard, s.cache_hits, s.db_reads,
               s.absent_at_db, guarded ? absl::StrCat(s.absent_at_db) : "-",
               s.missing_users, s.requests / s.seconds);
}

absl::Status Main() {
  const std::string url = absl::GetFlag(FLAGS_redis_url);
  if (url.empty()) {
    return absl::InvalidArgumentError(
        "--redis_url=redis://HOST:PORT is required (a Redis server to use "
        "as the cache and to hold the shared filter)");
  }
  const uint64_t users = absl::GetFlag(FLAGS_users);
  const double attack = absl::GetFlag(FLAGS_attack_fraction);
  if (users == 0 || !(attack >= 0 && attack <= 1)) {
    return absl::InvalidArgumentError(
        "--users must be > 0 and --attack_fraction in [0, 1]");
  }
  absl::StatusOr<blockbloom::redis::ConnectionOptions> options =
      blockbloom::redis::ParseUrl(url);
  if (!options.ok()) return options.status();

  // The database, in a fresh temporary directory.
  char dir_template[] = "/tmp/blockbloom_cache_guard_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError("cannot create a temporary directory");
  }
  const std::filesystem::path dir = dir_template;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{dir};
  absl::StatusOr<std::unique_ptr<Database>> db =
      Database::Create((dir / "users").string(), users,
                       absl::Microseconds(absl::GetFlag(FLAGS_db_latency_us)));
  if (!db.ok()) return db.status();

  absl::StatusOr<std::unique_ptr<Cache>> cache = Cache::Connect(*options);
  if (!cache.ok()) return cache.status();

  // The guard: built in-process at full speed from every user id, then
  // published (64-byte blocks at every size: compact_small_filters off).
  absl::StatusOr<std::unique_ptr<blockbloom::redis::Connection>> redis =
      blockbloom::redis::Connection::Connect(*options);
  if (!redis.ok()) return redis.status();
  // The filter leaves Redis on every return below (the third run deletes it
  // already; then this is a no-op). Declared after `redis`: runs before the
  // connection closes.
  struct DeleteFilter {
    blockbloom::redis::Connection* redis;
    ~DeleteFilter() {
      if (absl::Status s = SharedFilter::Delete(redis, kFilterName); !s.ok()) {
        absl::FPrintF(stderr, "cache_guard: could not delete '%s': %s\n",
                      kFilterName, s.ToString());
      }
    }
  } delete_filter{redis->get()};
  blockbloom::FilterOptions filter_options;
  filter_options.fp_rate = absl::GetFlag(FLAGS_fp_rate);
  filter_options.seed = absl::GetFlag(FLAGS_seed);
  filter_options.compact_small_filters = false;
  absl::StatusOr<blockbloom::FilterBuilder> builder =
      blockbloom::FilterBuilder::Create(filter_options);
  if (!builder.ok()) return builder.status();
  for (uint64_t id = 0; id < users; ++id) builder->Add(UserKey(id));
  absl::StatusOr<blockbloom::Filter> filter = builder->Finish();
  if (!filter.ok()) return filter.status();
  // And it expires after an hour should the program be killed.
  blockbloom::redis::SharedFilterOptions shared_options;
  shared_options.ttl = absl::Hours(1);
  absl::StatusOr<SharedFilter> guard = SharedFilter::Publish(
      redis->get(), kFilterName, *filter, shared_options, /*replace=*/true);
  if (!guard.ok()) return guard.status();

  absl::PrintF(
      "cache_guard: %d users in LevelDB, Redis cache at %s:%d, %d requests "
      "per run (%.0f%% random absent ids), db latency %d us\n"
      "guard: shared filter '%s' in Redis, %d bytes, k = %d, %.2f%% "
      "expected false positives\n\n",
      users, options->host, options->port, absl::GetFlag(FLAGS_requests),
      100 * attack, absl::GetFlag(FLAGS_db_latency_us), kFilterName,
      filter->shape().size_bytes(), filter->num_probes(),
      100 * filter->EstimatedFpRate());
  absl::PrintF("%-22s %9s %9s %11s %9s %12s %15s %8s %10s\n", "run", "requests",
               "refused", "cache hits", "DB reads", "absent at DB",
               "false positives", "missing", "req/s");

  // Each run has its own cache key prefix, so each starts with a cold cache.
  const std::string run_id = absl::StrCat(absl::ToUnixMicros(absl::Now()));
  absl::StatusOr<RunStats> plain = Serve(
      **db, **cache, nullptr, absl::StrCat("cache_guard:", run_id, ":1:"));
  if (!plain.ok()) return plain.status();
  PrintRow("no guard", *plain, false);
  absl::StatusOr<RunStats> guarded = Serve(
      **db, **cache, &*guard, absl::StrCat("cache_guard:", run_id, ":2:"));
  if (!guarded.ok()) return guarded.status();
  PrintRow("shared-filter guard", *guarded, true);

  // Fail-open: the filter vanishes from Redis (deleted, evicted) behind the
  // guard's back. Every check fails, answers "may contain", and the traffic
  // goes to the database as without a guard; no real user is refused.
  if (absl::Status s = SharedFilter::Delete(redis->get(), kFilterName);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<RunStats> lost = Serve(
      **db, **cache, &*guard, absl::StrCat("cache_guard:", run_id, ":3:"));
  if (!lost.ok()) return lost.status();
  PrintRow("guard, filter deleted", *lost, true);

  absl::PrintF(
      "\nDB reads: %d without the guard, %d with it (%.1fx fewer); absent "
      "users at the DB: %d -> %d.\n",
      plain->db_reads, guarded->db_reads,
      static_cast<double>(plain->db_reads) /
          static_cast<double>(std::max<uint64_t>(1, guarded->db_reads)),
      plain->absent_at_db, guarded->absent_at_db);
  absl::PrintF(
      "Filter deleted: %d of %d checks failed (%s) and failed open: %d DB "
      "reads, %d real users refused.\n",
      lost->guard_errors, lost->requests,
      absl::StatusCodeToString(lost->first_guard_error.code()), lost->db_reads,
      lost->missing_users);
  if (!lost->first_guard_error.ok()) {
    absl::PrintF("  first error: %s\n", lost->first_guard_error.message());
  }
  if (plain->missing_users + guarded->missing_users + lost->missing_users !=
      0) {
    return absl::InternalError("a real user was answered \"no such user\"");
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Cache-penetration guard: a shared blockbloom filter in Redis in front "
      "of a Redis cache and a LevelDB database.\n"
      "  blockbloom_cache_guard --redis_url=redis://127.0.0.1:6379");
  absl::ParseCommandLine(argc, argv);
  absl::Status status = Main();
  if (!status.ok()) {
    std::fprintf(stderr, "cache_guard: error: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
