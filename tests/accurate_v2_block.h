// Test helper: an exact-size block of format version 3 (what writers produce
// now) turned into the version 2 block of the same filter (what LevelDB tables
// written before hold), straight from docs/FORMAT.md: restore the first 8
// bytes of the payload (XOR with XXH3-64 of the rest, with the seed), move
// the tag from 0x90 + l / 0xA0 + k - 1 to 0xF0 + l / 0xE0 + k - 1, and
// recompute the CRC-16 over the payload, the seed and the tag. Written apart
// from src/format/format.cc on purpose: it checks the spec as much as it feeds
// the tests that need version 2 blocks.
#ifndef BLOCKBLOOM_TESTS_ACCURATE_V2_BLOCK_H_
#define BLOCKBLOOM_TESTS_ACCURATE_V2_BLOCK_H_

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace blockbloom {

inline std::string AccurateVersion2Block(std::string block, uint64_t seed) {
  const size_t payload = block.size() - 3;
  if (payload > 8) {
    uint64_t first;
    std::memcpy(&first, block.data(), 8);
    first ^= XXH3_64bits_withSeed(block.data() + 8, payload - 8, seed);
    std::memcpy(block.data(), &first, 8);
  }
  const uint8_t tag = static_cast<uint8_t>(block.back());
  const uint8_t v2_tag = static_cast<uint8_t>(tag < 0xA0 ? 0xF0 + (tag - 0x90)
                                                         : 0xE0 + (tag - 0xA0));
  // CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, not reflected.
  uint16_t crc = 0xFFFF;
  auto feed = [&crc](uint8_t byte) {
    crc ^= static_cast<uint16_t>(byte << 8);
    for (int i = 0; i < 8; ++i) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
  };
  for (size_t i = 0; i < payload; ++i) feed(static_cast<uint8_t>(block[i]));
  for (int i = 0; i < 8; ++i) feed(static_cast<uint8_t>(seed >> (8 * i)));
  feed(v2_tag);
  block[payload] = static_cast<char>(crc & 0xFF);
  block[payload + 1] = static_cast<char>(crc >> 8);
  block[payload + 2] = static_cast<char>(v2_tag);
  return block;
}

}  // namespace blockbloom

#endif  // BLOCKBLOOM_TESTS_ACCURATE_V2_BLOCK_H_
