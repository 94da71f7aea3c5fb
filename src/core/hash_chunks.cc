#include "src/core/hash_chunks.h"

#include <memory>
#include <utility>

namespace blockbloom::internal {

uint64_t* HashChunks::NewChunk(uint64_t** end) {
  Chunk chunk;
  chunk.capacity =
      chunks_.empty() ? kFirstChunkHashes : chunks_.back().capacity * 4;
  if (chunk.capacity >= kBigChunkHashes) {
    chunk.capacity = kBigChunkHashes;
    // A 2 MiB-aligned mapping with MADV_HUGEPAGE. If mapping fails, new[]
    // below reports it the way a vector would (std::bad_alloc).
    absl::StatusOr<std::unique_ptr<AlignedBuffer>> huge =
        AlignedBuffer::Create(chunk.capacity * sizeof(uint64_t));
    if (huge.ok()) {
      chunk.huge = *std::move(huge);
      chunk.data = reinterpret_cast<uint64_t*>(chunk.huge->data());
    }
  }
  if (chunk.data == nullptr) {
    // Not zeroed: every slot is written before it is read.
    chunk.small.reset(new uint64_t[chunk.capacity]);
    chunk.data = chunk.small.get();
  }
  uint64_t* first = chunk.data;
  *end = first + chunk.capacity;
  chunks_.push_back(std::move(chunk));
  return first;
}

}  // namespace blockbloom::internal
