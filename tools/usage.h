// The tool's help text, built from the command table (commands.cc) and the
// flags' own help strings (flags.cc), so that it cannot drift from them.
#ifndef BLOCKBLOOM_TOOLS_USAGE_H_
#define BLOCKBLOOM_TOOLS_USAGE_H_

#include <string>
#include <string_view>

#include "tools/commands.h"

namespace blockbloom::cli {

// Everything: commands, their flags, input formats, exit codes.
std::string FullHelp();
// One command, with its flags and the exit codes.
std::string CommandHelp(const Command& command);
// The exit codes, a contract.
std::string ExitCodesHelp();
// A few lines for a usage error without a command.
std::string ShortUsage();
// What a flag's value looks like ("OUTPUT" for o, "B" for bits_per_key).
std::string_view ValueName(std::string_view flag);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_USAGE_H_
