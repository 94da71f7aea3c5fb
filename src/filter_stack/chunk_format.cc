#include "src/filter_stack/chunk_format.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace blockbloom::redis_module {
namespace {

using namespace chunk_format;  // NOLINT(build/namespaces): the layout
using codec::Get;

constexpr char kHeaderMagic[4] = {'b', 'b', 'd', 'h'};
constexpr char kDataMagic[4] = {'b', 'b', 'd', 'c'};
constexpr uint64_t kPositionMask = (uint64_t{1} << kPositionBits) - 1;
constexpr uint64_t kMaxIter = uint64_t{1} << 53;
// Positions: 1 is the header, 2 + i data chunk i; next_iter of the last
// chunk is one more, so at most kPositionMask - 2 data chunks.
constexpr uint64_t kMaxChunks = kPositionMask - 2;
constexpr uint8_t kNonscalingFlag = 1;

// The 64-bit id of the dump with `tag` of a stack with `seed`: the tag in
// the low bits (the iterators carry it), a hash of both above, so that dumps
// of two keys with different seeds never share an id.
uint64_t DumpId(uint64_t tag, uint64_t seed) {
  const uint64_t mixed = XXH3_64bits_withSeed(&tag, sizeof(tag), seed);
  return (mixed & ~kTagMask) | tag;
}

uint64_t ChunksOf(uint64_t size_bytes, uint64_t chunk_bytes) {
  return (size_bytes + chunk_bytes - 1) / chunk_bytes;
}

// The checksum of a data chunk: its first 32 bytes, then its payload.
uint64_t DataChecksum(std::string_view chunk) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, chunk.data(), 32);
  XXH3_64bits_update(&state, chunk.data() + kDataHeaderBytes,
                     chunk.size() - kDataHeaderBytes);
  return XXH3_64bits_digest(&state);
}

bool IsZero(const char* p, size_t n) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    any |= Get<uint64_t>(p + i);
    if ((i & 4095) == 0 && any != 0) return false;
  }
  for (; i < n; ++i) any |= static_cast<uint8_t>(p[i]);
  return any == 0;
}

std::string HeaderChunk(const FilterStack& stack, uint64_t dump_id,
                        uint64_t chunk_bytes, uint64_t total_chunks) {
  const StackOptions& o = stack.options();
  std::string out;
  out.reserve(kHeaderFixedBytes + kHeaderLayerBytes * stack.layers().size() +
              8);
  out.append(kHeaderMagic, 4);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(o.nonscaling ? kNonscalingFlag : 0));
  codec::PutU16(&out, 0);
  codec::PutU64(&out, dump_id);
  codec::PutU64(&out, chunk_bytes);
  codec::PutU64(&out, codec::DoubleBits(o.fp_rate));
  codec::PutU64(&out, o.capacity);
  codec::PutU32(&out, o.expansion);
  codec::PutU32(&out, static_cast<uint32_t>(stack.layers().size()));
  codec::PutU64(&out, o.seed);
  codec::PutU64(&out, total_chunks);
  for (const Layer& layer : stack.layers()) {
    codec::PutU64(&out, layer.shape().num_blocks);
    codec::PutU64(&out, layer.capacity());
    codec::PutU64(&out, codec::DoubleBits(layer.fp_rate()));
    codec::PutU64(&out, layer.count());
    codec::PutU16(&out, static_cast<uint16_t>(layer.shape().lane_bits));
    out.push_back(static_cast<char>(layer.shape().num_probes));
    out.append(5, '\0');
  }
  codec::PutU64(&out, XXH3_64bits(out.data(), out.size()));
  return out;
}

std::string DataChunk(const Layer& layer, uint32_t layer_index, uint64_t offset,
                      uint64_t length, uint64_t index, uint64_t dump_id) {
  const PieceTable& table = layer.table();
  const uint64_t piece_bytes = table.piece_bytes();
  const size_t first = offset / piece_bytes;
  const size_t last = (offset + length - 1) / piece_bytes;
  bool zero = true;
  for (size_t p = first; p <= last; ++p) {
    if (table.Piece(p) != nullptr) zero = false;
  }
  std::string out;
  out.reserve(kDataHeaderBytes + (zero ? 0 : length));
  out.append(kDataMagic, 4);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(zero ? kZeroFlag : 0));
  codec::PutU16(&out, static_cast<uint16_t>(layer_index));
  codec::PutU64(&out, dump_id);
  codec::PutU64(&out, offset);
  codec::PutU32(&out, static_cast<uint32_t>(length));
  codec::PutU32(&out, static_cast<uint32_t>(index));
  codec::PutU64(&out, 0);  // the checksum, below
  if (!zero) {
    const uint64_t end = offset + length;
    for (size_t p = first; p <= last; ++p) {
      const uint64_t begin = std::max<uint64_t>(offset, p * piece_bytes);
      const uint64_t stop =
          std::min<uint64_t>(end, p * piece_bytes + table.PieceSize(p));
      const uint8_t* data = table.Piece(p);
      if (data == nullptr) {
        out.append(stop - begin, '\0');
      } else {
        out.append(
            reinterpret_cast<const char*>(data) + (begin - p * piece_bytes),
            stop - begin);
      }
    }
  }
  const uint64_t checksum = DataChecksum(out);
  std::memcpy(out.data() + 32, &checksum, 8);
  return out;
}

}  // namespace

absl::StatusOr<DumpChunk> ScanDump(const FilterStack& stack, uint64_t iter,
                                   uint64_t dump_nonce, uint64_t chunk_bytes) {
  if (chunk_bytes < kMinChunkBytes || chunk_bytes > kMaxChunkBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk size ", chunk_bytes, " is not in [", kMinChunkBytes,
                     ", ", kMaxChunkBytes, "]"));
  }
  uint64_t total = 0;
  for (const Layer& layer : stack.layers()) {
    total += ChunksOf(layer.table().size_bytes(), chunk_bytes);
  }
  if (total > kMaxChunks) {
    return absl::InvalidArgumentError(
        absl::StrCat("the filter would be ", total, " chunks of ", chunk_bytes,
                     " bytes, over the limit of ", kMaxChunks));
  }
  if (iter == 0) {
    uint64_t tag = XXH3_64bits(&dump_nonce, sizeof(dump_nonce)) & kTagMask;
    if (tag == 0) tag = 1;
    return DumpChunk{
        MakeIter(tag, 1),
        HeaderChunk(stack, DumpId(tag, stack.seed()), chunk_bytes, total)};
  }
  const uint64_t tag = iter >> kPositionBits;
  const uint64_t position = iter & kPositionMask;
  if (iter >= kMaxIter || tag == 0 || position == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid iterator ", iter,
                     ": start a dump with iterator 0, then pass the iterator "
                     "each reply returns"));
  }
  uint64_t index = position - 1;
  if (index >= total) return DumpChunk{0, std::string()};
  const uint64_t next = MakeIter(tag, position + 1);
  const uint64_t dump_id = DumpId(tag, stack.seed());
  for (size_t i = 0; i < stack.layers().size(); ++i) {
    const Layer& layer = stack.layers()[i];
    const uint64_t size = layer.table().size_bytes();
    const uint64_t chunks = ChunksOf(size, chunk_bytes);
    if (index < chunks) {
      const uint64_t offset = index * chunk_bytes;
      return DumpChunk{next, DataChunk(layer, static_cast<uint32_t>(i), offset,
                                       std::min(chunk_bytes, size - offset),
                                       position - 1, dump_id)};
    }
    index -= chunks;
  }
  return DumpChunk{0, std::string()};  // not reached: index < total
}

bool LooksLikeHeaderChunk(std::string_view chunk) {
  return chunk.size() >= 4 && std::memcmp(chunk.data(), kHeaderMagic, 4) == 0;
}

absl::StatusOr<ChunkLoader> ChunkLoader::Start(uint64_t iter,
                                               std::string_view header,
                                               uint64_t max_bytes) {
  if (header.size() >= 4 && std::memcmp(header.data(), kDataMagic, 4) == 0) {
    return absl::InvalidArgumentError(
        "this is a data chunk, and no load is in progress: LOADCHUNK the "
        "chunks in the order SCANDUMP returned them, starting with the "
        "header (the reply to iterator 0)");
  }
  if (header.size() < kHeaderFixedBytes + 8 || !LooksLikeHeaderChunk(header)) {
    return absl::DataLossError(
        "not a blockbloom SCANDUMP header chunk: LOADCHUNK takes the chunks "
        "of a blockbloom BF.SCANDUMP, starting with the header");
  }
  const char* p = header.data();
  if (static_cast<uint8_t>(p[4]) != kVersion) {
    return absl::UnimplementedError(absl::StrCat(
        "the dump is in SCANDUMP chunk format version ",
        static_cast<uint8_t>(p[4]), "; this module reads version ", kVersion,
        ": load it with a module of that version or later"));
  }
  const uint32_t num_layers = Get<uint32_t>(p + 44);
  const size_t expected =
      num_layers <= FilterStack::kMaxLayers
          ? kHeaderFixedBytes + kHeaderLayerBytes * num_layers + 8
          : 0;
  if (header.size() != expected) {
    return absl::DataLossError(absl::StrCat(
        "the header chunk is damaged or truncated (", header.size(),
        " bytes for ", num_layers, " layers): dump the filter again"));
  }
  const size_t body = header.size() - 8;
  if (XXH3_64bits(p, body) != Get<uint64_t>(p + body)) {
    return absl::DataLossError(
        "the header chunk is damaged (checksum mismatch): dump the filter "
        "again");
  }
  ChunkLoader loader;
  loader.dump_id_ = Get<uint64_t>(p + 8);
  loader.chunk_bytes_ = Get<uint64_t>(p + 16);
  StackOptions& o = loader.options_;
  o.nonscaling = (static_cast<uint8_t>(p[5]) & kNonscalingFlag) != 0;
  o.fp_rate = codec::BitsDouble(Get<uint64_t>(p + 24));
  o.capacity = Get<uint64_t>(p + 32);
  o.expansion = Get<uint32_t>(p + 40);
  o.seed = Get<uint64_t>(p + 48);
  const uint64_t declared_chunks = Get<uint64_t>(p + 56);
  const uint64_t tag = loader.dump_id_ & kTagMask;
  if (tag == 0 || DumpId(tag, o.seed) != loader.dump_id_) {
    return absl::DataLossError(
        "the header chunk has an invalid dump id: dump the filter again");
  }
  if (iter != MakeIter(tag, 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the header chunk goes with iterator ", MakeIter(tag, 1), ", not ",
        iter,
        ": LOADCHUNK each chunk with the iterator SCANDUMP returned "
        "with it"));
  }
  if (loader.chunk_bytes_ < kMinChunkBytes ||
      loader.chunk_bytes_ > kMaxChunkBytes) {
    return absl::DataLossError(absl::StrCat(
        "the header chunk declares chunks of ", loader.chunk_bytes_,
        " bytes, not in [", kMinChunkBytes, ", ", kMaxChunkBytes, "]"));
  }
  std::vector<codec::LayerRecord> records(num_layers);
  for (uint32_t i = 0; i < num_layers; ++i) {
    const char* l = p + kHeaderFixedBytes + kHeaderLayerBytes * i;
    codec::LayerRecord& r = records[i];
    r.shape.num_blocks = Get<uint64_t>(l);
    r.capacity = Get<uint64_t>(l + 8);
    r.fp_rate = codec::BitsDouble(Get<uint64_t>(l + 16));
    r.count = Get<uint64_t>(l + 24);
    r.shape.lane_bits = Get<uint16_t>(l + 32);
    r.shape.num_probes = static_cast<uint8_t>(l[34]);
  }
  if (absl::Status s =
          codec::ValidateStack("SCANDUMP header chunk", o, records, max_bytes);
      !s.ok()) {
    return s;
  }
  loader.first_chunk_.reserve(num_layers + 1);
  uint64_t total = 0;
  for (const codec::LayerRecord& r : records) {
    loader.first_chunk_.push_back(total);
    total += ChunksOf(r.shape.size_bytes(), loader.chunk_bytes_);
  }
  loader.first_chunk_.push_back(total);
  if (total != declared_chunks || total > kMaxChunks) {
    return absl::DataLossError(absl::StrCat(
        "the header chunk declares ", declared_chunks,
        " data chunks; its layers make ", total, ": dump the filter again"));
  }
  loader.total_chunks_ = total;
  loader.received_bits_.assign((total + 63) / 64, 0);
  loader.checksums_.assign(total, 0);
  loader.layers_ = codec::MakeLayers(records);
  loader.header_ = std::string(header);
  loader.header_iter_ = iter;
  return loader;
}

void ChunkLoader::Replay(
    absl::FunctionRef<void(uint64_t iter, std::string_view chunk)> emit) const {
  emit(header_iter_, header_);
  const uint64_t tag = dump_id_ & kTagMask;
  for (uint64_t index = 0; index < total_chunks_; ++index) {
    if ((received_bits_[index / 64] & (uint64_t{1} << (index % 64))) == 0) {
      continue;
    }
    const Range r = RangeOf(index);
    emit(MakeIter(tag, index + 2),
         DataChunk(layers_[r.layer], r.layer, r.offset, r.length, index,
                   dump_id_));
  }
}

ChunkLoader::Range ChunkLoader::RangeOf(uint64_t index) const {
  const auto next =
      std::upper_bound(first_chunk_.begin(), first_chunk_.end() - 1, index);
  const uint32_t layer = static_cast<uint32_t>(next - first_chunk_.begin() - 1);
  const uint64_t offset = (index - first_chunk_[layer]) * chunk_bytes_;
  const uint64_t size = layers_[layer].table().size_bytes();
  return {layer, offset, std::min(chunk_bytes_, size - offset)};
}

absl::Status ChunkLoader::Apply(uint64_t iter, std::string_view chunk) {
  const uint64_t tag = dump_id_ & kTagMask;
  // How errors name the chunk: its number if its iterator is one of this
  // dump's.
  const std::string name =
      (iter >> kPositionBits) == tag && (iter & kPositionMask) >= 2
          ? absl::StrCat("chunk ", (iter & kPositionMask) - 2, " (iterator ",
                         iter, ")")
          : absl::StrCat("the chunk of iterator ", iter);
  if (chunk.size() < kDataHeaderBytes ||
      std::memcmp(chunk.data(), kDataMagic, 4) != 0) {
    if (LooksLikeHeaderChunk(chunk)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name,
                       " is a header chunk: a load has one header, "
                       "sent first"));
    }
    return absl::DataLossError(
        absl::StrCat(name,
                     " is not a blockbloom SCANDUMP data chunk (damaged or of "
                     "another module): dump the filter again"));
  }
  const char* p = chunk.data();
  if (static_cast<uint8_t>(p[4]) != kVersion) {
    return absl::UnimplementedError(absl::StrCat(
        name, " is in SCANDUMP chunk format version ",
        static_cast<uint8_t>(p[4]), "; this module reads version ", kVersion));
  }
  const uint64_t checksum = DataChecksum(chunk);
  if (checksum != Get<uint64_t>(p + 32)) {
    return absl::DataLossError(absl::StrCat(
        name, " is damaged (checksum mismatch): dump the filter again"));
  }
  const uint64_t dump_id = Get<uint64_t>(p + 8);
  if (dump_id != dump_id_) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " belongs to another filter dump (dump id ", dump_id,
                     ", this load is of dump ", dump_id_,
                     "): load the chunks of one SCANDUMP run, header first"));
  }
  const bool zero = (static_cast<uint8_t>(p[5]) & kZeroFlag) != 0;
  const uint16_t layer = Get<uint16_t>(p + 6);
  const uint64_t offset = Get<uint64_t>(p + 16);
  const uint32_t length = Get<uint32_t>(p + 24);
  const uint32_t index = Get<uint32_t>(p + 28);
  if (index >= total_chunks_) {
    return absl::DataLossError(
        absl::StrCat(name, " is chunk ", index, " of a dump of more than the ",
                     total_chunks_,
                     " chunks its header declares (did the filter grow "
                     "during the dump?): dump the filter again"));
  }
  const Range range = RangeOf(index);
  if (layer != range.layer || offset != range.offset ||
      length != range.length) {
    return absl::DataLossError(absl::StrCat(
        name, " (layer ", layer, ", offset ", offset, ", ", length,
        " bytes) does not fit the layout its header declares for chunk ", index,
        ": dump the filter again"));
  }
  if (iter != MakeIter(tag, uint64_t{index} + 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "chunk ", index, " goes with iterator ",
        MakeIter(tag, uint64_t{index} + 2), ", not ", iter,
        ": LOADCHUNK each chunk with the iterator SCANDUMP returned with it"));
  }
  if (chunk.size() != kDataHeaderBytes + (zero ? 0 : length)) {
    return absl::DataLossError(
        absl::StrCat("chunk ", index, " has ", chunk.size() - kDataHeaderBytes,
                     " bytes of payload, expected ", zero ? 0 : length,
                     ": dump the filter again"));
  }
  uint64_t& bits = received_bits_[index / 64];
  const uint64_t bit = uint64_t{1} << (index % 64);
  if ((bits & bit) != 0) {
    if (checksums_[index] == checksum) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "chunk ", index,
        " was already loaded with different contents: restart the load with "
        "the header chunk"));
  }
  if (!zero) {
    // Copies piece by piece; pieces whose bytes are all zero stay
    // unallocated (the table's pieces start zero, and the chunks of a dump
    // cover disjoint ranges).
    PieceTable& table = layers_[range.layer].table();
    const uint64_t piece_bytes = table.piece_bytes();
    const uint64_t end = offset + length;
    const char* payload = p + kDataHeaderBytes;
    for (size_t piece = offset / piece_bytes; piece * piece_bytes < end;
         ++piece) {
      const uint64_t start = piece * piece_bytes;
      const uint64_t begin = std::max<uint64_t>(offset, start);
      const uint64_t stop =
          std::min<uint64_t>(end, start + table.PieceSize(piece));
      const char* src = payload + (begin - offset);
      if (IsZero(src, stop - begin)) continue;
      std::memcpy(table.WritablePiece(piece) + (begin - start), src,
                  stop - begin);
    }
  }
  bits |= bit;
  checksums_[index] = checksum;
  ++received_;
  return absl::OkStatus();
}

FilterStack ChunkLoader::Finish() && {
  return FilterStack(options_, std::move(layers_));
}

namespace chunk_format {

void Reseal(std::string* chunk) {
  if (LooksLikeHeaderChunk(*chunk) && chunk->size() >= 8) {
    const uint64_t sum = XXH3_64bits(chunk->data(), chunk->size() - 8);
    std::memcpy(chunk->data() + chunk->size() - 8, &sum, 8);
  } else if (chunk->size() >= kDataHeaderBytes) {
    const uint64_t sum = DataChecksum(*chunk);
    std::memcpy(chunk->data() + 32, &sum, 8);
  }
}

}  // namespace chunk_format

}  // namespace blockbloom::redis_module
