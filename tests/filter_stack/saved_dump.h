// A saved BF.SCANDUMP run: the (iterator, chunk) pairs a client keeps, in
// order, as one byte string: for each, the iterator (u64), the chunk's
// length (u32) and its bytes, little-endian. The golden dumps of
// tests/testdata/redis_chunks_*.bin are in this form, and so is the input of
// fuzz/redis_chunk_fuzz.cc (which the golden dumps seed).
#ifndef BLOCKBLOOM_TESTS_FILTER_STACK_SAVED_DUMP_H_
#define BLOCKBLOOM_TESTS_FILTER_STACK_SAVED_DUMP_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "src/filter_stack/chunk_format.h"

namespace blockbloom::redis_module::testing {

using SavedChunk = std::pair<uint64_t, std::string>;

// RedisBloom's client loop: SCANDUMP from 0 until the iterator is 0.
inline absl::StatusOr<std::vector<SavedChunk>> DumpAll(
    const FilterStack& stack, uint64_t nonce,
    uint64_t chunk_bytes = kDefaultChunkBytes) {
  std::vector<SavedChunk> saved;
  uint64_t it = 0;
  for (;;) {
    absl::StatusOr<DumpChunk> chunk = ScanDump(stack, it, nonce, chunk_bytes);
    if (!chunk.ok()) return chunk.status();
    it = chunk->next_iter;
    if (it == 0) break;
    saved.emplace_back(it, std::move(chunk->bytes));
  }
  return saved;
}

// LOADCHUNK of each saved pair, in order.
inline absl::StatusOr<FilterStack> LoadAll(const std::vector<SavedChunk>& saved,
                                           uint64_t max_bytes = uint64_t{1}
                                                                << 40) {
  if (saved.empty()) return absl::InvalidArgumentError("no chunks");
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[0].first, saved[0].second, max_bytes);
  if (!loader.ok()) return loader.status();
  for (size_t i = 1; i < saved.size(); ++i) {
    if (absl::Status s = loader->Apply(saved[i].first, saved[i].second);
        !s.ok()) {
      return s;
    }
  }
  if (!loader->complete()) return absl::DataLossError("incomplete");
  return std::move(*loader).Finish();
}

inline std::string EncodeSavedDump(const std::vector<SavedChunk>& saved) {
  std::string out;
  for (const SavedChunk& c : saved) {
    char head[12];
    const uint32_t size = static_cast<uint32_t>(c.second.size());
    std::memcpy(head, &c.first, 8);
    std::memcpy(head + 8, &size, 4);
    out.append(head, 12);
    out.append(c.second);
  }
  return out;
}

// The pairs of `bytes`; a truncated last pair is dropped.
inline std::vector<std::pair<uint64_t, std::string_view>> DecodeSavedDump(
    std::string_view bytes) {
  std::vector<std::pair<uint64_t, std::string_view>> out;
  while (bytes.size() >= 12) {
    uint64_t it;
    uint32_t size;
    std::memcpy(&it, bytes.data(), 8);
    std::memcpy(&size, bytes.data() + 8, 4);
    bytes.remove_prefix(12);
    if (size > bytes.size()) break;
    out.emplace_back(it, bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  return out;
}

}  // namespace blockbloom::redis_module::testing

#endif  // BLOCKBLOOM_TESTS_FILTER_STACK_SAVED_DUMP_H_
