// The exact-size kinds' plug-ins (src/core/kind.h): a filter per data
// block, sized to the byte (FilterOptions::exact_size), in the accurate
// or the in-place encoding (encoding.h). Built by FilterBuilder from
// FilterOptions::exact_size, not from FilterOptions::kind.
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_KIND_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_KIND_H_

#include "src/core/kind.h"

namespace blockbloom::internal {

extern const KindPlugin kSpreadKind;
extern const KindPlugin kSetKind;
extern const KindPlugin kStandardKind;

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_KIND_H_
