// Reads keys from a file or standard input, one at a time, in either input
// format the tool accepts:
//
//   lines        one key per line: the bytes before each '\n' (a '\r' before
//                it is part of the key; an empty line is the empty key; a
//                last line without '\n' is a key; no trailing empty key)
//   lenprefixed  records of a 4-byte little-endian length, then that many
//                bytes (any bytes, including '\n')
//
// Keys can be any length: a key longer than the read buffer is assembled in
// memory (so memory grows with the longest key, never with a length field
// that the data does not back up), up to set_max_key_bytes: an input that
// is not a list of keys (/dev/zero, a disk image without newlines) stops
// there with an error instead of exhausting memory.
//
//   auto reader = KeyReader::Open("keys.txt", InputFormat::kLines);
//   if (!reader.ok()) ...
//   std::string_view key;
//   while ((*reader)->Next(&key)) Use(key);
//   if (!(*reader)->status().ok()) ...   // read error or truncated record
#ifndef BLOCKBLOOM_TOOLS_KEY_READER_H_
#define BLOCKBLOOM_TOOLS_KEY_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace blockbloom::cli {

enum class InputFormat { kLines, kLengthPrefixed };

class KeyReader {
 public:
  // Opens `path` ("-" is standard input). NotFound, PermissionDenied, ... with
  // the path and the system's reason if it cannot be opened.
  static absl::StatusOr<std::unique_ptr<KeyReader>> Open(
      const std::string& path, InputFormat format);
  // Reads from an open descriptor, which it does not close. `name` is used in
  // messages; `buffer_bytes` is how much is read at a time.
  static constexpr size_t kDefaultBufferBytes = size_t{1} << 20;
  KeyReader(int fd, std::string name, InputFormat format,
            std::optional<uint64_t> total_bytes = std::nullopt,
            size_t buffer_bytes = kDefaultBufferBytes);
  ~KeyReader();
  KeyReader(const KeyReader&) = delete;
  KeyReader& operator=(const KeyReader&) = delete;

  // The longest key accepted (default: no limit but memory). A longer one
  // stops the input with ResourceExhausted naming the key and `flag`, the
  // command-line flag that raises the limit.
  void set_max_key_bytes(uint64_t bytes, std::string flag) {
    max_key_bytes_ = bytes;
    max_key_flag_ = std::move(flag);
  }

  // The next key, valid until the next call. False at the end of the input
  // or on an error; status() tells which.
  bool Next(std::string_view* key);
  // OK, or why reading stopped early (DataLoss for a truncated record, the
  // system's reason for a read error), naming the input.
  const absl::Status& status() const { return status_; }

  const std::string& name() const { return name_; }
  // The descriptor read from (to compare the input with an output file).
  int fd() const { return fd_; }
  // Bytes read from the input, including what is buffered ahead.
  uint64_t bytes_read() const { return bytes_read_; }
  // Bytes of the keys returned so far (what progress is measured in).
  uint64_t bytes_consumed() const { return bytes_read_ - (end_ - pos_); }
  // The input's size, if it is a regular file.
  std::optional<uint64_t> total_bytes() const { return total_bytes_; }

 private:
  // Reads more input into the buffer, after moving any unconsumed bytes to
  // its start. False at the end of the input or on an error.
  bool Refill();
  bool NextLine(std::string_view* key);
  bool NextRecord(std::string_view* key);
  // `n` bytes of input: a view into the buffer if they are there, else
  // assembled in `assembled_`. False if the input ends (or fails) first;
  // `*got` says how many bytes there were.
  bool Take(uint64_t n, std::string_view* out, uint64_t* got);
  // Appends to assembled_, or sets status_ (the key is too long, or memory
  // ran out) and returns false.
  bool Assemble(const char* data, size_t n);

  int fd_;
  bool owns_fd_ = false;
  std::string name_;
  InputFormat format_;
  std::optional<uint64_t> total_bytes_;
  std::vector<char> buffer_;
  size_t pos_ = 0;  // next unconsumed byte in buffer_
  size_t end_ = 0;  // end of the data in buffer_
  bool eof_ = false;
  std::string assembled_;  // a key that did not fit in the buffer
  uint64_t max_key_bytes_ = ~uint64_t{0};
  std::string max_key_flag_;
  uint64_t bytes_read_ = 0;
  uint64_t keys_ = 0;
  absl::Status status_;
};

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_KEY_READER_H_
