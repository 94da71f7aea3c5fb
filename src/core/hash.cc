#include "blockbloom/hash.h"

#include "src/core/key_hash.h"

namespace blockbloom {

uint64_t HashKey(std::string_view key, uint64_t seed) {
  return internal::Hash64(key, seed);
}

}  // namespace blockbloom
