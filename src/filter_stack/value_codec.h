// The RDB encoding of a whole key of the module's type (a FilterValue): a
// state word, then what that state needs. rdb_codec.h encodes the filter
// stack itself; this adds the loads in progress, so that a restart, a
// replica's full sync or an AOF rewrite in the middle of one does not lose
// it (docs/FORMAT.md, "Redis module: RDB encoding").
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_VALUE_CODEC_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_VALUE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "src/filter_stack/rdb_codec.h"
#include "src/filter_stack/value.h"

namespace blockbloom::redis_module {

// What the first word of a saved value says.
enum SavedState : uint64_t {
  kSavedInterrupted = 0,  // a load that cannot go on: nothing follows
  kSavedStack = 1,        // SaveStack's encoding follows
  // BF.LOADCHUNK in progress: the number of LOADCHUNK calls that recreate
  // it (ChunkLoader::Replay), then each one's iterator and bytes.
  kSavedChunkLoad = 2,
  // BB.LOAD in progress: the stated total, the LoadOptions, the number of
  // parts and the bytes received so far in parts of kFilePartBytes.
  kSavedFileLoad = 3,
};

// BB.LOAD's bytes go into the RDB file, and the AOF, in parts of at most
// this size.
inline constexpr size_t kFilePartBytes = size_t{4} << 20;

void SaveValue(const FilterValue& value, RdbWriter& writer);

// The value, or an error (DataLoss, Unimplemented, ResourceExhausted, ...)
// for a damaged or truncated one; nothing is ever declared bigger than
// max_bytes. A BB.LOAD that was complete (being verified when saved) is
// verified here: a file that does not verify leaves an interrupted key.
absl::StatusOr<std::unique_ptr<FilterValue>> LoadValue(RdbReader& reader,
                                                       int encver,
                                                       uint64_t max_bytes);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_VALUE_CODEC_H_
