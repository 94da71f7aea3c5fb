// Zeroed memory for filter bits, aligned to a cache line (64 bytes), and for
// large filters to a 2 MiB huge page with transparent huge pages requested:
// about a fifth of a DRAM probe is page-table walking with 4 KiB pages.
#ifndef BLOCKBLOOM_SRC_CORE_ALIGNED_BUFFER_H_
#define BLOCKBLOOM_SRC_CORE_ALIGNED_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace blockbloom::internal {

class AlignedBuffer {
 public:
  // ResourceExhausted if the memory cannot be had.
  static absl::StatusOr<std::unique_ptr<AlignedBuffer>> Create(size_t size);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  AlignedBuffer(uint8_t* data, size_t size, void* mapping, size_t mapped);
  uint8_t* data_;
  size_t size_;
  void* mapping_;  // non-null if mmap()ed
  size_t mapped_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_ALIGNED_BUFFER_H_
