#include "tools/filter_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"

namespace blockbloom::cli {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "standard input" : path;
  const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + name);
  std::string data;
  struct stat st;
  absl::Status status;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      status = absl::ErrnoToStatus(EISDIR, "cannot read " + name);
    } else if (S_ISREG(st.st_mode)) {
      data.reserve(static_cast<size_t>(st.st_size));
    }
  }
  char buffer[1 << 16];
  while (status.ok()) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0) {
      if (errno == EINTR) continue;
      status = absl::ErrnoToStatus(errno, "error reading " + name);
    } else if (got == 0) {
      break;
    } else {
      data.append(buffer, static_cast<size_t>(got));
    }
  }
  if (!is_stdin) ::close(fd);
  if (!status.ok()) return status;
  return data;
}

absl::StatusOr<std::unique_ptr<FilterFile>> LoadFilterFile(
    const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  auto file = std::make_unique<FilterFile>();
  file->path = path == "-" ? "standard input" : path;
  file->bytes = *std::move(bytes);
  const auto invalid = [&](const absl::Status& status) {
    // The reader trusts the last byte's tag for the version: a cut or
    // damaged file can look like a newer one. Say so.
    const bool maybe_damaged =
        status.code() == absl::StatusCode::kUnimplemented;
    return absl::Status(
        status.code(),
        absl::StrCat(
            file->path, ": not a valid blockbloom filter: ", status.ToString(),
            maybe_damaged ? " (or the file is truncated or damaged)" : ""));
  };
  // InspectFilter reads the parameters; OpenFilter checks everything else
  // (a compressed payload is decompressed and its size checked).
  absl::StatusOr<FilterInfo> info = InspectFilter(AsBytes(file->bytes));
  if (!info.ok()) return invalid(info.status());
  if (info->encoding == Encoding::kPacked) {
    // Packed blocks are LevelDB's per-data-block filters; the tool's reports
    // (fill, shape, key estimates) are those of blocked filters.
    return absl::UnimplementedError(absl::StrCat(
        file->path,
        ": a packed filter block (format version 2, written by the LevelDB "
        "adapter); this command reads the compact and full encodings"));
  }
  file->info = *info;
  absl::StatusOr<Filter> filter = OpenFilter(AsBytes(file->bytes));
  if (!filter.ok()) return invalid(filter.status());
  file->filter.emplace(*std::move(filter));
  return file;
}

}  // namespace blockbloom::cli
