// Filter files in and out of Redis: BB.LOAD reads a file that `blockbloom
// build` (or FilterBuilder + SerializeFilter) wrote, sent in chunks; BB.DUMP
// writes a key's layer as such a file, a chunk per call. Neither holds the
// server for long: a chunk is at most kDumpChunkBytes, and verifying a large
// loaded file (its checksum covers every byte) is done off the main thread
// (FileLoad::Finish is thread-safe against the main thread: it only reads
// the staged bytes, which no command changes once the last chunk arrived).
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_FILE_TRANSFER_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_FILE_TRANSFER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/core/key_hash.h"  // XXH3, inlined (XXH3_state_t)
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module {

// What BB.LOAD's first call may say about the stack the file becomes.
struct LoadOptions {
  // The stack's rate, a bound at every fill (FilterStack): the file's layer
  // keeps its own expected rate r for its capacity, and layers added by
  // growth share fp_rate - r. Default: r / FilterStack::kFirstShare, as
  // if the file were layer 0 of a new stack. A file at or above the given
  // rate leaves nothing to share: its stack grows as earlier versions did
  // (each new layer at half the previous one's rate).
  std::optional<double> fp_rate;
  // Keys the file's layer counts as holding before the next layer starts;
  // default: the file's key count (full encoding), else an estimate from its
  // set bits (compact encoding).
  std::optional<uint64_t> capacity;
  uint32_t expansion = 2;
  bool nonscaling = false;
};

// A file on its way in. Bytes arrive in order into one buffer (from the
// module's allocator, so it counts in Redis's memory) that grows with the
// bytes received, doubling up to the stated total: stating a total reserves
// nothing (Redis counts an allocation's whole size in used_memory, mapped or
// not, so a buffer of the stated size would let one BB.LOAD call claim up
// to MAX_BYTES: evictions, OOM errors, or an abort where the kernel does not
// overcommit).
class FileLoad {
 public:
  // InvalidArgument for a total of 0 or bad options; ResourceExhausted for a
  // total over max_bytes.
  static absl::StatusOr<std::shared_ptr<FileLoad>> Start(
      uint64_t total, const LoadOptions& options, uint64_t max_bytes);
  ~FileLoad();
  FileLoad(const FileLoad&) = delete;
  FileLoad& operator=(const FileLoad&) = delete;

  // Appends `data`, which must start at `offset` == received() and end
  // within total(): InvalidArgument otherwise (nothing is appended).
  absl::Status Append(uint64_t offset, std::string_view data);
  uint64_t total() const { return total_; }
  uint64_t received() const { return received_; }
  // Bytes of buffer allocated (at least received(), at most total()).
  uint64_t allocated() const { return capacity_; }
  bool complete() const { return received_ == total_; }
  const LoadOptions& options() const { return options_; }
  // The bytes received so far (to save a load in progress).
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(buffer_), received_};
  }

  // Opens the complete file (OpenFilter: checksum, ranges) and turns it into
  // a one-layer stack with the file's shape, seed and bits. Reads all the
  // bytes: call it off the main thread for a large file.
  absl::StatusOr<FilterStack> Finish() const;

 private:
  FileLoad(uint64_t total, const LoadOptions& options, uint64_t max_bytes);

  uint64_t total_;
  // The most bytes of bits the file may hold once decompressed.
  uint64_t max_bytes_;
  uint64_t received_ = 0;
  LoadOptions options_;
  uint8_t* buffer_ = nullptr;
  uint64_t capacity_ = 0;
};

// Bytes per BB.DUMP reply: copying and checksumming 4 MiB takes ~1 ms.
inline constexpr uint64_t kDumpChunkBytes = uint64_t{4} << 20;

// One layer of a stack written as a full-encoding filter file, a chunk at a
// time: the bits (zeros for pieces never written), then the 56-byte footer
// whose checksum was computed along the way. The stack must not change
// between calls (the caller checks a version counter).
class FileDump {
 public:
  // FailedPrecondition if `layer` does not exist.
  static absl::StatusOr<std::unique_ptr<FileDump>> Start(
      const FilterStack& stack, size_t layer, uint64_t id);

  // Appends the next chunk (at most kDumpChunkBytes) to *out; true once the
  // whole file has been written.
  bool Next(const FilterStack& stack, std::string* out);
  uint64_t id() const { return id_; }
  // Chunks written so far.
  uint64_t chunks() const { return chunks_; }
  bool done() const { return done_; }
  uint64_t file_bytes() const;

 private:
  FileDump() = default;

  uint64_t id_ = 0;
  size_t layer_ = 0;
  uint64_t position_ = 0;  // bytes of bits written
  uint64_t chunks_ = 0;
  bool done_ = false;
  uint8_t footer_[56];
  XXH3_state_t checksum_;
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_FILE_TRANSFER_H_
