// Writing an output file so that a failure never leaves a partial one: the
// data goes to a new temporary file in the same directory (same file system,
// so the final rename is atomic), is flushed to disk, and only then renamed
// over the destination. On any error the temporary file is removed and the
// destination is untouched (an existing file there keeps its old contents).
// SIGINT, SIGTERM, SIGHUP and SIGXFSZ (a file size limit) arriving during
// the write remove the temporary file before they end the process.
//
// This is the mechanism for regular files; tools/output_file.h decides, per
// kind of existing OUTPUT, whether to use it.
#ifndef BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_
#define BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace blockbloom::cli {

// Writes `data` to `path` as described above. If `replaced` is given (the
// stat of the regular file at `path` now), the new file gets its permission
// bits and, where the process may set them (root; or a group it belongs to),
// its owner and group: a filter holds its seed, and a file made private
// stays private. Otherwise it gets the permissions a newly created file
// would (0666 minus the umask). Errors carry `path` and the system's reason
// (never the temporary name, which the user did not choose).
absl::Status WriteFileAtomically(const std::string& path, std::string_view data,
                                 const struct stat* replaced = nullptr);

// Writes all of `data` to `fd` (retrying short writes and EINTR). Errors
// say "error writing NAME" and the system's reason.
absl::Status WriteAll(int fd, std::string_view data, const std::string& name);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_
