// Zeroed, 64-byte-aligned memory on a chosen page size, for the baselines and
// the memory floor. The page size is part of what a benchmark measures (a
// DRAM probe with 4 KiB pages spends about a fifth of its time walking page
// tables), so each buffer says which it asked for and how much it got.
#ifndef BLOCKBLOOM_BENCH_BASELINES_PAGE_BUFFER_H_
#define BLOCKBLOOM_BENCH_BASELINES_PAGE_BUFFER_H_

#include <cstddef>
#include <cstdint>

namespace blockbloom::bench {

enum class Pages {
  k4K,    // madvise(MADV_NOHUGEPAGE): ordinary pages, whatever the THP mode
  kHuge,  // madvise(MADV_HUGEPAGE): 2 MiB pages where the kernel grants them
};

class PageBuffer {
 public:
  PageBuffer() = default;
  // Maps `size` zero bytes (at least one page), 2 MiB-aligned, every page
  // faulted in. Aborts if the memory cannot be mapped: benchmarks have no
  // use for a missing buffer.
  PageBuffer(size_t size, Pages pages);
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  ~PageBuffer();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;
};

// Fraction of [p, p + size) backed by transparent huge pages right now, from
// /proc/self/smaps (AnonHugePages of the mappings it overlaps); -1 if unknown.
double HugePageFraction(const void* p, size_t size);

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_BASELINES_PAGE_BUFFER_H_
