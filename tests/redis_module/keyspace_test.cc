// The module's keys under Redis's keyspace commands: COPY (copy-on-write:
// writes to one never show in the other), RENAME, DEL and UNLINK (freed in
// the background when big), EXPIRE and PEXPIRE, MEMORY USAGE (what is
// allocated, not what is reserved), a 1 GiB BF.RESERVE that costs nothing
// until written, a BB.LOAD whose stated total reserves nothing, FLUSHALL.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"
#include "tests/redis_module/module_test.h"

namespace blockbloom::testing {
namespace {

using ::testing::Ge;
using ::testing::Gt;
using ::testing::Le;
using ::testing::Lt;

class KeyspaceTest : public ModuleTest {
 protected:
  static void SetUpTestSuite() {
    ModuleServerOptions options;
    options.debug_command = true;
    StartServer(options);
  }
  long long MemoryUsage(const std::string& key) {
    const Reply r = Cmd({"MEMORY", "USAGE", key, "SAMPLES", "0"});
    EXPECT_TRUE(r.is_int()) << ::testing::PrintToString(r);
    return r.integer;
  }
  long long UsedMemory() {
    const std::string info = Cmd({"INFO", "memory"}).str;
    const size_t at = info.find("used_memory:");
    return at == std::string::npos ? -1 : std::stoll(info.substr(at + 12));
  }
  size_t Present(const std::string& key,
                 const std::vector<std::string>& items) {
    return Count(Batched(*client_, "BF.MEXISTS", key, items), 1);
  }
  std::string Digest(const std::string& key) {
    const Reply r = Cmd({"DEBUG", "DIGEST-VALUE", key});
    return r.is_array() && !r.elements.empty() ? r.elements[0].str : "";
  }
};

TEST_F(KeyspaceTest, CopyIsIndependent) {
  // Several pieces (over 1 MiB of bits), so that copy-on-write matters.
  ASSERT_THAT(Cmd({"BF.RESERVE", "orig", "0.01", "3000000"}), IsStatus("OK"));
  const std::vector<std::string> base = Items("base", 0, 20000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "orig", base), -1), 0u);
  const std::string digest = Digest("orig");
  ASSERT_THAT(Cmd({"COPY", "orig", "copy"}), IsInt(1));
  EXPECT_EQ(Digest("copy"), digest);
  EXPECT_THAT(Cmd({"COPY", "orig", "copy"}), IsInt(0));  // exists

  // Writes to the copy do not show in the original...
  const std::vector<std::string> to_copy = Items("c", 0, 20000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "copy", to_copy), -1), 0u);
  EXPECT_EQ(Digest("orig"), digest);
  EXPECT_LE(Present("orig", to_copy), 20000u * 2 / 100);
  EXPECT_EQ(Present("copy", to_copy), to_copy.size());
  // ...nor writes to the original in the copy.
  const std::string copy_digest = Digest("copy");
  const std::vector<std::string> to_orig = Items("o", 0, 20000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "orig", to_orig), -1), 0u);
  EXPECT_EQ(Digest("copy"), copy_digest);
  EXPECT_LE(Present("copy", to_orig), 20000u * 2 / 100);
  EXPECT_EQ(Present("orig", to_orig), to_orig.size());
  EXPECT_EQ(Present("orig", base), base.size());
  EXPECT_EQ(Present("copy", base), base.size());
  // Deleting one leaves the other whole (shared pieces are counted).
  ASSERT_THAT(Cmd({"DEL", "orig"}), IsInt(1));
  EXPECT_EQ(Digest("copy"), copy_digest);
  EXPECT_EQ(Present("copy", base), base.size());
  // COPY to another database, and with REPLACE.
  ASSERT_THAT(Cmd({"COPY", "copy", "copy", "DB", "1"}), IsInt(1));
  ASSERT_THAT(Cmd({"SELECT", "1"}), IsStatus("OK"));
  EXPECT_EQ(Present("copy", to_copy), to_copy.size());
  ASSERT_THAT(Cmd({"SELECT", "0"}), IsStatus("OK"));
  ASSERT_THAT(Cmd({"BF.ADD", "other", "x"}), IsInt(1));
  ASSERT_THAT(Cmd({"COPY", "other", "copy", "REPLACE"}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.CARD", "copy"}), IsInt(1));
  Cmd({"FLUSHDB"});
  ASSERT_THAT(Cmd({"SELECT", "1"}), IsStatus("OK"));
  Cmd({"FLUSHDB"});
  ASSERT_THAT(Cmd({"SELECT", "0"}), IsStatus("OK"));
}

TEST_F(KeyspaceTest, CopyOfAKeyBeingLoadedIsRefused) {
  ASSERT_THAT(Cmd({"BB.LOAD", "loading", "0", "100", "abc"}), IsInt(3));
  EXPECT_THAT(Cmd({"COPY", "loading", "loading2"}), IsError());
  EXPECT_THAT(Cmd({"EXISTS", "loading2"}), IsInt(0));
  EXPECT_THAT(Cmd({"DEL", "loading"}), IsInt(1));
}

TEST_F(KeyspaceTest, Rename) {
  ASSERT_THAT(Cmd({"BF.RESERVE", "before", "0.01", "1000"}), IsStatus("OK"));
  const std::vector<std::string> items = Items("r", 0, 3000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "before", items), -1), 0u);
  const std::string digest = Digest("before");
  ASSERT_THAT(Cmd({"RENAME", "before", "after"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"EXISTS", "before"}), IsInt(0));
  EXPECT_EQ(Digest("after"), digest);
  EXPECT_EQ(Present("after", items), items.size());
  EXPECT_THAT(Cmd({"BF.EXISTS", "before", "r1"}), IsInt(0));
  // RENAME over an existing key replaces it.
  ASSERT_THAT(Cmd({"SET", "str", "v"}), IsStatus("OK"));
  ASSERT_THAT(Cmd({"RENAME", "after", "str"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"TYPE", "str"}), IsStatus("bb-filter"));
  EXPECT_EQ(Present("str", items), items.size());
  EXPECT_THAT(Cmd({"RENAMENX", "str", "str2"}), IsInt(1));
  EXPECT_THAT(Cmd({"DEL", "str2"}), IsInt(1));
}

TEST_F(KeyspaceTest, DelAndUnlink) {
  // Over 64 pieces: freed in the background (free_effort).
  for (const char* key : {"del-big", "unlink-big"}) {
    ASSERT_THAT(Cmd({"BF.RESERVE", key, "0.001", "100000000"}), IsStatus("OK"));
    ASSERT_EQ(
        Count(Batched(*client_, "BF.MADD", key, Items("d", 0, 20000)), -1), 0u);
    EXPECT_THAT(Cmd({"BB.INFO", key}).Field("Bytes allocated").integer,
                Gt(64 << 20))
        << key;
  }
  ASSERT_THAT(Cmd({"BF.ADD", "unlink-small", "x"}), IsInt(1));
  const long long before = UsedMemory();
  EXPECT_THAT(Cmd({"DEL", "del-big"}), IsInt(1));
  EXPECT_THAT(Cmd({"UNLINK", "unlink-big", "unlink-small"}), IsInt(2));
  for (const char* key : {"del-big", "unlink-big", "unlink-small"}) {
    EXPECT_THAT(Cmd({"EXISTS", key}), IsInt(0)) << key;
    EXPECT_THAT(Cmd({"BF.EXISTS", key, "d1"}), IsInt(0)) << key;
  }
  // The memory comes back (the background thread may take a moment).
  long long after = UsedMemory();
  for (int i = 0; i < 500 && after > before - (100 << 20); ++i) {
    usleep(10000);
    after = UsedMemory();
  }
  EXPECT_LT(after, before - (100 << 20));
  // The name is free for a new filter.
  EXPECT_THAT(Cmd({"BF.ADD", "del-big", "x"}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.CARD", "del-big"}), IsInt(1));
  Cmd({"DEL", "del-big"});
}

TEST_F(KeyspaceTest, Expire) {
  ASSERT_THAT(Cmd({"BF.ADD", "exp", "a"}), IsInt(1));
  ASSERT_THAT(Cmd({"BF.ADD", "pexp", "a"}), IsInt(1));
  ASSERT_THAT(Cmd({"BF.ADD", "persist", "a"}), IsInt(1));
  EXPECT_THAT(Cmd({"EXPIRE", "exp", "1"}), IsInt(1));
  EXPECT_THAT(Cmd({"PEXPIRE", "pexp", "50"}), IsInt(1));
  EXPECT_THAT(Cmd({"EXPIRE", "persist", "100"}), IsInt(1));
  EXPECT_THAT(Cmd({"PERSIST", "persist"}), IsInt(1));
  EXPECT_THAT(Cmd({"TTL", "persist"}), IsInt(-1));
  const Reply ttl = Cmd({"TTL", "exp"});
  EXPECT_TRUE(ttl.is_int() && ttl.integer >= 0 && ttl.integer <= 1);
  // Writes keep the TTL.
  ASSERT_THAT(Cmd({"BF.ADD", "exp", "b"}), IsInt(1));
  EXPECT_THAT(Cmd({"TTL", "exp"}).integer, Ge(0));
  bool gone = false;
  for (int i = 0; i < 1000 && !gone; ++i) {
    gone = Cmd({"EXISTS", "exp", "pexp"}).integer == 0;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone);
  EXPECT_THAT(Cmd({"BF.EXISTS", "exp", "a"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.CARD", "pexp"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.INFO", "pexp"}), IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"BF.EXISTS", "persist", "a"}), IsInt(1));
  // An expired key's name is free: BF.ADD creates a new, empty filter.
  EXPECT_THAT(Cmd({"BF.ADD", "exp", "c"}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.CARD", "exp"}), IsInt(1));
  Cmd({"DEL", "exp", "persist"});
}

TEST_F(KeyspaceTest, MemoryUsageFollowsWhatIsWritten) {
  // 400,000 keys at 1%: ~480 KB of bits in one piece.
  ASSERT_THAT(Cmd({"BF.RESERVE", "mem", "0.01", "400000"}), IsStatus("OK"));
  const long long empty = MemoryUsage("mem");
  const long long size = Cmd({"BF.INFO", "mem", "SIZE"}).elements[0].integer;
  EXPECT_LT(empty, size / 10);
  long long last = empty;
  for (int round = 0; round < 4; ++round) {
    ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "mem",
                            Items("m", round * 100000, 100000)),
                    -1),
              0u);
    const long long now = MemoryUsage("mem");
    EXPECT_GE(now, last) << round;
    last = now;
  }
  // Full: within 10% of BF.INFO's Size (plus Redis's key overhead).
  EXPECT_THAT(last, Ge(size));
  EXPECT_THAT(last, Le(size + size / 10 + 1024));
  // A scaled filter: each layer adds.
  const long long filters_before =
      Cmd({"BF.INFO", "mem", "FILTERS"}).elements[0].integer;
  ASSERT_EQ(
      Count(Batched(*client_, "BF.MADD", "mem", Items("n", 0, 50000)), -1), 0u);
  EXPECT_GT(Cmd({"BF.INFO", "mem", "FILTERS"}).elements[0].integer,
            filters_before);
  EXPECT_GT(MemoryUsage("mem"), last);
  Cmd({"DEL", "mem"});
}

TEST_F(KeyspaceTest, OneGibibyteReserveCostsNothingUntilWritten) {
  const long long used_before = UsedMemory();
  ASSERT_THAT(Cmd({"BF.RESERVE", "gib", "0.01", "1000000000"}), IsStatus("OK"));
  const long long size = Cmd({"BF.INFO", "gib", "SIZE"}).elements[0].integer;
  EXPECT_GT(size, 1000000000LL);  // ~1.2 GB of bits
  // Only the piece table: 8 bytes per MiB.
  EXPECT_LT(MemoryUsage("gib"), 1 << 20);
  EXPECT_LT(UsedMemory() - used_before, 8 << 20);
  EXPECT_THAT(Cmd({"BB.INFO", "gib"}).Field("Bytes allocated"), IsInt(0));
  // Probes of an empty filter touch nothing.
  EXPECT_EQ(Present("gib", Items("q", 0, 10000)), 0u);
  EXPECT_LT(MemoryUsage("gib"), 1 << 20);
  // A few adds allocate a piece each (about 1 MiB), not the filter.
  const std::vector<std::string> items = Items("g", 0, 10);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "gib", items), 1), 10u);
  const long long written = MemoryUsage("gib");
  EXPECT_GT(written, 1 << 20);
  EXPECT_LT(written, 12 << 20);
  EXPECT_EQ(Present("gib", items), items.size());
  // A COPY shares the pieces.
  ASSERT_THAT(Cmd({"COPY", "gib", "gib2"}), IsInt(1));
  EXPECT_LT(UsedMemory() - used_before, 40 << 20);
  // The SCANDUMP of a sparse filter sends the written pieces only.
  size_t dumped = 0;
  for (const auto& chunk : ScanDumpAll(*client_, "gib")) {
    dumped += chunk.second.size();
  }
  EXPECT_GT(dumped, 0u);
  EXPECT_LT(dumped, 50u << 20);
  Cmd({"DEL", "gib", "gib2"});
}

// A BB.LOAD's first call states the file's total size. The bytes it has not
// sent yet must not count as used memory: a 10 GB statement would otherwise
// push used_memory past maxmemory and evict every other key.
TEST(KeyspaceMemory, BbLoadTotalReservesNothing) {
  ModuleServerOptions options;
  options.extra_args = {"--maxmemory", "200mb", "--maxmemory-policy",
                        "allkeys-lru"};
  auto server = NewModuleServer(options);
  ASSERT_TRUE(server->Start());
  Client c(server->port());
  for (const std::string& key : Items("k", 0, 100)) {
    ASSERT_THAT(c.Command({"SET", key, "v"}), IsStatus("OK"));
  }
  EXPECT_THAT(c.Command({"BB.LOAD", "huge", "0", "10000000000", "abc"}),
              IsInt(3));
  // Another write runs the eviction check.
  EXPECT_THAT(c.Command({"SET", "after", "v"}), IsStatus("OK"));
  EXPECT_THAT(c.Command({"DBSIZE"}), IsInt(102));
  const long long usage =
      c.Command({"MEMORY", "USAGE", "huge", "SAMPLES", "0"}).integer;
  EXPECT_LT(usage, 10 << 20);
  // The next chunks are taken as they come.
  EXPECT_THAT(c.Command({"BB.LOAD", "huge", "3", "10000000000",
                         std::string(1 << 20, 'x')}),
              IsInt(3 + (1 << 20)));
  EXPECT_THAT(c.Command({"DBSIZE"}), IsInt(102));
  EXPECT_THAT(c.Command({"DEL", "huge"}), IsInt(1));
}

TEST_F(KeyspaceTest, Flushall) {
  for (const char* key : {"f1", "f2", "f3"}) {
    ASSERT_THAT(Cmd({"BF.RESERVE", key, "0.01", "10000000"}), IsStatus("OK"));
    ASSERT_EQ(
        Count(Batched(*client_, "BF.MADD", key, Items("f", 0, 10000)), -1), 0u);
  }
  ASSERT_THAT(Cmd({"BB.LOAD", "f4", "0", "100", "abc"}), IsInt(3));
  ASSERT_THAT(Cmd({"FLUSHALL"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"DBSIZE"}), IsInt(0));
  for (const char* key : {"f1", "f2", "f3"}) {
    ASSERT_THAT(Cmd({"BF.RESERVE", key, "0.01", "10000000"}), IsStatus("OK"));
    ASSERT_EQ(
        Count(Batched(*client_, "BF.MADD", key, Items("f", 0, 10000)), -1), 0u);
  }
  ASSERT_THAT(Cmd({"FLUSHALL", "ASYNC"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"DBSIZE"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.EXISTS", "f1", "f1"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.ADD", "f1", "x"}), IsInt(1));
  Cmd({"FLUSHALL"});
}

// Every command closes the keys it opens: an unclosed key leaks its handle
// (and its name) and never signals the key as modified.
TEST_F(KeyspaceTest, CommandsDoNotLeakMemory) {
  ASSERT_THAT(Cmd({"BF.ADD", "leak", "a"}), IsInt(1));
  ASSERT_THAT(Cmd({"BB.LOAD", "leak-loading", "0", "100", "abc"}), IsInt(3));
  const std::vector<std::vector<std::string>> commands = {
      {"BF.EXISTS", "leak", "a"},
      {"BF.MEXISTS", "leak", "a", "b"},
      {"BF.ADD", "leak", "a"},
      {"BF.MADD", "leak", "a"},
      {"BF.INSERT", "leak", "ITEMS", "a"},
      {"BF.CARD", "leak"},
      {"BF.INFO", "leak"},
      {"BB.MEXISTS", "leak", "a"},
      {"BB.INFO", "leak"},
      {"BF.EXISTS", "missing", "a"},
      {"BF.EXISTS", "leak-loading", "a"},
      {"BF.RESERVE", "leak", "0.1", "1"},
  };
  auto run = [&] {
    for (int round = 0; round < 2000; ++round) {
      for (const auto& command : commands) client_->Append(command);
      for (size_t i = 0; i < commands.size(); ++i) client_->GetReply();
    }
  };
  run();  // warm up allocator caches
  const long long before = UsedMemory();
  run();
  const long long after = UsedMemory();
  // 24,000 commands: a leak of ~160 bytes each would be ~4 MB.
  EXPECT_LT(after - before, 1 << 20)
      << "used_memory grew by " << after - before << " bytes";
  Cmd({"DEL", "leak", "leak-loading"});
}

// WATCH sees writes made through the module's commands (signalModifiedKey
// when a key opened for writing is closed).
TEST_F(KeyspaceTest, WatchSeesFilterWrites) {
  ASSERT_THAT(Cmd({"BF.ADD", "watched", "a"}), IsInt(1));
  for (const std::vector<std::string>& write :
       std::vector<std::vector<std::string>>{
           {"BF.ADD", "watched", "b"},
           {"BF.MADD", "watched", "c", "d"},
           {"BF.INSERT", "watched", "ITEMS", "e"}}) {
    ASSERT_THAT(Cmd({"WATCH", "watched"}), IsStatus("OK"));
    Client other(server_->port());
    ASSERT_FALSE(other.Command(write).is_error()) << write[0];
    ASSERT_THAT(Cmd({"MULTI"}), IsStatus("OK"));
    ASSERT_THAT(Cmd({"BF.CARD", "watched"}), IsStatus("QUEUED"));
    EXPECT_THAT(Cmd({"EXEC"}), IsNil()) << write[0] << " did not abort EXEC";
  }
  // A key created by BF.ADD too.
  ASSERT_THAT(Cmd({"WATCH", "created"}), IsStatus("OK"));
  {
    Client other(server_->port());
    ASSERT_THAT(other.Command({"BF.ADD", "created", "x"}), IsInt(1));
  }
  ASSERT_THAT(Cmd({"MULTI"}), IsStatus("OK"));
  ASSERT_THAT(Cmd({"BF.CARD", "created"}), IsStatus("QUEUED"));
  EXPECT_THAT(Cmd({"EXEC"}), IsNil());
  Cmd({"DEL", "watched", "created"});
}

}  // namespace
}  // namespace blockbloom::testing
