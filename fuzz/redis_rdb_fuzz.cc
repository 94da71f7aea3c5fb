// Arbitrary bytes as an RDB encoding of a filter value (StringRdbReader's
// typed values), read by LoadStack (the stack) and by LoadValue (the whole
// key: a state word, chosen by the input's first byte, then the stack or a
// load in progress). They must never crash, read out of bounds, leak or
// allocate beyond max_bytes (64 MiB) and the piece tables; every error has a
// message; a loaded stack probes consistently and re-encodes to the same
// answers. Each input is loaded twice: as is, and with its final checksum
// recomputed over the values before it (so that mutations reach the checks
// behind the checksum). Seeded from tests/testdata/redis_rdb_*.bin.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz/redis_stack_checks.h"
#include "src/filter_stack/rdb_codec.h"
#include "src/filter_stack/value_codec.h"

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

// LoadValue on the bytes behind a state word: the first byte picks the
// state (the stack, a BF.LOADCHUNK or a BB.LOAD in progress, ...).
void LoadAsValue(const std::string& bytes, uint64_t salt) {
  if (bytes.empty()) return;
  blockbloom::redis_module::StringRdbWriter state;
  state.Unsigned(static_cast<uint8_t>(bytes[0]) % 5);
  const std::string value = state.bytes() + bytes.substr(1);
  blockbloom::redis_module::StringRdbReader reader(value);
  absl::StatusOr<std::unique_ptr<blockbloom::redis_module::FilterValue>>
      loaded =
          blockbloom::redis_module::LoadValue(reader, 1, uint64_t{64} << 20);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) abort();
    return;
  }
  if ((*loaded)->ready())
    blockbloom::fuzzing::CheckStack(*(*loaded)->stack, salt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes.shrink_to_fit();
  Load(bytes, size);
  LoadAsValue(bytes, size);
  Reseal(&bytes);
  Load(bytes, size);
  return 0;
}
