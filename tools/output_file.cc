#include "tools/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/atomic_file.h"

namespace blockbloom::cli {
namespace {

// What a symbolic link says (for messages), or "?" if it cannot be read.
std::string LinkText(const std::string& path) {
  std::vector<char> buffer(PATH_MAX + 1);
  const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
  if (n < 0 || static_cast<size_t>(n) >= buffer.size()) return "?";
  return std::string(buffer.data(), static_cast<size_t>(n));
}

bool IsStream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

absl::Status Refused(const std::string& path, std::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("will not write to ", path, ": ",
                   absl::string_view(why.data(), why.size())));
}

}  // namespace

absl::StatusOr<OutputFile> OutputFile::Resolve(const std::string& path) {
  OutputFile out;
  out.path_ = path;
  out.write_path_ = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    struct stat link;
    if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 &&
        S_ISLNK(link.st_mode)) {
      return Refused(path,
                     absl::StrCat("it is a symbolic link to ", LinkText(path),
                                  ", which does not exist (give -o that "
                                  "file's name to create it)"));
    }
    if (error == ENOENT) return out;  // a new file
    return absl::ErrnoToStatus(error, "cannot write " + path);
  }
  out.existing_ = st;
  if (S_ISREG(st.st_mode)) {
    out.kind_ = Kind::kRegular;
    struct stat link;
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      // Replace the file the link points to, not the link.
      std::unique_ptr<char, decltype(&std::free)> real(
          ::realpath(path.c_str(), nullptr), &std::free);
      if (real == nullptr) {
        return absl::ErrnoToStatus(errno, "cannot follow the link " + path);
      }
      out.write_path_ = real.get();
    }
    return out;
  }
  if (IsStream(st.st_mode)) {
    out.kind_ = Kind::kStream;
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    return Refused(
        path, absl::StrCat("it is a directory (give the filter "
                           "file's name, e.g. -o ",
                           path, path.back() == '/' ? "" : "/", "NAME.bbf)"));
  }
  if (S_ISBLK(st.st_mode)) {
    return Refused(path,
                   "it is a block device (writing a filter onto it would "
                   "overwrite what it holds; give a file name)");
  }
  if (S_ISSOCK(st.st_mode)) {
    return Refused(path,
                   "it is a socket (a filter goes to a file, a character "
                   "device such as /dev/null, or a pipe)");
  }
  return Refused(path, absl::StrFormat("it is not a file blockbloom can "
                                       "write (mode 0%o)",
                                       st.st_mode));
}

bool OutputFile::IsSameFile(const struct stat& other) const {
  return existing_.has_value() && existing_->st_dev == other.st_dev &&
         existing_->st_ino == other.st_ino;
}

bool OutputFile::IsSameRegularFile(const struct stat& other) const {
  return IsSameFile(other) && S_ISREG(existing_->st_mode) &&
         S_ISREG(other.st_mode);
}

absl::Status OutputFile::Write(std::string_view data) const {
  if (kind_ != Kind::kStream) {
    // Look again: the mode to keep is the file's mode now.
    struct stat now;
    if (::stat(write_path_.c_str(), &now) == 0) {
      if (!S_ISREG(now.st_mode)) {
        return Refused(path_,
                       "it stopped being a regular file while the "
                       "filter was being built");
      }
      return WriteFileAtomically(write_path_, data, &now);
    }
    if (errno != ENOENT) {
      return absl::ErrnoToStatus(errno, "cannot write " + path_);
    }
    return WriteFileAtomically(write_path_, data);
  }
  // A device or a pipe: written into (no O_CREAT: if it is gone, say so
  // rather than create a regular file in its place).
  const int fd = ::open(path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + path_);
  struct stat st;
  absl::Status status;
  if (::fstat(fd, &st) != 0) {
    status = absl::ErrnoToStatus(errno, "cannot write " + path_);
  } else if (!IsStream(st.st_mode)) {
    status = Refused(path_,
                     "it stopped being a device or pipe while the "
                     "filter was being built");
  } else {
    status = WriteAll(fd, data, path_);
  }
  if (::close(fd) != 0 && status.ok()) {
    status = absl::ErrnoToStatus(errno, "error writing " + path_);
  }
  return status;
}

}  // namespace blockbloom::cli
