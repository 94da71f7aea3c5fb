// What the benchmark runs: a Contender is one shared-filter scheme in Redis.
// One file each: go-zero (gozero.cc), Redisson (redisson.cc), the GETRANGE
// prototype (getrange.cc), all three baselines over the benchmark's own
// client (PipelinedBaseline, contender.cc), blockbloom::redis::SharedFilter
// itself (blockbloom.cc), and blockbloom's Redis module (module.cc: BF.*
// commands, only on a server that loaded it).
#ifndef BLOCKBLOOM_BENCH_REDIS_CLIENT_CONTENDER_H_
#define BLOCKBLOOM_BENCH_REDIS_CLIENT_CONTENDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bench/redis_client/client.h"
#include "blockbloom/redis_client.h"

namespace blockbloom::redis_client_bench {

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

  absl::Status Add(absl::Span<const std::string_view> keys) override;
  absl::Status Query(absl::Span<const std::string_view> keys,
                     absl::Span<bool> results) override;
  absl::StatusOr<bool> QueryOne(std::string_view key) override;

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

// The contenders (each file's header comment says what it reproduces).
std::unique_ptr<Contender> NewGoZero(Pipe* pipe, int depth,
                                     double bits_per_key);
std::unique_ptr<Contender> NewRedisson(Pipe* pipe, int depth, double fp_rate);
// `in_flight`: 1, or 2 as the library keeps them.
std::unique_ptr<Contender> NewGetRange(Pipe* pipe, int depth, int in_flight,
                                       double bits_per_key);
// At its own pipeline depth; `pipe` measures its keys' lengths.
std::unique_ptr<Contender> NewBlockbloom(redis::Connection* connection,
                                         Pipe* pipe, int depth,
                                         double bits_per_key);
// blockbloom's Redis module (module.cc; the server must have loaded it):
// BF.EXISTS/BF.ADD pipelined `depth` per round trip, or (`multi`) one
// BF.MEXISTS/BF.MADD of `depth` keys; BF.RESERVE at `fp_rate`.
std::unique_ptr<Contender> NewModule(Pipe* pipe, int depth, bool multi,
                                     double fp_rate);

}  // namespace blockbloom::redis_client_bench

#endif  // BLOCKBLOOM_BENCH_REDIS_CLIENT_CONTENDER_H_
