#include "src/filter_stack/piece_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "src/filter_stack/allocator.h"

namespace blockbloom::redis_module {

PieceTable::PieceTable(uint64_t size_bytes, uint64_t block_bytes)
    : size_bytes_(size_bytes), block_bytes_(block_bytes) {
  // The most blocks, a power of two, that fit kTargetPieceBytes (at least
  // one: a block of a small filter's wide lanes is at most 1 KiB).
  piece_shift_ = 0;
  while ((block_bytes << (piece_shift_ + 1)) <= kTargetPieceBytes) {
    ++piece_shift_;
  }
  block_mask_ = (uint64_t{1} << piece_shift_) - 1;
  piece_bytes_ = block_bytes << piece_shift_;
  const size_t pieces = (size_bytes + piece_bytes_ - 1) / piece_bytes_;
  pieces_.assign(pieces, nullptr);
  references_.assign(pieces, nullptr);
}

PieceTable::PieceTable(const PieceTable& other)
    : size_bytes_(other.size_bytes_),
      block_bytes_(other.block_bytes_),
      piece_shift_(other.piece_shift_),
      block_mask_(other.block_mask_),
      piece_bytes_(other.piece_bytes_),
      allocated_(other.allocated_),
      pieces_(other.pieces_),
      references_(other.references_) {
  for (References* references : references_) {
    if (references != nullptr) {
      references->fetch_add(1, std::memory_order_relaxed);
    }
  }
}

PieceTable::PieceTable(PieceTable&& other) noexcept
    : size_bytes_(other.size_bytes_),
      block_bytes_(other.block_bytes_),
      piece_shift_(other.piece_shift_),
      block_mask_(other.block_mask_),
      piece_bytes_(other.piece_bytes_),
      allocated_(std::exchange(other.allocated_, 0)),
      pieces_(std::move(other.pieces_)),
      references_(std::move(other.references_)) {
  other.pieces_.clear();
  other.references_.clear();
}

PieceTable& PieceTable::operator=(PieceTable&& other) noexcept {
  if (this != &other) {
    ReleaseAll();
    size_bytes_ = other.size_bytes_;
    block_bytes_ = other.block_bytes_;
    piece_shift_ = other.piece_shift_;
    block_mask_ = other.block_mask_;
    piece_bytes_ = other.piece_bytes_;
    allocated_ = std::exchange(other.allocated_, 0);
    pieces_ = std::move(other.pieces_);
    references_ = std::move(other.references_);
    other.pieces_.clear();
    other.references_.clear();
  }
  return *this;
}

PieceTable::~PieceTable() { ReleaseAll(); }

void PieceTable::Unreference(size_t i) {
  References* references = references_[i];
  if (references->fetch_sub(1, std::memory_order_acq_rel) == 1) {
    CurrentAllocator().free(pieces_[i]);
    references->~References();
    CurrentAllocator().free(references);
  }
  pieces_[i] = nullptr;
  references_[i] = nullptr;
}

void PieceTable::ReleaseAll() {
  for (size_t i = 0; i < pieces_.size(); ++i) {
    if (pieces_[i] != nullptr) Unreference(i);
  }
  allocated_ = 0;
}

uint64_t PieceTable::PieceSize(size_t i) const {
  return std::min<uint64_t>(piece_bytes_, size_bytes_ - i * piece_bytes_);
}

uint8_t* PieceTable::MakeWritable(size_t i) {
  const uint64_t bytes = PieceSize(i);
  const bool fresh_piece = pieces_[i] == nullptr;
  // Fresh bits come zeroed (see Allocator::calloc); a shared piece is
  // copied.
  auto* data =
      static_cast<uint8_t*>(fresh_piece ? CurrentAllocator().calloc(bytes)
                                        : CurrentAllocator().alloc(bytes));
  auto* references =
      new (CurrentAllocator().alloc(sizeof(References))) References(1);
  if (fresh_piece) {
    ++allocated_;
  } else {
    std::memcpy(data, pieces_[i], bytes);
    Unreference(i);
  }
  pieces_[i] = data;
  references_[i] = references;
  return data;
}

void PieceTable::ReleasePiece(size_t i) {
  if (pieces_[i] == nullptr) return;
  Unreference(i);
  --allocated_;
}

}  // namespace blockbloom::redis_module
