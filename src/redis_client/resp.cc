#include "src/redis_client/resp.h"

#include <charconv>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace blockbloom::redis::internal {
namespace {

void AppendLength(std::string* out, char type, uint64_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), n).ptr;
  out->push_back(type);
  out->append(digits, end);
  out->append("\r\n");
}

}  // namespace

void AppendArrayHeader(std::string* out, size_t argc) {
  AppendLength(out, '*', argc);
}

void AppendArg(std::string* out, std::string_view arg) {
  AppendLength(out, '$', arg.size());
  out->append(arg);
  out->append("\r\n");
}

void AppendIntArg(std::string* out, uint64_t value) {
  // "$<len>\r\n<digits>\r\n" built in place: one append (this runs 2 to 17
  // times per key in the hot paths).
  char digits[24];
  const size_t n = static_cast<size_t>(
      std::to_chars(digits, digits + sizeof(digits), value).ptr - digits);
  char arg[32];
  size_t at = 0;
  arg[at++] = '$';
  if (n >= 10) arg[at++] = static_cast<char>('0' + n / 10);
  arg[at++] = static_cast<char>('0' + n % 10);
  arg[at++] = '\r';
  arg[at++] = '\n';
  std::memcpy(arg + at, digits, n);
  at += n;
  arg[at++] = '\r';
  arg[at++] = '\n';
  out->append(arg, at);
}

void AppendCommand(std::string* out,
                   std::initializer_list<std::string_view> args) {
  AppendArrayHeader(out, args.size());
  for (std::string_view arg : args) AppendArg(out, arg);
}

absl::Status ErrorReplyStatus(const redisReply& reply, std::string_view what) {
  const std::string_view text(reply.str, reply.len);
  const std::string message = absl::StrCat(
      absl::string_view(what.data(), what.size()), ": Redis replied \"",
      absl::string_view(text.data(), text.size()), "\"");
  auto starts = [&](std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
  };
  if (starts("WRONGTYPE")) {
    return absl::FailedPreconditionError(
        absl::StrCat(message,
                     " (the key holds another kind of value: not "
                     "a blockbloom shard?)"));
  }
  if (starts("NOAUTH") || starts("NOPERM") || starts("WRONGPASS")) {
    return absl::PermissionDeniedError(message);
  }
  if (starts("OOM")) return absl::ResourceExhaustedError(message);
  if (starts("LOADING") || starts("CLUSTERDOWN") || starts("TRYAGAIN") ||
      starts("BUSY") || starts("MASTERDOWN")) {
    return absl::UnavailableError(message);
  }
  return absl::InternalError(message);
}

absl::Status CheckReply(const redisReply& reply, std::string_view what) {
  if (reply.type == REDIS_REPLY_ERROR) return ErrorReplyStatus(reply, what);
  return absl::OkStatus();
}

}  // namespace blockbloom::redis::internal
