#include "tools/redis/password.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/flags.h"

namespace blockbloom::cli {
namespace {

// A password file is a line, not a data set: refuse anything longer.
constexpr size_t kMaxPasswordFileBytes = 64 << 10;

absl::StatusOr<std::string> ReadPasswordFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, "cannot read --password_file=" + path);
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    std::fputs(absl::StrFormat("blockbloom redis: warning: --password_file=%s "
                               "can be read by other users (mode %04o): "
                               "chmod 600 it\n",
                               path, st.st_mode & 07777)
                   .c_str(),
               stderr);
  }
  std::string data;
  char buffer[4096];
  absl::Status status;
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      status =
          absl::ErrnoToStatus(errno, "cannot read --password_file=" + path);
      break;
    }
    if (got == 0) break;
    data.append(buffer, static_cast<size_t>(got));
    if (data.size() > kMaxPasswordFileBytes) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "--password_file=", path, ": more than ", kMaxPasswordFileBytes,
          " bytes; a password file holds one line"));
      break;
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  // The first line; a trailing "\n" or "\r\n" is not part of it.
  data = data.substr(0, data.find('\n'));
  if (!data.empty() && data.back() == '\r') data.pop_back();
  if (data.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--password_file=", path, ": the file's first line is empty"));
  }
  return data;
}

}  // namespace

absl::StatusOr<std::optional<Password>> PasswordFromFlagsOrEnvironment(
    bool url_has_password) {
  if (FlagGiven("password_file")) {
    const std::string path = absl::GetFlag(FLAGS_password_file);
    if (url_has_password) {
      return absl::InvalidArgumentError(
          "the password is given twice, in --url and --password_file: give "
          "it once (--url=redis://USER:@host for a user whose password is "
          "in the file)");
    }
    absl::StatusOr<std::string> secret = ReadPasswordFile(path);
    if (!secret.ok()) return secret.status();
    return Password{*std::move(secret), "--password_file=" + path};
  }
  const char* variable = std::getenv(kPasswordVariable);
  if (url_has_password || variable == nullptr || *variable == '\0') {
    return std::nullopt;
  }
  return Password{variable, kPasswordVariable};
}

}  // namespace blockbloom::cli
