// CRC-16 with the polynomial 0x1021 (CCITT), unreflected, no final xor: the
// checksum of the compact and exact-size filter encodings (CRC-16/CCITT-FALSE,
// initial value 0xFFFF; docs/FORMAT.md) and, with initial value 0, Redis
// Cluster's key-slot hash (CRC-16/XMODEM; src/redis_client/router.cc). One
// implementation for both.
#ifndef BLOCKBLOOM_SRC_CORE_CRC16_H_
#define BLOCKBLOOM_SRC_CORE_CRC16_H_

#include <cstddef>
#include <cstdint>

namespace blockbloom::internal {

// The CRC register after folding in `n` bytes at `p`, starting from `crc`
// (0xFFFF: CCITT-FALSE; 0: XMODEM). Chains: Crc16(Crc16(c, a), b) is the
// CRC of a then b.
uint16_t Crc16(uint16_t crc, const uint8_t* p, size_t n);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_CRC16_H_
