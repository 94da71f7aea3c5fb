#include "src/core/aligned_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace blockbloom::internal {
namespace {

constexpr size_t kLineBytes = 64;
constexpr size_t kHugePageBytes = size_t{2} << 20;
// Below this, malloc'ed memory: a mapping per small filter would waste a
// page each and cost a system call.
constexpr size_t kMmapThreshold = kHugePageBytes;

}  // namespace

absl::StatusOr<std::unique_ptr<AlignedBuffer>> AlignedBuffer::Create(
    size_t size) {
  if (size < kMmapThreshold) {
    const size_t rounded = (size + kLineBytes - 1) / kLineBytes * kLineBytes;
    void* p =
        std::aligned_alloc(kLineBytes, rounded == 0 ? kLineBytes : rounded);
    if (p == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", size, " bytes for a filter"));
    }
    std::memset(p, 0, rounded);
    return std::unique_ptr<AlignedBuffer>(
        new AlignedBuffer(static_cast<uint8_t*>(p), size, nullptr, 0));
  }
  // Map 2 MiB more than needed so a 2 MiB-aligned start can be chosen, then
  // give the slack back. Anonymous mappings are zero-filled lazily.
  const size_t used =
      (size + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const size_t mapped = used + kHugePageBytes;
  void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot map ", size, " bytes for a filter: ", std::strerror(errno)));
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(m);
  const uintptr_t aligned =
      (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const size_t head = aligned - start;
  if (head > 0) munmap(m, head);
  const size_t tail = mapped - head - used;
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + used), tail);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(aligned), used, MADV_HUGEPAGE);  // a hint
#endif
  return std::unique_ptr<AlignedBuffer>(
      new AlignedBuffer(reinterpret_cast<uint8_t*>(aligned), size,
                        reinterpret_cast<void*>(aligned), used));
}

AlignedBuffer::AlignedBuffer(uint8_t* data, size_t size, void* mapping,
                             size_t mapped)
    : data_(data), size_(size), mapping_(mapping), mapped_(mapped) {}

AlignedBuffer::~AlignedBuffer() {
  if (mapping_ != nullptr) {
    munmap(mapping_, mapped_);
  } else {
    std::free(data_);
  }
}

}  // namespace blockbloom::internal
