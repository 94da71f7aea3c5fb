// Shared filters on a real standalone redis-server: answers, sharding,
// lifecycle, snapshots. Each test uses its own filter names on one server.
#include "blockbloom/filter.h"

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/redis_client.h"
#include "blockbloom/sizing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_client/redis_server.h"
#include "tests/redis_client/status_matchers.h"
#include "tests/redis_client/test_connection.h"

namespace blockbloom::redis {
namespace {

using blockbloom::testing::IsOkAndHolds;

using ::testing::HasSubstr;

std::vector<std::string> Keys(std::string_view prefix, int n, int from = 0) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (int i = from; i < from + n; ++i) {
    keys.push_back(absl::StrCat(std::string(prefix), i));
  }
  return keys;
}

std::vector<std::string_view> Views(const std::vector<std::string>& keys) {
  return std::vector<std::string_view>(keys.begin(), keys.end());
}

// The in-process filter of the same shape and seed holding `keys`.
Filter LocalFilter(const FilterShape& shape, uint64_t seed,
                   const std::vector<std::string>& keys) {
  FilterOptions options;
  options.shape = shape;
  options.seed = seed;
  options.compact_small_filters = false;
  auto builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok());
  for (const std::string& key : keys) builder->Add(key);
  auto filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return std::move(*filter);
}

class SharedFilterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new blockbloom::testing::RedisServer();
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    auto c = blockbloom::testing::ConnectForTest(server_->port());
    ASSERT_TRUE(c.ok()) << c.status();
    connection_ = std::move(*c);
    EXPECT_FALSE(connection_->is_cluster());
  }
  std::string Cli(const std::vector<std::string>& args) {
    std::string out;
    server_->Cli(args, &out);
    return out;
  }

  static blockbloom::testing::RedisServer* server_;
  std::unique_ptr<Connection> connection_;
};
blockbloom::testing::RedisServer* SharedFilterTest::server_ = nullptr;

// Checks a shared filter against the in-process filter of the same keys:
// no false negatives, identical answers on absent keys (single and batch),
// and a false-positive rate that matches the layout's.
void ExpectSameAsLocal(SharedFilter& shared,
                       const std::vector<std::string>& present) {
  Filter local = LocalFilter(shared.shape(), shared.seed(), present);
  const std::vector<std::string_view> views = Views(present);
  std::vector<char> results(views.size());
  ASSERT_TRUE(
      shared
          .MayContainBatch(
              views, absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                                      results.size()))
          .ok());
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_TRUE(results[i]) << "false negative for " << views[i];
  }
  for (size_t i = 0; i < std::min<size_t>(200, views.size()); ++i) {
    auto one = shared.MayContain(views[i]);
    ASSERT_TRUE(one.ok()) << one.status();
    ASSERT_TRUE(*one) << "false negative (single) for " << views[i];
  }
  const std::vector<std::string> absent = Keys("absent:", 40000);
  const std::vector<std::string_view> absent_views = Views(absent);
  std::vector<char> answers(absent.size());
  ASSERT_TRUE(shared
                  .MayContainBatch(
                      absent_views,
                      absl::Span<bool>(reinterpret_cast<bool*>(answers.data()),
                                       answers.size()))
                  .ok());
  uint64_t positives = 0;
  for (size_t i = 0; i < absent.size(); ++i) {
    ASSERT_EQ(static_cast<bool>(answers[i]), local.MayContain(absent[i]))
        << absent[i];
    positives += answers[i];
  }
  // The rate the layout predicts for this many keys, within 4 sigma.
  const double expected = *EstimatedFpRate(shared.shape(), present.size());
  const double sigma =
      std::sqrt(expected * (1 - expected) / absent.size()) + 1e-9;
  const double measured = static_cast<double>(positives) / absent.size();
  EXPECT_NEAR(measured, expected, 4 * sigma + 1.0 / absent.size());
}

TEST_F(SharedFilterTest, AddsAndQueriesLikeAnInProcessFilter) {
  SharedFilterOptions options;
  options.expected_keys = 20000;
  options.fp_rate = 0.01;
  options.seed = 0x5eed;
  auto f = SharedFilter::Create(connection_.get(), "basic", options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->num_shards(), 1u);
  EXPECT_EQ(f->shape(), *ShapeForFpRate(20000, 0.01, false));
  const std::vector<std::string> keys = Keys("user:", 20000);
  // Half one by one, half in batches.
  for (int i = 0; i < 10000; ++i) {
    auto added = f->Add(keys[i]);
    ASSERT_TRUE(added.ok()) << added.status();
  }
  std::vector<std::string_view> rest(keys.begin() + 10000, keys.end());
  auto n = f->AddBatch(rest);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_GT(*n, 9800u);  // a few keys collide with earlier ones' bits
  ExpectSameAsLocal(*f, keys);
  // The count estimate from the bits.
  auto count = f->ApproximateCount();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_NEAR(static_cast<double>(*count), 20000, 400);
}

TEST_F(SharedFilterTest, AddSaysWhetherTheKeyWasNew) {
  SharedFilterOptions options;
  options.expected_keys = 1000;
  auto f = SharedFilter::Create(connection_.get(), "guava-put", options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(f->Add("a"), IsOkAndHolds(true));
  EXPECT_THAT(f->Add("a"), IsOkAndHolds(false));
  EXPECT_THAT(f->MayContain("a"), IsOkAndHolds(true));
  std::vector<std::string_view> batch = {"b", "c", "b"};
  bool added[3];
  auto n = f->AddBatch(batch, absl::Span<bool>(added, 3));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2u);
  EXPECT_TRUE(added[0]);
  EXPECT_TRUE(added[1]);
  EXPECT_FALSE(added[2]);
}

TEST_F(SharedFilterTest, ShardedFilterSpansManyKeys) {
  SharedFilterOptions options;
  options.expected_keys = 30000;
  options.bits_per_key = 10;
  options.shard_bytes = 4096;  // 64 blocks per shard: ~10 shards
  auto f = SharedFilter::Create(connection_.get(), "sharded", options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->blocks_per_shard(), 64u);
  EXPECT_EQ(f->num_shards(), (f->shape().num_blocks + 63) / 64);
  // Every shard exists at full size, the last one shorter.
  const std::vector<std::string> redis_keys = f->RedisKeys();
  ASSERT_EQ(redis_keys.size(), f->num_shards() + 1);
  EXPECT_EQ(Cli({"STRLEN", redis_keys[1]}), "4104");
  const uint64_t last_blocks =
      f->shape().num_blocks - 64 * (f->num_shards() - 1);
  EXPECT_EQ(Cli({"STRLEN", redis_keys.back()}),
            std::to_string(last_blocks * 64 + 8));
  const std::vector<std::string> keys = Keys("page:", 30000);
  f->set_pipeline_depth(17);  // an odd depth: batches split unevenly
  ASSERT_TRUE(f->AddBatch(Views(keys)).ok());
  ExpectSameAsLocal(*f, keys);
}

TEST_F(SharedFilterTest, OpenChecksNameSeedAndParameters) {
  SharedFilterOptions options;
  options.expected_keys = 5000;
  options.seed = 7;
  auto created = SharedFilter::Create(connection_.get(), "params", options);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(created->Add("x").ok());

  auto again = SharedFilter::Create(connection_.get(), "params", options);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("params"));

  auto opened = SharedFilter::Open(connection_.get(), "params", 7);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->shape(), created->shape());
  EXPECT_THAT(opened->MayContain("x"), IsOkAndHolds(true));

  auto wrong_seed = SharedFilter::Open(connection_.get(), "params", 8);
  EXPECT_EQ(wrong_seed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(wrong_seed.status().message(), HasSubstr("seed"));

  auto missing = SharedFilter::Open(connection_.get(), "no-such-filter", 7);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);

  auto same = SharedFilter::OpenOrCreate(connection_.get(), "params", options);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_THAT(same->MayContain("x"), IsOkAndHolds(true));

  SharedFilterOptions bigger = options;
  bigger.expected_keys = 50000;
  auto mismatch =
      SharedFilter::OpenOrCreate(connection_.get(), "params", bigger);
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(mismatch.status().message(), HasSubstr("blocks"));

  // A key that is not ours under the metadata name.
  Cli({"SET", "bb:{foreign}", "hello"});
  auto foreign = SharedFilter::Open(connection_.get(), "foreign", 0);
  EXPECT_EQ(foreign.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(SharedFilter::Delete(connection_.get(), "foreign").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Cli({"GET", "bb:{foreign}"}), "hello");  // left alone

  auto bad_name = SharedFilter::Create(connection_.get(), "a{b}", options);
  EXPECT_EQ(bad_name.status().code(), absl::StatusCode::kInvalidArgument);
  SharedFilterOptions no_size;
  auto unsized = SharedFilter::Create(connection_.get(), "unsized", no_size);
  EXPECT_EQ(unsized.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SharedFilterTest, OpenOrCreateCreatesOnce) {
  SharedFilterOptions options;
  options.expected_keys = 1000;
  auto a = SharedFilter::OpenOrCreate(connection_.get(), "fleet", options);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(a->Add("k").ok());
  auto b = SharedFilter::OpenOrCreate(connection_.get(), "fleet", options);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->RedisKeys(), a->RedisKeys());
  EXPECT_THAT(b->MayContain("k"), IsOkAndHolds(true));
}

TEST_F(SharedFilterTest, DeleteRemovesEveryKey) {
  SharedFilterOptions options;
  options.expected_keys = 10000;
  options.shard_bytes = 1024;
  auto f = SharedFilter::Create(connection_.get(), "doomed", options);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<std::string> keys = f->RedisKeys();
  ASSERT_GT(keys.size(), 5u);
  for (const std::string& key : keys) EXPECT_EQ(Cli({"EXISTS", key}), "1");
  ASSERT_TRUE(SharedFilter::Delete(connection_.get(), "doomed").ok());
  for (const std::string& key : keys) EXPECT_EQ(Cli({"EXISTS", key}), "0");
  EXPECT_TRUE(SharedFilter::Delete(connection_.get(), "doomed").ok());
  EXPECT_EQ(SharedFilter::Open(connection_.get(), "doomed", 0).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SharedFilterTest, ExpiryCoversEveryKey) {
  SharedFilterOptions options;
  options.expected_keys = 10000;
  options.shard_bytes = 2048;
  options.ttl = absl::Seconds(100);
  auto f = SharedFilter::Create(connection_.get(), "ttl", options);
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<std::string> keys = f->RedisKeys();
  ASSERT_GT(keys.size(), 3u);
  for (const std::string& key : keys) {
    const int ttl = std::stoi(Cli({"TTL", key}));
    EXPECT_GT(ttl, 90) << key;
    EXPECT_LE(ttl, 100) << key;
  }
  auto ttl = f->Ttl();
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(*ttl, absl::Seconds(90));

  ASSERT_TRUE(f->Expire(absl::InfiniteDuration()).ok());
  for (const std::string& key : keys) EXPECT_EQ(Cli({"TTL", key}), "-1") << key;
  EXPECT_THAT(f->Ttl(), IsOkAndHolds(absl::InfiniteDuration()));

  ASSERT_TRUE(f->Add("soon gone").ok());
  ASSERT_TRUE(f->Expire(absl::Milliseconds(300)).ok());
  for (const std::string& key : keys) {
    EXPECT_NE(Cli({"PTTL", key}), "-1") << key;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  for (const std::string& key : keys) EXPECT_EQ(Cli({"EXISTS", key}), "0");
  // The expired filter: queries fail (open: "may contain"), opening fails.
  absl::Status error;
  EXPECT_TRUE(f->MayContainOrFailOpen("anything", &error));
  EXPECT_EQ(error.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(f->Check().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(SharedFilter::Open(connection_.get(), "ttl", 0).status().code(),
            absl::StatusCode::kNotFound);
  // A stale handle's add does not leave a short, zero-filled shard behind
  // for others to read as "absent".
  EXPECT_EQ(f->Add("late").status().code(), absl::StatusCode::kDataLoss);
  for (const std::string& key : keys) EXPECT_EQ(Cli({"EXISTS", key}), "0");
}

TEST_F(SharedFilterTest, PublishAndDownloadSnapshots) {
  // Bulk-build locally, publish, query remotely, download, compare bytes.
  const std::vector<std::string> keys = Keys("url:", 50000);
  FilterOptions local_options;
  local_options.fp_rate = 0.01;
  local_options.seed = 99;
  local_options.compact_small_filters = false;
  auto builder = FilterBuilder::Create(local_options);
  ASSERT_TRUE(builder.ok());
  for (const std::string& key : keys) builder->Add(key);
  auto local = builder->Finish();
  ASSERT_TRUE(local.ok());

  SharedFilterOptions options;
  options.shard_bytes = 8192;
  auto published =
      SharedFilter::Publish(connection_.get(), "snapshot", *local, options);
  ASSERT_TRUE(published.ok()) << published.status();
  EXPECT_EQ(published->shape(), local->shape());
  EXPECT_EQ(published->seed(), 99u);
  ExpectSameAsLocal(*published, keys);

  auto opened = SharedFilter::Open(connection_.get(), "snapshot", 99);
  ASSERT_TRUE(opened.ok()) << opened.status();
  auto bytes = opened->Download();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = OpenFilter(AsBytes(*bytes));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), local->shape());
  EXPECT_EQ(back->seed(), 99u);
  ASSERT_TRUE(std::equal(back->bits().begin(), back->bits().end(),
                         local->bits().begin(), local->bits().end()));
  EXPECT_NEAR(static_cast<double>(back->num_keys()), 50000, 1000);

  // Publishing again needs replace; replacing switches generations and
  // removes the old shards.
  auto again =
      SharedFilter::Publish(connection_.get(), "snapshot", *local, options);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  const std::vector<std::string> old_keys = published->RedisKeys();
  auto replaced = SharedFilter::Publish(connection_.get(), "snapshot", *local,
                                        options, /*replace=*/true);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  for (size_t i = 1; i < old_keys.size(); ++i) {
    EXPECT_EQ(Cli({"EXISTS", old_keys[i]}), "0") << old_keys[i];
  }
  EXPECT_EQ(published->Check().code(), absl::StatusCode::kFailedPrecondition);
  ExpectSameAsLocal(*replaced, keys);

  // Compact small filters have no 64-byte blocks to share.
  FilterOptions small;
  auto tiny_builder = FilterBuilder::Create(small);
  tiny_builder->Add("one");
  auto tiny = tiny_builder->Finish();
  ASSERT_TRUE(tiny.ok());
  ASSERT_NE(tiny->lane_bits(), 32);
  auto refused =
      SharedFilter::Publish(connection_.get(), "tiny", *tiny, options);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SharedFilterTest, TwoClientsAddingConcurrently) {
  SharedFilterOptions options;
  options.expected_keys = 40000;
  options.shard_bytes = 16384;
  ASSERT_TRUE(
      SharedFilter::Create(connection_.get(), "concurrent", options).ok());
  auto worker = [&](int id, std::vector<std::string>* keys) {
    *keys = Keys(absl::StrCat("client", id, ":"), 20000);
    ConnectionOptions c;
    c.port = server_->port();
    auto connection = Connection::Connect(c);
    ASSERT_TRUE(connection.ok());
    auto f = SharedFilter::Open(connection->get(), "concurrent", 0);
    ASSERT_TRUE(f.ok()) << f.status();
    const std::vector<std::string_view> views = Views(*keys);
    // Interleave small batches so the two clients' BITFIELDs mix on the
    // same blocks.
    for (size_t i = 0; i < views.size(); i += 50) {
      const size_t n = std::min<size_t>(50, views.size() - i);
      ASSERT_TRUE(f->AddBatch({views.data() + i, n}).ok());
    }
  };
  std::vector<std::string> a, b;
  std::thread t1(worker, 1, &a);
  std::thread t2(worker, 2, &b);
  t1.join();
  t2.join();
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  auto f = SharedFilter::Open(connection_.get(), "concurrent", 0);
  ASSERT_TRUE(f.ok());
  ExpectSameAsLocal(*f, all);
}

TEST_F(SharedFilterTest, RoundTripsPerBatch) {
  SharedFilterOptions options;
  options.expected_keys = 10000;
  auto f = SharedFilter::Create(connection_.get(), "trips", options);
  ASSERT_TRUE(f.ok());
  const std::vector<std::string> keys = Keys("k", 1000);
  const std::vector<std::string_view> views = Views(keys);
  f->set_pipeline_depth(100);
  uint64_t before = connection_->round_trips();
  ASSERT_TRUE(f->AddBatch(views).ok());
  EXPECT_EQ(connection_->round_trips() - before, 10u);
  std::vector<char> results(views.size());
  before = connection_->round_trips();
  ASSERT_TRUE(
      f->MayContainBatch(
           views, absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                                   results.size()))
          .ok());
  EXPECT_EQ(connection_->round_trips() - before, 10u);
  before = connection_->round_trips();
  ASSERT_TRUE(f->MayContain("k1").ok());
  EXPECT_EQ(connection_->round_trips() - before, 1u);
  // One 64-byte GETRANGE per query, one BITFIELD per add (INFO
  // commandstats counts calls).
  Cli({"CONFIG", "RESETSTAT"});
  ASSERT_TRUE(f->MayContain("k2").ok());
  ASSERT_TRUE(f->Add("k3").ok());
  const std::string stats = Cli({"INFO", "commandstats"});
  EXPECT_THAT(stats, HasSubstr("cmdstat_getrange:calls=1,"));
  EXPECT_THAT(stats, HasSubstr("cmdstat_bitfield:calls=1,"));
}

TEST_F(SharedFilterTest, FilterBeyondTwoToThe32Bits) {
  // 2^23 + 4096 blocks = 2^32 + 2^21 bits (512 MiB + 256 KiB) in shards of
  // 64 MiB: keys in the last shard live beyond bit 2^32.
  FilterShape shape;
  shape.num_blocks = (uint64_t{1} << 23) + 4096;
  shape.num_probes = 6;
  SharedFilterOptions options;
  options.shape = shape;
  options.shard_bytes = uint64_t{64} << 20;
  options.seed = 3;
  auto f = SharedFilter::Create(connection_.get(), "huge", options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->num_shards(), 9u);
  // Keys whose blocks are past bit 2^32 (block >= 2^23).
  std::vector<std::string> high, low;
  for (int i = 0; high.size() < 300 || low.size() < 300; ++i) {
    std::string key = absl::StrCat("deep:", i);
    const uint64_t block = ((HashKey(key, 3) >> 32) * shape.num_blocks) >> 32;
    if (block >= (uint64_t{1} << 23)) {
      if (high.size() < 300) high.push_back(key);
    } else if (low.size() < 300) {
      low.push_back(key);
    }
  }
  std::vector<std::string> all = high;
  all.insert(all.end(), low.begin(), low.end());
  ASSERT_TRUE(f->AddBatch(Views(all)).ok());
  std::vector<char> results(all.size());
  ASSERT_TRUE(
      f->MayContainBatch(
           Views(all), absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                                        results.size()))
          .ok());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_TRUE(results[i]) << all[i];
  // The bits really are in the last shard, at the offsets the layout gives.
  const std::string last = f->RedisKeys().back();
  EXPECT_NE(Cli({"BITCOUNT", last, "0", std::to_string(4096 * 64 - 1)}), "0");
  ASSERT_TRUE(SharedFilter::Delete(connection_.get(), "huge").ok());
}

TEST_F(SharedFilterTest, SelectsTheDatabaseOfTheUrl) {
  auto options =
      ParseUrl(absl::StrCat("redis://127.0.0.1:", server_->port(), "/3"));
  ASSERT_TRUE(options.ok());
  auto c = Connection::Connect(*options);
  ASSERT_TRUE(c.ok()) << c.status();
  SharedFilterOptions filter_options;
  filter_options.expected_keys = 100;
  ASSERT_TRUE(SharedFilter::Create(c->get(), "in-db-3", filter_options).ok());
  std::string exists;
  server_->Cli({"EXISTS", "bb:{in-db-3}"}, &exists, {"-n", "3"});
  EXPECT_EQ(exists, "1");
  EXPECT_EQ(Cli({"EXISTS", "bb:{in-db-3}"}), "0");  // not in database 0
}

}  // namespace
}  // namespace blockbloom::redis
