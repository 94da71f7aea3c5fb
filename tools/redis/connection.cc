// blockbloom redis: the connection to --url (with the password from a file or
// the environment) and the messages of the library's failures.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <optional>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/flags.h"
#include "tools/redis/password.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

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
  // where `ps` shows it (tools/redis/password.h).
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
    // The usual cause: a filter published with a seed, opened without one.
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

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
