#include "src/filter_stack/rdb_codec.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/filter_stack/codec_common.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace blockbloom::redis_module {
namespace {

constexpr uint64_t kNonscalingFlag = 1;
// The piece size a stream may declare: a smaller one would make a stream of
// one empty string per few bytes.
constexpr uint64_t kMinPieceBytes = 4096;
constexpr uint64_t kMaxPieceBytes = uint64_t{64} << 20;
// The string reader's type bytes (RDB's RDB_MODULE_OPCODE_*).
constexpr uint8_t kTypeUnsigned = 2;
constexpr uint8_t kTypeDouble = 4;
constexpr uint8_t kTypeString = 5;

class Hash {
 public:
  Hash() { XXH3_64bits_reset(&state_); }
  void Word(uint64_t v) { XXH3_64bits_update(&state_, &v, sizeof(v)); }
  void Bytes(const void* p, size_t n) {
    Word(n);
    if (n > 0) XXH3_64bits_update(&state_, p, n);
  }
  uint64_t Digest() const { return XXH3_64bits_digest(&state_); }

 private:
  XXH3_state_t state_;
};

// Forwards to a writer, hashing every value.
class HashingWriter {
 public:
  explicit HashingWriter(RdbWriter& writer) : writer_(writer) {}
  void Unsigned(uint64_t v) {
    hash_.Word(v);
    writer_.Unsigned(v);
  }
  void Double(double v) {
    hash_.Word(codec::DoubleBits(v));
    writer_.Double(v);
  }
  void Bytes(std::string_view bytes) {
    hash_.Bytes(bytes.data(), bytes.size());
    writer_.Bytes(bytes);
  }
  void Finish() { writer_.Unsigned(hash_.Digest()); }

 private:
  RdbWriter& writer_;
  Hash hash_;
};

// Reads from a reader, hashing every value.
class HashingReader {
 public:
  explicit HashingReader(RdbReader& reader) : reader_(reader) {}
  absl::StatusOr<uint64_t> Unsigned() {
    absl::StatusOr<uint64_t> v = reader_.Unsigned();
    if (v.ok()) hash_.Word(*v);
    return v;
  }
  absl::StatusOr<double> Double() {
    absl::StatusOr<double> v = reader_.Double();
    if (v.ok()) hash_.Word(codec::DoubleBits(*v));
    return v;
  }
  absl::Status Bytes(RdbReader::Placer place) {
    uint8_t* dst = nullptr;
    size_t size = 0;
    absl::Status s = reader_.Bytes([&](size_t n) -> absl::StatusOr<uint8_t*> {
      absl::StatusOr<uint8_t*> where = place(n);
      if (where.ok()) {
        dst = *where;
        size = n;
      }
      return where;
    });
    if (s.ok()) hash_.Bytes(dst, size);
    return s;
  }
  absl::Status Finish() {
    const uint64_t expected = hash_.Digest();
    absl::StatusOr<uint64_t> stored = reader_.Unsigned();
    if (!stored.ok()) return stored.status();
    if (*stored != expected) {
      return absl::DataLossError(
          "filter value is damaged (checksum mismatch): restore it from "
          "another copy");
    }
    return absl::OkStatus();
  }

 private:
  RdbReader& reader_;
  Hash hash_;
};

absl::Status Damaged(const std::string& what) {
  return absl::DataLossError(absl::StrCat("filter value is damaged: ", what));
}

bool IsZero(const uint8_t* p, size_t n) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    any |= w;
  }
  for (; i < n; ++i) any |= p[i];
  return any == 0;
}

// Reads the pieces of one layer, written `piece_bytes` at a time.
absl::Status LoadPieces(HashingReader& in, Layer& layer, size_t layer_index,
                        uint64_t piece_bytes) {
  PieceTable& table = layer.table();
  const uint64_t size = table.size_bytes();
  const bool direct = piece_bytes == table.piece_bytes();
  std::string scratch;  // a stream piece, when pieces differ in size
  for (uint64_t start = 0; start < size; start += piece_bytes) {
    const uint64_t expected = std::min(piece_bytes, size - start);
    const size_t piece = start / table.piece_bytes();
    bool written = false;
    absl::Status s = in.Bytes([&](size_t n) -> absl::StatusOr<uint8_t*> {
      if (n == 0) return nullptr;
      if (n != expected) {
        return Damaged(absl::StrCat("layer ", layer_index, " piece at ", start,
                                    " has ", n, " bytes, expected 0 or ",
                                    expected));
      }
      written = true;
      if (direct) return table.WritablePiece(piece);
      scratch.resize(n);
      return reinterpret_cast<uint8_t*>(scratch.data());
    });
    if (!s.ok()) return s;
    if (!written) continue;
    if (direct) {
      if (IsZero(table.Piece(piece), expected)) table.ReleasePiece(piece);
      continue;
    }
    // Spread over the table's pieces, leaving all-zero ranges unallocated.
    const uint64_t end = start + expected;
    for (size_t p = piece; p * table.piece_bytes() < end; ++p) {
      const uint64_t p_start = p * table.piece_bytes();
      const uint64_t begin = std::max(start, p_start);
      const uint64_t stop = std::min(end, p_start + table.PieceSize(p));
      const uint8_t* src =
          reinterpret_cast<const uint8_t*>(scratch.data()) + (begin - start);
      if (IsZero(src, stop - begin)) continue;
      std::memcpy(table.WritablePiece(p) + (begin - p_start), src,
                  stop - begin);
    }
  }
  return absl::OkStatus();
}

}  // namespace

RdbWriter::~RdbWriter() = default;
RdbReader::~RdbReader() = default;

absl::Status RdbReader::BytesExactly(uint8_t* dst, size_t size) {
  return Bytes([&](size_t n) -> absl::StatusOr<uint8_t*> {
    if (n != size) {
      return absl::DataLossError(
          absl::StrCat("a string of ", n, " bytes where ", size, " belong"));
    }
    return dst;
  });
}

void SaveStack(const FilterStack& stack, RdbWriter& writer) {
  HashingWriter out(writer);
  const StackOptions& o = stack.options();
  out.Unsigned(o.nonscaling ? kNonscalingFlag : 0);
  out.Double(o.fp_rate);
  out.Unsigned(o.capacity);
  out.Unsigned(o.expansion);
  out.Unsigned(o.seed);
  out.Unsigned(stack.layers().size());
  for (const Layer& layer : stack.layers()) {
    out.Unsigned(layer.shape().num_blocks);
    out.Unsigned(static_cast<uint64_t>(layer.shape().num_probes));
    out.Unsigned(static_cast<uint64_t>(layer.shape().lane_bits));
    out.Unsigned(layer.capacity());
    out.Double(layer.fp_rate());
    out.Unsigned(layer.count());
    out.Unsigned(layer.table().piece_bytes());
  }
  for (const Layer& layer : stack.layers()) {
    const PieceTable& table = layer.table();
    for (size_t i = 0; i < table.num_pieces(); ++i) {
      const uint8_t* data = table.Piece(i);
      out.Bytes(data == nullptr
                    ? std::string_view()
                    : std::string_view(reinterpret_cast<const char*>(data),
                                       table.PieceSize(i)));
    }
  }
  out.Finish();
}

absl::StatusOr<FilterStack> LoadStack(RdbReader& reader, int encver,
                                      uint64_t max_bytes) {
  if (encver > kRdbEncodingVersion) {
    return absl::UnimplementedError(absl::StrCat(
        "filter value of encoding version ", encver,
        " (written by a later blockbloom module); this module reads up to ",
        kRdbEncodingVersion, ": load the data with that module"));
  }
  if (encver < 1) {
    return absl::DataLossError(
        absl::StrCat("filter value of unknown encoding version ", encver));
  }
  HashingReader in(reader);
  // Reads an unsigned into `dst`, refusing values above `max`.
#define BB_READ(dst, max, what)                                      \
  do {                                                               \
    absl::StatusOr<uint64_t> v_ = in.Unsigned();                     \
    if (!v_.ok()) return v_.status();                                \
    if (*v_ > (max)) {                                               \
      return Damaged(absl::StrCat(what, " ", *v_, " is too large")); \
    }                                                                \
    dst = static_cast<decltype(dst)>(*v_);                           \
  } while (0)
#define BB_READ_DOUBLE(dst)                  \
  do {                                       \
    absl::StatusOr<double> v_ = in.Double(); \
    if (!v_.ok()) return v_.status();        \
    dst = *v_;                               \
  } while (0)

  StackOptions o;
  uint64_t flags;
  BB_READ(flags, UINT64_MAX, "flags");
  o.nonscaling = (flags & kNonscalingFlag) != 0;
  BB_READ_DOUBLE(o.fp_rate);
  BB_READ(o.capacity, UINT64_MAX, "capacity");
  BB_READ(o.expansion, UINT32_MAX, "expansion");
  BB_READ(o.seed, UINT64_MAX, "seed");
  size_t num_layers;
  BB_READ(num_layers, FilterStack::kMaxLayers, "number of layers");
  std::vector<codec::LayerRecord> records(num_layers);
  std::vector<uint64_t> piece_bytes(num_layers);
  for (size_t i = 0; i < num_layers; ++i) {
    codec::LayerRecord& r = records[i];
    BB_READ(r.shape.num_blocks, FilterShape::kMaxBlocks, "number of blocks");
    BB_READ(r.shape.num_probes, FilterShape::kMaxProbes, "number of probes");
    BB_READ(r.shape.lane_bits, FilterShape::kMaxLaneBits, "lane width");
    BB_READ(r.capacity, UINT64_MAX, "capacity");
    BB_READ_DOUBLE(r.fp_rate);
    BB_READ(r.count, UINT64_MAX, "count");
    BB_READ(piece_bytes[i], kMaxPieceBytes, "piece size");
    if (piece_bytes[i] < kMinPieceBytes) {
      return Damaged(absl::StrCat("piece size ", piece_bytes[i]));
    }
  }
#undef BB_READ
#undef BB_READ_DOUBLE
  if (absl::Status s =
          codec::ValidateStack("filter value", o, records, max_bytes);
      !s.ok()) {
    return s;
  }
  std::vector<Layer> layers = codec::MakeLayers(records);
  for (size_t i = 0; i < num_layers; ++i) {
    if (absl::Status s = LoadPieces(in, layers[i], i, piece_bytes[i]);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = in.Finish(); !s.ok()) return s;
  return FilterStack(o, std::move(layers));
}

void StringRdbWriter::Unsigned(uint64_t value) {
  out_.push_back(static_cast<char>(kTypeUnsigned));
  codec::PutU64(&out_, value);
}

void StringRdbWriter::Double(double value) {
  out_.push_back(static_cast<char>(kTypeDouble));
  codec::PutU64(&out_, codec::DoubleBits(value));
}

void StringRdbWriter::Bytes(std::string_view bytes) {
  out_.push_back(static_cast<char>(kTypeString));
  codec::PutU64(&out_, bytes.size());
  out_.append(bytes);
}

absl::StatusOr<uint64_t> StringRdbReader::Word(uint8_t type, const char* what) {
  if (in_.size() < 9) {
    return absl::DataLossError(
        absl::StrCat("truncated stream: expected ", what));
  }
  if (static_cast<uint8_t>(in_[0]) != type) {
    return absl::DataLossError(absl::StrCat("expected ", what, ", found type ",
                                            static_cast<uint8_t>(in_[0])));
  }
  const uint64_t v = codec::Get<uint64_t>(in_.data() + 1);
  in_.remove_prefix(9);
  return v;
}

absl::StatusOr<uint64_t> StringRdbReader::Unsigned() {
  return Word(kTypeUnsigned, "an unsigned");
}

absl::StatusOr<double> StringRdbReader::Double() {
  absl::StatusOr<uint64_t> bits = Word(kTypeDouble, "a double");
  if (!bits.ok()) return bits.status();
  return codec::BitsDouble(*bits);
}

absl::Status StringRdbReader::Bytes(Placer place) {
  absl::StatusOr<uint64_t> size = Word(kTypeString, "a string");
  if (!size.ok()) return size.status();
  if (*size > in_.size()) {
    return absl::DataLossError(absl::StrCat("truncated stream: a string of ",
                                            *size, " bytes, ", in_.size(),
                                            " left"));
  }
  absl::StatusOr<uint8_t*> dst = place(*size);
  if (!dst.ok()) return dst.status();
  if (*size > 0) std::memcpy(*dst, in_.data(), *size);
  in_.remove_prefix(*size);
  return absl::OkStatus();
}

}  // namespace blockbloom::redis_module
