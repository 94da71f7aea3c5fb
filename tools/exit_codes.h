// The exit codes of the blockbloom tool (a contract; see `blockbloom --help`).
#ifndef BLOCKBLOOM_TOOLS_EXIT_CODES_H_
#define BLOCKBLOOM_TOOLS_EXIT_CODES_H_

namespace blockbloom::cli {

enum ExitCode : int {
  kExitOk = 0,
  // Bad command line: unknown command or flag, a flag the command does not
  // take, a bad flag value, missing or extra arguments, an OUTPUT that is
  // the INPUT.
  kExitUsage = 1,
  // A file could not be read, or is not a valid filter (or valid input).
  kExitBadInput = 2,
  // Writing the output failed (nothing is left behind), or OUTPUT is of a
  // kind that is refused (a directory, a block device, a socket).
  kExitWriteError = 3,
  // A Redis error (blockbloom redis): connection refused or lost, a timeout,
  // no such shared filter, a key of another type, a wrong seed, AUTH.
  kExitRedis = 4,
};

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_EXIT_CODES_H_
