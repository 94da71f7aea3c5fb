#include "tools/key_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

namespace blockbloom::cli {

absl::StatusOr<std::unique_ptr<KeyReader>> KeyReader::Open(
    const std::string& path, InputFormat format) {
  int fd = 0;
  std::string name = "standard input";
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + path);
    name = path;
  }
  std::optional<uint64_t> total_bytes;
  struct stat st;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (fd != 0) ::close(fd);
      return absl::ErrnoToStatus(EISDIR, "cannot read " + name);
    }
    if (S_ISREG(st.st_mode)) total_bytes = static_cast<uint64_t>(st.st_size);
  }
  auto reader =
      std::make_unique<KeyReader>(fd, std::move(name), format, total_bytes);
  reader->owns_fd_ = fd != 0;
  return reader;
}

KeyReader::KeyReader(int fd, std::string name, InputFormat format,
                     std::optional<uint64_t> total_bytes, size_t buffer_bytes)
    : fd_(fd),
      name_(std::move(name)),
      format_(format),
      total_bytes_(total_bytes),
      buffer_(std::max<size_t>(buffer_bytes, 1)) {}

KeyReader::~KeyReader() {
  if (owns_fd_) ::close(fd_);
}

bool KeyReader::Refill() {
  if (eof_ || !status_.ok()) return false;
  ssize_t got;
  do {
    got = ::read(fd_, buffer_.data(), buffer_.size());
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    status_ = absl::ErrnoToStatus(errno, "error reading " + name_);
    return false;
  }
  if (got == 0) {
    eof_ = true;
    return false;
  }
  pos_ = 0;
  end_ = static_cast<size_t>(got);
  bytes_read_ += static_cast<uint64_t>(got);
  return true;
}

bool KeyReader::Next(std::string_view* key) {
  const bool ok =
      format_ == InputFormat::kLines ? NextLine(key) : NextRecord(key);
  if (ok) ++keys_;
  return ok;
}

bool KeyReader::Assemble(const char* data, size_t n) {
  if (assembled_.size() + n > max_key_bytes_) {
    status_ = absl::ResourceExhaustedError(absl::StrCat(
        name_, ": key ", keys_ + 1, " is longer than ", max_key_bytes_,
        " bytes: is this really a list of keys",
        format_ == InputFormat::kLines ? " (one per line)" : "", "? ",
        max_key_flag_.empty()
            ? std::string()
            : absl::StrCat(max_key_flag_, " raises the limit")));
    return false;
  }
  try {
    assembled_.append(data, n);
  } catch (const std::bad_alloc&) {
    status_ = absl::ResourceExhaustedError(
        absl::StrCat(name_, ": out of memory assembling key ", keys_ + 1,
                     " after ", assembled_.size(), " bytes"));
    return false;
  }
  return true;
}

bool KeyReader::NextLine(std::string_view* key) {
  bool partial = false;  // the key so far is in assembled_
  assembled_.clear();
  for (;;) {
    if (pos_ == end_ && !Refill()) {
      if (!status_.ok() || !partial) return false;
      *key = assembled_;  // a last line without '\n'
      return true;
    }
    const char* start = buffer_.data() + pos_;
    const size_t available = end_ - pos_;
    const char* newline =
        static_cast<const char*>(std::memchr(start, '\n', available));
    if (newline != nullptr) {
      const size_t length = static_cast<size_t>(newline - start);
      pos_ += length + 1;
      if (partial) {
        if (!Assemble(start, length)) return false;
        *key = assembled_;
      } else {
        *key = std::string_view(start, length);
      }
      return true;
    }
    if (!Assemble(start, available)) return false;
    partial = true;
    pos_ = end_;
  }
}

bool KeyReader::Take(uint64_t n, std::string_view* out, uint64_t* got) {
  if (end_ - pos_ >= n) {
    *out = std::string_view(buffer_.data() + pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  // Grows with the data actually read, not with `n`: a corrupt length field
  // cannot make us allocate gigabytes.
  assembled_.clear();
  while (assembled_.size() < n) {
    if (pos_ == end_ && !Refill()) {
      *got = assembled_.size();
      return false;
    }
    const size_t take = static_cast<size_t>(
        std::min<uint64_t>(n - assembled_.size(), end_ - pos_));
    if (!Assemble(buffer_.data() + pos_, take)) {
      *got = assembled_.size();
      return false;
    }
    pos_ += take;
  }
  *out = assembled_;
  return true;
}

bool KeyReader::NextRecord(std::string_view* key) {
  if (pos_ == end_ && !Refill()) return false;  // the end, between records
  const uint64_t offset = bytes_read_ - (end_ - pos_);
  std::string_view header;
  uint64_t got = 0;
  if (!Take(4, &header, &got)) {
    if (status_.ok()) {
      status_ = absl::DataLossError(absl::StrCat(
          name_, ": truncated record ", keys_ + 1, " at byte ", offset,
          ": the input ends after ", got, " of the 4 bytes of its length"));
    }
    return false;
  }
  const auto* h = reinterpret_cast<const unsigned char*>(header.data());
  const uint32_t length = uint32_t{h[0]} | uint32_t{h[1]} << 8 |
                          uint32_t{h[2]} << 16 | uint32_t{h[3]} << 24;
  if (!Take(length, key, &got)) {
    if (status_.ok()) {
      status_ = absl::DataLossError(absl::StrCat(
          name_, ": truncated record ", keys_ + 1, " at byte ", offset,
          ": its length is ", length, " but the input ends after ", got,
          " bytes of it (is the input really --input_format=lenprefixed?)"));
    }
    return false;
  }
  return true;
}

}  // namespace blockbloom::cli
