#include "tools/report.h"

#include <cstdio>
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
