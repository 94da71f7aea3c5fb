// Arbitrary bytes as an RDB encoding of a filter value (StringRdbReader's
// typed values): LoadStack must never crash, read out of bounds, leak or
// allocate beyond max_bytes (64 MiB) and the piece tables; every error has a
// message; a loaded stack probes consistently and re-encodes to the same
// answers. Each input is loaded twice: as is, and with its final checksum
// recomputed over the values before it (so that mutations reach the checks
// behind the checksum). Seeded from tests/testdata/redis_rdb_*.bin.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz/redis_stack_checks.h"
#include "src/redis_module/rdb_codec.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace {

// Recomputes the last value (an unsigned) as the XXH3-64 of the values
// before it, as SaveStack writes it.
void Reseal(std::string* bytes) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  size_t i = 0;
  size_t last = std::string::npos;
  while (i + 9 <= bytes->size()) {
    const uint8_t type = static_cast<uint8_t>((*bytes)[i]);
    uint64_t v;
    std::memcpy(&v, bytes->data() + i + 1, 8);
    if (type == 5) {  // a string: its length, then its bytes
      if (v > bytes->size() - i - 9) return;
      XXH3_64bits_update(&state, &v, 8);
      XXH3_64bits_update(&state, bytes->data() + i + 9, v);
      i += 9 + v;
      continue;
    }
    if (i + 9 == bytes->size() && type == 2) {
      last = i;
      break;
    }
    XXH3_64bits_update(&state, &v, 8);
    i += 9;
  }
  if (last == std::string::npos) return;
  const uint64_t sum = XXH3_64bits_digest(&state);
  std::memcpy(bytes->data() + last + 1, &sum, 8);
}

void Load(const std::string& bytes, uint64_t salt) {
  blockbloom::redis_module::StringRdbReader reader(bytes);
  absl::StatusOr<blockbloom::redis_module::FilterStack> stack =
      blockbloom::redis_module::LoadStack(reader, 1, uint64_t{64} << 20);
  if (!stack.ok()) {
    if (stack.status().message().empty()) abort();
    return;
  }
  blockbloom::fuzzing::CheckStack(*stack, salt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes.shrink_to_fit();
  Load(bytes, size);
  Reseal(&bytes);
  Load(bytes, size);
  return 0;
}
