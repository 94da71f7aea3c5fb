// Where `-o OUTPUT` goes (build, redis download), decided before any input is
// read, so that no kind of existing file is ever destroyed by mistake:
//
//   OUTPUT                   what happens
//   does not exist           created, 0666 minus the umask
//   a regular file           replaced atomically (tools/atomic_file.h),
//                            keeping its mode and, where allowed, its owner
//   a symbolic link          followed: the file it points to is written as
//                            above, the link stays; a link to nothing is
//                            refused (say which file to create)
//   a character device, a    written into, as a shell's `>` would: /dev/null,
//   FIFO (named pipe)        /dev/stdout, a pipe to another program
//   a directory, a block     refused: replacing them would destroy them, and
//   device, a socket         writing into a disk would overwrite what is on it
//
// Commands that also read a file refuse an OUTPUT that is that same regular
// file, by device and inode (so through links, ./ or dir/.. too).
#ifndef BLOCKBLOOM_TOOLS_OUTPUT_FILE_H_
#define BLOCKBLOOM_TOOLS_OUTPUT_FILE_H_

#include <sys/stat.h>

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace blockbloom::cli {

class OutputFile {
 public:
  // Looks at `path` and decides how it will be written. FailedPrecondition
  // for an OUTPUT that is refused (the message says why and what to do),
  // the system's error if it cannot be looked at.
  static absl::StatusOr<OutputFile> Resolve(const std::string& path);

  const std::string& path() const { return path_; }
  // True if OUTPUT exists and is the regular file `other` describes (the
  // same device and inode).
  bool IsSameRegularFile(const struct stat& other) const;
  // True if OUTPUT exists and is the file `other` describes, of any kind.
  bool IsSameFile(const struct stat& other) const;

  // Writes `data` as described above. Errors name OUTPUT and the reason.
  absl::Status Write(std::string_view data) const;

 private:
  enum class Kind { kNew, kRegular, kStream };
  OutputFile() = default;

  std::string path_;        // as given, for messages
  std::string write_path_;  // links resolved: the file to replace
  Kind kind_ = Kind::kNew;
  std::optional<struct stat> existing_;
};

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_OUTPUT_FILE_H_
