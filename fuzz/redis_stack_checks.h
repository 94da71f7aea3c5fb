// What the Redis module's fuzz targets check of a stack they loaded: probes
// agree (single and batch), and the stack survives both of its encodings
// (SCANDUMP chunks and RDB) with the same answers. Aborts otherwise.
#ifndef BLOCKBLOOM_FUZZ_REDIS_STACK_CHECKS_H_
#define BLOCKBLOOM_FUZZ_REDIS_STACK_CHECKS_H_

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "src/filter_stack/chunk_format.h"
#include "src/filter_stack/rdb_codec.h"
#include "tests/filter_stack/saved_dump.h"

namespace blockbloom::fuzzing {

inline void CheckStack(redis_module::FilterStack& stack, uint64_t salt) {
  using redis_module::FilterStack;
  std::vector<std::string> items;
  for (uint64_t i = 0; i < 40; ++i) {
    items.push_back(std::to_string(i * 0x9e3779b97f4a7c15ULL ^ salt));
  }
  std::vector<std::string_view> views(items.begin(), items.end());
  bool batch[40];
  stack.MayContainBatch(views, batch);
  for (size_t i = 0; i < 40; ++i) {
    if (batch[i] != stack.MayContain(views[i])) abort();
  }
  // Re-encoding a large stack would be slow for a fuzzer; its chunks and
  // pieces are the same code as a small one's.
  if (stack.reserved_bytes() <= (uint64_t{8} << 20)) {
    auto saved = redis_module::testing::DumpAll(stack, salt);
    if (!saved.ok()) abort();
    absl::StatusOr<FilterStack> again = redis_module::testing::LoadAll(*saved);
    if (!again.ok()) abort();
    redis_module::StringRdbWriter writer;
    redis_module::SaveStack(stack, writer);
    redis_module::StringRdbReader reader(writer.bytes());
    absl::StatusOr<FilterStack> rdb = redis_module::LoadStack(
        reader, redis_module::kRdbEncodingVersion, uint64_t{1} << 40);
    if (!rdb.ok() || reader.remaining() != 0) abort();
    for (size_t i = 0; i < 40; ++i) {
      if (again->MayContain(views[i]) != batch[i]) abort();
      if (rdb->MayContain(views[i]) != batch[i]) abort();
    }
    if (again->num_insertions() != stack.num_insertions() ||
        rdb->num_insertions() != stack.num_insertions()) {
      abort();
    }
  }
  // Adds: may fail (a full NONSCALING stack), never lose a key.
  for (size_t i = 0; i < 8; ++i) {
    absl::StatusOr<bool> added = stack.Add(views[i]);
    if (added.ok() && !stack.MayContain(views[i])) abort();
    if (!added.ok() && added.status().message().empty()) abort();
  }
}

}  // namespace blockbloom::fuzzing

#endif  // BLOCKBLOOM_FUZZ_REDIS_STACK_CHECKS_H_
