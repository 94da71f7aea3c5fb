// Frees large filter values off Redis's main thread.
//
// Redis frees a value in its lazyfree thread only for UNLINK, FLUSHALL
// ASYNC and the lazyfree-lazy-* settings; a plain DEL, an overwrite or an
// expiry of a 1 GiB filter would return ~1,200 pieces to the allocator on
// the main thread (tens of ms). The type's free callback hands values with
// many pieces to this thread instead, so no command waits for it.
// RedisModule_Free is thread-safe, and nothing else references a value once
// Redis frees it (pieces shared with a COPY count their references
// atomically).
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_BACKGROUND_FREE_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_BACKGROUND_FREE_H_

#include <cstddef>

#include "src/filter_stack/value.h"

namespace blockbloom::redis_module {

// Values with more allocated pieces than this go to the thread (64 MiB of
// pieces take ~1 ms to free).
inline constexpr size_t kInlineFreePieces = 64;

// Deletes `value` now if it is small, else in the background thread.
void FreeValue(FilterValue* value);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_BACKGROUND_FREE_H_
