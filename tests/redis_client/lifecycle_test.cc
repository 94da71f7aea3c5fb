// A shared filter's keys over its life: shards carry a temporary
// expiry until their filter is published, an interrupted upload removes
// what it wrote, DeleteOrphans finds what a killed one left, and a publish
// that a server evicts from fails instead of reporting success.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/redis_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_client/redis_server.h"
#include "tests/redis_client/status_matchers.h"
#include "tests/redis_client/test_connection.h"

namespace blockbloom::redis {
namespace {

using blockbloom::testing::IsOkAndHolds;
using blockbloom::testing::RedisServer;
using ::testing::HasSubstr;

// A filter of `bits_bytes` of bits (64-byte blocks) holding `n` keys.
Filter LocalFilter(uint64_t bits_bytes, int n) {
  FilterOptions options;
  options.shape.num_blocks = bits_bytes / 64;
  options.shape.lane_bits = 32;
  options.shape.num_probes = 6;
  options.compact_small_filters = false;
  auto builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (int i = 0; i < n; ++i) builder->Add(absl::StrCat("key:", i));
  auto filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return std::move(*filter);
}

std::unique_ptr<Connection> ConnectTo(const RedisServer& server) {
  auto c = blockbloom::testing::ConnectForTest(server.port());
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start());
    connection_ = ConnectTo(server_);
    ASSERT_NE(connection_, nullptr);
  }
  std::string Cli(const std::vector<std::string>& args) {
    std::string out;
    server_.Cli(args, &out);
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  int64_t Pttl(const std::string& key) {
    return std::stoll(Cli({"PTTL", key}));
  }
  std::vector<std::string> KeysMatching(const std::string& pattern) {
    std::vector<std::string> keys;
    std::string out = Cli({"--scan", "--pattern", pattern});
    size_t start = 0;
    while (start < out.size()) {
      size_t end = out.find('\n', start);
      if (end == std::string::npos) end = out.size();
      if (end > start) keys.push_back(out.substr(start, end - start));
      start = end + 1;
    }
    return keys;
  }

  RedisServer server_;
  std::unique_ptr<Connection> connection_;
};

TEST_F(LifecycleTest, PublishedShardsTakeTheFiltersExpiry) {
  const Filter local = LocalFilter(64 * 1024, 5000);
  SharedFilterOptions options;
  options.shard_bytes = 4096;  // 16 shards
  ASSERT_TRUE(
      SharedFilter::Publish(connection_.get(), "f", local, options).ok());
  std::vector<std::string> keys = KeysMatching("bb:{f}*");
  ASSERT_EQ(keys.size(), 17u);
  for (const std::string& key : keys) EXPECT_EQ(Pttl(key), -1) << key;
  options.ttl = absl::Hours(1);
  ASSERT_TRUE(SharedFilter::Publish(connection_.get(), "f", local, options,
                                    /*replace=*/true)
                  .ok());
  keys = KeysMatching("bb:{f}*");
  ASSERT_EQ(keys.size(), 17u);  // the old generation is gone
  for (const std::string& key : keys) {
    EXPECT_GT(Pttl(key), 3500 * 1000) << key;
    EXPECT_LE(Pttl(key), 3600 * 1000) << key;
  }
}

TEST_F(LifecycleTest, ACancelledUploadRemovesWhatItWrote) {
  const Filter local = LocalFilter(uint64_t{32} << 20, 1000);
  SharedFilterOptions options;
  options.shard_bytes = 64 * 1024;  // 512 shards
  std::atomic<bool> cancel{true};
  options.cancel = &cancel;
  // Cancelled before it starts: nothing written.
  auto published =
      SharedFilter::Publish(connection_.get(), "c", local, options);
  EXPECT_EQ(published.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(Cli({"DBSIZE"}), "0");

  // Cancelled midway: the server's writes are paused as soon as shards
  // show, the flag is set, then the writes resume; the upload stops at its
  // next round trip and deletes its shards. Meanwhile they carry the
  // pending expiry. On a loaded machine the upload can finish before the
  // pause lands (the canceller polls with redis-cli): then the attempt is
  // undone and made again with a filter twice as big.
  for (int attempt = 0;; ++attempt) {
    ASSERT_LT(attempt, 4) << "every upload finished before it was paused";
    const Filter big = LocalFilter(uint64_t{32} << (20 + attempt), 1000);
    cancel = false;
    std::vector<int64_t> ttls;
    std::string published_key_exists;
    std::thread canceller([&] {
      while (KeysMatching("bb:{c}:*").empty()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      Cli({"CLIENT", "PAUSE", "20000", "WRITE"});
      std::vector<std::string> shards = KeysMatching("bb:{c}:*");
      shards.resize(std::min<size_t>(shards.size(), 8));  // a sample
      for (const std::string& key : shards) ttls.push_back(Pttl(key));
      published_key_exists = Cli({"EXISTS", "bb:{c}"});
      cancel = true;
      Cli({"CLIENT", "UNPAUSE"});
    });
    published = SharedFilter::Publish(connection_.get(), "c", big, options);
    canceller.join();
    if (published.ok()) {  // finished before the pause: undo, try again
      Cli({"FLUSHALL"});
      continue;
    }
    EXPECT_EQ(published.status().code(), absl::StatusCode::kCancelled)
        << published.status();
    for (int64_t ttl : ttls) {
      EXPECT_GT(ttl, 0);
      EXPECT_LE(ttl, absl::ToInt64Milliseconds(kPendingShardTtl));
    }
    EXPECT_EQ(published_key_exists, "0");
    EXPECT_EQ(Cli({"DBSIZE"}), "0");
    break;
  }
}

TEST_F(LifecycleTest, DeleteOrphansRemovesOnlyOrphanedShards) {
  const Filter local = LocalFilter(64 * 1024, 5000);
  SharedFilterOptions options;
  options.shard_bytes = 16384;
  for (const char* name : {"keep", "k*[x]?", "keeper"}) {
    ASSERT_TRUE(
        SharedFilter::Publish(connection_.get(), name, local, options).ok());
  }
  const size_t published = KeysMatching("*").size();
  // Shards of generation 0x4142434445464748, whose trailer reads "ABCDEFGH"
  // (what a killed upload leaves), and keys that only look like shards.
  const std::string gen = "4142434445464748";
  const std::vector<std::string> orphans = {"bb:{keep}:" + gen + ":0",
                                            "bb:{keep:" + gen + ":1}",
                                            "bb:{k*[x]?}:" + gen + ":0"};
  const std::vector<std::string> lookalikes = {
      "bb:{keep}:" + gen + ":2",      // wrong trailer
      "bb:{keep}:" + gen + ":03",     // not the canonical name
      "bb:{keeper}:" + gen + ":0",    // another filter's name
      "bb:{kZZx}:" + gen + ":0",      // matches k*[x]? as a glob
      "other:{keep}:" + gen + ":0"};  // another prefix
  for (const std::string& key : orphans) {
    ASSERT_EQ(Cli({"SETRANGE", key, "64", "ABCDEFGH"}), "72");
  }
  ASSERT_EQ(Cli({"SETRANGE", lookalikes[0], "64", "XXXXXXXX"}), "72");
  for (size_t i = 1; i < lookalikes.size(); ++i) {
    ASSERT_EQ(Cli({"SETRANGE", lookalikes[i], "64", "ABCDEFGH"}), "72");
  }
  ASSERT_EQ(Cli({"HSET", "bb:{keep}:4142434445464749:0", "a", "b"}), "1");

  EXPECT_THAT(SharedFilter::DeleteOrphans(connection_.get(), "keep"),
              IsOkAndHolds(2u));
  EXPECT_THAT(SharedFilter::DeleteOrphans(connection_.get(), "k*[x]?"),
              IsOkAndHolds(1u));
  EXPECT_THAT(SharedFilter::DeleteOrphans(connection_.get(), "keep"),
              IsOkAndHolds(0u));
  for (const std::string& key : orphans) EXPECT_EQ(Cli({"EXISTS", key}), "0");
  for (const std::string& key : lookalikes) {
    EXPECT_EQ(Cli({"EXISTS", key}), "1") << key;
  }
  EXPECT_EQ(KeysMatching("*").size(),
            published + lookalikes.size() + 1);  // + the hash
  // The published filters are whole.
  for (const char* name : {"keep", "k*[x]?", "keeper"}) {
    auto f = SharedFilter::Open(connection_.get(), name, 0);
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    EXPECT_TRUE(f->Check().ok());
  }
  // A name the library refuses.
  EXPECT_EQ(
      SharedFilter::DeleteOrphans(connection_.get(), "a}b").status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(LifecycleTest, ValidateName) {
  EXPECT_TRUE(SharedFilter::ValidateName("users").ok());
  EXPECT_TRUE(SharedFilter::ValidateName("a:b*c").ok());
  for (const std::string& bad : {std::string(), std::string("a}b{c"),
                                 std::string("{x"), std::string(1001, 'x')}) {
    absl::Status s = SharedFilter::ValidateName(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("'{'"));
  }
}

TEST(LifecycleEvictionTest, APublishTheServerEvictsFromFails) {
  RedisServer evicting(
      {"--maxmemory", "8mb", "--maxmemory-policy", "allkeys-random"});
  ASSERT_TRUE(evicting.Start());
  std::unique_ptr<Connection> c = ConnectTo(evicting);
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(c->EvictionPolicy(), IsOkAndHolds(std::string("allkeys-random")));
  const Filter local = LocalFilter(uint64_t{32} << 20, 1000);
  SharedFilterOptions options;
  options.shard_bytes = 1 << 20;
  auto published = SharedFilter::Publish(c.get(), "big", local, options);
  EXPECT_EQ(published.status().code(), absl::StatusCode::kDataLoss)
      << published.status();
  EXPECT_THAT(published.status().message(), HasSubstr("evict"));
  std::string left;
  evicting.Cli({"DBSIZE"}, &left);
  EXPECT_EQ(left, "0");

  // No maxmemory: nothing is evicted, whatever the policy.
  RedisServer plain({"--maxmemory-policy", "allkeys-lru"});
  ASSERT_TRUE(plain.Start());
  std::unique_ptr<Connection> p = ConnectTo(plain);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->EvictionPolicy(), IsOkAndHolds(std::string("noeviction")));
  EXPECT_TRUE(SharedFilter::Publish(p.get(), "big", local, options).ok());
}

}  // namespace
}  // namespace blockbloom::redis
