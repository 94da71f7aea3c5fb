// What a key of the module's type ("bb-filter") holds: a filter stack, or a
// filter on its way in. A key being loaded (BF.LOADCHUNK chunks, or BB.LOAD
// file bytes) answers no query until every byte arrived and verified: a
// half-loaded filter would answer "absent" for keys it holds.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_VALUE_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_VALUE_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "src/filter_stack/chunk_format.h"
#include "src/filter_stack/file_transfer.h"
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module {

struct FilterValue {
  // Exactly one of these is set.
  std::optional<FilterStack> stack;
  std::unique_ptr<ChunkLoader> chunks;  // BF.LOADCHUNK in progress
  std::shared_ptr<FileLoad> file;       // BB.LOAD in progress

  // Counts writes; a BB.DUMP in progress stops when it changes.
  uint64_t version = 0;
  // The BB.DUMP in progress, if any (one per key: a new one replaces it).
  std::unique_ptr<FileDump> dump;
  uint64_t dump_version = 0;  // `version` when the dump started

  bool ready() const { return stack.has_value(); }
  void Touch() { ++version; }
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_VALUE_H_
