#include "tools/filter_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/exit_codes.h"

namespace blockbloom::cli {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// A mapped file that shrinks under us (another process truncates it) raises
// SIGBUS on the next page read past its new end. The tool is short-lived and
// maps at most a file or two: say what happened and exit 2 instead of dying
// with "Bus error". The message is made before the signal (a handler may
// only call async-signal-safe functions).
char sigbus_message[4096];
size_t sigbus_message_bytes = 0;

extern "C" void OnSigbus(int) {
  if (sigbus_message_bytes > 0) {
    (void)!::write(STDERR_FILENO, sigbus_message, sigbus_message_bytes);
  }
  ::_exit(kExitBadInput);
}

void ReportSigbusFor(const std::string& name) {
  const std::string message =
      absl::StrCat("blockbloom: error: ", name,
                   ": the file shrank while it was being read (another "
                   "process truncated or rewrote it); try again\n");
  sigbus_message_bytes = std::min(message.size(), sizeof(sigbus_message));
  std::memcpy(sigbus_message, message.data(), sigbus_message_bytes);
  struct sigaction action = {};
  action.sa_handler = OnSigbus;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, nullptr);
}

// Reads all of `fd` (a pipe, a device, a terminal) into `out`, refusing to
// hold more than `limit` bytes.
absl::Status ReadBounded(int fd, const std::string& name, uint64_t limit,
                         std::string* out) {
  char buffer[1 << 16];
  try {
    for (;;) {
      const ssize_t got = ::read(fd, buffer, sizeof(buffer));
      if (got < 0) {
        if (errno == EINTR) continue;
        return absl::ErrnoToStatus(errno, "error reading " + name);
      }
      if (got == 0) return absl::OkStatus();
      const size_t n = static_cast<size_t>(got);
      if (out->size() + n > limit) {
        return absl::ResourceExhaustedError(absl::StrCat(
            name, ": more than ", limit,
            " bytes (--max_memory=", SizeForFlag(limit),
            "): a filter from a pipe or a device is read into memory, and "
            "this one does not end there. Give a larger --max_memory if it "
            "really is a filter that big, or the file's name (files are "
            "mapped, not read)"));
      }
      if (out->size() + n > out->capacity()) {
        // Grow by doubling, but never past the limit.
        out->reserve(static_cast<size_t>(std::min<uint64_t>(
            limit, std::max<uint64_t>(2 * out->capacity(), 1 << 16))));
      }
      out->append(buffer, n);
    }
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(name, ": out of memory after reading ", out->size(),
                     " bytes (a filter from a pipe or device is read into "
                     "memory; raise the memory limit or lower --max_memory)"));
  }
}

// Why a filter is over a limit, in the tool's terms (the reader's message
// names ReadOptions fields).
absl::Status OverLimit(const std::string& name, absl::Span<const uint8_t> bytes,
                       const FilterFileLimits& limits,
                       const absl::Status& status) {
  ReadOptions unlimited;
  unlimited.verify_checksum = false;
  unlimited.max_decompressed_bytes = ~uint64_t{0};
  unlimited.max_decompression_ratio = 0;
  absl::StatusOr<FilterInfo> info = InspectFilter(bytes, unlimited);
  if (!info.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(name, ": ", status.message()));
  }
  if (info->bits_bytes > limits.max_memory) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: this zstd filter decompresses to %d bytes of bits, over "
        "--max_memory=%s; give --max_memory=%s (or more) to read it",
        name, info->bits_bytes, SizeForFlag(limits.max_memory),
        SizeForFlag(info->bits_bytes)));
  }
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s: its %d bytes of zstd data claim %d bytes of bits, %dx as many: "
      "over the %dx cap against decompression bombs (a filter's bits "
      "compress that much only when it holds almost nothing). If you trust "
      "the file, give --max_memory=%s to read it",
      name, info->payload_bytes, info->bits_bytes,
      info->bits_bytes / std::max<uint64_t>(info->payload_bytes, 1),
      ReadOptions{}.max_decompression_ratio, SizeForFlag(info->bits_bytes)));
}

}  // namespace

std::string SizeForFlag(uint64_t bytes) {
  if (bytes <= kMiB) return "1M";
  if (bytes < kGiB) return absl::StrCat((bytes + kMiB - 1) / kMiB, "M");
  return absl::StrCat((bytes + kGiB - 1) / kGiB, "G");
}

FilterFile::~FilterFile() {
  filter.reset();
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
}

absl::StatusOr<std::unique_ptr<FilterFile>> LoadFilterFile(
    const std::string& path, const FilterFileLimits& limits) {
  const bool is_stdin = path == "-";
  auto file = std::make_unique<FilterFile>();
  file->path = is_stdin ? "standard input" : path;
  const std::string& name = file->path;
  const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + name);
  struct CloseFd {
    int fd;
    ~CloseFd() {
      if (fd != 0) ::close(fd);
    }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::ErrnoToStatus(errno, "cannot read " + name);
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::ErrnoToStatus(EISDIR, "cannot read " + name);
  }
  if (S_ISREG(st.st_mode)) {
    // From where the descriptor is (standard input may have been read from
    // already) to the end the file had when opened: bytes appended while we
    // read are not ours.
    const off_t start = is_stdin ? ::lseek(fd, 0, SEEK_CUR) : 0;
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    const uint64_t begin =
        start > 0 ? std::min(static_cast<uint64_t>(start), size) : 0;
    if (size > begin) {
      void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ,
                       MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        return absl::ErrnoToStatus(
            errno, absl::StrFormat("%s: cannot map its %d bytes into memory (a "
                                   "filter file is probed in place; is the "
                                   "address space limited, ulimit -v?)",
                                   name, size));
      }
      file->mapping_ = p;
      file->mapping_bytes_ = static_cast<size_t>(size);
      ReportSigbusFor(name);
      file->bytes = absl::MakeConstSpan(static_cast<const uint8_t*>(p) + begin,
                                        static_cast<size_t>(size - begin));
    }
  } else {
    if (absl::Status s =
            ReadBounded(fd, name, limits.max_memory, &file->buffer_);
        !s.ok()) {
      return s;
    }
    file->bytes = AsBytes(file->buffer_);
  }

  const auto invalid = [&](const absl::Status& status) {
    if (absl::IsResourceExhausted(status)) {
      return OverLimit(name, file->bytes, limits, status);
    }
    // The reader trusts the last byte's tag for the version: a cut or
    // damaged file can look like a newer one. Say so.
    const bool maybe_damaged =
        status.code() == absl::StatusCode::kUnimplemented;
    return absl::Status(
        status.code(),
        absl::StrCat(
            name, ": not a valid blockbloom filter: ", status.ToString(),
            maybe_damaged ? " (or the file is truncated or damaged)" : ""));
  };
  ReadOptions options;
  options.max_decompressed_bytes = limits.max_memory;
  if (limits.max_memory_given) options.max_decompression_ratio = 0;
  // InspectFilter reads the parameters and verifies the checksum; OpenFilter
  // checks everything else (a compressed payload is decompressed and its
  // size checked) without a second pass over the bits.
  absl::StatusOr<FilterInfo> info = InspectFilter(file->bytes, options);
  if (!info.ok()) return invalid(info.status());
  if (info->encoding == Encoding::kAccurate ||
      info->encoding == Encoding::kInPlace) {
    // Accurate and in-place blocks are LevelDB's per-data-block filters; the
    // tool's reports (fill, shape, key estimates) are those of blocked
    // filters.
    return absl::UnimplementedError(absl::StrCat(
        file->path, ": ",
        info->encoding == Encoding::kAccurate ? "an accurate" : "an in-place",
        " filter block (encoding version ", info->major_version,
        ", written by the LevelDB "
        "adapter); this command reads the compact and full encodings"));
  }
  file->info = *info;
  options.verify_checksum = false;
  absl::StatusOr<Filter> filter = OpenFilter(file->bytes, options);
  if (!filter.ok()) {
    if (absl::IsResourceExhausted(filter.status())) {
      // Within the limits, but the allocation itself failed.
      return absl::ResourceExhaustedError(absl::StrCat(
          name, ": cannot decompress it: ", filter.status().message()));
    }
    return invalid(filter.status());
  }
  file->filter.emplace(*std::move(filter));
  return file;
}

}  // namespace blockbloom::cli
