// The tool's commands: one row each in AllCommands() (commands.cc), one
// Run function each in its own file (`redis`, in tools/redis/). To add a
// command: write Run<Name> in <name>_command.cc, declare it here, add a row
// with its synopsis, description and the flags it takes, and list the file in
// tools/CMakeLists.txt and tools/BUILD.bazel. Help, flag checking and
// dispatch come from the row.
#ifndef BLOCKBLOOM_TOOLS_COMMANDS_H_
#define BLOCKBLOOM_TOOLS_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

namespace blockbloom::cli {

struct Command {
  std::string_view name;
  // The arguments after `blockbloom NAME`, as shown in help.
  std::string_view synopsis;
  // One line for the command list.
  std::string_view summary;
  // Paragraphs for `blockbloom help NAME` (blank lines between them).
  std::string_view description;
  // The flags it takes, without dashes. Any other is a usage error.
  std::vector<std::string_view> flags;
  // Runs it on the positional arguments after NAME; returns the exit code.
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& AllCommands();
// nullptr if there is no such command.
const Command* FindCommand(std::string_view name);

int RunBuild(const std::vector<std::string>& args);
int RunInfo(const std::vector<std::string>& args);
int RunQuery(const std::vector<std::string>& args);
int RunBench(const std::vector<std::string>& args);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_COMMANDS_H_
