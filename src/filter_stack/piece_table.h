// The bits of one layer of a Redis filter, kept in pieces of about 1 MiB
// that are allocated on first write.
//
// Why pieces: Redis runs commands on one thread, so a command must not stop
// it for long. Reserving a 1 GiB filter as one zeroed allocation would touch
// 1 GiB (hundreds of ms); with pieces, BF.RESERVE allocates only the table of
// piece pointers (8 bytes per MiB), and each piece is allocated and zeroed
// (a small fraction of a millisecond) by the first add that lands in it. A
// probe into a piece that was never written answers "absent" without
// touching memory: its bits are all zero. Freeing is piece by piece too,
// which lets Redis free a big filter in its background thread (the type's
// free_effort is the number of pieces).
//
// Why shared pieces: COPY must not copy a gigabyte on the main thread either.
// A copy shares the pieces and counts references; the first write to a
// shared piece copies that piece only (copy-on-write). The count is atomic
// because Redis may free a value in its lazyfree thread while the main thread
// copies or writes another value sharing the same pieces.
//
// A block never straddles two pieces: a piece holds a power of two of
// blocks (16384 of 64 bytes), so finding a block's piece is a shift. A
// piece's allocation is exactly its bits, 1 MiB, one of the allocator's
// size classes (jemalloc's large allocations are page-aligned, so blocks are
// cache lines); its reference count lives in a small allocation of its own,
// not beside the bits, where it would push the piece into the next size
// class (1.25 MiB: a quarter of the memory wasted).
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_PIECE_TABLE_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_PIECE_TABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace blockbloom::redis_module {

class PieceTable {
 public:
  // Largest piece: 16384 blocks of 64 bytes. Large enough that the pointer
  // table stays small (8 KiB per GiB, in cache), small enough that
  // allocating, zeroing, copying or checksumming one piece takes well under
  // a millisecond.
  static constexpr uint64_t kTargetPieceBytes = uint64_t{1} << 20;

  // `size_bytes` of bits in blocks of `block_bytes` (size_bytes is a
  // multiple of block_bytes); no piece is allocated yet.
  PieceTable(uint64_t size_bytes, uint64_t block_bytes);
  // Shares every piece (copy-on-write); O(number of pieces).
  PieceTable(const PieceTable& other);
  PieceTable& operator=(const PieceTable&) = delete;
  PieceTable(PieceTable&& other) noexcept;
  PieceTable& operator=(PieceTable&& other) noexcept;
  ~PieceTable();

  uint64_t size_bytes() const { return size_bytes_; }
  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t piece_bytes() const { return piece_bytes_; }
  size_t num_pieces() const { return pieces_.size(); }
  size_t allocated_pieces() const { return allocated_; }
  // Bytes in piece i (the last one may be shorter).
  uint64_t PieceSize(size_t i) const;

  // The block's bytes, or null if its piece was never written (all zero).
  const uint8_t* FindBlock(uint64_t block) const {
    const uint8_t* data = pieces_[block >> piece_shift_];
    if (data == nullptr) return nullptr;
    return data + (block & block_mask_) * block_bytes_;
  }
  // The block's bytes for writing: allocates (zeroed) or unshares its piece.
  uint8_t* WritableBlock(uint64_t block) {
    return WritablePiece(block >> piece_shift_) +
           (block & block_mask_) * block_bytes_;
  }

  // Piece i, or null if never written.
  const uint8_t* Piece(size_t i) const { return pieces_[i]; }
  // Piece i for writing (allocated zeroed, or unshared, as needed).
  uint8_t* WritablePiece(size_t i) {
    uint8_t* data = pieces_[i];
    if (data != nullptr && !IsShared(i)) return data;
    return MakeWritable(i);
  }
  // Frees piece i (its bits become zero).
  void ReleasePiece(size_t i);

 private:
  // How many tables share a piece. Atomic: Redis may free a value in its
  // lazyfree thread while the main thread copies or writes another value
  // sharing the piece.
  using References = std::atomic<uint32_t>;

  bool IsShared(size_t i) const {
    return references_[i]->load(std::memory_order_acquire) != 1;
  }
  uint8_t* MakeWritable(size_t i);
  // Drops this table's reference to piece i (freeing it if it was the last).
  void Unreference(size_t i);
  void ReleaseAll();

  uint64_t size_bytes_;
  uint64_t block_bytes_;
  int piece_shift_;      // log2(blocks per piece)
  uint64_t block_mask_;  // blocks per piece - 1
  uint64_t piece_bytes_;
  size_t allocated_ = 0;
  std::vector<uint8_t*> pieces_;         // null: never written
  std::vector<References*> references_;  // beside each non-null piece
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_PIECE_TABLE_H_
