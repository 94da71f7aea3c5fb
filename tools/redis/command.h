// `blockbloom redis`: the command's entry point (command.cc), which the
// command table (tools/commands.cc) names. Its subcommands are in
// subcommands.h.
#ifndef BLOCKBLOOM_TOOLS_REDIS_COMMAND_H_
#define BLOCKBLOOM_TOOLS_REDIS_COMMAND_H_

#include <string>
#include <vector>

namespace blockbloom::cli {

// Runs `blockbloom redis SUBCOMMAND ...` on the arguments after `redis`;
// returns the exit code. Without Redis support at build time (no hiredis),
// reports that the command was not built in.
int RunRedis(const std::vector<std::string>& args);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_REDIS_COMMAND_H_
