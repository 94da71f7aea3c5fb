#include "tools/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"

namespace blockbloom::cli {
namespace {

// The directory part of `path` ("." if none) and the file name part.
void SplitPath(const std::string& path, std::string* dir, std::string* base) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *base = path;
  } else {
    *dir = slash == 0 ? "/" : path.substr(0, slash);
    *base = path.substr(slash + 1);
  }
}

mode_t CurrentUmask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

absl::Status WriteAll(int fd, std::string_view data, const std::string& name) {
  while (!data.empty()) {
    const ssize_t wrote = ::write(fd, data.data(), data.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "error writing " + name);
    }
    data.remove_prefix(static_cast<size_t>(wrote));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view data) {
  std::string dir, base;
  SplitPath(path, &dir, &base);
  if (base.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write ", path, ": not a file name"));
  }
  // A hidden name beside the destination; mkstemp fills in the X's.
  std::string temp = absl::StrCat(dir, "/.", base, ".tmp-XXXXXX");
  std::vector<char> temp_buf(temp.begin(), temp.end());
  temp_buf.push_back('\0');
  const int fd = ::mkstemp(temp_buf.data());
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot create a file in ",
                                                   dir, " to write ", path));
  }
  temp.assign(temp_buf.data());

  absl::Status status = WriteAll(fd, data, path);
  // mkstemp makes the file 0600; give it what open(O_CREAT, 0666) would.
  if (status.ok() && ::fchmod(fd, 0666 & ~CurrentUmask()) != 0) {
    status = absl::ErrnoToStatus(errno, "cannot set the mode of " + path);
  }
  if (status.ok() && ::fsync(fd) != 0) {
    status = absl::ErrnoToStatus(errno, "error writing " + path);
  }
  if (::close(fd) != 0 && status.ok()) {
    status = absl::ErrnoToStatus(errno, "error writing " + path);
  }
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = absl::ErrnoToStatus(
        errno, absl::StrCat("cannot rename ", temp, " to ", path));
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

}  // namespace blockbloom::cli
