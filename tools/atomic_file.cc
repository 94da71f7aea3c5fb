#include "tools/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>
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

// While the temporary file exists, the signals that end a process by default
// and that a user or the system sends while a write is under way remove it
// first. (SIGKILL or a crash can still leave it behind: a hidden
// ".NAME.tmp-XXXXXX" beside the destination.)
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
char temp_to_remove[4096];
volatile std::sig_atomic_t temp_exists = 0;

extern "C" void RemoveTempAndDie(int signal_number) {
  if (temp_exists) ::unlink(temp_to_remove);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

class TempFileCleanup {
 public:
  // Creates the temporary file from `pattern` (mkstemp) with the handlers in
  // place, so that no signal finds it unguarded. Returns its descriptor, or
  // -1 with errno set.
  int Create(std::vector<char>& pattern) {
    sigset_t block, old_mask;
    sigemptyset(&block);
    for (int sig : kCleanupSignals) sigaddset(&block, sig);
    ::sigprocmask(SIG_BLOCK, &block, &old_mask);
    const int fd = ::mkstemp(pattern.data());
    const int saved_errno = errno;
    if (fd >= 0 && std::strlen(pattern.data()) < sizeof(temp_to_remove)) {
      std::strcpy(temp_to_remove, pattern.data());
      temp_exists = 1;
      struct sigaction action = {};
      action.sa_handler = RemoveTempAndDie;
      sigemptyset(&action.sa_mask);
      for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
        ::sigaction(kCleanupSignals[i], nullptr, &old_[i]);
        // A signal ignored by whoever started us stays ignored.
        if (old_[i].sa_handler != SIG_IGN) {
          ::sigaction(kCleanupSignals[i], &action, nullptr);
        }
      }
      installed_ = true;
    }
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    errno = saved_errno;
    return fd;
  }

  // The file is renamed or removed: back to the old handlers.
  ~TempFileCleanup() {
    if (!installed_) return;
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      ::sigaction(kCleanupSignals[i], &old_[i], nullptr);
    }
    temp_exists = 0;
  }

 private:
  bool installed_ = false;
  struct sigaction old_[std::size(kCleanupSignals)] = {};
};

mode_t CurrentUmask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// ".NAME.tmp-XXXXXX" beside `base`, NAME cut so that the whole stays within
// `name_max` bytes: an output name as long as the file system allows must
// still get a temporary name beside it (a 254-byte name would otherwise
// need 266).
std::string TemporaryBase(const std::string& base, size_t name_max) {
  constexpr absl::string_view kPrefix = ".";
  constexpr absl::string_view kSuffix = ".tmp-XXXXXX";
  const size_t fixed = kPrefix.size() + kSuffix.size();
  std::string name = base;
  if (name_max > fixed && name.size() > name_max - fixed) {
    name.resize(name_max - fixed);
  }
  return absl::StrCat(kPrefix, name, kSuffix);
}

// The longest file name in `dir` (NAME_MAX, 255 on Linux file systems).
size_t NameMax(const std::string& dir) {
  errno = 0;
  const long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return limit > 0 ? static_cast<size_t>(limit) : 255;
}

// Gives the new file `replaced`'s owner, group and permission bits, as far
// as this process may: root sets any owner; others can set a group they
// belong to. Not being allowed is not an error (the file is then ours, with
// the old permission bits). Owner first: chown clears set-id bits.
absl::Status CopyOwnerAndMode(int fd, const struct stat& replaced,
                              const std::string& path) {
  if (::fchown(fd, replaced.st_uid, replaced.st_gid) != 0) {
    if (errno != EPERM) {
      return absl::ErrnoToStatus(errno, "cannot set the owner of " + path);
    }
    // Not allowed either: the file stays in our group.
    (void)!::fchown(fd, static_cast<uid_t>(-1), replaced.st_gid);
  }
  if (::fchmod(fd, replaced.st_mode & 0777) != 0) {
    return absl::ErrnoToStatus(errno, "cannot set the mode of " + path);
  }
  return absl::OkStatus();
}

}  // namespace

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

absl::Status WriteFileAtomically(const std::string& path, std::string_view data,
                                 const struct stat* replaced) {
  std::string dir, base;
  SplitPath(path, &dir, &base);
  if (base.empty() || base == "." || base == "..") {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write ", path, ": not a file name"));
  }
  // A hidden name beside the destination; mkstemp fills in the X's.
  std::string temp = absl::StrCat(dir, "/", TemporaryBase(base, NameMax(dir)));
  std::vector<char> temp_buf(temp.begin(), temp.end());
  temp_buf.push_back('\0');
  TempFileCleanup cleanup;
  const int fd = cleanup.Create(temp_buf);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot create a file in ",
                                                   dir, " to write ", path));
  }
  temp.assign(temp_buf.data());

  absl::Status status = WriteAll(fd, data, path);
  if (status.ok()) {
    if (replaced != nullptr) {
      status = CopyOwnerAndMode(fd, *replaced, path);
    } else if (::fchmod(fd, 0666 & ~CurrentUmask()) != 0) {
      // mkstemp makes the file 0600; give it what open(O_CREAT, 0666) would.
      status = absl::ErrnoToStatus(errno, "cannot set the mode of " + path);
    }
  }
  if (status.ok() && ::fsync(fd) != 0) {
    status = absl::ErrnoToStatus(errno, "error writing " + path);
  }
  if (::close(fd) != 0 && status.ok()) {
    status = absl::ErrnoToStatus(errno, "error writing " + path);
  }
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = absl::ErrnoToStatus(
        errno, absl::StrCat("cannot put the new file in place at ", path));
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

}  // namespace blockbloom::cli
