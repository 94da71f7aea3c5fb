#include "src/filter_stack/allocator.h"

#include <cstdlib>

namespace blockbloom::redis_module {
namespace {

void* MallocOrAbort(size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) std::abort();
  return p;
}

void* CallocOrAbort(size_t bytes) {
  void* p = std::calloc(1, bytes == 0 ? 1 : bytes);
  if (p == nullptr) std::abort();
  return p;
}

Allocator current = {MallocOrAbort, CallocOrAbort, std::free};

}  // namespace

const Allocator& CurrentAllocator() { return current; }
void SetAllocator(const Allocator& allocator) { current = allocator; }

}  // namespace blockbloom::redis_module
