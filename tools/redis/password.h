// Where `blockbloom redis` gets the Redis password when it is not in --url
// (where `ps` shows it to every user of the machine):
//   --password_file=PATH         the file's first line (a trailing newline
//                                is not part of it)
//   BLOCKBLOOM_REDIS_PASSWORD    the environment variable (as redis-cli's
//                                REDISCLI_AUTH)
// A password in --url and --password_file together is a usage error; the
// environment is used only when neither gives one. For an ACL user with the
// password from a file or the environment: --url=redis://USER:@host.
#ifndef BLOCKBLOOM_TOOLS_REDIS_PASSWORD_H_
#define BLOCKBLOOM_TOOLS_REDIS_PASSWORD_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace blockbloom::cli {

inline constexpr char kPasswordVariable[] = "BLOCKBLOOM_REDIS_PASSWORD";

struct Password {
  std::string secret;
  std::string source;  // "--password_file=PATH" or the variable's name
};

// The password from --password_file or the environment, given whether the
// URL has one; nullopt if there is none to add. InvalidArgument for a
// password given twice, NotFound/PermissionDenied/... (naming the file) if
// the file cannot be read, InvalidArgument if it is empty. Warns on stderr
// if the file can be read by other users.
absl::StatusOr<std::optional<Password>> PasswordFromFlagsOrEnvironment(
    bool url_has_password);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_REDIS_PASSWORD_H_
