// The blocked kind's plug-in (src/core/kind.h): its encodings, compact
// (compact.cc) and full (full.cc), read and written by their tags
// (encoding.h); FilterBuilder builds it itself.
#ifndef BLOCKBLOOM_SRC_FORMAT_BLOCKED_KIND_H_
#define BLOCKBLOOM_SRC_FORMAT_BLOCKED_KIND_H_

#include "src/core/kind.h"

namespace blockbloom::internal::format {

extern const KindPlugin kBlockedKind;

}  // namespace blockbloom::internal::format

#endif  // BLOCKBLOOM_SRC_FORMAT_BLOCKED_KIND_H_
