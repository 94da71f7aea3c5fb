#include "src/filter_stack/file_transfer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "src/filter_stack/allocator.h"
#include "src/format/encoding.h"
#include "src/memory/fill_stats.h"

namespace blockbloom::redis_module {
namespace {

namespace format = internal::format;

bool AllZero(const uint8_t* p, uint64_t n) {
  // Word at a time; the tail byte by byte.
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word != 0) return false;
  }
  for (; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

uint64_t PopCount(absl::Span<const uint8_t> bits) {
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 8 <= bits.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bits.data() + i, 8);
    total += static_cast<uint64_t>(__builtin_popcountll(word));
  }
  for (; i < bits.size(); ++i)
    total += static_cast<uint64_t>(__builtin_popcount(bits[i]));
  return total;
}

}  // namespace

absl::StatusOr<std::shared_ptr<FileLoad>> FileLoad::Start(
    uint64_t total, const LoadOptions& options, uint64_t max_bytes) {
  if (total == 0) {
    return absl::InvalidArgumentError("total size must be at least 1 byte");
  }
  if (total > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a filter file of ", total, " bytes is over the ",
                     max_bytes, " bytes BB.LOAD accepts"));
  }
  if (options.fp_rate.has_value() &&
      !(*options.fp_rate >= FilterStack::kMinFpRate && *options.fp_rate < 1)) {
    return absl::InvalidArgumentError("error rate must be in (0, 1)");
  }
  if (options.capacity.has_value() && *options.capacity == 0) {
    return absl::InvalidArgumentError("capacity must be at least 1");
  }
  if (options.expansion < 1 || options.expansion > FilterStack::kMaxExpansion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expansion must be in [1, ", FilterStack::kMaxExpansion, "]"));
  }
  return std::shared_ptr<FileLoad>(new FileLoad(total, options, max_bytes));
}

FileLoad::FileLoad(uint64_t total, const LoadOptions& options,
                   uint64_t max_bytes)
    : total_(total), max_bytes_(max_bytes), options_(options) {}

FileLoad::~FileLoad() {
  if (buffer_ != nullptr) CurrentAllocator().free(buffer_);
}

absl::Status FileLoad::Append(uint64_t offset, std::string_view data) {
  if (offset != received_) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk at offset ", offset, " out of order: expected ",
                     received_, " (send the file's bytes in order)"));
  }
  if (data.size() > total_ - received_) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk of ", data.size(), " bytes at offset ", offset,
                     " ends past the stated total of ", total_, " bytes"));
  }
  if (received_ + data.size() > capacity_) {
    // Double (amortized O(1) copying per byte), at least 64 KiB, at most
    // the total.
    const uint64_t capacity = std::min(
        total_,
        std::max({received_ + data.size(), 2 * capacity_, uint64_t{64} << 10}));
    auto* grown = static_cast<uint8_t*>(CurrentAllocator().alloc(capacity));
    if (received_ > 0) std::memcpy(grown, buffer_, received_);
    if (buffer_ != nullptr) CurrentAllocator().free(buffer_);
    buffer_ = grown;
    capacity_ = capacity;
  }
  if (!data.empty()) std::memcpy(buffer_ + received_, data.data(), data.size());
  received_ += data.size();
  return absl::OkStatus();
}

absl::StatusOr<FilterStack> FileLoad::Finish() const {
  if (!complete()) {
    return absl::FailedPreconditionError("the file is not complete");
  }
  ReadOptions read;
  // A layer is at most kMaxBlocks blocks; a compressed file may not
  // decompress to more than the module would accept uncompressed (a small
  // zstd file of a sparse filter can declare any size).
  read.max_decompressed_bytes =
      std::min<uint64_t>(FilterShape::kMaxBlocks * 64, max_bytes_);
  absl::StatusOr<Filter> filter = OpenFilter({buffer_, total_}, read);
  if (!filter.ok()) return filter.status();
  if (filter->is_match_all()) {
    return absl::InvalidArgumentError(
        "a match-all filter (no bits) cannot be loaded");
  }
  if (filter->kind() != FilterKind::kBlocked) {
    return absl::UnimplementedError(
        "BB.LOAD reads the full and compact encodings that `blockbloom "
        "build` writes; this is an exact-size (LevelDB) filter block");
  }
  const FilterShape& shape = filter->shape();
  uint64_t keys = filter->num_keys();
  if (keys == 0) {
    keys = static_cast<uint64_t>(std::llround(internal::EstimateKeys(
        PopCount(filter->bits()), filter->num_bits(), shape.num_probes)));
  }
  const uint64_t capacity =
      options_.capacity.value_or(std::max<uint64_t>(keys, 1));
  absl::StatusOr<double> expected =
      EstimatedFpRate(shape, std::max<uint64_t>(capacity, 1));
  const double rate = std::clamp(expected.ok() ? *expected : 0.01,
                                 FilterStack::kMinFpRate, 0.5);

  Layer layer(shape, capacity, rate, keys);
  // Copy the bits piece by piece, leaving all-zero pieces unallocated.
  const absl::Span<const uint8_t> bits = filter->bits();
  PieceTable& table = layer.table();
  for (size_t i = 0; i < table.num_pieces(); ++i) {
    const uint64_t start = i * table.piece_bytes();
    const uint64_t size = table.PieceSize(i);
    if (AllZero(bits.data() + start, size)) continue;
    std::memcpy(table.WritablePiece(i), bits.data() + start, size);
  }
  StackOptions stack_options;
  stack_options.fp_rate =
      options_.fp_rate.value_or(rate / FilterStack::kFirstShare);
  stack_options.capacity = capacity;
  stack_options.expansion = options_.expansion;
  stack_options.nonscaling = options_.nonscaling;
  stack_options.seed = filter->seed();
  std::vector<Layer> layers;
  layers.push_back(std::move(layer));
  return FilterStack(stack_options, std::move(layers));
}

absl::StatusOr<std::unique_ptr<FileDump>> FileDump::Start(
    const FilterStack& stack, size_t layer, uint64_t id) {
  if (layer >= stack.layers().size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the filter has ", stack.layers().size(),
                     " layers; there is no layer ", layer));
  }
  std::unique_ptr<FileDump> dump(new FileDump());
  dump->id_ = id;
  dump->layer_ = layer;
  const Layer& l = stack.layers()[layer];
  format::WriteFullFooter({.num_blocks = l.shape().num_blocks,
                           .num_keys = l.count(),
                           .seed = stack.seed(),
                           .bits_bytes = l.table().size_bytes(),
                           .payload_bytes = l.table().size_bytes(),
                           .num_probes = l.shape().num_probes,
                           .lane_bits = l.shape().lane_bits,
                           .zstd = false},
                          dump->footer_);
  format::StartFullChecksum(dump->footer_, &dump->checksum_);
  return dump;
}

uint64_t FileDump::file_bytes() const {
  uint64_t bits;
  std::memcpy(&bits, footer_ + 24, 8);
  return bits + format::kFullFooterBytes;
}

bool FileDump::Next(const FilterStack& stack, std::string* out) {
  if (done_) return true;
  ++chunks_;
  const PieceTable& table = stack.layers()[layer_].table();
  const uint64_t end =
      std::min(table.size_bytes(), position_ + kDumpChunkBytes);
  while (position_ < end) {
    const size_t piece = position_ / table.piece_bytes();
    const uint64_t in_piece = position_ - piece * table.piece_bytes();
    const uint64_t n =
        std::min(end - position_, table.PieceSize(piece) - in_piece);
    const size_t at = out->size();
    const uint8_t* data = table.Piece(piece);
    if (data == nullptr) {
      out->append(n, '\0');
    } else {
      out->append(reinterpret_cast<const char*>(data + in_piece), n);
    }
    XXH3_64bits_update(&checksum_, out->data() + at, n);
    position_ += n;
  }
  if (position_ < table.size_bytes()) return false;
  format::SetFullChecksum(static_cast<uint32_t>(XXH3_64bits_digest(&checksum_)),
                          footer_);
  out->append(reinterpret_cast<const char*>(footer_), sizeof(footer_));
  done_ = true;
  return true;
}

}  // namespace blockbloom::redis_module
