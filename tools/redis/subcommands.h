// The pieces of `blockbloom redis` (tools/redis/command.cc checks the
// command line and dispatches): the connection to --url and the messages of
// its failures (connection.cc), and one function per subcommand, each in its
// own file (publish.cc, download.cc, query.cc, info.cc, delete.cc). Only with
// Redis support (BLOCKBLOOM_HAVE_REDIS).
#ifndef BLOCKBLOOM_TOOLS_REDIS_SUBCOMMANDS_H_
#define BLOCKBLOOM_TOOLS_REDIS_SUBCOMMANDS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "blockbloom/redis_client.h"
#include "tools/exit_codes.h"

namespace blockbloom::cli::redis_cli {

inline constexpr char kCommand[] = "redis";

// A connection to --url, or the exit code after reporting why not.
struct Connected {
  std::unique_ptr<redis::Connection> connection;
  std::string where;  // "redis://host:port" for messages
  int exit_code = kExitOk;
};

Connected Connect();

// Reports a failure of the library at c.where; returns kExitRedis.
int RedisError(const Connected& c, const absl::Status& status);

// The shared filter --name (with --seed).
absl::StatusOr<redis::SharedFilter> OpenShared(const Connected& c);

// 'name', for messages.
std::string Quoted(std::string_view name);

// The subcommands, on the arguments after `redis` (args[0] is the
// subcommand's name); each returns the exit code.
int Publish(const std::vector<std::string>& args);
int Download(const std::vector<std::string>& args);
int Query(const std::vector<std::string>& args);
int Info(const std::vector<std::string>& args);
int Delete(const std::vector<std::string>& args);

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_TOOLS_REDIS_SUBCOMMANDS_H_
