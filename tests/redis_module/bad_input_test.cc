// Damaged and misplaced input to the loading commands. BF.LOADCHUNK with
// bit-flipped, truncated, reordered, foreign and duplicated chunks; BB.LOAD
// with damaged files, bytes out of order, totals that disagree or are
// absurd, and files it does not read. Each is refused or harmless: the
// server stays up, and whenever a key becomes queryable it holds every item
// of its source (a damaged load never answers "absent" for an item the
// source held).
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/sizing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"

namespace blockbloom::testing {
namespace {

using Chunks = std::vector<std::pair<long long, std::string>>;

class BadInputTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ModuleServerOptions options;
    options.debug_command = true;
    options.module_args = {"MAX_BYTES", "268435456"};  // 256 MiB
    server_ = NewModuleServer(options).release();
    ASSERT_TRUE(server_->Start()) << "module: " << RedisModulePath();
    Client c(server_->port());
    // A filter of five layers (one data chunk each), and one of two 4 MiB
    // data chunks.
    ASSERT_THAT(c.Command({"BF.RESERVE", "layers", "0.01", "100"}),
                IsStatus("OK"));
    layer_items_ = new std::vector<std::string>(Items("l", 0, 2500));
    ASSERT_EQ(Count(Batched(c, "BF.MADD", "layers", *layer_items_), -1), 0u);
    ASSERT_THAT(c.Command({"BF.RESERVE", "wide", "0.01", "5000000"}),
                IsStatus("OK"));
    wide_items_ = new std::vector<std::string>(Items("w", 0, 200000));
    ASSERT_EQ(Count(Batched(c, "BF.MADD", "wide", *wide_items_), -1), 0u);
    ASSERT_THAT(c.Command({"BF.RESERVE", "other", "0.01", "100"}),
                IsStatus("OK"));
    ASSERT_EQ(Count(Batched(c, "BF.MADD", "other", *layer_items_), -1), 0u);
    layer_chunks_ = new Chunks(ScanDumpAll(c, "layers"));
    wide_chunks_ = new Chunks(ScanDumpAll(c, "wide"));
    other_chunks_ = new Chunks(ScanDumpAll(c, "other"));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete layer_items_;
    delete wide_items_;
    delete layer_chunks_;
    delete wide_chunks_;
    delete other_chunks_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    ASSERT_EQ(layer_chunks_->size(), 6u);  // header + 5 layers
    ASSERT_EQ(wide_chunks_->size(), 3u);   // header + 2 chunks
    client_ = std::make_unique<Client>(server_->port());
  }
  void TearDown() override {
    EXPECT_THAT(client_->Command({"PING"}), IsStatus("PONG"));
  }
  Reply Cmd(const std::vector<std::string>& args) {
    return client_->Command(args);
  }
  Reply LoadChunk(const std::string& key, long long iter,
                  const std::string& data) {
    return Cmd({"BF.LOADCHUNK", key, std::to_string(iter), data});
  }
  // Whether `key` answers queries now; if it does, it must hold every item.
  bool QueryableAndComplete(const std::string& key,
                            const std::vector<std::string>& items) {
    const Reply probe = Cmd({"BF.EXISTS", key, items[0]});
    if (probe.is_error()) return false;
    EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", key, items), 1),
              items.size())
        << key << " answers but misses items";
    return true;
  }

  static RedisServer* server_;
  static std::vector<std::string>* layer_items_;
  static std::vector<std::string>* wide_items_;
  static Chunks* layer_chunks_;
  static Chunks* wide_chunks_;
  static Chunks* other_chunks_;
  std::unique_ptr<Client> client_;
};
RedisServer* BadInputTest::server_ = nullptr;
std::vector<std::string>* BadInputTest::layer_items_ = nullptr;
std::vector<std::string>* BadInputTest::wide_items_ = nullptr;
Chunks* BadInputTest::layer_chunks_ = nullptr;
Chunks* BadInputTest::wide_chunks_ = nullptr;
Chunks* BadInputTest::other_chunks_ = nullptr;

std::string Flip(std::string s, size_t bit) {
  s[bit / 8] = static_cast<char>(s[bit / 8] ^ (1 << (bit % 8)));
  return s;
}

TEST_F(BadInputTest, DamagedHeaderIsRefused) {
  const auto& [iter, header] = (*layer_chunks_)[0];
  // Every bit of the header.
  for (size_t bit = 0; bit < header.size() * 8; ++bit) {
    const Reply r = LoadChunk("hdr", iter, Flip(header, bit));
    ASSERT_TRUE(r.is_error()) << "bit " << bit << " flipped was accepted";
    ASSERT_THAT(Cmd({"EXISTS", "hdr"}), IsInt(0)) << bit;
  }
  // Every truncation, and bytes appended.
  for (size_t n = 0; n < header.size(); ++n) {
    ASSERT_TRUE(LoadChunk("hdr", iter, header.substr(0, n)).is_error()) << n;
  }
  EXPECT_TRUE(LoadChunk("hdr", iter, header + "x").is_error());
  EXPECT_THAT(Cmd({"EXISTS", "hdr"}), IsInt(0));
  // With the wrong iterator.
  EXPECT_THAT(LoadChunk("hdr", iter + 1, header), IsErrorWith("iterator"));
  EXPECT_THAT(LoadChunk("hdr", 1, header), IsErrorWith("iterator"));
  // A data chunk first.
  EXPECT_THAT(
      LoadChunk("hdr", (*layer_chunks_)[1].first, (*layer_chunks_)[1].second),
      IsErrorWith("not found"));
  // Not our format at all (e.g. a RedisBloom dump).
  EXPECT_THAT(LoadChunk("hdr", 1, std::string(200, '\x01')),
              IsErrorWith("not found"));
  EXPECT_THAT(Cmd({"EXISTS", "hdr"}), IsInt(0));
}

TEST_F(BadInputTest, DamagedDataChunksAreRefusedAndTheLoadGoesOn) {
  std::mt19937_64 rng(7);
  for (const Chunks* chunks : {layer_chunks_, wide_chunks_}) {
    const std::vector<std::string>& items =
        chunks == layer_chunks_ ? *layer_items_ : *wide_items_;
    Cmd({"DEL", "dmg"});
    ASSERT_THAT(LoadChunk("dmg", (*chunks)[0].first, (*chunks)[0].second),
                IsStatus("OK"));
    for (size_t i = 1; i < chunks->size(); ++i) {
      const auto& [iter, chunk] = (*chunks)[i];
      // Bits of the chunk's own header, and random bits of its payload.
      // (Of a 4 MiB chunk, fewer: each try sends it whole.)
      const bool big = chunk.size() > (1 << 20);
      std::vector<size_t> bits;
      for (size_t b = 0; b < std::min<size_t>(chunk.size(), 40) * 8;
           b += big ? 7 : 1) {
        bits.push_back(b);
      }
      for (int k = 0; k < (big ? 8 : 64); ++k) {
        bits.push_back(rng() % (chunk.size() * 8));
      }
      for (size_t bit : bits) {
        ASSERT_TRUE(LoadChunk("dmg", iter, Flip(chunk, bit)).is_error())
            << "chunk " << i << " bit " << bit << " flipped was accepted";
        ASSERT_FALSE(QueryableAndComplete("dmg", items));
      }
      for (size_t n : {size_t{0}, size_t{1}, size_t{39}, size_t{40},
                       chunk.size() / 2, chunk.size() - 1}) {
        ASSERT_TRUE(LoadChunk("dmg", iter, chunk.substr(0, n)).is_error())
            << "chunk " << i << " truncated to " << n;
      }
      ASSERT_TRUE(LoadChunk("dmg", iter, chunk + "x").is_error());
      // The intact chunk is still taken.
      ASSERT_THAT(LoadChunk("dmg", iter, chunk), IsStatus("OK")) << i;
      EXPECT_EQ(QueryableAndComplete("dmg", items), i + 1 == chunks->size())
          << i;
    }
  }
  Cmd({"DEL", "dmg"});
}

TEST_F(BadInputTest, ReorderedAndDuplicatedChunks) {
  // Data chunks in reverse order, each sent twice: identical repeats are
  // accepted, and the key answers once the last one is in.
  ASSERT_THAT(
      LoadChunk("rev", (*layer_chunks_)[0].first, (*layer_chunks_)[0].second),
      IsStatus("OK"));
  for (size_t i = layer_chunks_->size() - 1; i >= 1; --i) {
    ASSERT_FALSE(QueryableAndComplete("rev", *layer_items_)) << i;
    const auto& [iter, chunk] = (*layer_chunks_)[i];
    ASSERT_THAT(LoadChunk("rev", iter, chunk), IsStatus("OK")) << i;
    if (i > 1) {
      ASSERT_THAT(LoadChunk("rev", iter, chunk), IsStatus("OK")) << i;
    }
  }
  EXPECT_TRUE(QueryableAndComplete("rev", *layer_items_));
  EXPECT_EQ(BbDumpAll(*client_, "rev", 2), BbDumpAll(*client_, "layers", 2));
  // The header again, once complete: refused.
  EXPECT_THAT(
      LoadChunk("rev", (*layer_chunks_)[0].first, (*layer_chunks_)[0].second),
      IsErrorWith("exists"));

  // Shuffled, with the header again mid-load and a chunk under another
  // chunk's iterator.
  std::vector<size_t> order = {3, 1, 5, 2, 4};
  ASSERT_THAT(
      LoadChunk("shuf", (*layer_chunks_)[0].first, (*layer_chunks_)[0].second),
      IsStatus("OK"));
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& [iter, chunk] = (*layer_chunks_)[order[k]];
    EXPECT_THAT(LoadChunk("shuf", (*layer_chunks_)[0].first,
                          (*layer_chunks_)[0].second),
                IsError());
    const size_t wrong = order[(k + 1) % order.size()];
    EXPECT_THAT(LoadChunk("shuf", (*layer_chunks_)[wrong].first, chunk),
                IsError());
    ASSERT_THAT(LoadChunk("shuf", iter, chunk), IsStatus("OK"));
  }
  EXPECT_TRUE(QueryableAndComplete("shuf", *layer_items_));
  Cmd({"DEL", "rev", "shuf"});
}

TEST_F(BadInputTest, ForeignChunksAreRefused) {
  // Another filter of the same shape: its chunks have the same sizes and
  // places, but another dump id.
  ASSERT_EQ(other_chunks_->size(), layer_chunks_->size());
  ASSERT_THAT(
      LoadChunk("mix", (*layer_chunks_)[0].first, (*layer_chunks_)[0].second),
      IsStatus("OK"));
  for (size_t i = 1; i < other_chunks_->size(); ++i) {
    EXPECT_TRUE(
        LoadChunk("mix", (*other_chunks_)[i].first, (*other_chunks_)[i].second)
            .is_error())
        << i;
    EXPECT_TRUE(
        LoadChunk("mix", (*layer_chunks_)[i].first, (*other_chunks_)[i].second)
            .is_error())
        << i;
  }
  // A second dump of the same filter after a write: refused too.
  Client c(server_->port());
  ASSERT_THAT(c.Command({"BF.ADD", "layers", "late-item"}), IsInt(1));
  const Chunks later = ScanDumpAll(c, "layers");
  ASSERT_EQ(later.size(), layer_chunks_->size());
  for (size_t i = 1; i < later.size(); ++i) {
    EXPECT_TRUE(LoadChunk("mix", later[i].first, later[i].second).is_error())
        << i;
  }
  EXPECT_FALSE(QueryableAndComplete("mix", *layer_items_));
  // Chunks of a filter of another shape.
  for (size_t i = 1; i < wide_chunks_->size(); ++i) {
    EXPECT_TRUE(
        LoadChunk("mix", (*wide_chunks_)[i].first, (*wide_chunks_)[i].second)
            .is_error())
        << i;
  }
  // The load's own chunks still complete it.
  for (size_t i = 1; i < layer_chunks_->size(); ++i) {
    ASSERT_THAT(
        LoadChunk("mix", (*layer_chunks_)[i].first, (*layer_chunks_)[i].second),
        IsStatus("OK"));
  }
  EXPECT_TRUE(QueryableAndComplete("mix", *layer_items_));
  Cmd({"DEL", "mix"});
  // A dump of a filter taken during a write (after the header) does not
  // mix either: the dump stays consistent or is refused.
  Cmd({"DEL", "layers-copy"});
}

std::string FilterFile(const std::vector<std::string>& items,
                       const WriteOptions& write = {}, uint64_t seed = 3,
                       bool compact_small = true) {
  FilterOptions options;
  options.fp_rate = 0.01;
  options.seed = seed;
  options.compact_small_filters = compact_small;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (const std::string& item : items) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  absl::StatusOr<std::string> file = SerializeFilter(*filter, write);
  EXPECT_TRUE(file.ok()) << file.status();
  return *file;
}

TEST_F(BadInputTest, BbLoadOfDamagedFiles) {
  const std::vector<std::string> items = Items("b", 0, 5000);
  const std::string file = FilterFile(items);
  std::mt19937_64 rng(11);
  // Bit flips anywhere: refused at the last chunk, key removed, error says
  // why; or (a flip the checksum cannot see does not exist here) never a
  // filter missing items.
  int refused = 0;
  for (int k = 0; k < 200; ++k) {
    const size_t bit = k < 100 ? (file.size() - 60) * 8 + rng() % (60 * 8)
                               : rng() % (file.size() * 8);
    const Reply r = BbLoadAll(*client_, "bad", Flip(file, bit), 1000);
    if (r.is_error()) {
      ++refused;
      EXPECT_THAT(r, IsErrorWith("ERR")) << bit;
      EXPECT_THAT(Cmd({"EXISTS", "bad"}), IsInt(0)) << bit;
    } else {
      EXPECT_TRUE(QueryableAndComplete("bad", items)) << bit;
      Cmd({"DEL", "bad"});
    }
  }
  EXPECT_EQ(refused, 200);
  // The error of a damaged file names the problem.
  EXPECT_THAT(BbLoadAll(*client_, "bad", Flip(file, 100), 1000),
              IsErrorWith("checksum"));
  EXPECT_THAT(BbLoadAll(*client_, "bad", Flip(file, 100), 1000),
              IsErrorWith("the key was removed"));
  // Truncated: the stated total is the truncated size.
  for (size_t n : {size_t{1}, size_t{10}, file.size() / 2, file.size() - 1}) {
    EXPECT_TRUE(BbLoadAll(*client_, "bad", file.substr(0, n), 1000).is_error())
        << n;
    EXPECT_THAT(Cmd({"EXISTS", "bad"}), IsInt(0)) << n;
  }
  // Garbage.
  EXPECT_TRUE(BbLoadAll(*client_, "bad", std::string(5000, 'z')).is_error());
  EXPECT_THAT(Cmd({"EXISTS", "bad"}), IsInt(0));
}

TEST_F(BadInputTest, BbLoadChunksOutOfPlace) {
  const std::vector<std::string> items = Items("c", 0, 5000);
  const std::string file = FilterFile(items);
  const std::string total = std::to_string(file.size());
  ASSERT_THAT(Cmd({"BB.LOAD", "oo", "0", total, file.substr(0, 1000)}),
              IsInt(1000));
  // Out of order: refused, nothing appended.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "2000", total, file.substr(2000, 1000)}),
              IsErrorWith("out of order"));
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "500", total, file.substr(500, 1000)}),
              IsErrorWith("out of order"));
  // Offset 0 again: the key exists.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "0", total, file.substr(0, 1000)}),
              IsErrorWith("exists"));
  // Another total.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "1000", std::to_string(file.size() + 1),
                   file.substr(1000, 1000)}),
              IsErrorWith("differs"));
  // Past the total.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "1000", total, file.substr(1000) + "x"}),
              IsErrorWith("past the stated total"));
  EXPECT_THAT(Cmd({"BB.INFO", "oo"}).Field("Bytes received"), IsInt(1000));
  EXPECT_FALSE(QueryableAndComplete("oo", items));
  // The rest, in order: complete.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", "1000", total, file.substr(1000)}),
              IsStatus("OK"));
  EXPECT_TRUE(QueryableAndComplete("oo", items));
  // A chunk after completion.
  EXPECT_THAT(Cmd({"BB.LOAD", "oo", total, total, "x"}),
              IsErrorWith("no BB.LOAD in progress"));
  // A later chunk with no load started.
  EXPECT_THAT(Cmd({"BB.LOAD", "none", "10", "100", "x"}),
              IsErrorWith("no BB.LOAD in progress"));
  EXPECT_THAT(Cmd({"EXISTS", "none"}), IsInt(0));
  // A first chunk that does not fit: refused, and no key is left behind
  // (a retry must not find "item exists").
  EXPECT_THAT(Cmd({"BB.LOAD", "first", "0", "3", "abcdef"}),
              IsErrorWith("past the stated total"));
  EXPECT_THAT(Cmd({"EXISTS", "first"}), IsInt(0));
  EXPECT_THAT(BbLoadAll(*client_, "first", file, 1000), IsStatus("OK"));
  EXPECT_TRUE(QueryableAndComplete("first", items));
  Cmd({"DEL", "first"});
  // A total of 0.
  EXPECT_TRUE(Cmd({"BB.LOAD", "zero", "0", "0", ""}).is_error());
  EXPECT_THAT(Cmd({"EXISTS", "zero"}), IsInt(0));
  Cmd({"DEL", "oo"});
}

TEST_F(BadInputTest, BbLoadOfAHugeStatedTotal) {
  const long long used_before = [&] {
    const std::string info = Cmd({"INFO", "memory"}).str;
    return std::stoll(info.substr(info.find("used_memory:") + 12));
  }();
  // Over MAX_BYTES (256 MiB here): refused before anything is allocated.
  for (const char* total :
       {"268435457", "1099511627776", "18446744073709551615"}) {
    EXPECT_THAT(Cmd({"BB.LOAD", "huge", "0", total, "abc"}),
                IsErrorWith("over the 268435456 bytes"))
        << total;
    EXPECT_THAT(Cmd({"EXISTS", "huge"}), IsInt(0));
  }
  EXPECT_THAT(Cmd({"BB.LOAD", "huge", "0", "18446744073709551616", "abc"}),
              IsErrorText("ERR bad total size"));
  // Within it: the statement reserves nothing.
  EXPECT_THAT(Cmd({"BB.LOAD", "huge", "0", "268435456", "abc"}), IsInt(3));
  const std::string info = Cmd({"INFO", "memory"}).str;
  const long long used_after =
      std::stoll(info.substr(info.find("used_memory:") + 12));
  EXPECT_LT(used_after - used_before, 16 << 20);
  Cmd({"DEL", "huge"});
}

TEST_F(BadInputTest, BbLoadOfFilesItDoesNotRead) {
  // An exact-size filter block (what LevelDB stores): refused, and said so.
  FilterOptions exact_size;
  exact_size.exact_size = true;
  exact_size.bits_per_key = 10;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(exact_size);
  ASSERT_TRUE(builder.ok()) << builder.status();
  for (const std::string& item : Items("k", 0, 1000)) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  absl::StatusOr<std::string> block = SerializeFilter(*filter);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(BbLoadAll(*client_, "exact_size", *block).is_error());
  EXPECT_THAT(Cmd({"EXISTS", "exact_size"}), IsInt(0));
  FilterOptions accurate = exact_size;
  accurate.fewer_false_positives = true;
  builder = FilterBuilder::Create(accurate);
  ASSERT_TRUE(builder.ok()) << builder.status();
  for (const std::string& item : Items("k", 0, 1000)) builder->Add(item);
  filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  block = SerializeFilter(*filter);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_THAT(BbLoadAll(*client_, "exact_size", *block),
              IsErrorWith("exact-size"));
  EXPECT_THAT(Cmd({"EXISTS", "exact_size"}), IsInt(0));

  // What `blockbloom build` writes is read: a small filter in the compact
  // encoding, a full one, and a zstd one.
  const std::vector<std::string> few = Items("s", 0, 40);
  WriteOptions full;
  full.encoding = Encoding::kFull;
  WriteOptions zstd = full;
  zstd.compression = Compression::kZstd;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"compact", FilterFile(few)},
      {"compact-32", FilterFile(few, {}, 3, false)},
      {"full", FilterFile(few, full)},
      {"zstd", FilterFile(Items("s", 0, 4000), zstd)},
  };
  for (const auto& [name, file] : files) {
    EXPECT_THAT(BbLoadAll(*client_, name, file), IsStatus("OK")) << name;
    EXPECT_TRUE(
        QueryableAndComplete(name, name == "zstd" ? Items("s", 0, 4000) : few))
        << name;
    Cmd({"DEL", name});
  }
}

// The last chunk of a file over 8 MiB is verified in a thread while its
// client waits. A client that leaves meanwhile (a timeout, a crash) must
// not leave the key loading forever: the load completes (or is refused)
// all the same.
TEST_F(BadInputTest, BbLoadCompletesWhenTheClientLeavesDuringVerification) {
  FilterOptions options;
  options.shape = *ShapeForFpRate(8000000, 0.01);
  options.seed = 9;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  ASSERT_TRUE(builder.ok()) << builder.status();
  const std::vector<std::string> items = Items("v", 0, 1000);
  for (const std::string& item : items) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  absl::StatusOr<std::string> file = SerializeFilter(*filter);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_GT(file->size(), 8u << 20);
  const std::string total = std::to_string(file->size());
  const size_t last = file->size() - 1000;
  for (const bool damaged : {false, true}) {
    const std::string key = damaged ? "left-bad" : "left";
    const std::string bytes = damaged ? Flip(*file, 12345) : *file;
    ASSERT_THAT(Cmd({"BB.LOAD", key, "0", total, bytes.substr(0, last)}),
                IsInt(static_cast<long long>(last)));
    {
      Client leaving(server_->port());
      leaving.Append(
          {"BB.LOAD", key, std::to_string(last), total, bytes.substr(last)});
      // Send it, then leave without the reply.
      ASSERT_TRUE(leaving.Flush());
    }
    std::string state = "loading";
    for (int i = 0; i < 500 && state == "loading"; ++i) {
      const Reply info = Cmd({"BB.INFO", key});
      state = info.is_error() ? "gone" : info.Field("State").str;
      if (state == "loading") usleep(10000);
    }
    if (damaged) {
      EXPECT_EQ(state, "gone") << key;
      EXPECT_THAT(Cmd({"EXISTS", key}), IsInt(0));
    } else {
      EXPECT_EQ(state, "ready") << key;
      EXPECT_TRUE(QueryableAndComplete(key, items));
    }
    Cmd({"DEL", key});
  }
}

}  // namespace
}  // namespace blockbloom::testing
