// Building Redis commands (RESP arrays of bulk strings) and reading replies:
// the small pieces the router and the shared filter share.
#ifndef BLOCKBLOOM_SRC_REDIS_CLIENT_RESP_H_
#define BLOCKBLOOM_SRC_REDIS_CLIENT_RESP_H_

#include <hiredis/hiredis.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace blockbloom::redis::internal {

// Abseil 20220623 (Debian 12) has its own string_view type: StrCat and
// friends need it spelled out.
inline absl::string_view Av(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

// Appends `*N\r\n$len\r\narg\r\n...` for the arguments: binary-safe, no
// printf-style parsing (keys may hold any byte).
void AppendCommand(std::string* out,
                   std::initializer_list<std::string_view> args);

// Appends the array header of a command of `argc` arguments, then each
// argument with AppendArg / AppendIntArg: for commands whose length is known
// only at run time (BITFIELD with k operations).
void AppendArrayHeader(std::string* out, size_t argc);
void AppendArg(std::string* out, std::string_view arg);
void AppendIntArg(std::string* out, uint64_t value);

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// The error reply's text ("WRONGTYPE ...") as a Status: FailedPrecondition
// for the wrong type at `key`, PermissionDenied for NOAUTH/NOPERM/WRONGPASS,
// ResourceExhausted for OOM, Unavailable for LOADING/CLUSTERDOWN/TRYAGAIN/
// BUSY, Internal otherwise. `what` names the command and key for the
// message.
absl::Status ErrorReplyStatus(const redisReply& reply, std::string_view what);

// OK if `reply` is not an error reply; ErrorReplyStatus otherwise.
absl::Status CheckReply(const redisReply& reply, std::string_view what);

}  // namespace blockbloom::redis::internal

#endif  // BLOCKBLOOM_SRC_REDIS_CLIENT_RESP_H_
