// blockbloom redis: shared filters in Redis (blockbloom/redis_client.h) from
// the command line: publish a filter file, download one, query, describe,
// delete.
//
// Without hiredis at build time (no BLOCKBLOOM_HAVE_REDIS) the command is
// still listed, so that scripts get a clear error instead of "unknown
// command".
//
// This file checks the command line and dispatches; the subcommands are in
// publish.cc, download.cc, query.cc, info.cc and delete.cc
// (tools/redis/subcommands.h).
#include "tools/redis/command.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "tools/flags.h"
#include "tools/report.h"

#ifdef BLOCKBLOOM_HAVE_REDIS
#include "blockbloom/redis_client.h"
#include "tools/redis/subcommands.h"
#endif

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "redis";

// The flags each subcommand takes (main checks them against the `redis` row
// of commands.cc, which has their union).
struct Subcommand {
  std::string_view name;
  std::vector<std::string_view> flags;
};

const std::vector<Subcommand>& Subcommands() {
  static const auto* subcommands = new std::vector<Subcommand>{
      {"publish",
       {"url", "password_file", "name", "shard_bytes", "expire", "replace",
        "max_memory"}},
      {"download", {"url", "password_file", "name", "seed", "o", "max_memory"}},
      {"query",
       {"url", "password_file", "name", "seed", "count", "input_format",
        "max_memory"}},
      {"info", {"url", "password_file", "name", "seed", "json"}},
      {"delete", {"url", "password_file", "name"}},
  };
  return *subcommands;
}

// Usage errors common to every subcommand: an unknown one, a flag of
// another, no --name. Returns kExitOk if the command line is fine.
int CheckCommandLine(const std::vector<std::string>& args) {
  if (args.empty()) {
    return UsageError(
        kCommand,
        "expected a subcommand: publish, download, query, info or "
        "delete");
  }
  const Subcommand* sub = nullptr;
  for (const Subcommand& s : Subcommands()) {
    if (s.name == args[0]) sub = &s;
  }
  if (sub == nullptr) {
    return UsageError(
        kCommand, absl::StrCat("unknown subcommand '", args[0],
                               "'; expected publish, download, query, info or "
                               "delete"));
  }
  for (const Subcommand& other : Subcommands()) {
    for (std::string_view flag : other.flags) {
      bool ok = false;
      for (std::string_view own : sub->flags) ok = ok || own == flag;
      if (!ok && FlagGiven(flag)) {
        return UsageError(kCommand,
                          absl::StrCat(flag.size() == 1 ? "-" : "--",
                                       std::string(flag), " is not a flag of ",
                                       "redis ", std::string(sub->name)));
      }
    }
  }
  if (absl::GetFlag(FLAGS_name).empty()) {
    return UsageError(kCommand,
                      "--name=NAME is required: the shared filter's name in "
                      "Redis");
  }
#ifdef BLOCKBLOOM_HAVE_REDIS
  // A name the library would refuse is a usage error, before connecting.
  if (absl::Status s =
          redis::SharedFilter::ValidateName(absl::GetFlag(FLAGS_name));
      !s.ok()) {
    return UsageError(kCommand, absl::StrCat("--name: ", s.message()));
  }
#endif
  return kExitOk;
}

}  // namespace

int RunRedis(const std::vector<std::string>& args) {
  if (int code = CheckCommandLine(args); code != kExitOk) return code;
#ifdef BLOCKBLOOM_HAVE_REDIS
  const std::string& sub = args[0];
  if (sub == "publish") return redis_cli::Publish(args);
  if (sub == "download") return redis_cli::Download(args);
  if (sub == "query") return redis_cli::Query(args);
  if (sub == "info") return redis_cli::Info(args);
  return redis_cli::Delete(args);
#else
  return Fail(kCommand, kExitRedis,
              "this blockbloom was built without Redis support: install "
              "libhiredis-dev and rebuild");
#endif
}

}  // namespace blockbloom::cli
