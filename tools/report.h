// How commands report failures: one line on stderr, prefixed with the
// command, and the exit code to return.
//
//   if (!status.ok()) return Fail("info", kExitBadInput, status.message());
#ifndef BLOCKBLOOM_TOOLS_REPORT_H_
#define BLOCKBLOOM_TOOLS_REPORT_H_

#include <cstdio>
#include <string_view>

#include "absl/status/status.h"
#include "tools/exit_codes.h"

namespace blockbloom::cli {

// Prints "blockbloom COMMAND: error: MESSAGE" and returns `code`.
int Fail(std::string_view command, ExitCode code, std::string_view message);

// The same with a status's message (which names the file and the reason).
int Fail(std::string_view command, ExitCode code, const absl::Status& status);

// Prints `text` to `out` (stdout by default), remembering why the first
// failed write failed, for FinishOutput.
void Print(std::string_view text, std::FILE* out = stdout);

// Flushes `out` (stdout unless the command printed elsewhere) and checks
// that everything printed reached it: kExitOk, or kExitWriteError after
// "error writing standard output: REASON" and `lost` (what the user should
// know, e.g. that the filter file itself was written). A report that cannot
// be written is an error: a script must not take silence for success.
int FinishOutput(std::string_view command, std::FILE* out = stdout,
                 std::string_view lost = "");

// A usage error: the message, then where to find help. Returns kExitUsage.
int UsageError(std::string_view command, std::string_view message);
int UsageError(std::string_view command, const absl::Status& status);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_REPORT_H_
