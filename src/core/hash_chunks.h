// The hashes a FilterBuilder collects before it knows how big the filter
// must be, in chunks that never move.
//
// Why not a std::vector: a doubling vector copies every hash about once more
// as it grows and, at its peak, holds the old and the new array (16 bytes per
// key); every page of both is fresh memory, and first touches are what the
// build spent its time on (at 13.4M keys, several times RocksDB's builder's
// page faults). Chunks are written once, in order. They grow by 4x
// from 256 hashes (2 KiB, enough for the ~40-key filters LevelDB builds per
// data block) to kBigChunkHashes (2 MiB), and from then on are 2 MiB each, on
// a transparent huge page where the kernel grants one (AlignedBuffer): one
// page fault per 262,144 keys instead of 512.
//
// The writer keeps the cursor: NewChunk() hands out a chunk's space, the
// writer fills it from the front (FilterBuilder::AddHash, inline: a compare
// and a store per hash) and asks for the next chunk only when it is full.
//
// Memory: 8 bytes per hash plus the unused end of the last chunk (at most
// 2 MiB, and less than the hashes held while chunks still grow). Drained
// big chunks, up to 8 MiB in the process, are kept for the next builder
// (hash_chunks.cc): fresh pages cost their zeroing on first touch.
#ifndef BLOCKBLOOM_SRC_CORE_HASH_CHUNKS_H_
#define BLOCKBLOOM_SRC_CORE_HASH_CHUNKS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/core/aligned_buffer.h"

namespace blockbloom::internal {

class HashChunks {
 public:
  static constexpr size_t kFirstChunkHashes = 256;
  static constexpr size_t kBigChunkHashes = (size_t{2} << 20) / 8;

  HashChunks() = default;
  HashChunks(const HashChunks&) = delete;
  HashChunks& operator=(const HashChunks&) = delete;

  // Appends a chunk and returns its space, [first, *end). Every chunk before
  // it must be full. Throws std::bad_alloc if no memory is left (as a vector
  // would).
  uint64_t* NewChunk(uint64_t** end);

  // Calls fn(hashes, n) for each chunk in the order the hashes were added,
  // the last one filled up to `last_end`, freeing each chunk after its call
  // (so that the filter being filled can reuse the memory); leaves this
  // empty.
  template <typename Fn>
  void Drain(const uint64_t* last_end, Fn fn) {
    for (size_t i = 0; i < chunks_.size(); ++i) {
      const size_t n = i + 1 < chunks_.size()
                           ? chunks_[i].capacity
                           : static_cast<size_t>(last_end - chunks_[i].data);
      fn(static_cast<const uint64_t*>(chunks_[i].data), n);
      Release(chunks_[i]);
    }
    chunks_.clear();
  }

  bool empty() const { return chunks_.empty(); }

 private:
  struct Chunk {
    std::unique_ptr<AlignedBuffer> huge;  // kBigChunkHashes chunks
    std::unique_ptr<uint64_t[]> small;    // the growing ones before them
    uint64_t* data = nullptr;
    size_t capacity = 0;
  };

  // Frees a drained chunk, or keeps a big one for the next NewChunk in the
  // process (hash_chunks.cc).
  static void Release(Chunk& chunk);

  std::vector<Chunk> chunks_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_HASH_CHUNKS_H_
