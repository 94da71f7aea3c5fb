// The one check every batch probe makes before it writes results: as many
// result slots as inputs. A mismatch is a caller's bug that would otherwise
// write out of bounds, so it aborts with a message (as absl's CHECK would)
// instead of returning a Status from a call that cannot fail otherwise.
#ifndef BLOCKBLOOM_SRC_CORE_BATCH_SIZE_H_
#define BLOCKBLOOM_SRC_CORE_BATCH_SIZE_H_

#include <cstddef>

namespace blockbloom::internal {

// Aborts, naming `what` (e.g. "SharedFilter::MayContainBatch"), unless
// inputs == results.
void CheckBatchSize(const char* what, size_t inputs, size_t results);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_BATCH_SIZE_H_
