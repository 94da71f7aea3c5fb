#include "bench/redis_client/client.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace blockbloom::redis_client_bench {

absl::StatusOr<std::unique_ptr<Pipe>> Pipe::Connect(const std::string& host,
                                                    int port) {
  timeval timeout{5, 0};
  redisContext* context = redisConnectWithTimeout(host.c_str(), port, timeout);
  if (context == nullptr || context->err) {
    std::string error = context ? context->errstr : "out of memory";
    if (context) redisFree(context);
    return absl::UnavailableError(
        absl::StrCat("connect to ", host, ":", port, ": ", error));
  }
  redisSetTimeout(context, timeval{30, 0});
  return std::unique_ptr<Pipe>(new Pipe(context));
}

absl::Status Pipe::Flush() {
  Send();
  int done = 0;
  while (!done) {
    if (redisBufferWrite(context_, &done) != REDIS_OK) {
      return absl::UnavailableError(absl::StrCat("redis: ", context_->errstr));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Reply> Pipe::Read() {
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

absl::StatusOr<int64_t> Pipe::CallInteger(
    std::initializer_list<std::string_view> args) {
  absl::StatusOr<Reply> reply = Call(args);
  if (!reply.ok()) return reply.status();
  if ((*reply)->type != REDIS_REPLY_INTEGER) {
    return absl::InternalError("redis: expected an integer reply");
  }
  return (*reply)->integer;
}

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

}  // namespace blockbloom::redis_client_bench
