// The ribbon kind's plug-in (src/core/kind.h): its encoding (encoding.h),
// its build for FilterBuilder (FilterOptions::kind = kRibbon, falling back
// to the blocked kind where that is the better filter) and its rate curve
// for the policies' planning.
#ifndef BLOCKBLOOM_SRC_RIBBON_KIND_H_
#define BLOCKBLOOM_SRC_RIBBON_KIND_H_

#include "src/core/kind.h"

namespace blockbloom::internal::ribbon {

extern const KindPlugin kRibbonKind;

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_KIND_H_
