#include "tools/report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace blockbloom::cli {

int Fail(std::string_view command, ExitCode code, std::string_view message) {
  const std::string line = absl::StrCat(
      "blockbloom", command.empty() ? "" : " ", std::string(command),
      ": error: ", std::string(message), "\n");
  std::fputs(line.c_str(), stderr);
  return code;
}

int Fail(std::string_view command, ExitCode code, const absl::Status& status) {
  const absl::string_view message = status.message();
  return Fail(command, code, std::string_view(message.data(), message.size()));
}

namespace {
// The reason of the first failed write to stdout or stderr (0: none yet).
int first_write_error = 0;
}  // namespace

void Print(std::string_view text, std::FILE* out) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() &&
      first_write_error == 0) {
    first_write_error = errno;
  }
}

int FinishOutput(std::string_view command, std::FILE* out,
                 std::string_view lost) {
  errno = 0;
  const bool flushed = std::fflush(out) == 0;
  const int error = first_write_error != 0 ? first_write_error
                    : errno != 0           ? errno
                                           : EIO;
  if (flushed && !std::ferror(out)) return kExitOk;
  return Fail(command, kExitWriteError,
              absl::StrCat("error writing ",
                           out == stderr ? "standard error" : "standard output",
                           ": ", std::strerror(error), lost.empty() ? "" : " (",
                           std::string(lost), lost.empty() ? "" : ")"));
}

int UsageError(std::string_view command, std::string_view message) {
  Fail(command, kExitUsage, message);
  const std::string hint =
      absl::StrCat("Run 'blockbloom help", command.empty() ? "" : " ",
                   std::string(command), "' for usage.\n");
  std::fputs(hint.c_str(), stderr);
  return kExitUsage;
}

}  // namespace blockbloom::cli

namespace blockbloom::cli {

int UsageError(std::string_view command, const absl::Status& status) {
  const absl::string_view message = status.message();
  return UsageError(command, std::string_view(message.data(), message.size()));
}

}  // namespace blockbloom::cli
