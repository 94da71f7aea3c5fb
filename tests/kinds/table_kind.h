// A filter kind defined outside the library, as docs/ARCHITECTURE.md's "A
// new filter kind" says to add one: an exact table of 32-bit fingerprints,
// sorted, probed by binary search (false positives about n / 2^32 a probe).
// Registered at run time (src/format/registry.h), it is built by
// FilterBuilder (FilterOptions::kind = kTableKind), written and read by the
// format's entry points, and answers through the policies and the engine
// adapters, with nothing of it outside this folder.
//
// Its block: | fingerprints, u32 each, ascending | count u32 | seed u64 |
// check u32 | tag 0x30 |, the check the low 32 bits of XXH3 (seeded with
// the tag) of everything before it.
#ifndef BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_H_
#define BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_H_

#include <cstdint>

#include "blockbloom/filter.h"

namespace blockbloom::testing {

inline constexpr FilterKind kTableKind = static_cast<FilterKind>(128);
inline constexpr uint8_t kTableTag = 0x30;

// Registers the kind (once per process; later calls do nothing). Aborts
// if the registry refuses it.
void RegisterTableKind();

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_H_
