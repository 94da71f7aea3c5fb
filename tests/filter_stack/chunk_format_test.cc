// BF.SCANDUMP / BF.LOADCHUNK chunks (src/filter_stack/chunk_format.h): round
// trips through RedisBloom's client loop, sparse and multi-chunk filters,
// every truncation and bit flip, reordered, repeated and foreign chunks,
// headers that declare too much, and the golden dumps of tests/testdata.
#include "src/filter_stack/chunk_format.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/filter_stack/saved_dump.h"
#include "tests/filter_stack/stack_testing.h"

namespace blockbloom::redis_module {
namespace {

using testing::DumpAll;
using testing::ExpectKeys;
using testing::ExpectSameStack;
using testing::kNoLimit;
using testing::LoadAll;
using testing::MakeStack;
using testing::Options;
using testing::SavedChunk;

std::vector<SavedChunk> Dump(const FilterStack& stack, uint64_t nonce = 1,
                             uint64_t chunk_bytes = kDefaultChunkBytes) {
  absl::StatusOr<std::vector<SavedChunk>> saved =
      DumpAll(stack, nonce, chunk_bytes);
  EXPECT_TRUE(saved.ok()) << saved.status();
  return saved.ok() ? *std::move(saved) : std::vector<SavedChunk>();
}

template <typename T>
void Poke(std::string* s, size_t at, T v) {
  std::memcpy(s->data() + at, &v, sizeof(v));
}

void ExpectRoundTrip(const FilterStack& stack, uint64_t keys,
                     uint64_t chunk_bytes = kDefaultChunkBytes) {
  const std::vector<SavedChunk> saved = Dump(stack, 7, chunk_bytes);
  absl::StatusOr<FilterStack> loaded = LoadAll(saved);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameStack(stack, *loaded);
  ExpectKeys(*loaded, keys);
}

TEST(ChunkFormatTest, RoundTripOneLayer) {
  const FilterStack stack = MakeStack(Options(1000, 0.01, 42), 700);
  ASSERT_EQ(stack.layers().size(), 1u);
  const std::vector<SavedChunk> saved = Dump(stack);
  ASSERT_EQ(saved.size(), 2u);  // the header and one data chunk
  EXPECT_TRUE(LooksLikeHeaderChunk(saved[0].second));
  EXPECT_FALSE(LooksLikeHeaderChunk(saved[1].second));
  ExpectRoundTrip(stack, 700);
}

TEST(ChunkFormatTest, RoundTripThreeLayers) {
  const FilterStack stack = MakeStack(Options(100, 0.001, 99, 2), 600);
  ASSERT_EQ(stack.layers().size(), 3u);
  ExpectRoundTrip(stack, 600);
}

TEST(ChunkFormatTest, RoundTripNonscalingAndExpansion) {
  const FilterStack stack = MakeStack(Options(5000, 0.05, 3, 7, true), 5000);
  ExpectRoundTrip(stack, 5000);
}

TEST(ChunkFormatTest, SeveralDataChunks) {
  // ~12 MB of bits: three 4 MiB chunks, every piece written.
  const FilterStack stack = MakeStack(Options(10'000'000, 0.01, 5), 30'000);
  ASSERT_GT(stack.reserved_bytes(), 8u << 20);
  const std::vector<SavedChunk> saved = Dump(stack);
  EXPECT_EQ(saved.size(),
            1 + (stack.reserved_bytes() + kDefaultChunkBytes - 1) /
                    kDefaultChunkBytes);
  for (size_t i = 1; i < saved.size(); ++i) {
    EXPECT_LE(saved[i].second.size(), 40 + kDefaultChunkBytes);
  }
  ExpectRoundTrip(stack, 30'000);
}

TEST(ChunkFormatTest, SmallChunksAcrossPieces) {
  // Chunks smaller than pieces, and not dividing them: a chunk covers parts
  // of two pieces.
  const FilterStack stack = MakeStack(Options(2'000'000, 0.01, 6), 50);
  ExpectRoundTrip(stack, 50, kMinChunkBytes);
  ExpectRoundTrip(stack, 50, kMinChunkBytes + 64);
  ExpectRoundTrip(stack, 50, kMaxChunkBytes - 64);
}

TEST(ChunkFormatTest, ReservedEmptyGigabyteDumpsInAFewKilobytes) {
  const FilterStack stack = MakeStack(Options(900'000'000, 0.01, 8), 0);
  ASSERT_GT(stack.reserved_bytes(), uint64_t{1} << 30);
  const std::vector<SavedChunk> saved = Dump(stack);
  size_t total = 0;
  for (const SavedChunk& c : saved) total += c.second.size();
  EXPECT_LT(total, 16u << 10);
  absl::StatusOr<FilterStack> loaded = LoadAll(saved);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->allocated_pieces(), 0u);
  ExpectSameStack(stack, *loaded);
}

TEST(ChunkFormatTest, SparseFilterStaysSparse) {
  // 40 MB reserved, a few keys: most pieces never written, and the loaded
  // stack allocates the same pieces only.
  const FilterStack stack = MakeStack(Options(30'000'000, 0.01, 9), 3);
  ASSERT_LE(stack.allocated_pieces(), 3u);
  ASSERT_GT(stack.layers()[0].table().num_pieces(), 30u);
  const std::vector<SavedChunk> saved = Dump(stack);
  size_t zero_chunks = 0;
  for (size_t i = 1; i < saved.size(); ++i) {
    zero_chunks += saved[i].second.size() == 40;
  }
  EXPECT_GE(zero_chunks, saved.size() - 1 - 3);
  absl::StatusOr<FilterStack> loaded = LoadAll(saved);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameStack(stack, *loaded);
  ExpectKeys(*loaded, 3);
}

TEST(ChunkFormatTest, IteratorsAreWhatClientsExpect) {
  const FilterStack stack = MakeStack(Options(3'000'000, 0.01, 10), 100);
  const std::vector<SavedChunk> saved = Dump(stack, 1234, kMinChunkBytes);
  ASSERT_GT(saved.size(), 50u);
  for (const SavedChunk& c : saved) {
    EXPECT_GT(c.first, 0u);
    EXPECT_LT(c.first, uint64_t{1} << 53);
  }
  // After the last chunk: 0 and nothing.
  absl::StatusOr<DumpChunk> end =
      ScanDump(stack, saved.back().first, 0, kMinChunkBytes);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->next_iter, 0u);
  EXPECT_TRUE(end->bytes.empty());
  // Two dumps differ in their iterators and ids.
  const std::vector<SavedChunk> other = Dump(stack, 1235, kMinChunkBytes);
  EXPECT_NE(other[0].first, saved[0].first);
}

TEST(ChunkFormatTest, ScanDumpRefusesIteratorsItDidNotReturn) {
  const FilterStack stack = MakeStack(Options(1000, 0.01, 1), 10);
  for (uint64_t it : {uint64_t{1}, uint64_t{5}, uint64_t{1} << 24,
                      uint64_t{1} << 53, ~uint64_t{0}}) {
    absl::StatusOr<DumpChunk> chunk = ScanDump(stack, it);
    EXPECT_EQ(chunk.status().code(), absl::StatusCode::kInvalidArgument) << it;
  }
  EXPECT_FALSE(ScanDump(stack, 0, 0, kMinChunkBytes - 1).ok());
  EXPECT_FALSE(ScanDump(stack, 0, 0, kMaxChunkBytes + 1).ok());
}

TEST(ChunkFormatTest, ChunksInAnyOrderAndRepeated) {
  const FilterStack stack = MakeStack(Options(1'000'000, 0.01, 11), 2000);
  const std::vector<SavedChunk> saved = Dump(stack, 3, kMinChunkBytes);
  ASSERT_GT(saved.size(), 10u);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[0].first, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok()) << loader.status();
  EXPECT_EQ(loader->total_chunks(), saved.size() - 1);
  for (size_t i = saved.size() - 1; i >= 1; --i) {
    EXPECT_FALSE(loader->complete());
    ASSERT_TRUE(loader->Apply(saved[i].first, saved[i].second).ok());
    // The same chunk again: accepted, counted once.
    ASSERT_TRUE(loader->Apply(saved[i].first, saved[i].second).ok());
    EXPECT_EQ(loader->received_chunks(), saved.size() - i);
  }
  ASSERT_TRUE(loader->complete());
  FilterStack loaded = std::move(*loader).Finish();
  ExpectSameStack(stack, loaded);
  ExpectKeys(loaded, 2000);
}

TEST(ChunkFormatTest, ChunkWithAnotherPositionsIteratorIsRefused) {
  const FilterStack stack = MakeStack(Options(1'000'000, 0.01, 12), 100);
  const std::vector<SavedChunk> saved = Dump(stack, 3, kMinChunkBytes);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[0].first, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  absl::Status s = loader->Apply(saved[2].first, saved[1].second);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("goes with iterator"), std::string::npos) << s;
  s = loader->Apply(0, saved[1].second);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(loader->received_chunks(), 0u);
  // The header's iterator too.
  EXPECT_EQ(ChunkLoader::Start(saved[1].first, saved[0].second, kNoLimit)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ChunkFormatTest, ChunksOfAnotherDumpAreRefused) {
  const FilterStack stack = MakeStack(Options(1'000'000, 0.01, 13), 100);
  const std::vector<SavedChunk> a = Dump(stack, 1, kMinChunkBytes);
  const std::vector<SavedChunk> b = Dump(stack, 2, kMinChunkBytes);
  // Another key, same nonce: its seed differs, so does its dump's id.
  const FilterStack other = MakeStack(Options(1'000'000, 0.01, 14), 100);
  const std::vector<SavedChunk> c = Dump(other, 1, kMinChunkBytes);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(a[0].first, a[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  for (const std::vector<SavedChunk>* foreign : {&b, &c}) {
    for (size_t i = 1; i < foreign->size(); i += 5) {
      // With its own iterator, and with the one this dump gave its position.
      for (uint64_t it : {(*foreign)[i].first, a[i].first}) {
        absl::Status s = loader->Apply(it, (*foreign)[i].second);
        ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
        EXPECT_NE(s.message().find("another filter dump"), std::string::npos)
            << s;
      }
    }
  }
  EXPECT_EQ(loader->received_chunks(), 0u);
}

TEST(ChunkFormatTest, DataChunkBeforeHeaderIsRefused) {
  const FilterStack stack = MakeStack(Options(1000, 0.01, 15), 10);
  const std::vector<SavedChunk> saved = Dump(stack);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[1].first, saved[1].second, kNoLimit);
  EXPECT_EQ(loader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(loader.status().message().find("header"), std::string::npos);
  // And a header where a data chunk belongs.
  loader = ChunkLoader::Start(saved[0].first, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  EXPECT_EQ(loader->Apply(saved[0].first, saved[0].second).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ChunkLoader::Start(1, "", kNoLimit).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(ChunkLoader::Start(1, "garbage", kNoLimit).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(ChunkFormatTest, DifferentContentsForALoadedChunkAreRefused) {
  const FilterStack stack = MakeStack(Options(1000, 0.01, 16), 10);
  const std::vector<SavedChunk> saved = Dump(stack);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[0].first, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  ASSERT_TRUE(loader->Apply(saved[1].first, saved[1].second).ok());
  std::string changed = saved[1].second;
  changed[100] ^= 1;
  chunk_format::Reseal(&changed);
  EXPECT_EQ(loader->Apply(saved[1].first, changed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(loader->complete());
}

TEST(ChunkFormatTest, HeaderDeclaringMoreThanMaxBytesIsRefused) {
  // Four layers of 2^32 blocks: 2^40 bytes reserved, nothing allocated (the
  // piece tables are 2 MB each).
  const FilterShape shape{uint64_t{1} << 32, 7, 32};
  std::vector<Layer> layers;
  for (int i = 0; i < 4; ++i) layers.emplace_back(shape, 1000, 0.01, 0);
  const FilterStack stack(Options(1000, 0.01, 17), std::move(layers));
  ASSERT_EQ(stack.reserved_bytes(), uint64_t{1} << 40);
  absl::StatusOr<DumpChunk> header = ScanDump(stack, 0, 1);
  ASSERT_TRUE(header.ok()) << header.status();
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(header->next_iter, header->bytes, uint64_t{1} << 30);
  EXPECT_EQ(loader.status().code(), absl::StatusCode::kResourceExhausted)
      << loader.status();
  loader = ChunkLoader::Start(header->next_iter, header->bytes,
                              (uint64_t{1} << 40) - 1);
  EXPECT_EQ(loader.status().code(), absl::StatusCode::kResourceExhausted);
  loader =
      ChunkLoader::Start(header->next_iter, header->bytes, uint64_t{1} << 40);
  ASSERT_TRUE(loader.ok()) << loader.status();
  EXPECT_EQ(loader->total_chunks(), 4u << 16);
}

TEST(ChunkFormatTest, EveryTruncationAndBitFlipIsRefused) {
  const FilterStack stack = MakeStack(Options(300, 0.01, 18), 200);
  const std::vector<SavedChunk> saved = Dump(stack);
  ASSERT_EQ(saved.size(), 2u);
  const auto& [header_it, header] = saved[0];
  const auto& [data_it, data] = saved[1];
  for (size_t n = 0; n < header.size(); ++n) {
    EXPECT_FALSE(
        ChunkLoader::Start(header_it, header.substr(0, n), kNoLimit).ok())
        << n;
  }
  for (size_t bit = 0; bit < header.size() * 8; ++bit) {
    std::string flipped = header;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    EXPECT_FALSE(ChunkLoader::Start(header_it, flipped, kNoLimit).ok()) << bit;
  }
  absl::StatusOr<ChunkLoader> start =
      ChunkLoader::Start(header_it, header, kNoLimit);
  ASSERT_TRUE(start.ok());
  for (size_t n = 0; n < data.size(); ++n) {
    ChunkLoader loader = *start;
    EXPECT_FALSE(loader.Apply(data_it, data.substr(0, n)).ok()) << n;
    EXPECT_FALSE(loader.complete());
  }
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    ChunkLoader loader = *start;
    std::string flipped = data;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    absl::Status s = loader.Apply(data_it, flipped);
    EXPECT_FALSE(s.ok()) << bit;
    if (bit >= 64 * 8 && bit < 72 * 8) {  // the payload: the checksum says
      EXPECT_NE(s.message().find("damaged (checksum mismatch)"),
                std::string::npos)
          << s;
    }
  }
  // Several flips at once: refused, or (never seen) no key lost.
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string h = header, d = data;
    const int flips = 2 + static_cast<int>(rng() % 7);
    for (int f = 0; f < flips; ++f) {
      std::string& target = rng() % 4 == 0 ? h : d;
      const uint64_t bit = rng() % (target.size() * 8);
      target[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    }
    absl::StatusOr<FilterStack> loaded =
        LoadAll({{header_it, h}, {data_it, d}});
    if (h == header && d == data) continue;
    if (loaded.ok()) ExpectKeys(*loaded, 200);
    EXPECT_FALSE(loaded.ok()) << trial;
  }
}

TEST(ChunkFormatTest, HeaderFieldsOutOfRangeAreRefused) {
  const FilterStack stack = MakeStack(Options(300, 0.01, 19), 20);
  const std::vector<SavedChunk> saved = Dump(stack);
  const uint64_t it = saved[0].first;
  struct Edit {
    const char* what;
    size_t at;
    uint64_t value;
    int bytes;
    absl::StatusCode code;
  };
  const Edit edits[] = {
      {"version", 4, 2, 1, absl::StatusCode::kUnimplemented},
      {"chunk size", 16, 100, 8, absl::StatusCode::kDataLoss},
      {"error rate", 24, 0, 8, absl::StatusCode::kDataLoss},
      {"capacity", 32, 0, 8, absl::StatusCode::kDataLoss},
      {"expansion", 40, 0, 4, absl::StatusCode::kDataLoss},
      {"total chunks", 56, 2, 8, absl::StatusCode::kDataLoss},
      {"num_blocks", 64, 0, 8, absl::StatusCode::kDataLoss},
      {"layer capacity", 72, 0, 8, absl::StatusCode::kDataLoss},
      {"layer rate", 80, 0x3ff0000000000000, 8, absl::StatusCode::kDataLoss},
      {"lane bits", 96, 513, 2, absl::StatusCode::kDataLoss},
      {"probes", 98, 17, 1, absl::StatusCode::kDataLoss},
      {"probes", 98, 0, 1, absl::StatusCode::kDataLoss},
  };
  for (const Edit& e : edits) {
    std::string h = saved[0].second;
    std::memcpy(h.data() + e.at, &e.value, e.bytes);
    chunk_format::Reseal(&h);
    EXPECT_EQ(ChunkLoader::Start(it, h, kNoLimit).status().code(), e.code)
        << e.what;
  }
  // A NaN rate, and 65 layers.
  std::string h = saved[0].second;
  Poke<uint64_t>(&h, 24, 0x7ff8000000000000);
  chunk_format::Reseal(&h);
  EXPECT_EQ(ChunkLoader::Start(it, h, kNoLimit).status().code(),
            absl::StatusCode::kDataLoss);
  h = saved[0].second;
  Poke<uint32_t>(&h, 44, 65);
  chunk_format::Reseal(&h);
  EXPECT_EQ(ChunkLoader::Start(it, h, kNoLimit).status().code(),
            absl::StatusCode::kDataLoss);
  // A data chunk claiming another range, resealed: refused by the layout.
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(it, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  std::string d = saved[1].second;
  Poke<uint64_t>(&d, 16, 64);
  chunk_format::Reseal(&d);
  EXPECT_EQ(loader->Apply(saved[1].first, d).code(),
            absl::StatusCode::kDataLoss);
  d = saved[1].second;
  Poke<uint32_t>(&d, 28, 1);
  chunk_format::Reseal(&d);
  EXPECT_EQ(loader->Apply(saved[1].first, d).code(),
            absl::StatusCode::kDataLoss);
  d = saved[1].second;
  d[4] = 2;
  EXPECT_EQ(loader->Apply(saved[1].first, d).code(),
            absl::StatusCode::kUnimplemented);
}

TEST(ChunkFormatTest, FilterThatGrewDuringTheDump) {
  FilterStack stack = MakeStack(Options(100, 0.01, 20), 90);
  std::vector<SavedChunk> saved;
  absl::StatusOr<DumpChunk> chunk = ScanDump(stack, 0, 1);
  ASSERT_TRUE(chunk.ok());
  saved.emplace_back(chunk->next_iter, chunk->bytes);
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(stack.Add(absl::StrCat("more-", i)).ok());
  ASSERT_EQ(stack.layers().size(), 2u);
  uint64_t it = saved[0].first;
  for (;;) {
    chunk = ScanDump(stack, it);
    ASSERT_TRUE(chunk.ok());
    it = chunk->next_iter;
    if (it == 0) break;
    saved.emplace_back(it, chunk->bytes);
  }
  ASSERT_EQ(saved.size(), 3u);
  absl::StatusOr<ChunkLoader> loader =
      ChunkLoader::Start(saved[0].first, saved[0].second, kNoLimit);
  ASSERT_TRUE(loader.ok());
  ASSERT_TRUE(loader->Apply(saved[1].first, saved[1].second).ok());
  EXPECT_TRUE(loader->complete());
  absl::Status s = loader->Apply(saved[2].first, saved[2].second);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("dump the filter again"), std::string::npos);
}

// The golden dumps (tests/testdata/README.md): rebuilt byte for byte, then
// loaded and checked. They were saved by the module before the split of the
// rate between layers (FilterStack): the loaded stacks keep their rates.
struct GoldenDump {
  const char* file;
  StackOptions options;
  uint64_t keys;
  uint64_t nonce;
  uint64_t chunk_bytes;
  size_t layers;
  int absent_positives;
};

TEST(ChunkFormatTest, GoldenDumps) {
  const GoldenDump kGolden[] = {
      {"redis_chunks_2layers.bin", Options(100, 0.01, 0x0123456789abcdef), 250,
       42, kDefaultChunkBytes, 2, 77},
      {"redis_chunks_reserved.bin", Options(10'000'000, 0.001, 7, 4, true), 0,
       43, kDefaultChunkBytes, 1, 0},
  };
  for (const GoldenDump& g : kGolden) {
    SCOPED_TRACE(g.file);
    // Saved before the split of the rate between layers: layer 0 at the
    // asked rate, layer 1 at half of it.
    const FilterStack stack =
        testing::MakeLegacyStack(g.options, g.keys, "golden-key-");
    ASSERT_EQ(stack.layers().size(), g.layers);
    const std::string bytes =
        testing::EncodeSavedDump(Dump(stack, g.nonce, g.chunk_bytes));
    const std::string golden = testing::Golden(g.file, bytes);
    EXPECT_EQ(golden, bytes) << "the SCANDUMP format changed";
    std::vector<SavedChunk> saved;
    for (const auto& [it, chunk] : testing::DecodeSavedDump(golden)) {
      saved.emplace_back(it, std::string(chunk));
    }
    absl::StatusOr<FilterStack> loaded = LoadAll(saved);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ExpectKeys(*loaded, g.keys, "golden-key-");
    EXPECT_EQ(testing::AbsentPositives(*loaded), g.absent_positives);
  }
}

}  // namespace
}  // namespace blockbloom::redis_module
