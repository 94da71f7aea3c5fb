#include "src/core/hash_chunks.h"

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace blockbloom::internal {
namespace {

// Big chunks kept for the next build, at most kKeptChunks (8 MiB) in the
// process. A new big chunk is fresh memory, whose pages the kernel zeroes
// on first touch: in a build of 838,860 keys (3 big chunks) that was 8% of
// the time (docs/BENCHMARKS.md, "Building filters"). Builders that follow
// each other (an engine writing tables, the benchmark's loop) take them
// from here instead. Never destroyed: builders may run during exit.
constexpr size_t kKeptChunks = 4;

struct KeptChunks {
  std::mutex mu;
  std::vector<std::unique_ptr<AlignedBuffer>> chunks;
};

KeptChunks& Kept() {
  static KeptChunks* const kept = new KeptChunks;
  return *kept;
}

std::unique_ptr<AlignedBuffer> TakeKeptChunk() {
  KeptChunks& kept = Kept();
  const std::lock_guard<std::mutex> lock(kept.mu);
  if (kept.chunks.empty()) return nullptr;
  std::unique_ptr<AlignedBuffer> chunk = std::move(kept.chunks.back());
  kept.chunks.pop_back();
  return chunk;
}

}  // namespace

void HashChunks::Release(Chunk& chunk) {
  if (chunk.huge != nullptr) {
    KeptChunks& kept = Kept();
    const std::lock_guard<std::mutex> lock(kept.mu);
    if (kept.chunks.size() < kKeptChunks) {
      kept.chunks.push_back(std::move(chunk.huge));
    }
  }
  chunk = Chunk{};
}

uint64_t* HashChunks::NewChunk(uint64_t** end) {
  Chunk chunk;
  chunk.capacity =
      chunks_.empty() ? kFirstChunkHashes : chunks_.back().capacity * 4;
  if (chunk.capacity >= kBigChunkHashes) {
    chunk.capacity = kBigChunkHashes;
    // A kept one, or a 2 MiB-aligned mapping with MADV_HUGEPAGE. If mapping
    // fails, new[] below reports it the way a vector would (std::bad_alloc).
    chunk.huge = TakeKeptChunk();
    if (chunk.huge == nullptr) {
      absl::StatusOr<std::unique_ptr<AlignedBuffer>> huge =
          AlignedBuffer::Create(chunk.capacity * sizeof(uint64_t));
      if (huge.ok()) chunk.huge = *std::move(huge);
    }
    if (chunk.huge != nullptr) {
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
