// The first look at the command line, before absl parses it, so that every
// mistake gets the tool's own message (naming the command, with a hint)
// instead of absl's bare "ERROR: Unknown command line flag" or its "RAW: Did
// you really mean to set flag 'o' to the value '-'?" warning:
//   - an unknown flag: "unknown flag --bits-per-key (did you mean
//     --bits_per_key?)";
//   - a bad value: "--bits_per_key=x: expected a number";
//   - a flag with no value at the end of the line.
// A value given as a separate argument ("-o -", "-o -name.bbf") is joined to
// its flag ("--o=-") so that absl takes it as the value it is.
#ifndef BLOCKBLOOM_TOOLS_COMMAND_LINE_H_
#define BLOCKBLOOM_TOOLS_COMMAND_LINE_H_

#include <string>
#include <string_view>
#include <vector>

namespace blockbloom::cli {

struct ScannedCommandLine {
  // The arguments to give absl::ParseCommandLine (argv[0] first; --help and
  // its spellings taken out, separate values joined to their flags).
  std::vector<std::string> args;
  // The flags given, by name ("nofoo" recorded as "foo").
  std::vector<std::string> given;
  bool help = false;
  // --version (or -version) was given: print the version and stop.
  bool version = false;
  // The command named (the first argument that is not a flag or a flag's
  // value; the one after "help" for `blockbloom help COMMAND`), or "".
  std::string command;
  // The first mistake, as the message to print, or "".
  std::string error;
};

ScannedCommandLine ScanCommandLine(int argc, char** argv);

// The flag among `candidates` that `typed` most likely meant (the same
// letters with '-' for '_' or another case, or one or two typing slips
// away), or "" if none is close.
std::string SuggestFlag(std::string_view typed,
                        const std::vector<std::string_view>& candidates);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_COMMAND_LINE_H_
