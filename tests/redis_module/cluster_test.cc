// The module in a 3-node loopback Redis Cluster: its commands declare their
// key (first argument), so keys hash to slots as any other (CLUSTER
// KEYSLOT), a node refuses keys it does not serve (MOVED), clients that
// follow redirections (ours, redis-cli -c) spread filters over the nodes,
// hash tags keep keys together, and a slot migration (MIGRATE: DUMP and
// RESTORE) moves filters whole.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"

namespace blockbloom::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = NewModuleCluster(3).release();
    ASSERT_TRUE(cluster_->Start()) << "module: " << RedisModulePath();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }

  static RedisCluster* cluster_;
};
RedisCluster* ClusterTest::cluster_ = nullptr;

TEST_F(ClusterTest, KeysHashAsAnyOther) {
  Client node0(cluster_->port(0));
  for (const std::string& key : Items("slot-key-", 0, 200)) {
    EXPECT_THAT(node0.Command({"CLUSTER", "KEYSLOT", key}), IsInt(KeySlot(key)))
        << key;
  }
  // The commands name their key for the cluster: COMMAND GETKEYS.
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"BF.ADD", "k", "a"},
                                             {"BF.MADD", "k", "a", "b"},
                                             {"BF.EXISTS", "k", "a"},
                                             {"BF.INSERT", "k", "ITEMS", "a"},
                                             {"BF.INFO", "k"},
                                             {"BF.SCANDUMP", "k", "0"},
                                             {"BB.RESERVE", "k", "0.01", "10"},
                                             {"BB.MEXISTS", "k", "a"},
                                             {"BB.LOAD", "k", "0", "1", "x"}}) {
    const Reply keys = node0.Command([&] {
      std::vector<std::string> args = {"COMMAND", "GETKEYS"};
      args.insert(args.end(), command.begin(), command.end());
      return args;
    }());
    ASSERT_TRUE(keys.is_array())
        << command[0] << ": " << ::testing::PrintToString(keys);
    ASSERT_EQ(keys.elements.size(), 1u) << command[0];
    EXPECT_THAT(keys.elements[0], IsBulk("k")) << command[0];
  }
}

TEST_F(ClusterTest, FiltersSpreadOverTheNodes) {
  ClusterClient client(cluster_->port(0));
  std::map<int, std::vector<std::string>> by_node;
  std::map<std::string, long long> card;
  const std::vector<std::string> keys = Items("filter-", 0, 30);
  int redirections = 0;
  for (const std::string& key : keys) {
    const int node = cluster_->NodeForSlot(KeySlot(key));
    ASSERT_GE(node, 0) << key;
    by_node[node].push_back(key);
    ASSERT_THAT(
        client.Command({"BF.RESERVE", key, "0.01", "1000"}, &redirections),
        IsStatus("OK"))
        << key;
    std::vector<std::string> madd = {"BF.MADD", key};
    for (const std::string& item : Items(key + ":", 0, 500)) {
      madd.push_back(item);
    }
    const Reply added = client.Command(madd, &redirections);
    ASSERT_TRUE(added.is_array()) << key;
    // Adds that were false positives answer 0 and are not counted.
    for (const Reply& e : added.elements) card[key] += e.integer;
  }
  // Keys of every node, reached through redirections from node 0.
  EXPECT_EQ(by_node.size(), 3u);
  EXPECT_GT(redirections, 0);
  for (const std::string& key : keys) {
    const int owner = cluster_->NodeForSlot(KeySlot(key));
    for (int n = 0; n < cluster_->size(); ++n) {
      Client direct(cluster_->port(n));
      const Reply r = direct.Command({"BF.EXISTS", key, key + ":1"});
      if (n == owner) {
        EXPECT_THAT(r, IsInt(1)) << key << " on its node " << n;
        EXPECT_THAT(direct.Command({"BF.CARD", key}), IsInt(card[key])) << key;
        EXPECT_GE(card[key], 490) << key;
      } else {
        // Another node redirects, for reads and writes alike.
        EXPECT_THAT(r, IsErrorWith("MOVED")) << key << " on node " << n;
        EXPECT_THAT(direct.Command({"BF.ADD", key, "x"}), IsErrorWith("MOVED"))
            << key << " on node " << n;
      }
    }
    const std::vector<long long> found = [&] {
      std::vector<std::string> args = {"BF.MEXISTS", key};
      for (const std::string& item : Items(key + ":", 0, 500)) {
        args.push_back(item);
      }
      const Reply r = client.Command(args);
      std::vector<long long> out;
      for (const Reply& e : r.elements) out.push_back(e.integer);
      return out;
    }();
    EXPECT_EQ(Count(found, 1), 500u) << key;
  }
  // Each node holds exactly its own filters.
  for (const auto& [node, node_keys] : by_node) {
    Client direct(cluster_->port(node));
    long long filters = 0;
    for (const std::string& key : node_keys) {
      filters += direct.Command({"EXISTS", key}).integer;
    }
    EXPECT_EQ(filters, static_cast<long long>(node_keys.size())) << node;
  }
}

TEST_F(ClusterTest, RedisCliFollowsRedirections) {
  // Keys on every node, through one node's redis-cli -c.
  std::set<int> nodes;
  for (const std::string& key : Items("cli-", 0, 20)) {
    nodes.insert(cluster_->NodeForSlot(KeySlot(key)));
    std::string out;
    ASSERT_TRUE(cluster_->node(0).Cli({"-c", "BF.ADD", key, "item"}, &out))
        << key;
    EXPECT_EQ(out, "1") << key;
    ASSERT_TRUE(cluster_->node(1).Cli({"-c", "BF.EXISTS", key, "item"}, &out))
        << key;
    EXPECT_EQ(out, "1") << key;
    ASSERT_TRUE(cluster_->node(2).Cli({"-c", "BF.EXISTS", key, "other"}, &out))
        << key;
    EXPECT_EQ(out, "0") << key;
  }
  EXPECT_EQ(nodes.size(), 3u);
}

TEST_F(ClusterTest, HashTagsKeepKeysTogether) {
  ClusterClient client(cluster_->port(0));
  const std::vector<std::string> keys = {"{user}:a", "{user}:b", "{user}:c"};
  const int slot = KeySlot("user");
  for (const std::string& key : keys) {
    EXPECT_EQ(KeySlot(key), slot);
    Client any(cluster_->port(0));
    EXPECT_THAT(any.Command({"CLUSTER", "KEYSLOT", key}), IsInt(slot));
    EXPECT_THAT(client.Command({"BF.ADD", key, "x"}), IsInt(1)) << key;
  }
  const int owner = cluster_->NodeForSlot(slot);
  Client direct(cluster_->port(owner));
  EXPECT_THAT(direct.Command({"EXISTS", keys[0], keys[1], keys[2]}), IsInt(3));
  // Several keys in one transaction on their node.
  EXPECT_THAT(direct.Command({"MULTI"}), IsStatus("OK"));
  for (const std::string& key : keys) {
    EXPECT_THAT(direct.Command({"BF.ADD", key, "y"}), IsStatus("QUEUED"));
  }
  const Reply exec = direct.Command({"EXEC"});
  EXPECT_THAT(exec, IsInts(std::vector<long long>{1, 1, 1}));
  // A key without the tag hashes elsewhere (almost surely another slot).
  EXPECT_NE(KeySlot("user:a"), slot);
}

TEST_F(ClusterTest, SlotMigrationMovesFiltersWhole) {
  ClusterClient client(cluster_->port(0));
  const std::string key = "{migrate}:filter";
  const int slot = KeySlot(key);
  ASSERT_THAT(client.Command({"BF.RESERVE", key, "0.01", "100"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("mig", 0, 2000);  // 5 layers
  std::vector<std::string> madd = {"BF.MADD", key};
  madd.insert(madd.end(), items.begin(), items.end());
  ASSERT_TRUE(client.Command(madd).is_array());
  const Reply info = client.Command({"BF.INFO", key});
  const int from = cluster_->NodeForSlot(slot);
  const int to = (from + 1) % cluster_->size();
  ASSERT_TRUE(cluster_->MigrateSlot(slot, from, to));
  EXPECT_EQ(cluster_->NodeForSlot(slot), to);
  Client dest(cluster_->port(to));
  EXPECT_THAT(dest.Command({"TYPE", key}), IsStatus("bb-filter"));
  EXPECT_EQ(dest.Command({"BF.INFO", key}), info);
  std::vector<std::string> mexists = {"BF.MEXISTS", key};
  mexists.insert(mexists.end(), items.begin(), items.end());
  const Reply found = dest.Command(mexists);
  ASSERT_EQ(found.elements.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_THAT(found.elements[i], IsInt(1)) << items[i];
  }
  Client source(cluster_->port(from));
  EXPECT_THAT(source.Command({"BF.EXISTS", key, "mig1"}), IsErrorWith("MOVED"));
  // And it keeps growing on its new node.
  // (0 would be a false positive of the 5-layer stack: fine too.)
  EXPECT_FALSE(client.Command({"BF.ADD", key, "after-migration"}).is_error());
  EXPECT_THAT(dest.Command({"BF.EXISTS", key, "after-migration"}), IsInt(1));
}

}  // namespace
}  // namespace blockbloom::testing
