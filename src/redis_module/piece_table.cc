#include "src/redis_module/piece_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "src/redis_module/allocator.h"

namespace blockbloom::redis_module {
namespace {

// Each piece's data is 64-byte aligned (a block is one cache line) and
// preceded by this header, in the same allocation.
struct alignas(64) PieceHeader {
  void* allocation;
  std::atomic<uint32_t> references;
};
static_assert(sizeof(PieceHeader) == 64);

PieceHeader* HeaderOf(const uint8_t* data) {
  return reinterpret_cast<PieceHeader*>(const_cast<uint8_t*>(data)) - 1;
}

// A piece of `bytes`, zeroed if `zeroed` (see Allocator::calloc).
uint8_t* AllocatePiece(uint64_t bytes, bool zeroed) {
  // Room for the header and for aligning it: the allocator promises 16.
  const size_t size = bytes + 2 * sizeof(PieceHeader);
  void* allocation =
      zeroed ? CurrentAllocator().calloc(size) : CurrentAllocator().alloc(size);
  const uintptr_t start = reinterpret_cast<uintptr_t>(allocation);
  const uintptr_t aligned = (start + 63) & ~uintptr_t{63};
  auto* header = reinterpret_cast<PieceHeader*>(aligned);
  header->allocation = allocation;
  new (&header->references) std::atomic<uint32_t>(1);
  return reinterpret_cast<uint8_t*>(header + 1);
}

void Unreference(uint8_t* data) {
  PieceHeader* header = HeaderOf(data);
  if (header->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    CurrentAllocator().free(header->allocation);
  }
}

}  // namespace

PieceTable::PieceTable(uint64_t size_bytes, uint64_t block_bytes)
    : size_bytes_(size_bytes), block_bytes_(block_bytes) {
  blocks_per_piece_ = std::max<uint64_t>(1, kTargetPieceBytes / block_bytes);
  piece_bytes_ = blocks_per_piece_ * block_bytes;
  pieces_.assign((size_bytes + piece_bytes_ - 1) / piece_bytes_, nullptr);
}

PieceTable::PieceTable(const PieceTable& other)
    : size_bytes_(other.size_bytes_),
      block_bytes_(other.block_bytes_),
      blocks_per_piece_(other.blocks_per_piece_),
      piece_bytes_(other.piece_bytes_),
      allocated_(other.allocated_),
      pieces_(other.pieces_) {
  for (uint8_t* data : pieces_) {
    if (data != nullptr) {
      HeaderOf(data)->references.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

PieceTable::PieceTable(PieceTable&& other) noexcept
    : size_bytes_(other.size_bytes_),
      block_bytes_(other.block_bytes_),
      blocks_per_piece_(other.blocks_per_piece_),
      piece_bytes_(other.piece_bytes_),
      allocated_(std::exchange(other.allocated_, 0)),
      pieces_(std::move(other.pieces_)) {
  other.pieces_.clear();
}

PieceTable& PieceTable::operator=(PieceTable&& other) noexcept {
  if (this != &other) {
    ReleaseAll();
    size_bytes_ = other.size_bytes_;
    block_bytes_ = other.block_bytes_;
    blocks_per_piece_ = other.blocks_per_piece_;
    piece_bytes_ = other.piece_bytes_;
    allocated_ = std::exchange(other.allocated_, 0);
    pieces_ = std::move(other.pieces_);
    other.pieces_.clear();
  }
  return *this;
}

PieceTable::~PieceTable() { ReleaseAll(); }

void PieceTable::ReleaseAll() {
  for (uint8_t*& data : pieces_) {
    if (data != nullptr) Unreference(data);
    data = nullptr;
  }
  allocated_ = 0;
}

uint64_t PieceTable::PieceSize(size_t i) const {
  return std::min<uint64_t>(piece_bytes_, size_bytes_ - i * piece_bytes_);
}

bool PieceTable::IsShared(const uint8_t* data) {
  return HeaderOf(data)->references.load(std::memory_order_acquire) != 1;
}

uint8_t* PieceTable::MakeWritable(size_t i) {
  const uint64_t bytes = PieceSize(i);
  uint8_t* old = pieces_[i];
  uint8_t* fresh = AllocatePiece(bytes, /*zeroed=*/old == nullptr);
  if (old == nullptr) {
    ++allocated_;
  } else {
    std::memcpy(fresh, old, bytes);
    Unreference(old);
  }
  pieces_[i] = fresh;
  return fresh;
}

void PieceTable::ReleasePiece(size_t i) {
  if (pieces_[i] == nullptr) return;
  Unreference(pieces_[i]);
  pieces_[i] = nullptr;
  --allocated_;
}

}  // namespace blockbloom::redis_module
