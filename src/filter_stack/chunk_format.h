// BF.SCANDUMP / BF.LOADCHUNK: a filter stack as a sequence of chunks, in
// blockbloom's own versioned, checksummed format (docs/FORMAT.md, "Redis
// module: SCANDUMP chunks").
//
// A dump is a header chunk (the options, every layer's shape and counts, the
// chunk size) and data chunks, each covering one range of one layer's bits
// (at most kMaxChunkBytes). A range whose pieces were never written is sent
// as a flag and no payload, so a reserved but empty 1 GiB filter dumps in a
// few KB. Every chunk carries the dump's id and an XXH3-64 of its contents.
//
// Iterators are what RedisBloom's clients expect:
//
//   it = 0; loop { (it, data) = SCANDUMP(key, it); if it == 0 break;
//                  save (it, data) }
//   for each saved (it, data) in order: LOADCHUNK(key, it, data)
//
// ScanDump(stack, 0) returns the header with iterator I1 > 0; ScanDump(stack,
// I1) the first data chunk with I2; ...; once past the last data chunk,
// next_iter is 0 (and no bytes). An iterator is (dump tag << 24) | position,
// below 2^53 (exact in a JavaScript number): SCANDUMP needs no state between
// calls, and a chunk loaded with another position's iterator is refused.
//
// Nothing here blocks: a chunk is at most 4 MiB of bits copied and hashed.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_CHUNK_FORMAT_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_CHUNK_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/filter_stack/codec_common.h"
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module {

struct DumpChunk {
  uint64_t next_iter = 0;  // 0: the dump is over (bytes is empty)
  std::string bytes;
};

// Chunk sizes: what SCANDUMP writes, and what LOADCHUNK accepts. The lower
// bound keeps the number of chunks (and the loader's bookkeeping) small.
inline constexpr uint64_t kDefaultChunkBytes = uint64_t{4} << 20;
inline constexpr uint64_t kMaxChunkBytes = uint64_t{4} << 20;
inline constexpr uint64_t kMinChunkBytes = uint64_t{64} << 10;

// Chunk `iter` of a dump of `stack`. `dump_nonce` is used when iter is 0 (a
// new dump): any value that differs between dumps (e.g. the key's seed XOR a
// counter); later chunks take the dump's tag from their iterator.
// `chunk_bytes` (in [kMinChunkBytes, kMaxChunkBytes]) must be the same for
// every call of one dump. InvalidArgument for an iterator that no
// SCANDUMP returned (or a bad chunk_bytes). If the stack gains a layer during
// a dump, the loader refuses the extra chunks ("dump it again"); keys added
// during a dump are present or not, keys added before it are present.
absl::StatusOr<DumpChunk> ScanDump(const FilterStack& stack, uint64_t iter,
                                   uint64_t dump_nonce = 0,
                                   uint64_t chunk_bytes = kDefaultChunkBytes);

// Whether `chunk` starts as a header chunk does (its magic): tells
// LOADCHUNK to start a new load rather than continue one.
bool LooksLikeHeaderChunk(std::string_view chunk);

// Rebuilds a stack from the chunks of one dump, in any order, each at most
// once (an identical chunk may be sent again). The stack is usable only once
// complete(): until then the module must not answer queries from it (a
// missing chunk would answer "absent" for keys it holds).
class ChunkLoader {
 public:
  // Starts from the header chunk and the iterator SCANDUMP returned with it.
  // Validates every field; refuses (ResourceExhausted) a filter of more than
  // `max_bytes` bytes of bits. Allocates the layers' piece tables only.
  static absl::StatusOr<ChunkLoader> Start(uint64_t iter,
                                           std::string_view header_chunk,
                                           uint64_t max_bytes);

  // Loads one data chunk with its iterator: checks its checksum, that it is
  // of this dump, at the position its iterator says, inside the declared
  // layout; copies its bits into the layer (pieces of all-zero bits stay
  // unallocated). A chunk already loaded is accepted again if identical.
  absl::Status Apply(uint64_t iter, std::string_view chunk);

  // Every chunk of the dump has been loaded.
  bool complete() const { return received_ == total_chunks_; }
  uint64_t total_chunks() const { return total_chunks_; }
  uint64_t received_chunks() const { return received_; }
  uint64_t dump_id() const { return dump_id_; }

  // The load so far as LOADCHUNK calls that recreate it: the header, then
  // every chunk received, each with its iterator (re-encoded from the bits
  // loaded: the same content, and a fresh loader fed them is in this
  // loader's state). How a load in progress is saved in the RDB file and
  // the AOF, so that a restart, a replica's full sync or an AOF rewrite in
  // the middle of a load does not lose it.
  void Replay(absl::FunctionRef<void(uint64_t iter, std::string_view chunk)>
                  emit) const;

  // The stack. Call when complete() (missing chunks would read as zeros).
  FilterStack Finish() &&;

 private:
  ChunkLoader() = default;

  // The chunk number `index`'s layer, offset and length.
  struct Range {
    uint32_t layer;
    uint64_t offset;
    uint64_t length;
  };
  Range RangeOf(uint64_t index) const;

  std::string header_;  // the header chunk, for Replay
  uint64_t header_iter_ = 0;
  StackOptions options_;
  std::vector<Layer> layers_;
  uint64_t dump_id_ = 0;
  uint64_t chunk_bytes_ = 0;
  // first_chunk_[i]: the number of layer i's first chunk; one more entry,
  // total_chunks_.
  std::vector<uint64_t> first_chunk_;
  uint64_t total_chunks_ = 0;
  uint64_t received_ = 0;
  std::vector<uint64_t> received_bits_;  // bitmap of chunk numbers
  std::vector<uint64_t> checksums_;      // of each received chunk
};

namespace chunk_format {
// Exposed for tests: the layout of iterators and chunk fields.
inline constexpr int kPositionBits = 24;
inline constexpr uint64_t kTagMask = (uint64_t{1} << 29) - 1;
inline constexpr size_t kHeaderFixedBytes = 64;
inline constexpr size_t kHeaderLayerBytes = 40;
inline constexpr size_t kDataHeaderBytes = 40;
inline constexpr uint8_t kVersion = 1;
inline constexpr uint8_t kZeroFlag = 1;
// Recomputes a chunk's checksum (a header chunk's or a data chunk's, by its
// magic) in place: for tests and fuzz targets that edit a chunk and want the
// edit to reach the checks behind the checksum. Chunks too short to hold one
// are left alone.
void Reseal(std::string* chunk);

inline uint64_t MakeIter(uint64_t tag, uint64_t position) {
  return (tag << kPositionBits) | position;
}
}  // namespace chunk_format

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_CHUNK_FORMAT_H_
