// Back substitution: a banded layer's solution, written straight into the
// filter's payload (layout.h: block b's cols(b) words). Rows are solved from
// the last up; a row without a pivot (no key) is a free variable, set to 0.
// For row i with row bits c (bit 0 at i) and result bits rr, solution bit
// j is parity(c >> 1 & Z_j[i+1 ..]) ^ bit j of rr, which is one AND and a
// parity per column, with Z_j's next 63 bits kept in a register per column.
//
// Per instruction set (chosen once per build, like the query kernels):
// the scalar loop (parity by folding, or POPCNT), and AVX-512 VPOPCNTQ with
// 8 columns per vector and two rows per step (row k's parity splits into
// what row k+1's new bit adds and the rest, computed in parallel: a shorter
// dependency chain, a small gain). Writing into the payload instead of a
// separate solution array saves build time and a solution array's memory.
#ifndef BLOCKBLOOM_SRC_RIBBON_BACK_SUBSTITUTION_H_
#define BLOCKBLOOM_SRC_RIBBON_BACK_SUBSTITUTION_H_

#include <cstdint>

#include "src/ribbon/kernels.h"

namespace blockbloom::internal::ribbon {

// Solves `columns` (1 .. 32) columns of a layer of `num_blocks` blocks
// (coeff and result as banding left them) and writes each block's
// ColumnsOfBlock(b, upper_start, r) words to `out` (columns >= r + 1).
template <typename Row>
void BackSubstitute(const uint64_t* coeff, const Row* result,
                    uint32_t num_blocks, uint32_t upper_start, int r,
                    int columns, Isa isa, uint8_t* out);

extern template void BackSubstitute(const uint64_t*, const uint16_t*, uint32_t,
                                    uint32_t, int, int, Isa, uint8_t*);
extern template void BackSubstitute(const uint64_t*, const uint32_t*, uint32_t,
                                    uint32_t, int, int, Isa, uint8_t*);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_BACK_SUBSTITUTION_H_
