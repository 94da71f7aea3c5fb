// Where the module's filter memory comes from. Inside Redis it is
// RedisModule_Alloc/RedisModule_Free, so that the bits count in used_memory,
// maxmemory and MEMORY USAGE; in unit tests and fuzz targets (no server) it
// is malloc/free. The module sets it once in RedisModule_OnLoad, before any
// value exists.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_ALLOCATOR_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_ALLOCATOR_H_

#include <cstddef>

namespace blockbloom::redis_module {

struct Allocator {
  void* (*alloc)(size_t bytes);  // never null: aborts on exhaustion as Redis
  // Zeroed memory. Large blocks fresh from the operating system come as
  // zero pages mapped on first touch, so a piece costs what its keys touch,
  // not a memset of the whole piece (jemalloc's calloc skips the memset for
  // memory it knows to be zero).
  void* (*calloc)(size_t bytes);
  void (*free)(void* p);
};

// The allocator in use (malloc/free until SetAllocator).
const Allocator& CurrentAllocator();
void SetAllocator(const Allocator& allocator);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_ALLOCATOR_H_
