// The module's filters on a replica (loopback master and replica, both with
// the module): every write command, including those that create a key with
// a random per-key seed, reaches the replica as a command that rebuilds the
// same filter (same answers, same DEBUG DIGEST-VALUE), as does a full sync
// of a replica started after the writes.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
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

using ::testing::HasSubstr;

std::string Digest(Client& c, const std::string& key) {
  const Reply r = c.Command({"DEBUG", "DIGEST-VALUE", key});
  return r.is_array() && !r.elements.empty() ? r.elements[0].str : "";
}

struct Written {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> items;
};

// Every kind of write, on the master.
Written WriteAll(Client& m) {
  Written w;
  auto track = [&](const std::string& key, std::vector<std::string> items) {
    w.keys.push_back(key);
    w.items.push_back(std::move(items));
  };
  EXPECT_THAT(m.Command({"BF.RESERVE", "reserved", "0.01", "100"}),
              IsStatus("OK"));
  // Grows over several layers.
  const std::vector<std::string> grown = Items("r", 0, 2000);
  EXPECT_EQ(Count(Batched(m, "BF.MADD", "reserved", grown, 100), -1), 0u);
  track("reserved", grown);
  EXPECT_THAT(
      m.Command({"BF.RESERVE", "nonscaling", "0.01", "10", "NONSCALING"}),
      IsStatus("OK"));
  const std::vector<std::string> few = Items("n", 0, 30);
  // Past its capacity: error elements, replicated harmlessly.
  Batched(m, "BF.MADD", "nonscaling", few, 5);
  std::vector<std::string> held;
  for (const std::string& item : few) {
    if (m.Command({"BF.EXISTS", "nonscaling", item}).integer == 1) {
      held.push_back(item);
    }
  }
  track("nonscaling", held);
  EXPECT_THAT(m.Command({"BF.ADD", "added", "a"}), IsInt(1));
  track("added", {"a"});
  const std::vector<std::string> madded = Items("m", 0, 500);
  EXPECT_EQ(Count(Batched(m, "BF.MADD", "madded", madded), -1), 0u);
  track("madded", madded);
  EXPECT_THAT(m.Command({"BF.INSERT", "inserted", "CAPACITY", "50", "ERROR",
                         "0.001", "EXPANSION", "3", "ITEMS", "x", "y"}),
              IsInts(std::vector<long long>{1, 1}));
  const std::vector<std::string> inserted = Items("i", 0, 400);
  {
    std::vector<std::string> args = {"BF.INSERT", "inserted", "ITEMS"};
    args.insert(args.end(), inserted.begin(), inserted.end());
    EXPECT_TRUE(m.Command(args).is_array());
  }
  std::vector<std::string> all_inserted = {"x", "y"};
  all_inserted.insert(all_inserted.end(), inserted.begin(), inserted.end());
  track("inserted", all_inserted);
  EXPECT_THAT(
      m.Command({"BB.RESERVE", "seeded", "0.01", "1000", "SEED", "9876543210"}),
      IsStatus("OK"));
  const std::vector<std::string> seeded = Items("s", 0, 800);
  EXPECT_EQ(Count(Batched(m, "BF.MADD", "seeded", seeded), -1), 0u);
  track("seeded", seeded);
  // A filter copied in with LOADCHUNK.
  for (const auto& [iter, chunk] : ScanDumpAll(m, "reserved")) {
    EXPECT_THAT(
        m.Command({"BF.LOADCHUNK", "chunked", std::to_string(iter), chunk}),
        IsStatus("OK"));
  }
  track("chunked", grown);
  // In MULTI, and from a script.
  EXPECT_THAT(m.Command({"MULTI"}), IsStatus("OK"));
  EXPECT_THAT(m.Command({"BF.ADD", "multi", "a"}), IsStatus("QUEUED"));
  EXPECT_THAT(m.Command({"BF.MADD", "multi", "b", "c"}), IsStatus("QUEUED"));
  EXPECT_TRUE(m.Command({"EXEC"}).is_array());
  track("multi", {"a", "b", "c"});
  EXPECT_THAT(m.Command({"EVAL",
                         "redis.call('BF.ADD', KEYS[1], 'a'); "
                         "return redis.call('BF.MADD', KEYS[1], 'b', 'c')",
                         "1", "scripted"}),
              IsInts(std::vector<long long>{1, 1}));
  track("scripted", {"a", "b", "c"});
  // A small file, and one over 8 MiB (verified in a thread on the master).
  const std::vector<std::string> small_items = Items("f", 0, 1000);
  EXPECT_THAT(
      BbLoadAll(m, "small-file", FilterFile(2000, 5, small_items), 1000),
      IsStatus("OK"));
  track("small-file", small_items);
  const std::vector<std::string> big_items = Items("F", 0, 50000);
  const std::string big = FilterFile(8000000, 6, big_items);
  EXPECT_GT(big.size(), 8u << 20);
  EXPECT_THAT(BbLoadAll(m, "big-file", big, 1 << 20), IsStatus("OK"));
  track("big-file", big_items);
  // COPY and RENAME.
  EXPECT_THAT(m.Command({"COPY", "seeded", "copied"}), IsInt(1));
  EXPECT_THAT(m.Command({"BF.ADD", "copied", "only-in-copy"}), IsInt(1));
  std::vector<std::string> copied = seeded;
  copied.push_back("only-in-copy");
  track("copied", copied);
  EXPECT_THAT(m.Command({"COPY", "added", "to-rename"}), IsInt(1));
  EXPECT_THAT(m.Command({"RENAME", "to-rename", "renamed"}), IsStatus("OK"));
  track("renamed", {"a"});
  return w;
}

void ExpectReplicaMatches(Client& m, Client& r, const Written& w) {
  EXPECT_THAT(r.Command({"DBSIZE"}), IsInt(m.Command({"DBSIZE"}).integer));
  for (size_t i = 0; i < w.keys.size(); ++i) {
    const std::string& key = w.keys[i];
    const std::string digest = Digest(m, key);
    EXPECT_NE(digest, "") << key;
    EXPECT_NE(digest, std::string(40, '0')) << key;
    EXPECT_EQ(Digest(r, key), digest) << key;
    EXPECT_EQ(Count(Batched(r, "BF.MEXISTS", key, w.items[i]), 1),
              w.items[i].size())
        << key;
    // Same answers for absent items too (same seed, same bits).
    const std::vector<std::string> probes = Items("probe", 0, 3000);
    EXPECT_EQ(Batched(r, "BF.MEXISTS", key, probes),
              Batched(m, "BF.MEXISTS", key, probes))
        << key;
    const Reply info = m.Command({"BF.INFO", key});
    EXPECT_EQ(r.Command({"BF.INFO", key}), info) << key;
  }
}

// DEBUG DIGEST-VALUE; full syncs start at once (not after the default 5 s
// wait for more replicas).
ModuleServerOptions Debug() {
  ModuleServerOptions options;
  options.debug_command = true;
  options.extra_args = {"--repl-diskless-sync-delay", "0"};
  return options;
}

// A server with the module and DEBUG enabled that replicates `master`
// (started by the caller: it then does a full sync).
std::unique_ptr<RedisServer> NewReplicaOf(const RedisServer& master) {
  ModuleServerOptions options = Debug();
  for (std::string arg : {std::string("--replicaof"), std::string("127.0.0.1"),
                          std::to_string(master.port())}) {
    options.extra_args.push_back(std::move(arg));
  }
  return NewModuleServer(options);
}

TEST(Replication, EveryWriteReachesTheReplica) {
  ModuleReplicaPair pair(Debug());
  ASSERT_TRUE(pair.Start());
  Client m(pair.master().port());
  Client r(pair.replica().port());
  const Written w = WriteAll(m);
  ASSERT_TRUE(pair.WaitForReplica(20000));
  ExpectReplicaMatches(m, r, w);
  // The replica is read-only; its filters answer queries.
  EXPECT_THAT(r.Command({"BF.ADD", "added", "b"}), IsErrorWith("READONLY"));
  EXPECT_THAT(r.Command({"BF.EXISTS", "added", "a"}), IsInt(1));
  EXPECT_THAT(r.Command({"BB.MEXISTS", "seeded", "s1", "s2"}), IsBulk("11"));

  // Later writes, deletes and expiries follow.
  EXPECT_EQ(
      Count(Batched(m, "BF.MADD", "reserved", Items("later", 0, 5000)), -1),
      0u);
  EXPECT_THAT(m.Command({"DEL", "madded"}), IsInt(1));
  EXPECT_THAT(m.Command({"PEXPIRE", "multi", "1"}), IsInt(1));
  bool expired = false;
  for (int i = 0; i < 500 && !expired; ++i) {
    expired = m.Command({"EXISTS", "multi"}).integer == 0;
    if (!expired) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(expired);
  ASSERT_TRUE(pair.WaitForReplica(20000));
  EXPECT_EQ(Digest(r, "reserved"), Digest(m, "reserved"));
  EXPECT_EQ(
      Count(Batched(r, "BF.MEXISTS", "reserved", Items("later", 0, 5000)), 1),
      5000u);
  EXPECT_THAT(r.Command({"EXISTS", "madded", "multi"}), IsInt(0));
}

TEST(Replication, AReplicaStartedAfterTheWritesMatches) {
  auto master = NewModuleServer(Debug());
  ASSERT_TRUE(master->Start());
  Client m(master->port());
  const Written w = WriteAll(m);
  auto replica = NewReplicaOf(*master);
  ASSERT_TRUE(replica->Start());
  Client r(replica->port());
  bool up = false;
  for (int i = 0; i < 2000 && !up; ++i) {
    up = r.Command({"INFO", "replication"}).str.find("master_link_status:up") !=
         std::string::npos;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(up);
  ASSERT_THAT(m.Command({"WAIT", "1", "20000"}), IsInt(1));
  ExpectReplicaMatches(m, r, w);
  // Writes after the sync follow it.
  EXPECT_EQ(Count(Batched(m, "BF.MADD", "added", Items("post", 0, 1000)), -1),
            0u);
  ASSERT_THAT(m.Command({"WAIT", "1", "20000"}), IsInt(1));
  EXPECT_EQ(Digest(r, "added"), Digest(m, "added"));
}

// Keys being loaded (BB.LOAD, BF.LOADCHUNK) when a replica syncs: the loads
// finish on the master afterwards, and the replica must end with the same
// filters: the RDB file of the full sync carries each load's state.
TEST(Replication, LoadsInProgressAtAFullSyncFinishOnTheReplica) {
  auto master = NewModuleServer(Debug());
  ASSERT_TRUE(master->Start());
  Client m(master->port());
  const std::vector<std::string> items = Items("p", 0, 3000);
  const std::string file = FilterFile(5000, 11, items);
  const size_t half = file.size() / 2;
  ASSERT_THAT(m.Command({"BB.LOAD", "file", "0", std::to_string(file.size()),
                         file.substr(0, half)}),
              IsInt(static_cast<long long>(half)));
  ASSERT_THAT(m.Command({"BF.RESERVE", "src", "0.01", "100000"}),
              IsStatus("OK"));
  ASSERT_EQ(Count(Batched(m, "BF.MADD", "src", items), -1), 0u);
  const auto chunks = ScanDumpAll(m, "src");
  ASSERT_GE(chunks.size(), 2u);
  ASSERT_THAT(m.Command({"BF.LOADCHUNK", "chunks",
                         std::to_string(chunks[0].first), chunks[0].second}),
              IsStatus("OK"));

  auto replica = NewReplicaOf(*master);
  ASSERT_TRUE(replica->Start());
  Client r(replica->port());
  ASSERT_TRUE(WaitUntilLoaded(r));
  ASSERT_THAT(m.Command({"WAIT", "1", "20000"}), IsInt(1));

  ASSERT_THAT(m.Command({"BB.LOAD", "file", std::to_string(half),
                         std::to_string(file.size()), file.substr(half)}),
              IsStatus("OK"));
  for (size_t i = 1; i < chunks.size(); ++i) {
    ASSERT_THAT(m.Command({"BF.LOADCHUNK", "chunks",
                           std::to_string(chunks[i].first), chunks[i].second}),
                IsStatus("OK"));
  }
  ASSERT_THAT(m.Command({"WAIT", "1", "20000"}), IsInt(1));
  for (const char* key : {"file", "chunks"}) {
    EXPECT_EQ(r.Command({"BB.INFO", key}), m.Command({"BB.INFO", key})) << key;
    EXPECT_EQ(Digest(r, key), Digest(m, key)) << key;
    EXPECT_EQ(Count(Batched(r, "BF.MEXISTS", key, items), 1), items.size())
        << key;
  }
}

}  // namespace
}  // namespace blockbloom::testing
