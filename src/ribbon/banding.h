// Banding: putting one layer's keys into its system of equations (Gaussian
// elimination on the fly, Dillinger & Walzer's "ribbon"), bumping the keys
// that do not fit (BuRR). The builder (builder.h) sorts a layer's keys
// (sort.h), bands them, and hands the bumped ones to the next layer.
//
// A key's row (its coefficients) starts at its start slot s. Inserting it:
// if row s is empty, the key's row and result bits go there (s is its pivot);
// otherwise XOR row s's row and result into the key's (eliminating bit 0),
// shift the row to its next set bit, advance s by as much, and repeat. It
// ends in an empty row (stored), in a row of zeros with result 0 (0 = 0: a
// duplicate key or a dependent row, consistent: nothing to store), or in
// zeros with a non-zero result (0 = 1: the key cannot be held here).
//
// Bumping (BuRR): keys are inserted bucket by bucket, high offsets first
// (sort.h). When a key fails, its bucket's code becomes the smallest
// threshold above its offset; the bucket's keys already inserted below that
// threshold are undone (they are the last ones inserted, so no other row was
// reduced by them: clearing their pivot rows restores the system exactly),
// and they, the failing key and the bucket's remaining keys are bumped.
//
// Where the time goes, and what was done about it (the prototype's REPORT,
// 10.3): at load 1.05 most keys meet a full table: the keys with high
// offsets take a few steps each, the minority kept below take many (most of
// all steps): they walk past the previous bucket's "spill" to the frontier.
// - Pre-bumping (layout.h, PreBumpSpill): about half the layer-0 steps per
//   key.
// - Interleaved streams: a layer's buckets cut into up to 4 ranges, banded
//   in one loop one step of each at a time; the chains are independent, so
//   the CPU overlaps them (most of the gain comes with the second stream).
//   Stream k's walks may run into stream
//   k+1's rows, but only below the start of k+1's current bucket (rows no
//   later key of k+1 reads or undoes); the limit only grows. Cost: a
//   fraction of a percent of space against one stream.
// - The next key of the same bucket is taken inline (a compare and the hash
//   derivation); a new bucket, a bumped key or a failure are calls.
#ifndef BLOCKBLOOM_SRC_RIBBON_BANDING_H_
#define BLOCKBLOOM_SRC_RIBBON_BANDING_H_

#include <cstddef>
#include <cstdint>
#include <limits>

#include "src/ribbon/layout.h"

namespace blockbloom::internal::ribbon {

// One layer's system: 64 * num_blocks rows (and one spare).
template <typename Row>
struct LayerSystem {
  uint64_t* coeff;  // all 0 (empty) before banding
  Row* result;      // any contents: read only where coeff is not 0
  uint8_t* codes;   // CodeBytes(num_blocks), all 0xFF (code 3) before
  uint32_t num_blocks;
};

struct BandingOptions {
  uint32_t salt = 0;
  int layer = 0;
  uint32_t result_mask = 0;  // the result bits solved (r_max + 1 columns)
  uint8_t bump_lo = kBumpLo;
  uint8_t bump_hi = kBumpHi;
  // PreBumpSpill(n) where PreBumps(n), else never.
  uint32_t pre_bump_spill = std::numeric_limits<uint32_t>::max();
  int streams = 1;  // 1 .. 4
};

// The streams a layer of `keys` keys is banded with: one per 24,000 keys in
// layer 0 and per 2,000 in the others, 1 to 4. (Streams in the other layers
// gained within noise at 100k keys for a little space; kept for the larger
// layers 1 of 10M-key filters.)
int StreamsFor(uint64_t keys, int layer);

// Bands keys[0, n), sorted by SortForBanding for this layer, into `system`.
// The keys it bumps end in keys[0, bumped), and it returns `bumped`; the
// multiset of keys[0, n) is unchanged. Never fails.
template <typename Row>
size_t BandLayer(const LayerSystem<Row>& system, const BandingOptions& options,
                 uint64_t* keys, size_t n);

extern template size_t BandLayer(const LayerSystem<uint16_t>&,
                                 const BandingOptions&, uint64_t*, size_t);
extern template size_t BandLayer(const LayerSystem<uint32_t>&,
                                 const BandingOptions&, uint64_t*, size_t);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_BANDING_H_
