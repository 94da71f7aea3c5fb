// The module's filters across the server's persistence: DEBUG RELOAD, SAVE
// and a restart from the RDB file, the AOF (replayed, and rewritten as
// BF.LOADCHUNK commands), keys saved mid-load, and DUMP/RESTORE, including
// RESTORE of damaged payloads that reach the module's parser (their CRC64
// recomputed) and must be refused without harming the server.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/sizing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"

namespace blockbloom::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Redis's CRC-64 (crc64.c: Jones polynomial 0xad93d23594c935a9, reflected
// in and out, initial value 0), bit by bit: the checksum that ends a DUMP
// payload.
uint64_t Crc64(const std::string& bytes) {
  constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ull;
  uint64_t crc = 0;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int i = 0; i < 8; ++i) {
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedPoly : crc >> 1;
    }
  }
  return crc;
}

// A DUMP payload is the serialized value, a 2-byte RDB version and the
// CRC-64 of both (little-endian). Returns `body` (value + version) with its
// checksum appended.
std::string WithCrc(const std::string& body) {
  const uint64_t crc = Crc64(body);
  std::string out = body;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(crc >> (8 * i)));
  return out;
}

// The filters each test writes and then checks: their names, the items each
// holds, and what DEBUG DIGEST-VALUE said before.
struct Snapshot {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> items;
  std::vector<std::string> digests;
  std::vector<std::string> infos;  // BB.INFO, printed
};

std::string Printed(const Reply& r) {
  std::ostringstream os;
  PrintTo(r, &os);
  return os.str();
}

// Writes filters of every kind: auto-created, reserved and scaled over
// several layers, NONSCALING, reserved large and nearly empty, loaded from a
// file, loaded by LOADCHUNK, and a COPY.
Snapshot WriteFilters(Client& c) {
  Snapshot s;
  auto add = [&](const std::string& key, const std::vector<std::string>& items,
                 const std::string& command = "BF.MADD") {
    EXPECT_EQ(Count(Batched(c, command, key, items), -1), 0u) << key;
    s.keys.push_back(key);
    s.items.push_back(items);
  };
  add("auto", Items("a", 0, 50));
  EXPECT_THAT(c.Command({"BF.RESERVE", "scaled", "0.01", "100"}),
              IsStatus("OK"));
  add("scaled", Items("s", 0, 3000));
  EXPECT_THAT(c.Command({"BF.RESERVE", "fixed", "0.001", "500", "NONSCALING"}),
              IsStatus("OK"));
  add("fixed", Items("f", 0, 400));
  EXPECT_THAT(c.Command({"BF.RESERVE", "sparse", "0.01", "3000000"}),
              IsStatus("OK"));
  add("sparse", Items("p", 0, 10));
  EXPECT_THAT(c.Command({"BB.RESERVE", "seeded", "0.0001", "1000", "EXPANSION",
                         "3", "SEED", "12345"}),
              IsStatus("OK"));
  add("seeded", Items("e", 0, 2500));

  FilterOptions options;
  options.fp_rate = 0.01;
  options.seed = 77;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok());
  const std::vector<std::string> file_items = Items("l", 0, 5000);
  for (const std::string& item : file_items) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  EXPECT_TRUE(filter.ok());
  absl::StatusOr<std::string> file = SerializeFilter(*filter);
  EXPECT_TRUE(file.ok());
  EXPECT_THAT(BbLoadAll(c, "loaded", *file, 1000), IsStatus("OK"));
  s.keys.push_back("loaded");
  s.items.push_back(file_items);

  for (const auto& [iter, chunk] : ScanDumpAll(c, "scaled")) {
    EXPECT_THAT(
        c.Command({"BF.LOADCHUNK", "chunked", std::to_string(iter), chunk}),
        IsStatus("OK"));
  }
  s.keys.push_back("chunked");
  s.items.push_back(s.items[1]);
  EXPECT_THAT(c.Command({"COPY", "seeded", "copied"}), IsInt(1));
  s.keys.push_back("copied");
  s.items.push_back(s.items[4]);

  for (const std::string& key : s.keys) {
    const Reply digest = c.Command({"DEBUG", "DIGEST-VALUE", key});
    EXPECT_TRUE(digest.is_array()) << Printed(digest);
    s.digests.push_back(digest.is_array() && !digest.elements.empty()
                            ? digest.elements[0].str
                            : "");
    s.infos.push_back(Printed(c.Command({"BB.INFO", key})));
  }
  return s;
}

// Every key answers as before: the same digest and BB.INFO, every item
// present.
void ExpectSame(Client& c, const Snapshot& s, const std::string& when) {
  for (size_t i = 0; i < s.keys.size(); ++i) {
    const std::string& key = s.keys[i];
    const Reply digest = c.Command({"DEBUG", "DIGEST-VALUE", key});
    ASSERT_TRUE(digest.is_array())
        << when << " " << key << ": " << Printed(digest);
    EXPECT_EQ(digest.elements[0].str, s.digests[i]) << when << " " << key;
    EXPECT_NE(digest.elements[0].str, std::string(40, '0'))
        << when << " " << key;
    EXPECT_EQ(Printed(c.Command({"BB.INFO", key})), s.infos[i])
        << when << " " << key;
    EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", key, s.items[i]), 1),
              s.items[i].size())
        << when << " " << key;
  }
  // They still take writes, and scale.
  EXPECT_EQ(Count(Batched(c, "BF.MADD", "scaled", Items("new", 0, 5000)), -1),
            0u)
      << when;
  EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "scaled", Items("new", 0, 5000)), 1),
            5000u)
      << when;
}

ModuleServerOptions Debug(std::vector<std::string> extra = {}) {
  ModuleServerOptions options;
  options.debug_command = true;
  options.extra_args = std::move(extra);
  return options;
}

TEST(Persistence, DebugReloadKeepsAnswersAndDigests) {
  auto server = NewModuleServer(Debug());
  ASSERT_TRUE(server->Start());
  Client c(server->port());
  const Snapshot s = WriteFilters(c);
  ASSERT_THAT(c.Command({"DEBUG", "RELOAD"}), IsStatus("OK"));
  ExpectSame(c, s, "after DEBUG RELOAD");
  // The same filter twice gives the same digest; different ones differ.
  EXPECT_EQ(s.digests[4], s.digests[7]);  // seeded and its COPY
  EXPECT_EQ(s.digests[1], s.digests[6]);  // scaled and its LOADCHUNK copy
  EXPECT_NE(s.digests[0], s.digests[1]);
}

TEST(Persistence, SaveAndRestartFromTheRdbFile) {
  auto server = NewModuleServer(Debug());
  ASSERT_TRUE(server->Start());
  Snapshot s;
  {
    Client c(server->port());
    s = WriteFilters(c);
    ASSERT_THAT(c.Command({"SAVE"}), IsStatus("OK"));
  }
  ASSERT_TRUE(std::filesystem::exists(server->dir() + "/dump.rdb"));
  ASSERT_TRUE(server->Restart());
  Client c(server->port());
  ASSERT_TRUE(WaitUntilLoaded(c));
  EXPECT_THAT(c.Command({"DBSIZE"}),
              IsInt(static_cast<long long>(s.keys.size())));
  ExpectSame(c, s, "after a restart from the RDB file");
}

bool WaitForRewrite(Client& c) {
  for (int i = 0; i < 3000; ++i) {
    const Reply info = c.Command({"INFO", "persistence"});
    if (info.str.find("aof_rewrite_in_progress:0") != std::string::npos &&
        info.str.find("aof_rewrite_scheduled:0") != std::string::npos &&
        info.str.find("aof_last_bgrewrite_status:ok") != std::string::npos) {
      return true;
    }
    usleep(10000);
  }
  return false;
}

// All of the AOF directory's files, concatenated.
std::string ReadAofDir(const std::string& dir) {
  std::string all;
  for (const auto& entry :
       std::filesystem::directory_iterator(dir + "/appendonlydir")) {
    std::ifstream in(entry.path(), std::ios::binary);
    all += std::string(std::istreambuf_iterator<char>(in), {});
  }
  return all;
}

TEST(Persistence, AofReplayAndRewriteAsLoadChunk) {
  auto server =
      NewModuleServer(Debug({"--appendonly", "yes", "--appendfsync", "always",
                             "--aof-use-rdb-preamble", "no"}));
  ASSERT_TRUE(server->Start());
  Snapshot s;
  {
    Client c(server->port());
    s = WriteFilters(c);
    // Auto-created keys have a random seed: the AOF has it (BB.RESERVE ...
    // SEED), not BF.ADD's key creation.
    const std::string aof = ReadAofDir(server->dir());
    EXPECT_THAT(aof, HasSubstr("BB.RESERVE"));
    EXPECT_THAT(aof, HasSubstr("SEED"));
  }
  // A restart replays the AOF's commands.
  ASSERT_TRUE(server->Restart());
  {
    Client c(server->port());
    ASSERT_TRUE(WaitUntilLoaded(c));
    ExpectSame(c, s, "after replaying the AOF");
    // ExpectSame added keys to "scaled": take its new state.
    s.digests[1] =
        c.Command({"DEBUG", "DIGEST-VALUE", "scaled"}).elements[0].str;
    s.infos[1] = Printed(c.Command({"BB.INFO", "scaled"}));
    s.digests[0] = c.Command({"DEBUG", "DIGEST-VALUE", "auto"}).elements[0].str;
    ASSERT_THAT(c.Command({"BGREWRITEAOF"}), Not(IsError()));
    ASSERT_TRUE(WaitForRewrite(c));
    const std::string aof = ReadAofDir(server->dir());
    // The rewrite writes each filter as BF.LOADCHUNK commands.
    EXPECT_THAT(aof, HasSubstr("BF.LOADCHUNK"));
    EXPECT_THAT(aof, ::testing::Not(HasSubstr("BF.MADD")));
  }
  ASSERT_TRUE(server->Restart());
  Client c(server->port());
  ASSERT_TRUE(WaitUntilLoaded(c));
  for (size_t i = 0; i < s.keys.size(); ++i) {
    const Reply digest = c.Command({"DEBUG", "DIGEST-VALUE", s.keys[i]});
    ASSERT_TRUE(digest.is_array()) << s.keys[i] << Printed(digest);
    EXPECT_EQ(digest.elements[0].str, s.digests[i]) << s.keys[i];
    EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", s.keys[i], s.items[i]), 1),
              s.items[i].size())
        << s.keys[i];
  }
  EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "scaled", Items("new", 0, 5000)), 1),
            5000u);
}

TEST(Persistence, AofWithRdbPreambleToo) {
  auto server = NewModuleServer(Debug({"--appendonly", "yes"}));
  ASSERT_TRUE(server->Start());
  Snapshot s;
  {
    Client c(server->port());
    s = WriteFilters(c);
    ASSERT_THAT(c.Command({"BGREWRITEAOF"}), Not(IsError()));
    ASSERT_TRUE(WaitForRewrite(c));
  }
  ASSERT_TRUE(server->Restart());
  Client c(server->port());
  ASSERT_TRUE(WaitUntilLoaded(c));
  ExpectSame(c, s, "after a restart from an AOF with an RDB preamble");
}

// A key saved while BF.LOADCHUNK or BB.LOAD was filling it comes back still
// loading, after DEBUG RELOAD, a SAVE and restart, and an AOF rewrite and
// restart: it answers no query yet (it would answer "absent" for items it
// should hold), takes the remaining chunks, and then answers as the source.
TEST(Persistence, KeysSavedMidLoadResume) {
  for (const char* how :
       {"DEBUG RELOAD", "SAVE and restart", "BGREWRITEAOF and restart"}) {
    const bool aof = std::string(how) == "BGREWRITEAOF and restart";
    ModuleServerOptions options =
        aof ? Debug({"--appendonly", "yes", "--aof-use-rdb-preamble", "no"})
            : Debug();
    auto server = NewModuleServer(options);
    ASSERT_TRUE(server->Start());
    Client c(server->port());
    ASSERT_THAT(c.Command({"BF.RESERVE", "src", "0.01", "100000"}),
                IsStatus("OK"));
    const std::vector<std::string> items = Items("x", 0, 20000);
    ASSERT_EQ(Count(Batched(c, "BF.MADD", "src", items), -1), 0u);
    const auto chunks = ScanDumpAll(c, "src");
    ASSERT_GE(chunks.size(), 2u);
    ASSERT_THAT(c.Command({"BF.LOADCHUNK", "half",
                           std::to_string(chunks[0].first), chunks[0].second}),
                IsStatus("OK"));
    const std::string file = FilterFile(5000, 11, items);
    const size_t cut = file.size() / 2;
    ASSERT_THAT(
        c.Command({"BB.LOAD", "partial", "0", std::to_string(file.size()),
                   file.substr(0, cut), "EXPANSION", "4"}),
        IsInt(static_cast<long long>(cut)));

    if (std::string(how) == "DEBUG RELOAD") {
      ASSERT_THAT(c.Command({"DEBUG", "RELOAD"}), IsStatus("OK"));
    } else {
      if (aof) {
        ASSERT_THAT(c.Command({"BGREWRITEAOF"}), Not(IsError()));
        ASSERT_TRUE(WaitForRewrite(c));
      } else {
        ASSERT_THAT(c.Command({"SAVE"}), IsStatus("OK"));
      }
      ASSERT_TRUE(server->Restart());
      ASSERT_TRUE(c.Connect());
      ASSERT_TRUE(WaitUntilLoaded(c));
    }
    for (const char* key : {"half", "partial"}) {
      EXPECT_THAT(c.Command({"TYPE", key}), IsStatus("bb-filter"))
          << how << " " << key;
      EXPECT_THAT(c.Command({"BB.INFO", key}).Field("State"),
                  IsStatus("loading"))
          << how << " " << key;
      EXPECT_THAT(c.Command({"BF.EXISTS", key, "x1"}), IsErrorWith("loaded"))
          << how << " " << key;
      EXPECT_THAT(c.Command({"BF.ADD", key, "x1"}), IsErrorWith("loaded"))
          << how << " " << key;
    }
    for (size_t i = 1; i < chunks.size(); ++i) {
      ASSERT_THAT(
          c.Command({"BF.LOADCHUNK", "half", std::to_string(chunks[i].first),
                     chunks[i].second}),
          IsStatus("OK"))
          << how;
    }
    ASSERT_THAT(c.Command({"BB.LOAD", "partial", std::to_string(cut),
                           std::to_string(file.size()), file.substr(cut)}),
                IsStatus("OK"))
        << how;
    EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "half", items), 1), items.size())
        << how;
    EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "partial", items), 1),
              items.size())
        << how;
    const Reply expansion = c.Command({"BF.INFO", "partial", "EXPANSION"});
    ASSERT_EQ(expansion.elements.size(), 1u) << how;
    EXPECT_THAT(expansion.elements[0], IsInt(4)) << how;
  }
}

// A filter loaded in pieces through the AOF: replaying BF.LOADCHUNK
// commands rebuilds it.
TEST(Persistence, LoadChunkThroughTheAof) {
  auto server = NewModuleServer(Debug({"--appendonly", "yes"}));
  ASSERT_TRUE(server->Start());
  Client c(server->port());
  ASSERT_THAT(c.Command({"BF.RESERVE", "src", "0.01", "10000"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("y", 0, 9000);
  ASSERT_EQ(Count(Batched(c, "BF.MADD", "src", items), -1), 0u);
  for (const auto& [iter, chunk] : ScanDumpAll(c, "src")) {
    ASSERT_THAT(c.Command({"BF.LOADCHUNK", "dst", std::to_string(iter), chunk}),
                IsStatus("OK"));
  }
  const std::string digest =
      c.Command({"DEBUG", "DIGEST-VALUE", "dst"}).elements[0].str;
  ASSERT_TRUE(server->Restart());
  ASSERT_TRUE(c.Connect());
  ASSERT_TRUE(WaitUntilLoaded(c));
  EXPECT_EQ(c.Command({"DEBUG", "DIGEST-VALUE", "dst"}).elements[0].str,
            digest);
  EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "dst", items), 1), items.size());
}

TEST(Persistence, RestoreOfDumpPayloads) {
  auto server = NewModuleServer(Debug());
  ASSERT_TRUE(server->Start());
  Client c(server->port());
  ASSERT_THAT(c.Command({"BF.RESERVE", "src", "0.01", "100", "EXPANSION", "2"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("r", 0, 350);  // 3 layers
  ASSERT_EQ(Count(Batched(c, "BF.MADD", "src", items), -1), 0u);
  const Reply dump = c.Command({"DUMP", "src"});
  ASSERT_EQ(dump.type, REDIS_REPLY_STRING) << Printed(dump);
  const std::string& payload = dump.str;
  ASSERT_GT(payload.size(), 10u);
  const std::string body = payload.substr(0, payload.size() - 8);
  // Our CRC is Redis's.
  ASSERT_EQ(WithCrc(body), payload);
  const std::string digest =
      c.Command({"DEBUG", "DIGEST-VALUE", "src"}).elements[0].str;

  ASSERT_THAT(c.Command({"RESTORE", "copy", "0", payload}), IsStatus("OK"));
  EXPECT_EQ(c.Command({"DEBUG", "DIGEST-VALUE", "copy"}).elements[0].str,
            digest);
  EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "copy", items), 1), items.size());
  EXPECT_THAT(c.Command({"RESTORE", "copy", "0", payload}),
              IsErrorWith("BUSYKEY"));
  ASSERT_THAT(c.Command({"RESTORE", "copy", "0", payload, "REPLACE"}),
              IsStatus("OK"));

  // The value without its 2-byte version: what truncation and bit flips
  // damage. Each damaged payload gets a correct version and CRC, so Redis
  // hands it to the module, which must refuse it (or, if it accepts it,
  // load exactly the filter that was dumped).
  const std::string version = body.substr(body.size() - 2);
  const std::string value = body.substr(0, body.size() - 2);
  int refused = 0;
  int accepted = 0;
  std::string accepted_what;  // which damaged payloads loaded, for the log
  auto check = [&](const std::string& damaged, const std::string& what) {
    const Reply r = c.Command(
        {"RESTORE", "bad", "0", WithCrc(damaged + version), "REPLACE"});
    ASSERT_THAT(c.Command({"PING"}), IsStatus("PONG")) << what;
    if (r.is_error()) {
      ++refused;
      EXPECT_THAT(c.Command({"EXISTS", "bad"}), IsInt(0)) << what;
      return;
    }
    ++accepted;
    accepted_what += " [" + what + "]";
    ASSERT_THAT(r, IsStatus("OK")) << what;
    const Reply d = c.Command({"DEBUG", "DIGEST-VALUE", "bad"});
    EXPECT_EQ(d.elements[0].str, digest) << what << " was accepted changed";
    EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "bad", items), 1), items.size())
        << what;
    c.Command({"DEL", "bad"});
  };
  // Every truncation.
  for (size_t n = 1; n < value.size(); ++n) {
    check(value.substr(0, n), "truncated to " + std::to_string(n));
  }
  EXPECT_EQ(accepted, 0) << accepted_what << " of " << value.size()
                         << " bytes: " << absl::BytesToHexString(value);
  // Bit flips: every bit of the first 200 bytes (type, module id, options,
  // layer records) and random bits elsewhere.
  std::mt19937_64 rng(2024);
  std::vector<size_t> bits;
  for (size_t b = 0; b < std::min<size_t>(value.size(), 200) * 8; ++b) {
    bits.push_back(b);
  }
  for (int i = 0; i < 400; ++i) bits.push_back(rng() % (value.size() * 8));
  for (size_t bit : bits) {
    std::string damaged = value;
    damaged[bit / 8] = static_cast<char>(damaged[bit / 8] ^ (1 << (bit % 8)));
    check(damaged, "bit " + std::to_string(bit) + " flipped");
  }
  EXPECT_GT(refused, 0);
  // A payload of another type's id, or garbage after the value.
  check(value + "x", "one byte appended");
  EXPECT_THAT(c.Command({"PING"}), IsStatus("PONG"));
  EXPECT_EQ(c.Command({"DEBUG", "DIGEST-VALUE", "src"}).elements[0].str,
            digest);
}

// MAX_BYTES bounds what a load may declare (BB.LOAD, BF.LOADCHUNK, the RDB
// file). Every filter the server accepts must also load back: a filter
// created or grown past MAX_BYTES would make DEBUG RELOAD lose the whole
// data set and a restart from the RDB file fail.
TEST(Persistence, EveryFilterTheServerHoldsLoadsBackUnderMaxBytes) {
  ModuleServerOptions options = Debug();
  options.module_args = {"MAX_BYTES", "1048576"};
  auto server = NewModuleServer(options);
  ASSERT_TRUE(server->Start());
  Client c(server->port());
  // 10^7 keys at 1% is ~12 MB of bits.
  const Reply big = c.Command({"BF.RESERVE", "big", "0.01", "10000000"});
  const Reply big2 =
      c.Command({"BB.RESERVE", "big2", "0.01", "10000000", "SEED", "1"});
  const Reply big3 =
      c.Command({"BF.INSERT", "big3", "CAPACITY", "10000000", "ITEMS", "a"});
  EXPECT_THAT(big, IsErrorWith("MAX_BYTES"));
  EXPECT_THAT(big2, IsErrorWith("MAX_BYTES"));
  EXPECT_THAT(big3, IsErrorWith("MAX_BYTES"));
  // A filter that grows until the next layer would pass the limit: ~90 KB
  // for layer 0, x4 per layer.
  ASSERT_THAT(
      c.Command({"BF.RESERVE", "grow", "1e-9", "10000", "EXPANSION", "4"}),
      IsStatus("OK"));
  const std::vector<std::string> items = Items("g", 0, 250000);
  const std::vector<long long> added = Batched(c, "BF.MADD", "grow", items);
  const Reply info = c.Command({"BB.INFO", "grow"});
  EXPECT_LE(info.Field("Bytes reserved").integer, 1048576);
  const Reply last_error = c.Command({"BF.ADD", "grow", "one more"});
  EXPECT_THAT(last_error, IsErrorWith("MAX_BYTES"));

  // A small zstd file of a sparse filter whose bits are over the limit.
  FilterOptions sparse;
  sparse.shape = *ShapeForFpRate(2000000, 0.01);
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(sparse);
  ASSERT_TRUE(builder.ok()) << builder.status();
  for (const std::string& item : Items("z", 0, 100)) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  WriteOptions zstd;
  zstd.encoding = Encoding::kFull;
  zstd.compression = Compression::kZstd;
  absl::StatusOr<std::string> file = SerializeFilter(*filter, zstd);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_LT(file->size(), 1048576u);
  ASSERT_GT(filter->bits().size(), 1048576u);
  EXPECT_THAT(BbLoadAll(c, "zstd", *file), IsError());
  EXPECT_THAT(c.Command({"EXISTS", "zstd"}), IsInt(0));

  const Reply dbsize = c.Command({"DBSIZE"});
  ASSERT_THAT(c.Command({"DEBUG", "RELOAD"}), IsStatus("OK"));
  EXPECT_THAT(c.Command({"DBSIZE"}), IsInt(dbsize.integer));
  std::vector<std::string> held;
  for (size_t i = 0; i < added.size(); ++i) {
    if (added[i] == 1) held.push_back(items[i]);
  }
  EXPECT_EQ(Count(Batched(c, "BF.MEXISTS", "grow", held), 1), held.size());
  ASSERT_THAT(c.Command({"SAVE"}), IsStatus("OK"));
  ASSERT_TRUE(server->Restart());
  ASSERT_TRUE(c.Connect());
  ASSERT_TRUE(WaitUntilLoaded(c));
  EXPECT_THAT(c.Command({"DBSIZE"}), IsInt(dbsize.integer));
}

}  // namespace
}  // namespace blockbloom::testing
