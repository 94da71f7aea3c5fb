#include "bench/baselines/page_buffer.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace blockbloom::bench {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

PageBuffer::PageBuffer(size_t size, Pages pages) : size_(size) {
  // Round to whole huge pages and align the start to one, so that a huge
  // page request can be honoured for all of the buffer.
  const size_t used = (size + kHugePage - 1) / kHugePage * kHugePage;
  const size_t want = used == 0 ? kHugePage : used;
  mapped_ = want + kHugePage;
  void* m = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "PageBuffer: cannot map %zu bytes: %s\n", mapped_,
                 std::strerror(errno));
    std::abort();
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(m);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  const size_t head = aligned - start;
  if (head > 0) munmap(m, head);
  const size_t tail = mapped_ - head - want;
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + want), tail);
  mapped_ = want;
  data_ = reinterpret_cast<uint8_t*>(aligned);
  madvise(data_, mapped_,
          pages == Pages::kHuge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  // Fault every page in now, in address order: in a VM the first touch of
  // guest memory is slow (seconds per GiB here), and touching it in the
  // random order of a filter's inserts is slower still.
  const size_t step = pages == Pages::kHuge ? kHugePage : 4096;
  for (size_t i = 0; i < mapped_; i += step) data_[i] = 0;
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

PageBuffer::~PageBuffer() {
  if (data_ != nullptr) munmap(data_, mapped_);
}

double HugePageFraction(const void* p, size_t size) {
  if (size == 0) return 0;
  std::FILE* f = std::fopen("/proc/self/smaps", "r");
  if (f == nullptr) return -1;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p);
  const uintptr_t hi = lo + size;
  char line[512];
  bool in_range = false;
  double huge_bytes = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned long start = 0, end = 0;  // NOLINT(runtime/int): sscanf %lx
    if (std::sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
        std::strchr(line, '-') < std::strchr(line, ' ')) {
      in_range = start < hi && end > lo;
      continue;
    }
    unsigned long kb = 0;  // NOLINT(runtime/int)
    if (in_range && std::sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
      huge_bytes += static_cast<double>(kb) * 1024;
    }
  }
  std::fclose(f);
  const double fraction = huge_bytes / static_cast<double>(size);
  return fraction > 1 ? 1 : fraction;
}

}  // namespace blockbloom::bench
