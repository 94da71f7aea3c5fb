// Shared Bloom filters in Redis, side by side on ONE server in one run
// (issue 9, docs/BENCHMARKS.md "Shared filters in Redis"):
//
//   go-zero      core/bloom: a Lua script of k=14 GETBITs / SETBITs on one
//                string key, one EVALSHA per key;
//   Redisson     RBloomFilter: k=7 GETBIT / SETBIT commands per key;
//   GETRANGE     a hand-rolled prototype of blockbloom's layout over bare
//                hiredis: one 64-byte GETRANGE per query, one BITFIELD per
//                add (what the protocol costs without the library), with
//                one batch in flight and, like the library, with two;
//   blockbloom   blockbloom::redis::SharedFilter (AddBatch, MayContainBatch,
//                MayContain), at pipeline depths 32 and 64.
//
// Every contender gets the same inserted keys and the same absent keys, on a
// server FLUSHALLed per repetition; repetitions are interleaved (contender A,
// B, ... then A, B, ... again) so that drift on the machine hits all alike. For
// each: queries/s and adds/s (pipelined, one client), server CPU per query
// and per add (INFO cpu before and after the phase), the FPR over the absent
// keys, the bytes held in Redis (STRLEN) and the latency of one query alone
// against a PING. Correctness is checked cheaply: every inserted key must
// answer "may contain" in every contender (first repetition); any false
// negative or error exits non-zero. No timing is asserted.
//
// Run it with bench/redis_run (starts a pinned server, pins the client).

#include <hiredis/hiredis.h>
#include <sys/resource.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "blockbloom/hash.h"
#include "blockbloom/redis.h"

ABSL_FLAG(std::string, url, "",
          "the server, required (a standalone Redis; it is FLUSHALLed! "
          "bench/redis_run starts a private one)");
ABSL_FLAG(uint64_t, keys, 1000000, "keys inserted into each filter");
ABSL_FLAG(uint64_t, queries, 1000000,
          "absent keys queried per repetition (the timed queries and the FPR)");
ABSL_FLAG(int, depth, 32,
          "pipeline depth of the baselines: keys per round trip (Redisson "
          "sends k commands per key)");
ABSL_FLAG(std::string, our_depths, "32,64",
          "pipeline depths (SharedFilter::set_pipeline_depth) of the "
          "blockbloom rows, comma-separated");
ABSL_FLAG(int, repetitions, 5,
          "interleaved repetitions; the table shows median [min-max]");
ABSL_FLAG(int, latency_samples, 20000,
          "single queries (and PINGs) timed one at a time per contender");
ABSL_FLAG(double, bits_per_key, 10,
          "memory of go-zero, GETRANGE and blockbloom (Redisson sizes itself "
          "from --fp_rate)");
ABSL_FLAG(double, fp_rate, 0.01, "Redisson's falseProbability");
ABSL_FLAG(double, gozero_bits_per_key, 0,
          "go-zero's bits per key (its docs suggest 20); 0: --bits_per_key");
ABSL_FLAG(
    std::string, contenders, "gozero,redisson,getrange,getrange2,blockbloom",
    "which contenders to run, comma-separated: gozero, redisson, getrange "
    "(one batch in flight), getrange2 (two, as the library), blockbloom "
    "(a row per --our_depths)");
ABSL_FLAG(std::string, csv, "", "also write the results as CSV to this file");
ABSL_FLAG(std::string, markdown, "",
          "also write the markdown table to this file");

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ---------------------------------------------------------------------------
// Bare hiredis: RESP commands written into one buffer, replies read one by
// one. The baselines pipeline through this, as their own clients do.

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class Pipe {
 public:
  static absl::StatusOr<std::unique_ptr<Pipe>> Connect(const std::string& host,
                                                       int port) {
    timeval timeout{5, 0};
    redisContext* context =
        redisConnectWithTimeout(host.c_str(), port, timeout);
    if (context == nullptr || context->err) {
      std::string error = context ? context->errstr : "out of memory";
      if (context) redisFree(context);
      return absl::UnavailableError(
          absl::StrCat("connect to ", host, ":", port, ": ", error));
    }
    redisSetTimeout(context, timeval{30, 0});
    return std::unique_ptr<Pipe>(new Pipe(context));
  }
  ~Pipe() { redisFree(context_); }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  // Appends one command to the pending buffer (RESP array of bulk strings).
  void Begin(int argc) {
    buffer_ += '*';
    AppendNumber(argc);
    buffer_ += "\r\n";
  }
  void Arg(std::string_view arg) {
    buffer_ += '$';
    AppendNumber(arg.size());
    buffer_ += "\r\n";
    buffer_.append(arg);
    buffer_ += "\r\n";
  }
  void Arg(uint64_t number) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), number).ptr;
    Arg(std::string_view(digits, end - digits));
  }
  void Command(std::initializer_list<std::string_view> args) {
    Begin(static_cast<int>(args.size()));
    for (std::string_view arg : args) Arg(arg);
  }

  // Hands the pending commands to hiredis (written by the first Read).
  void Send() {
    if (buffer_.empty()) return;
    redisAppendFormattedCommand(context_, buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  // Sends everything pending now (hiredis would write it only when no
  // reply is already buffered: too late for a second batch in flight).
  absl::Status Flush() {
    Send();
    int done = 0;
    while (!done) {
      if (redisBufferWrite(context_, &done) != REDIS_OK) {
        return absl::UnavailableError(
            absl::StrCat("redis: ", context_->errstr));
      }
    }
    return absl::OkStatus();
  }
  // The next reply; error replies are errors.
  absl::StatusOr<Reply> Read() {
    Send();
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
      return absl::UnavailableError(absl::StrCat("redis: ", context_->errstr));
    }
    Reply reply(static_cast<redisReply*>(raw));
    if (reply->type == REDIS_REPLY_ERROR) {
      return absl::InternalError(
          absl::StrCat("redis: ", std::string(reply->str, reply->len)));
    }
    return reply;
  }
  // One command, one round trip.
  absl::StatusOr<Reply> Call(std::initializer_list<std::string_view> args) {
    Command(args);
    return Read();
  }
  absl::StatusOr<int64_t> CallInteger(
      std::initializer_list<std::string_view> args) {
    absl::StatusOr<Reply> reply = Call(args);
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_INTEGER) {
      return absl::InternalError("redis: expected an integer reply");
    }
    return (*reply)->integer;
  }

 private:
  explicit Pipe(redisContext* context) : context_(context) {}
  // In place (appending from a local array trips GCC 12's -Wrestrict).
  void AppendNumber(uint64_t n) {
    const size_t old = buffer_.size();
    buffer_.resize(old + 20);
    char* begin = buffer_.data() + old;
    buffer_.resize(std::to_chars(begin, begin + 20, n).ptr - buffer_.data());
  }

  redisContext* context_;
  std::string buffer_;
};

// The server's CPU time so far (user + sys, all of its threads), from INFO.
absl::StatusOr<double> ServerCpuSeconds(Pipe& pipe) {
  absl::StatusOr<Reply> reply = pipe.Call({"INFO", "cpu"});
  if (!reply.ok()) return reply.status();
  double total = 0;
  int found = 0;
  for (absl::string_view line : absl::StrSplit(
           absl::string_view((*reply)->str, (*reply)->len), "\r\n")) {
    for (absl::string_view field : {"used_cpu_user:", "used_cpu_sys:"}) {
      if (absl::StartsWith(line, field)) {
        double value;
        if (!absl::SimpleAtod(line.substr(field.size()), &value)) {
          return absl::InternalError(absl::StrCat("bad INFO line ", line));
        }
        total += value;
        ++found;
      }
    }
  }
  if (found != 2) return absl::InternalError("INFO cpu: no used_cpu_*");
  return total;
}

absl::StatusOr<uint64_t> StrLen(Pipe& pipe, std::string_view key) {
  absl::StatusOr<int64_t> n = pipe.CallInteger({"STRLEN", key});
  if (!n.ok()) return n.status();
  return static_cast<uint64_t>(*n);
}

absl::Status ExpectInteger(const absl::StatusOr<Reply>& reply) {
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_INTEGER) {
    return absl::InternalError("redis: expected an integer reply");
  }
  return absl::OkStatus();
}

absl::Status ExpectStatusOk(const absl::StatusOr<Reply>& reply) {
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_STATUS) {
    return absl::InternalError("redis: expected a status reply");
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// The contenders.

class Contender {
 public:
  virtual ~Contender() = default;
  virtual std::string name() const = 0;
  // k, m: what the contender chose for n keys.
  virtual std::string params() const = 0;
  // An empty filter for n keys (its own keys from a previous run deleted).
  virtual absl::Status Create(uint64_t n) = 0;
  // Adds / queries every key, pipelined.
  virtual absl::Status Add(absl::Span<const std::string_view> keys) = 0;
  virtual absl::Status Query(absl::Span<const std::string_view> keys,
                             absl::Span<bool> results) = 0;
  // One query alone: one round trip.
  virtual absl::StatusOr<bool> QueryOne(std::string_view key) = 0;
  // Bytes of filter held in Redis (string lengths).
  virtual absl::StatusOr<uint64_t> Bytes() = 0;
};

// A baseline over bare hiredis, `depth` keys per round trip (one batch in
// flight).
class PipelinedBaseline : public Contender {
 public:
  // `in_flight` batches are sent before the first one's replies are read
  // (1: send, wait, read, as Redisson's and go-zero's clients do).
  PipelinedBaseline(Pipe* pipe, int depth, int in_flight = 1)
      : pipe_(pipe), depth_(depth), in_flight_(in_flight) {}

  absl::Status Add(absl::Span<const std::string_view> keys) override {
    std::deque<int> replies;  // per batch in flight
    size_t sent = 0;
    while (sent < keys.size() || !replies.empty()) {
      while (sent < keys.size() && replies.size() < size_t(in_flight_)) {
        const size_t end = std::min(keys.size(), sent + depth_);
        int n = 0;
        for (; sent < end; ++sent) n += AppendAdd(keys[sent]);
        replies.push_back(n);
        if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
      }
      for (int r = 0; r < replies.front(); ++r) {
        absl::StatusOr<Reply> reply = pipe_->Read();
        if (!reply.ok()) return reply.status();
      }
      replies.pop_front();
    }
    return absl::OkStatus();
  }

  absl::Status Query(absl::Span<const std::string_view> keys,
                     absl::Span<bool> results) override {
    size_t sent = 0, read = 0;
    const size_t window = size_t(in_flight_) * depth_;
    while (read < keys.size()) {
      while (sent < keys.size() && sent - read < window) {
        const size_t end = std::min(keys.size(), sent + depth_);
        for (; sent < end; ++sent) AppendQuery(keys[sent]);
        if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
      }
      const size_t end = std::min(keys.size(), read + depth_);
      for (; read < end; ++read) {
        absl::StatusOr<bool> answer = ReadQuery();
        if (!answer.ok()) return answer.status();
        results[read] = *answer;
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> QueryOne(std::string_view key) override {
    AppendQuery(key);
    return ReadQuery();
  }

 protected:
  // Appends the commands adding `key`; returns how many replies to read.
  virtual int AppendAdd(std::string_view key) = 0;
  virtual void AppendQuery(std::string_view key) = 0;
  // Reads the replies of one AppendQuery.
  virtual absl::StatusOr<bool> ReadQuery() = 0;

  Pipe* pipe_;
  const int depth_;
  const int in_flight_;
};

// go-zero core/bloom/bloom.go (zeromicro/go-zero): `maps = 14` positions per
// key, location i = murmur3.Sum64(key + byte(i)) % bits, set and tested by
// two Lua scripts (a SETBIT / GETBIT per position) on ONE string key. go-zero
// takes the bit count from the caller (its comment suggests bits = 20 x
// elements); we give it the memory of ours (--bits_per_key, or
// --gozero_bits_per_key), where its k=14 is far above the optimal ~7: FPR
// ~1.9% at 10 bits/key, the issue's anchor. XXH3 stands in for murmur3 (the
// cost is on the server); the 14 separate hashes of key+byte(i) are kept, as
// go-zero computes them.
class GoZero : public PipelinedBaseline {
 public:
  static constexpr int kMaps = 14;
  GoZero(Pipe* pipe, int depth, double bits_per_key)
      : PipelinedBaseline(pipe, depth), bits_per_key_(bits_per_key) {}

  std::string name() const override { return "go-zero (Lua, k=14)"; }
  std::string params() const override {
    return absl::StrCat("k=", kMaps, " m=", bits_);
  }

  absl::Status Create(uint64_t n) override {
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    bits_ = std::max<uint64_t>(64, std::llround(n * bits_per_key_));
    // go-zero's setscript.lua and testscript.lua (offsets come as ARGV).
    static constexpr std::string_view kSetScript = R"(
for _, offset in ipairs(ARGV) do
	redis.call("setbit", KEYS[1], offset, 1)
end
)";
    static constexpr std::string_view kTestScript = R"(
for _, offset in ipairs(ARGV) do
	if tonumber(redis.call("getbit", KEYS[1], offset)) == 0 then
		return false
	end
end
return true
)";
    for (auto [script, sha] : {std::pair{kSetScript, &set_sha_},
                               std::pair{kTestScript, &test_sha_}}) {
      absl::StatusOr<Reply> reply = pipe_->Call({"SCRIPT", "LOAD", script});
      if (!reply.ok()) return reply.status();
      if ((*reply)->type != REDIS_REPLY_STRING) {
        return absl::InternalError("SCRIPT LOAD: no sha");
      }
      *sha = std::string((*reply)->str, (*reply)->len);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Bytes() override { return StrLen(*pipe_, kKey); }

 protected:
  int AppendAdd(std::string_view key) override {
    AppendEval(set_sha_, key);
    return 1;
  }
  void AppendQuery(std::string_view key) override {
    AppendEval(test_sha_, key);
  }
  absl::StatusOr<bool> ReadQuery() override {
    absl::StatusOr<Reply> reply = pipe_->Read();
    if (!reply.ok()) return reply.status();
    // Lua true -> integer 1, false -> nil.
    return (*reply)->type == REDIS_REPLY_INTEGER && (*reply)->integer == 1;
  }

 private:
  static constexpr std::string_view kKey = "bench:gozero";

  void AppendEval(const std::string& sha, std::string_view key) {
    pipe_->Begin(4 + kMaps);
    pipe_->Arg("EVALSHA");
    pipe_->Arg(sha);
    pipe_->Arg("1");
    pipe_->Arg(kKey);
    scratch_.assign(key);
    scratch_.push_back('\0');
    for (int i = 0; i < kMaps; ++i) {
      scratch_.back() = static_cast<char>(i);
      pipe_->Arg(XXH3_64bits(scratch_.data(), scratch_.size()) % bits_);
    }
  }

  const double bits_per_key_;
  uint64_t bits_ = 0;
  std::string set_sha_, test_sha_, scratch_;
};

// Redisson RBloomFilter (redisson/redisson, RedissonBloomFilter.java):
// tryInit(n, p) sizes m = (long)(-n ln p / (ln 2)^2) bits and
// k = max(1, round(m / n * ln 2)) (7 for p = 1%); a key's 128-bit hash (two
// longs h1, h2; HighwayHash there, XXH3-128 here) gives the positions
// idx_i = (h & Long.MAX_VALUE) % m with h = h1, then h += h2 / h1 alternately;
// add = k SETBITs, contains = k GETBITs, sent as one batch. (Redisson also
// runs a config-check script with every call; left out here, which favours
// it.)
class Redisson : public PipelinedBaseline {
 public:
  Redisson(Pipe* pipe, int depth, double fp_rate)
      : PipelinedBaseline(pipe, depth), fp_rate_(fp_rate) {}

  std::string name() const override { return "Redisson (k=7 GETBITs)"; }
  std::string params() const override {
    return absl::StrCat("k=", k_, " m=", bits_);
  }

  absl::Status Create(uint64_t n) override {
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    const double ln2 = std::log(2.0);
    bits_ = static_cast<uint64_t>(-static_cast<double>(n) * std::log(fp_rate_) /
                                  (ln2 * ln2));
    k_ = std::max<int>(
        1, static_cast<int>(std::llround(double(bits_) / double(n) * ln2)));
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Bytes() override { return StrLen(*pipe_, kKey); }

 protected:
  int AppendAdd(std::string_view key) override {
    AppendBits("SETBIT", key, true);
    return k_;
  }
  void AppendQuery(std::string_view key) override {
    AppendBits("GETBIT", key, false);
  }
  absl::StatusOr<bool> ReadQuery() override {
    bool all = true;
    for (int i = 0; i < k_; ++i) {
      absl::StatusOr<Reply> reply = pipe_->Read();
      if (!reply.ok()) return reply.status();
      all = all && (*reply)->integer == 1;
    }
    return all;
  }

 private:
  static constexpr std::string_view kKey = "bench:redisson";

  void AppendBits(std::string_view command, std::string_view key, bool set) {
    const XXH128_hash_t hash = XXH3_128bits(key.data(), key.size());
    const int64_t h1 = static_cast<int64_t>(hash.low64);
    const int64_t h2 = static_cast<int64_t>(hash.high64);
    uint64_t h = static_cast<uint64_t>(h1);
    for (int i = 0; i < k_; ++i) {
      pipe_->Begin(set ? 4 : 3);
      pipe_->Arg(command);
      pipe_->Arg(kKey);
      pipe_->Arg((h & uint64_t{INT64_MAX}) % bits_);
      if (set) pipe_->Arg("1");
      h += static_cast<uint64_t>(i % 2 == 0 ? h2 : h1);
    }
  }

  const double fp_rate_;
  uint64_t bits_ = 0;
  int k_ = 0;
};

// The prototype of blockbloom's design over bare hiredis: one key of
// ceil(n * bits_per_key / 512) 64-byte blocks created at full size, block =
// (HashKey(key) >> 32) * blocks >> 32 (as src/core/layout.h), k = 7 bits
// anywhere in the block from 9-bit pieces of a remix of the hash (k = 7 is the
// best k for a 512-bit blocked filter at 10 bits/key: ~0.96%). Query: GETRANGE
// of the block, the bits tested on the client; add: one BITFIELD SET u1 per bit
// (atomic). No metadata, no shards, no checks: the protocol's floor.
class GetRange : public PipelinedBaseline {
 public:
  static constexpr int kProbes = 7;
  GetRange(Pipe* pipe, int depth, int in_flight, double bits_per_key)
      : PipelinedBaseline(pipe, depth, in_flight),
        bits_per_key_(bits_per_key),
        pending_bits_(size_t(depth) * in_flight) {}

  std::string name() const override {
    return in_flight_ == 1 ? "GETRANGE prototype (k=7)"
                           : absl::StrCat("GETRANGE prototype (k=7, ",
                                          in_flight_, " batches in flight)");
  }
  std::string params() const override {
    return absl::StrCat("k=", kProbes, " m=", blocks_ * 512);
  }

  absl::Status Create(uint64_t n) override {
    blocks_ = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(n * bits_per_key_ / 512)));
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    // Full size up front: GETRANGE must never come back short.
    return ExpectInteger(
        pipe_->Call({"SETRANGE", kKey, std::to_string(blocks_ * 64 - 1),
                     std::string_view("\0", 1)}));
  }

  absl::StatusOr<uint64_t> Bytes() override { return StrLen(*pipe_, kKey); }

 protected:
  int AppendAdd(std::string_view key) override {
    uint64_t block;
    uint16_t bits[kProbes];
    Locate(key, &block, bits);
    pipe_->Begin(2 + 4 * kProbes);
    pipe_->Arg("BITFIELD");
    pipe_->Arg(kKey);
    for (uint16_t bit : bits) {
      pipe_->Arg("SET");
      pipe_->Arg("u1");
      pipe_->Arg(block * 512 + bit);
      pipe_->Arg("1");
    }
    return 1;
  }
  void AppendQuery(std::string_view key) override {
    uint64_t block;
    Locate(key, &block,
           pending_bits_[pending_end_++ % pending_bits_.size()].data());
    pipe_->Begin(4);
    pipe_->Arg("GETRANGE");
    pipe_->Arg(kKey);
    pipe_->Arg(block * 64);
    pipe_->Arg(block * 64 + 63);
  }
  absl::StatusOr<bool> ReadQuery() override {
    const uint16_t* bits =
        pending_bits_[pending_begin_++ % pending_bits_.size()].data();
    absl::StatusOr<Reply> reply = pipe_->Read();
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_STRING || (*reply)->len != 64) {
      return absl::DataLossError("GETRANGE: not 64 bytes");
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>((*reply)->str);
    bool all = true;
    // Redis numbers bits from the top of byte 0 (SETBIT/BITFIELD offsets).
    for (int i = 0; i < kProbes; ++i) {
      all &= (bytes[bits[i] >> 3] >> (7 - (bits[i] & 7))) & 1;
    }
    return all;
  }

 private:
  static constexpr std::string_view kKey = "bench:getrange";

  void Locate(std::string_view key, uint64_t* block, uint16_t* bits) const {
    const uint64_t hash = blockbloom::HashKey(key);
    *block = ((hash >> 32) * blocks_) >> 32;  // as the library (blocks < 2^32)
    // splitmix64's finalizer: bits independent of the block's high bits.
    uint64_t x = hash ^ (hash >> 30);
    x *= 0xbf58476d1ce4e5b9;
    x ^= x >> 27;
    x *= 0x94d049bb133111eb;
    x ^= x >> 31;
    for (int i = 0; i < kProbes; ++i) bits[i] = (x >> (9 * i)) & 511;
  }

  const double bits_per_key_;
  uint64_t blocks_ = 0;
  // Bit positions of the queries in flight: a ring of depth * in_flight
  // (PipelinedBaseline::Query never has more unread; QueryOne has one).
  std::vector<std::array<uint16_t, kProbes>> pending_bits_;
  size_t pending_begin_ = 0, pending_end_ = 0;
};

// The library: blockbloom::redis::SharedFilter.
class Ours : public Contender {
 public:
  Ours(blockbloom::redis::Connection* connection, Pipe* pipe, int depth,
       double bits_per_key)
      : connection_(connection),
        pipe_(pipe),
        depth_(depth),
        bits_per_key_(bits_per_key) {}

  std::string name() const override {
    return absl::StrCat("blockbloom (batch ", depth_, ")");
  }
  std::string params() const override {
    if (!filter_) return "";
    return absl::StrCat("k=", filter_->shape().num_probes,
                        " m=", filter_->shape().size_bytes() * 8);
  }

  absl::Status Create(uint64_t n) override {
    filter_.reset();
    if (absl::Status s =
            blockbloom::redis::SharedFilter::Delete(connection_, redis_name());
        !s.ok()) {
      return s;
    }
    blockbloom::redis::SharedFilterOptions options;
    options.expected_keys = n;
    options.bits_per_key = bits_per_key_;
    options.seed = 0x5eed'b10c'b100'0009;
    absl::StatusOr<blockbloom::redis::SharedFilter> filter =
        blockbloom::redis::SharedFilter::Create(connection_, redis_name(),
                                                options);
    if (!filter.ok()) return filter.status();
    filter_ =
        std::make_unique<blockbloom::redis::SharedFilter>(std::move(*filter));
    filter_->set_pipeline_depth(depth_);
    return absl::OkStatus();
  }
  // Its own name per depth: all contenders' filters stay for the latency
  // phase.
  std::string redis_name() const { return absl::StrCat("bench-", depth_); }
  absl::Status Add(absl::Span<const std::string_view> keys) override {
    return filter_->AddBatch(keys).status();
  }
  absl::Status Query(absl::Span<const std::string_view> keys,
                     absl::Span<bool> results) override {
    return filter_->MayContainBatch(keys, results);
  }
  absl::StatusOr<bool> QueryOne(std::string_view key) override {
    return filter_->MayContain(key);
  }
  absl::StatusOr<uint64_t> Bytes() override {
    uint64_t total = 0;
    for (const std::string& key : filter_->RedisKeys()) {
      absl::StatusOr<uint64_t> n = StrLen(*pipe_, key);
      if (!n.ok()) return n.status();
      total += *n;
    }
    return total;
  }

 private:
  blockbloom::redis::Connection* connection_;
  Pipe* pipe_;
  const int depth_;
  const double bits_per_key_;
  std::unique_ptr<blockbloom::redis::SharedFilter> filter_;
};

// ---------------------------------------------------------------------------
// The driver.

struct ClientCpu {
  double user, sys;  // seconds
};
ClientCpu GetClientCpu() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

struct Runs {
  std::vector<double> queries_per_s, adds_per_s, server_us_query, server_us_add;
  // This process's CPU per query (user: hashing, RESP, probing; sys: the
  // socket calls): where the client's time goes.
  std::vector<double> client_user_us_query, client_sys_us_query;
  double fpr = 0;
  uint64_t bytes = 0;
  std::string params;
  double latency_p50_us = 0, latency_p99_us = 0;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Min(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}
double Max(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

std::string Thousands(double per_s) {
  return absl::StrFormat("%.0fk", per_s / 1000);
}

std::string Spread(const std::vector<double>& v, bool thousands) {
  auto f = [&](double x) {
    return thousands ? Thousands(x) : absl::StrFormat("%.2f", x);
  };
  if (v.size() < 2) return f(Median(v));
  return absl::StrCat(f(Median(v)), " [", f(Min(v)), "-", f(Max(v)), "]");
}

[[noreturn]] void Fail(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "redis_bench: %s: %s\n", what.c_str(),
               status.ToString().c_str());
  std::exit(2);
}

template <typename T>
T Check(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Fail(what, value.status());
  return *std::move(value);
}
void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Fail(what, status);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const uint64_t n = absl::GetFlag(FLAGS_keys);
  const uint64_t q = absl::GetFlag(FLAGS_queries);
  const int depth = std::max(1, absl::GetFlag(FLAGS_depth));
  const int repetitions = std::max(1, absl::GetFlag(FLAGS_repetitions));
  const int latency_samples = std::max(1, absl::GetFlag(FLAGS_latency_samples));
  const double bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
  if (n == 0 || q == 0)
    Fail("flags",
         absl::InvalidArgumentError("--keys and --queries must be positive"));

  if (absl::GetFlag(FLAGS_url).empty()) {
    Fail("flags", absl::InvalidArgumentError(
                      "--url is required: the bench FLUSHALLs that server; "
                      "bench/redis_run starts a private one"));
  }
  const blockbloom::redis::ConnectionOptions options =
      Check(blockbloom::redis::ParseUrl(absl::GetFlag(FLAGS_url)), "--url");
  std::unique_ptr<Pipe> pipe =
      Check(Pipe::Connect(options.host, options.port), "connect");
  std::unique_ptr<blockbloom::redis::Connection> connection =
      Check(blockbloom::redis::Connection::Connect(options), "library connect");

  std::vector<std::unique_ptr<Contender>> contenders;
  for (absl::string_view which : absl::StrSplit(absl::GetFlag(FLAGS_contenders),
                                                ',', absl::SkipEmpty())) {
    if (which == "gozero") {
      contenders.push_back(std::make_unique<GoZero>(
          pipe.get(), depth,
          absl::GetFlag(FLAGS_gozero_bits_per_key) > 0
              ? absl::GetFlag(FLAGS_gozero_bits_per_key)
              : bits_per_key));
    } else if (which == "redisson") {
      contenders.push_back(std::make_unique<Redisson>(
          pipe.get(), depth, absl::GetFlag(FLAGS_fp_rate)));
    } else if (which == "getrange" || which == "getrange2") {
      // getrange2: two batches in flight, as the library keeps them.
      const int in_flight = which == "getrange" ? 1 : 2;
      contenders.push_back(std::make_unique<GetRange>(pipe.get(), depth,
                                                      in_flight, bits_per_key));
    } else if (which == "blockbloom") {
      for (absl::string_view d : absl::StrSplit(absl::GetFlag(FLAGS_our_depths),
                                                ',', absl::SkipEmpty())) {
        int our_depth;
        if (!absl::SimpleAtoi(d, &our_depth) || our_depth < 1) {
          Fail("--our_depths", absl::InvalidArgumentError(std::string(d)));
        }
        contenders.push_back(std::make_unique<Ours>(
            connection.get(), pipe.get(), our_depth, bits_per_key));
      }
    } else {
      Fail("--contenders", absl::InvalidArgumentError(std::string(which)));
    }
  }

  // Inserted keys and absent keys: disjoint by prefix.
  std::vector<std::string> present_storage(n), absent_storage(q);
  for (uint64_t i = 0; i < n; ++i)
    present_storage[i] = absl::StrCat("user:", i);
  for (uint64_t i = 0; i < q; ++i)
    absent_storage[i] = absl::StrCat("absent:", i);
  const std::vector<std::string_view> present(present_storage.begin(),
                                              present_storage.end());
  const std::vector<std::string_view> absent(absent_storage.begin(),
                                             absent_storage.end());
  std::unique_ptr<bool[]> results(new bool[std::max(n, q)]);

  std::vector<Runs> runs(contenders.size());
  for (int rep = 0; rep < repetitions; ++rep) {
    // A clean server per repetition; each contender deletes its own keys
    // before it starts, and all of them stay in the end for the latencies.
    Check(ExpectStatusOk(pipe->Call({"FLUSHALL"})), "FLUSHALL");
    for (size_t c = 0; c < contenders.size(); ++c) {
      Contender& contender = *contenders[c];
      const std::string& name = contender.name();
      Check(contender.Create(n), name + ": create");

      const double cpu0 = Check(ServerCpuSeconds(*pipe), "INFO");
      const Clock::time_point t0 = Clock::now();
      Check(contender.Add(present), name + ": add");
      const Clock::time_point t1 = Clock::now();
      const double cpu1 = Check(ServerCpuSeconds(*pipe), "INFO");

      if (rep == 0) {
        // No false negatives: every inserted key may be contained.
        Check(contender.Query(present, absl::MakeSpan(results.get(), n)),
              name + ": query inserted keys");
        const uint64_t found =
            std::count(results.get(), results.get() + n, true);
        if (found != n) {
          std::fprintf(stderr,
                       "redis_bench: %s: FALSE NEGATIVES: %llu of %llu "
                       "inserted keys answered absent\n",
                       name.c_str(), static_cast<unsigned long long>(n - found),
                       static_cast<unsigned long long>(n));
          return 1;
        }
      }

      const double cpu2 = Check(ServerCpuSeconds(*pipe), "INFO");
      const ClientCpu client2 = GetClientCpu();
      const Clock::time_point t2 = Clock::now();
      Check(contender.Query(absent, absl::MakeSpan(results.get(), q)),
            name + ": query absent keys");
      const Clock::time_point t3 = Clock::now();
      const ClientCpu client3 = GetClientCpu();
      const double cpu3 = Check(ServerCpuSeconds(*pipe), "INFO");

      Runs& r = runs[c];
      r.adds_per_s.push_back(n / Seconds(t0, t1));
      r.queries_per_s.push_back(q / Seconds(t2, t3));
      r.server_us_add.push_back((cpu1 - cpu0) / n * 1e6);
      r.server_us_query.push_back((cpu3 - cpu2) / q * 1e6);
      r.client_user_us_query.push_back((client3.user - client2.user) / q * 1e6);
      r.client_sys_us_query.push_back((client3.sys - client2.sys) / q * 1e6);
      r.fpr = double(std::count(results.get(), results.get() + q, true)) / q;
      r.bytes = Check(contender.Bytes(), name + ": bytes");
      r.params = contender.params();

      std::fprintf(stderr, "  rep %d %-46s %9.0f queries/s %9.0f adds/s\n",
                   rep + 1, name.c_str(), r.queries_per_s.back(),
                   r.adds_per_s.back());
    }
  }
  // One query at a time, the latency an application sees: PING and every
  // contender's single query in turn, sample by sample, so that all of them
  // see the same moments of a busy machine.
  std::vector<std::vector<double>> latency_us(contenders.size() + 1);
  for (int i = 0; i < latency_samples; ++i) {
    Clock::time_point start = Clock::now();
    Check(ExpectStatusOk(pipe->Call({"PING"})), "PING");
    latency_us.back().push_back(Seconds(start, Clock::now()) * 1e6);
    for (size_t c = 0; c < contenders.size(); ++c) {
      start = Clock::now();
      Check(contenders[c]->QueryOne(absent[i % q]),
            contenders[c]->name() + ": single query");
      latency_us[c].push_back(Seconds(start, Clock::now()) * 1e6);
    }
  }
  for (size_t c = 0; c < contenders.size(); ++c) {
    runs[c].latency_p50_us = Percentile(latency_us[c], 0.5);
    runs[c].latency_p99_us = Percentile(latency_us[c], 0.99);
  }
  const double ping_p50 = Percentile(latency_us.back(), 0.5);
  const double ping_p99 = Percentile(latency_us.back(), 0.99);

  // The table.
  std::string md = absl::StrFormat(
      "%d keys inserted, %d absent keys queried, baselines at pipeline depth "
      "%d, %d repetitions (median [min-max]), single-query latency over %d "
      "samples\n\n",
      n, q, depth, repetitions, latency_samples);
  absl::StrAppend(
      &md,
      "| contender | k, m bits | queries/s | adds/s | server "
      "µs/query | server µs/add | client µs/query user + sys | FPR | bytes "
      "in Redis | single query µs p50 / p99 |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  std::string csv =
      "contender,params,queries_per_s_median,queries_per_s_min,queries_per_s_"
      "max,adds_per_s_median,adds_per_s_min,adds_per_s_max,server_us_per_"
      "query,server_us_per_add,client_user_us_per_query,client_sys_us_per_"
      "query,"
      "fpr,bytes,latency_p50_us,latency_p99_us\n";
  for (size_t c = 0; c < contenders.size(); ++c) {
    const Runs& r = runs[c];
    absl::StrAppendFormat(
        &md,
        "| %s | %s | %s | %s | %s | %s | %.2f + %.2f | %.3f%% | %d | %.1f / "
        "%.1f |\n",
        contenders[c]->name(), r.params, Spread(r.queries_per_s, true),
        Spread(r.adds_per_s, true), Spread(r.server_us_query, false),
        Spread(r.server_us_add, false), Median(r.client_user_us_query),
        Median(r.client_sys_us_query), r.fpr * 100, r.bytes, r.latency_p50_us,
        r.latency_p99_us);
    absl::StrAppendFormat(
        &csv,
        "\"%s\",\"%s\",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%."
        "3f,%.3f,%.3f,%.6f,%d,%.1f,%.1f\n",
        contenders[c]->name(), r.params, Median(r.queries_per_s),
        Min(r.queries_per_s), Max(r.queries_per_s), Median(r.adds_per_s),
        Min(r.adds_per_s), Max(r.adds_per_s), Median(r.server_us_query),
        Median(r.server_us_add), Median(r.client_user_us_query),
        Median(r.client_sys_us_query), r.fpr, r.bytes, r.latency_p50_us,
        r.latency_p99_us);
  }
  absl::StrAppendFormat(
      &md, "| PING (one round trip) | | | | | | | | | %.1f / %.1f |\n",
      ping_p50, ping_p99);
  absl::StrAppendFormat(&csv, "\"PING\",\"\",,,,,,,,,,,,,%.1f,%.1f\n", ping_p50,
                        ping_p99);
  absl::StrAppend(&md,
                  "\nEvery inserted key answered \"may contain\" in every "
                  "contender (no false negatives).\n");
  std::fputs(md.c_str(), stdout);
  for (const auto& [path, text] :
       {std::pair{absl::GetFlag(FLAGS_csv), csv},
        std::pair{absl::GetFlag(FLAGS_markdown), md}}) {
    if (path.empty()) continue;
    std::ofstream out(path);
    out << text;
    if (!out) Fail(path, absl::InternalError("cannot write"));
  }
  return 0;
}
