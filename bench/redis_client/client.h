// The benchmark's own client for the baselines: bare hiredis, RESP commands
// written into one buffer (encoded by the library's src/redis_client/resp.h),
// replies read one by one. The baselines pipeline through this, as their own
// clients do; a few one-round-trip helpers for the driver.
#ifndef BLOCKBLOOM_BENCH_REDIS_CLIENT_CLIENT_H_
#define BLOCKBLOOM_BENCH_REDIS_CLIENT_CLIENT_H_

#include <hiredis/hiredis.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/redis_client/resp.h"

namespace blockbloom::redis_client_bench {

using redis::internal::Reply;

class Pipe {
 public:
  static absl::StatusOr<std::unique_ptr<Pipe>> Connect(const std::string& host,
                                                       int port);
  ~Pipe() { redisFree(context_); }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  // Appends one command to the pending buffer (RESP array of bulk strings).
  void Begin(int argc) { redis::internal::AppendArrayHeader(&buffer_, argc); }
  void Arg(std::string_view arg) { redis::internal::AppendArg(&buffer_, arg); }
  void Arg(uint64_t number) { redis::internal::AppendIntArg(&buffer_, number); }
  void Command(std::initializer_list<std::string_view> args) {
    redis::internal::AppendCommand(&buffer_, args);
  }

  // Hands the pending commands to hiredis (written by the first Read).
  void Send() {
    if (buffer_.empty()) return;
    redisAppendFormattedCommand(context_, buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  // Sends everything pending now (hiredis would write it only when no
  // reply is already buffered: too late for a second batch in flight).
  absl::Status Flush();
  // The next reply; error replies are errors.
  absl::StatusOr<Reply> Read();
  // One command, one round trip.
  absl::StatusOr<Reply> Call(std::initializer_list<std::string_view> args) {
    Command(args);
    return Read();
  }
  absl::StatusOr<int64_t> CallInteger(
      std::initializer_list<std::string_view> args);

 private:
  explicit Pipe(redisContext* context) : context_(context) {}

  redisContext* context_;
  std::string buffer_;
};

// The server's CPU time so far (user + sys, all of its threads), from INFO.
absl::StatusOr<double> ServerCpuSeconds(Pipe& pipe);

absl::StatusOr<uint64_t> StrLen(Pipe& pipe, std::string_view key);

absl::Status ExpectInteger(const absl::StatusOr<Reply>& reply);
absl::Status ExpectStatusOk(const absl::StatusOr<Reply>& reply);

}  // namespace blockbloom::redis_client_bench

#endif  // BLOCKBLOOM_BENCH_REDIS_CLIENT_CLIENT_H_
