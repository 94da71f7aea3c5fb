// Writing an output file so that a failure never leaves a partial one: the
// data goes to a new temporary file in the same directory (same file system,
// so the final rename is atomic), is flushed to disk, and only then renamed
// over the destination. On any error the temporary file is removed and the
// destination is untouched (an existing file there keeps its old contents).
// SIGINT, SIGTERM, SIGHUP and SIGXFSZ (a file size limit) arriving during
// the write remove the temporary file before they end the process.
#ifndef BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_
#define BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace blockbloom::cli {

// Writes `data` to `path` as described above. The file gets the permissions
// a newly created file would (0666 minus the umask). Errors carry the path
// and the system's reason.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view data);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_ATOMIC_FILE_H_
