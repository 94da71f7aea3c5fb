#include "src/core/crc16.h"

#include <array>

namespace blockbloom::internal {
namespace {

// A CRC, not a truncated hash: it detects every single-bit error and every
// burst of up to 16 bits, and other damage but one time in 65536.
//
// Slicing-by-8 tables: kTables[j][b] is the CRC register after byte b
// followed by j zero bytes, so 8 bytes fold in with 8 independent lookups
// instead of a chain of 8: several times faster than a byte at a time on a
// filter block of ~150 bytes, which an uncached accurate probe checks.
using Tables = std::array<std::array<uint16_t, 256>, 8>;
constexpr Tables MakeTables() {
  Tables t{};
  for (int i = 0; i < 256; ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021
                                                 : crc << 1);
    }
    t[0][i] = crc;
  }
  for (int j = 1; j < 8; ++j) {
    for (int i = 0; i < 256; ++i) {
      const uint16_t prev = t[j - 1][i];
      t[j][i] = static_cast<uint16_t>((prev << 8) ^ t[0][prev >> 8]);
    }
  }
  return t;
}
constexpr Tables kTables = MakeTables();

}  // namespace

uint16_t Crc16(uint16_t crc, const uint8_t* p, size_t n) {
  const auto& t = kTables;
  for (; n >= 8; n -= 8, p += 8) {
    crc = t[7][p[0] ^ (crc >> 8)] ^ t[6][p[1] ^ (crc & 0xFF)] ^ t[5][p[2]] ^
          t[4][p[3]] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) {
    crc = static_cast<uint16_t>((crc << 8) ^ t[0][(crc >> 8) ^ *p]);
  }
  return crc;
}

}  // namespace blockbloom::internal
