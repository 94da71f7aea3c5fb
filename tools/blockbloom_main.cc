// blockbloom: the command-line tool. Build, inspect, query and benchmark
// filter files:
//
//   blockbloom build --bits_per_key=10 keys.txt -o keys.bbf
//   blockbloom info --json keys.bbf
//   blockbloom query keys.bbf candidates.txt
//   blockbloom bench --keys=1000000
//   blockbloom redis publish keys.bbf --url=redis://127.0.0.1:6379 --name=keys
//
// This file parses the command line and dispatches; each command lives in
// <name>_command.cc and is described by its row in commands.cc, from which
// `blockbloom help` is generated.
#include <cstdio>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "blockbloom/version.h"
#include "tools/command_line.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/flags.h"
#include "tools/report.h"
#include "tools/usage.h"

namespace blockbloom::cli {
namespace {

// absl's own flags, accepted with every command.
constexpr std::string_view kGlobalFlags[] = {"flagfile", "fromenv",
                                             "tryfromenv", "undefok"};

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Build, inspect, query, benchmark and share (Redis) blockbloom filter "
      "files. Run "
      "'blockbloom --help' for the commands.");
  absl::FlagsUsageConfig config;
  config.version_string = [] {
    return "blockbloom " + std::string(Version()) + "\n";
  };
  absl::SetFlagsUsageConfig(config);

  // --help is ours (absl's exits with status 1 and knows no commands): take
  // it out before absl parses, and note which flags are given so that each
  // command accepts only its own. Unknown flags and bad values are reported
  // here, in the tool's words, so that absl's parser meets none.
  ScannedCommandLine scanned = ScanCommandLine(argc, argv);
  if (!scanned.error.empty()) {
    return UsageError(
        FindCommand(scanned.command) != nullptr ? scanned.command : "",
        scanned.error);
  }
  if (scanned.version) {
    Print("blockbloom " + std::string(Version()) + "\n");
    return FinishOutput("");
  }
  bool help = scanned.help;
  std::vector<char*> args;
  for (std::string& arg : scanned.args) args.push_back(arg.data());
  std::vector<std::string> given = std::move(scanned.given);
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  std::vector<std::string> rest(positional.begin() + 1, positional.end());

  std::string command_name;
  if (!rest.empty()) {
    command_name = rest.front();
    rest.erase(rest.begin());
  }
  if (command_name == "help") {
    if (rest.size() > 1) return UsageError("", "help takes one COMMAND");
    if (!rest.empty()) {
      command_name = rest.front();
    } else {
      command_name.clear();
    }
    help = true;
  }
  if (command_name.empty()) {
    if (help) {
      Print(FullHelp());
      return FinishOutput("");
    }
    std::fputs("blockbloom: error: no command given\n", stderr);
    std::fputs(ShortUsage().c_str(), stderr);
    return kExitUsage;
  }
  const Command* command = FindCommand(command_name);
  if (command == nullptr) {
    return UsageError("", absl::StrCat("unknown command '", command_name,
                                       "'; the commands are build, info, "
                                       "query, bench, redis"));
  }
  if (help) {
    Print(CommandHelp(*command) + "\n" + ExitCodesHelp());
    return FinishOutput(command->name);
  }
  for (const std::string& name : given) {
    bool ok = false;
    for (std::string_view flag : command->flags) ok = ok || flag == name;
    for (std::string_view flag : kGlobalFlags) ok = ok || flag == name;
    if (!ok) {
      return UsageError(
          command->name,
          absl::StrCat(name.size() == 1 ? "-" : "--", name,
                       " is not a flag of ", std::string(command->name)));
    }
  }
  SetGivenFlags(std::move(given));
  try {
    return command->run(rest);
  } catch (const std::bad_alloc&) {
    // The commands bound what they allocate (--max_memory); this is the net
    // under them: a message and exit 2 rather than an abort.
    return Fail(command->name, kExitBadInput,
                "out of memory (is the address space or data size limited? "
                "ulimit -v, ulimit -d)");
  }
}

}  // namespace
}  // namespace blockbloom::cli

int main(int argc, char** argv) { return blockbloom::cli::Main(argc, argv); }
