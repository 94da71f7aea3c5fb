// How commands report failures: one line on stderr, prefixed with the
// command, and the exit code to return.
//
//   if (!status.ok()) return Fail("info", kExitBadInput, status.message());
#ifndef BLOCKBLOOM_TOOLS_REPORT_H_
#define BLOCKBLOOM_TOOLS_REPORT_H_

#include <string_view>

#include "absl/status/status.h"
#include "tools/exit_codes.h"

namespace blockbloom::cli {

// Prints "blockbloom COMMAND: error: MESSAGE" and returns `code`.
int Fail(std::string_view command, ExitCode code, std::string_view message);

// The same with a status's message (which names the file and the reason).
int Fail(std::string_view command, ExitCode code, const absl::Status& status);

// A usage error: the message, then where to find help. Returns kExitUsage.
int UsageError(std::string_view command, std::string_view message);
int UsageError(std::string_view command, const absl::Status& status);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_REPORT_H_
