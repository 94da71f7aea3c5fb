// Arbitrary saved SCANDUMP runs (tests/filter_stack/saved_dump.h: iterator,
// length, chunk, ...) loaded with ChunkLoader: the first chunk starts the
// load, the others are applied in order. Nothing may crash, read out of
// bounds, leak or allocate beyond max_bytes (64 MiB) and the piece tables;
// every error has a message; a complete load gives a stack that probes
// consistently and re-encodes to the same answers. Each input is loaded
// twice: as is, and with every chunk's checksum recomputed (so that the
// mutations reach the checks behind the checksum). Seeded from the golden
// dumps tests/testdata/redis_chunks_*.bin.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/redis_stack_checks.h"
#include "src/filter_stack/chunk_format.h"
#include "tests/filter_stack/saved_dump.h"

namespace {

using blockbloom::redis_module::ChunkLoader;

void Load(const std::vector<std::pair<uint64_t, std::string>>& chunks) {
  if (chunks.empty()) return;
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(chunks[0].first, chunks[0].second, uint64_t{64} << 20);
  if (!loader.ok()) {
    if (loader.status().message().empty()) abort();
    return;
  }
  for (size_t i = 1; i < chunks.size(); ++i) {
    const uint64_t before = loader->received_chunks();
    absl::Status s = loader->Apply(chunks[i].first, chunks[i].second);
    if (!s.ok() && s.message().empty()) abort();
    if (!s.ok() && loader->received_chunks() != before) abort();
  }
  if (loader->received_chunks() > loader->total_chunks()) abort();
  if (!loader->complete()) return;
  blockbloom::redis_module::FilterStack stack = std::move(*loader).Finish();
  blockbloom::fuzzing::CheckStack(stack, chunks.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<uint64_t, std::string>> chunks;
  // Exactly-sized copies, so that any overread is caught.
  for (const auto& [it, chunk] :
       blockbloom::redis_module::testing::DecodeSavedDump(input)) {
    chunks.emplace_back(it, std::string(chunk));
    chunks.back().second.shrink_to_fit();
  }
  Load(chunks);
  for (auto& [it, chunk] : chunks)
    blockbloom::redis_module::chunk_format::Reseal(&chunk);
  Load(chunks);
  return 0;
}
