#include "src/core/batch_size.h"

#include <cstdio>
#include <cstdlib>

namespace blockbloom::internal {

void CheckBatchSize(const char* what, size_t inputs, size_t results) {
  if (inputs == results) return;
  std::fprintf(stderr, "blockbloom: %s of %zu keys given %zu results\n", what,
               inputs, results);
  std::abort();
}

}  // namespace blockbloom::internal
