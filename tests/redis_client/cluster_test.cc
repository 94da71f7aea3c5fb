// Shared filters on a 3-node Redis Cluster on loopback: routing by key slot,
// both placements, MOVED after a slot migrates, ASK during a migration,
// expiry and deletion across nodes, orphaned shards found on every node.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/redis_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_client/redis_server.h"
#include "tests/redis_client/status_matchers.h"
#include "tests/redis_client/test_connection.h"

namespace blockbloom::redis {
namespace {

using blockbloom::testing::IsOkAndHolds;

using blockbloom::testing::KeySlot;
using blockbloom::testing::RedisCluster;

class ClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new RedisCluster(3);
    ASSERT_TRUE(cluster_->Start());
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    // Any node will do.
    auto c = blockbloom::testing::ConnectForTest(cluster_->port(1));
    ASSERT_TRUE(c.ok()) << c.status();
    connection_ = std::move(*c);
    ASSERT_TRUE(connection_->is_cluster());
  }

  static RedisCluster* cluster_;
  std::unique_ptr<Connection> connection_;
};
RedisCluster* ClusterTest::cluster_ = nullptr;

std::vector<std::string> Keys(std::string_view prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i)
    keys.push_back(absl::StrCat(std::string(prefix), i));
  return keys;
}

void ExpectAllPresent(SharedFilter& f, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<char> results(views.size(), 0);
  absl::Status s = f.MayContainBatch(
      views, absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                              results.size()));
  ASSERT_TRUE(s.ok()) << s;
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(results[i]) << "false negative for " << keys[i];
  }
}

// Answers identical to an in-process filter of the same shape and seed.
void ExpectSameAsLocal(SharedFilter& f, const std::vector<std::string>& keys) {
  FilterOptions options;
  options.shape = f.shape();
  options.seed = f.seed();
  options.compact_small_filters = false;
  auto builder = FilterBuilder::Create(options);
  for (const std::string& key : keys) builder->Add(key);
  auto local = builder->Finish();
  ASSERT_TRUE(local.ok());
  const std::vector<std::string> absent = Keys("nope:", 20000);
  const std::vector<std::string_view> views(absent.begin(), absent.end());
  std::vector<char> results(views.size(), 0);
  ASSERT_TRUE(f.MayContainBatch(views, absl::Span<bool>(reinterpret_cast<bool*>(
                                                            results.data()),
                                                        results.size()))
                  .ok());
  for (size_t i = 0; i < absent.size(); ++i) {
    ASSERT_EQ(static_cast<bool>(results[i]), local->MayContain(absent[i]));
  }
}

TEST_F(ClusterTest, TogetherKeepsAFilterOnOneNode) {
  SharedFilterOptions options;
  options.expected_keys = 20000;
  options.shard_bytes = 4096;
  options.seed = 11;
  auto f = SharedFilter::Create(connection_.get(), "together", options);
  ASSERT_TRUE(f.ok()) << f.status();
  std::set<int> slots;
  for (const std::string& key : f->RedisKeys()) slots.insert(KeySlot(key));
  EXPECT_EQ(slots.size(), 1u);
  const std::vector<std::string> keys = Keys("t:", 20000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  const uint64_t before = connection_->round_trips();
  ASSERT_TRUE(f->AddBatch(views).ok());
  // 20000 keys at depth 64: one node, one round trip per batch.
  EXPECT_EQ(connection_->round_trips() - before, (20000u + 63) / 64);
  ExpectAllPresent(*f, keys);
  ExpectSameAsLocal(*f, keys);
}

TEST_F(ClusterTest, SpreadPutsShardsOnEveryNode) {
  SharedFilterOptions options;
  options.expected_keys = 50000;
  options.shard_bytes = 2048;
  options.placement = Placement::kSpread;
  auto f = SharedFilter::Create(connection_.get(), "spread", options);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_GT(f->num_shards(), 20u);
  std::set<int> nodes;
  const std::vector<std::string> redis_keys = f->RedisKeys();
  for (size_t i = 1; i < redis_keys.size(); ++i) {
    nodes.insert(cluster_->NodeForSlot(KeySlot(redis_keys[i])));
  }
  EXPECT_EQ(nodes.size(), 3u);
  const std::vector<std::string> keys = Keys("s:", 50000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(f->AddBatch(views).ok());
  ExpectAllPresent(*f, keys);
  ExpectSameAsLocal(*f, keys);
  // Another connection, through another node, sees the same filter.
  ConnectionOptions other;
  other.port = cluster_->port(2);
  auto c = Connection::Connect(other);
  ASSERT_TRUE(c.ok());
  auto g = SharedFilter::Open(c->get(), "spread", 0);
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectAllPresent(*g, keys);

  // Expiry and deletion reach every node.
  ASSERT_TRUE(f->Expire(absl::Seconds(500)).ok());
  for (const std::string& key : redis_keys) {
    const int node = cluster_->NodeForSlot(KeySlot(key));
    std::string ttl;
    cluster_->node(node).Cli({"TTL", key}, &ttl);
    EXPECT_GT(std::stoi(ttl), 400) << key;
  }
  ASSERT_TRUE(SharedFilter::Delete(connection_.get(), "spread").ok());
  for (const std::string& key : redis_keys) {
    const int node = cluster_->NodeForSlot(KeySlot(key));
    std::string exists;
    cluster_->node(node).Cli({"EXISTS", key}, &exists);
    EXPECT_EQ(exists, "0") << key;
  }
}

TEST_F(ClusterTest, FollowsMovedAfterASlotMigrates) {
  SharedFilterOptions options;
  options.expected_keys = 10000;
  auto f = SharedFilter::Create(connection_.get(), "moving", options);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<std::string> keys = Keys("m:", 10000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(f->AddBatch(views).ok());

  const int slot = KeySlot(f->RedisKeys()[0]);
  const int from = cluster_->NodeForSlot(slot);
  const int to = (from + 1) % 3;
  ASSERT_TRUE(cluster_->MigrateSlot(slot, from, to));
  ASSERT_EQ(cluster_->NodeForSlot(slot), to);

  const uint64_t redirections = connection_->redirections();
  ExpectAllPresent(*f, keys);  // the old node answers MOVED; we follow
  EXPECT_GT(connection_->redirections(), redirections);
  // The map was refreshed: no more redirections.
  const uint64_t after = connection_->redirections();
  ExpectAllPresent(*f, keys);
  EXPECT_EQ(connection_->redirections(), after);
  ASSERT_TRUE(f->Add("after the move").ok());
  EXPECT_THAT(f->MayContain("after the move"), IsOkAndHolds(true));
}

TEST_F(ClusterTest, FollowsAskDuringAMigration) {
  SharedFilterOptions options;
  options.expected_keys = 10000;
  auto f = SharedFilter::Create(connection_.get(), "asking", options);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<std::string> keys = Keys("a:", 10000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(f->AddBatch(views).ok());

  const int slot = KeySlot(f->RedisKeys()[0]);
  const int from = cluster_->NodeForSlot(slot);
  const int to = (from + 2) % 3;
  // Half-way: the slot still belongs to `from`, its keys are on `to`, so
  // `from` answers ASK for them.
  ASSERT_TRUE(cluster_->StartMigration(slot, from, to));
  const uint64_t redirections = connection_->redirections();
  ExpectAllPresent(*f, keys);
  EXPECT_GT(connection_->redirections(), redirections);
  ASSERT_TRUE(f->Add("during the move").ok());
  EXPECT_THAT(f->MayContain("during the move"), IsOkAndHolds(true));
  ASSERT_TRUE(cluster_->FinishMigration(slot, from, to));
  ExpectAllPresent(*f, keys);
  EXPECT_THAT(f->MayContain("during the move"), IsOkAndHolds(true));
}

TEST_F(ClusterTest, DeleteOrphansScansEveryNode) {
  // Spread shards left by a killed upload (generation 0x4142434445464748,
  // trailer "ABCDEFGH") land on every node; DeleteOrphans finds them all.
  const std::string gen = "4142434445464748";
  std::vector<std::pair<int, std::string>> orphans;
  std::set<int> nodes;
  for (int i = 0; i < 30; ++i) {
    const std::string key = absl::StrCat("bb:{orphans:", gen, ":", i, "}");
    const int node = cluster_->NodeForSlot(KeySlot(key));
    ASSERT_GE(node, 0);
    ASSERT_TRUE(cluster_->node(node).Cli({"SETRANGE", key, "64", "ABCDEFGH"}));
    orphans.emplace_back(node, key);
    nodes.insert(node);
  }
  EXPECT_EQ(nodes.size(), 3u);
  EXPECT_THAT(SharedFilter::DeleteOrphans(connection_.get(), "orphans"),
              IsOkAndHolds(30u));
  for (const auto& [node, key] : orphans) {
    std::string exists;
    cluster_->node(node).Cli({"EXISTS", key}, &exists);
    EXPECT_EQ(exists, "0") << key;
  }
}

TEST_F(ClusterTest, ModeDetectionAndForcedModes) {
  ConnectionOptions options;
  options.port = cluster_->port(0);
  options.mode = ConnectionOptions::Mode::kCluster;
  auto c = Connection::Connect(options);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->get()->is_cluster());
  EXPECT_TRUE(c->get()->Ping().ok());
  options.database = 2;
  EXPECT_EQ(Connection::Connect(options).status().code(),
            absl::StatusCode::kInvalidArgument);

  blockbloom::testing::RedisServer standalone;
  ASSERT_TRUE(standalone.Start());
  ConnectionOptions plain;
  plain.port = standalone.port();
  plain.mode = ConnectionOptions::Mode::kCluster;
  EXPECT_EQ(Connection::Connect(plain).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace blockbloom::redis
