// The RDB encoding of a filter value (src/filter_stack/rdb_codec.h): round
// trips, every truncation and bit flip, later encoding versions, values that
// declare more than max_bytes, streams with another piece size, and a golden
// encoding in tests/testdata.
#include "src/filter_stack/rdb_codec.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/filter_stack/codec_common.h"
#include "tests/filter_stack/stack_testing.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace blockbloom::redis_module {
namespace {

using testing::ExpectKeys;
using testing::ExpectSameStack;
using testing::kNoLimit;
using testing::MakeStack;
using testing::Options;

std::string Save(const FilterStack& stack) {
  StringRdbWriter writer;
  SaveStack(stack, writer);
  return writer.bytes();
}

absl::StatusOr<FilterStack> Load(std::string_view bytes,
                                 uint64_t max_bytes = kNoLimit,
                                 int encver = kRdbEncodingVersion) {
  StringRdbReader reader(bytes);
  absl::StatusOr<FilterStack> stack = LoadStack(reader, encver, max_bytes);
  if (stack.ok() && reader.remaining() != 0) {
    ADD_FAILURE() << reader.remaining() << " bytes not read";
  }
  return stack;
}

void ExpectRoundTrip(const FilterStack& stack, uint64_t keys) {
  absl::StatusOr<FilterStack> loaded = Load(Save(stack));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameStack(stack, *loaded);
  ExpectKeys(*loaded, keys);
}

// Writes a stack as SaveStack does but with pieces of `piece_bytes` (a
// stream of another module build), hashing as the format says.
std::string SaveWithPieceBytes(const FilterStack& stack, uint64_t piece_bytes) {
  StringRdbWriter out;
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  auto word = [&](uint64_t v) { XXH3_64bits_update(&state, &v, 8); };
  auto u = [&](uint64_t v) {
    word(v);
    out.Unsigned(v);
  };
  auto d = [&](double v) {
    word(codec::DoubleBits(v));
    out.Double(v);
  };
  const StackOptions& o = stack.options();
  u(o.nonscaling);
  d(o.fp_rate);
  u(o.capacity);
  u(o.expansion);
  u(o.seed);
  u(stack.layers().size());
  for (const Layer& l : stack.layers()) {
    u(l.shape().num_blocks);
    u(l.shape().num_probes);
    u(l.shape().lane_bits);
    u(l.capacity());
    d(l.fp_rate());
    u(l.count());
    u(piece_bytes);
  }
  for (const Layer& l : stack.layers()) {
    const PieceTable& t = l.table();
    for (uint64_t start = 0; start < t.size_bytes(); start += piece_bytes) {
      const uint64_t n = std::min(piece_bytes, t.size_bytes() - start);
      std::string bytes(n, '\0');
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t at = start + i;
        const uint8_t* piece = t.Piece(at / t.piece_bytes());
        if (piece != nullptr) bytes[i] = piece[at % t.piece_bytes()];
      }
      if (bytes == std::string(n, '\0')) bytes.clear();
      word(bytes.size());
      XXH3_64bits_update(&state, bytes.data(), bytes.size());
      out.Bytes(bytes);
    }
  }
  out.Unsigned(XXH3_64bits_digest(&state));
  return out.bytes();
}

TEST(RdbCodecTest, RoundTripOneAndThreeLayers) {
  ExpectRoundTrip(MakeStack(Options(1000, 0.01, 42), 700), 700);
  const FilterStack three = MakeStack(Options(100, 0.001, 99), 600);
  ASSERT_EQ(three.layers().size(), 3u);
  ExpectRoundTrip(three, 600);
  ExpectRoundTrip(MakeStack(Options(5000, 0.05, 3, 7, true), 5000), 5000);
}

TEST(RdbCodecTest, SparseFilterIsSmallAndStaysSparse) {
  const FilterStack stack = MakeStack(Options(30'000'000, 0.01, 9), 3);
  ASSERT_GT(stack.layers()[0].table().num_pieces(), 30u);
  const std::string bytes = Save(stack);
  EXPECT_LT(bytes.size(), stack.allocated_bytes() + 4096);
  absl::StatusOr<FilterStack> loaded = Load(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameStack(stack, *loaded);
  ExpectKeys(*loaded, 3);
  const FilterStack empty = MakeStack(Options(900'000'000, 0.01, 8), 0);
  EXPECT_LT(Save(empty).size(), 16u << 10);
  ExpectRoundTrip(empty, 0);
}

TEST(RdbCodecTest, ManyPieces) {
  const FilterStack stack = MakeStack(Options(10'000'000, 0.01, 5), 30'000);
  ASSERT_GT(stack.allocated_pieces(), 4u);
  ExpectRoundTrip(stack, 30'000);
}

TEST(RdbCodecTest, OtherPieceSizes) {
  const FilterStack stack = MakeStack(Options(2'000'000, 0.01, 6), 5000);
  for (uint64_t piece : {uint64_t{4096}, uint64_t{300'000}, uint64_t{3} << 20,
                         uint64_t{64} << 20}) {
    absl::StatusOr<FilterStack> loaded = Load(SaveWithPieceBytes(stack, piece));
    ASSERT_TRUE(loaded.ok()) << piece << ": " << loaded.status();
    ExpectSameStack(stack, *loaded);
  }
  // SaveWithPieceBytes is the format: with the table's own piece size, the
  // bytes are SaveStack's.
  EXPECT_EQ(SaveWithPieceBytes(stack, PieceTable::kTargetPieceBytes),
            Save(stack));
  EXPECT_FALSE(Load(SaveWithPieceBytes(stack, 4095)).ok());
  EXPECT_FALSE(Load(SaveWithPieceBytes(stack, (uint64_t{64} << 20) + 1)).ok());
}

TEST(RdbCodecTest, EveryTruncationAndBitFlipIsRefused) {
  const FilterStack stack = MakeStack(Options(300, 0.01, 18), 200);
  const std::string bytes = Save(stack);
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<FilterStack> loaded = Load(bytes.substr(0, n));
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << n;
  }
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::string flipped = bytes;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    absl::StatusOr<FilterStack> loaded = Load(flipped);
    EXPECT_FALSE(loaded.ok()) << bit;
    if (loaded.ok()) ExpectKeys(*loaded, 200);
  }
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string flipped = bytes;
    const int flips = 2 + static_cast<int>(rng() % 7);
    for (int f = 0; f < flips; ++f) {
      const uint64_t bit = rng() % (flipped.size() * 8);
      flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    }
    if (flipped == bytes) continue;
    absl::StatusOr<FilterStack> loaded = Load(flipped);
    EXPECT_FALSE(loaded.ok()) << trial;
    if (loaded.ok()) ExpectKeys(*loaded, 200);
  }
}

TEST(RdbCodecTest, EncodingVersions) {
  const std::string bytes = Save(MakeStack(Options(300, 0.01, 1), 10));
  EXPECT_EQ(Load(bytes, kNoLimit, 2).status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(Load(bytes, kNoLimit, 0).ok());
  EXPECT_FALSE(Load(bytes, kNoLimit, -1).ok());
}

TEST(RdbCodecTest, MaxBytesIsCheckedBeforeAllocating) {
  // A value declaring four layers of 2^32 blocks (2^40 bytes) and nothing
  // else: refused by the limit before any piece table or piece.
  StringRdbWriter w;
  w.Unsigned(0);
  w.Double(0.01);
  w.Unsigned(1000);
  w.Unsigned(2);
  w.Unsigned(0);
  w.Unsigned(4);
  for (int i = 0; i < 4; ++i) {
    w.Unsigned(uint64_t{1} << 32);
    w.Unsigned(7);
    w.Unsigned(32);
    w.Unsigned(1000);
    w.Double(0.01);
    w.Unsigned(0);
    w.Unsigned(1 << 20);
  }
  absl::StatusOr<FilterStack> loaded = Load(w.bytes(), uint64_t{1} << 30);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kResourceExhausted)
      << loaded.status();
  // Within the limit, the stream ends before the pieces: DataLoss.
  loaded = Load(w.bytes(), uint64_t{1} << 40);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  // A real stack over the limit.
  const FilterStack stack = MakeStack(Options(1'000'000, 0.01, 1), 10);
  EXPECT_EQ(Load(Save(stack), stack.reserved_bytes() - 1).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Load(Save(stack), stack.reserved_bytes()).ok());
}

TEST(RdbCodecTest, OutOfRangeValuesAreRefused) {
  // Values that would wrap when narrowed (lane width 2^32 + 32) and others
  // out of range: refused as damaged.
  auto stream = [](uint64_t lane_bits, uint64_t probes, uint64_t layers,
                   uint64_t expansion) {
    StringRdbWriter w;
    w.Unsigned(0);
    w.Double(0.01);
    w.Unsigned(100);
    w.Unsigned(expansion);
    w.Unsigned(0);
    w.Unsigned(layers);
    w.Unsigned(2);
    w.Unsigned(probes);
    w.Unsigned(lane_bits);
    w.Unsigned(100);
    w.Double(0.01);
    w.Unsigned(0);
    w.Unsigned(1 << 20);
    return w.bytes();
  };
  EXPECT_EQ(Load(stream((uint64_t{1} << 32) + 32, 7, 1, 2)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(Load(stream(32, (uint64_t{1} << 32) + 7, 1, 2)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(Load(stream(32, 7, 65, 2)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(Load(stream(32, 7, 0, 2)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(Load(stream(32, 7, 1, (uint64_t{1} << 32) + 2)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RdbCodecTest, StringReader) {
  StringRdbWriter w;
  w.Unsigned(5);
  w.Double(0.5);
  w.Bytes("abc");
  StringRdbReader r(w.bytes());
  EXPECT_FALSE(r.Double().ok());  // an unsigned is next
  StringRdbReader r2(w.bytes());
  EXPECT_EQ(*r2.Unsigned(), 5u);
  EXPECT_EQ(*r2.Double(), 0.5);
  uint8_t two[2];
  EXPECT_EQ(r2.BytesExactly(two, 2).code(), absl::StatusCode::kDataLoss);
  // A string longer than what is left: refused before placing it.
  std::string lying = w.bytes();
  lying[lying.size() - 4] = 100;
  StringRdbReader r3(lying);
  ASSERT_TRUE(r3.Unsigned().ok());
  ASSERT_TRUE(r3.Double().ok());
  bool placed = false;
  EXPECT_EQ(r3.Bytes([&](size_t) -> absl::StatusOr<uint8_t*> {
                placed = true;
                return nullptr;
              }).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_FALSE(placed);
}

TEST(RdbCodecTest, GoldenEncoding) {
  // Saved before the split of the rate between layers (layer 0 at the
  // asked rate, layer 1 at half of it): it loads with those rates and keeps
  // growing as it did, each new layer at half the previous one's rate.
  const FilterStack stack = testing::MakeLegacyStack(
      Options(100, 0.01, 0x0123456789abcdef), 250, "golden-key-");
  ASSERT_EQ(stack.layers().size(), 2u);
  const std::string bytes = Save(stack);
  const std::string golden = testing::Golden("redis_rdb_2layers.bin", bytes);
  EXPECT_EQ(golden, bytes) << "the RDB encoding changed";
  absl::StatusOr<FilterStack> loaded = Load(golden);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectKeys(*loaded, 250, "golden-key-");
  EXPECT_EQ(testing::AbsentPositives(*loaded), 77);
  EXPECT_EQ(loaded->layers()[0].fp_rate(), 0.01);
  EXPECT_EQ(loaded->layers()[1].fp_rate(), 0.005);
  for (int i = 250; i < 600; ++i) {
    ASSERT_TRUE(loaded->Add(absl::StrCat("golden-key-", i)).ok());
  }
  ASSERT_EQ(loaded->layers().size(), 3u);
  EXPECT_EQ(loaded->layers()[2].fp_rate(), 0.0025);
  EXPECT_EQ(loaded->layers()[2].capacity(), 400u);
}

}  // namespace
}  // namespace blockbloom::redis_module
