// Pieces of the Redis support that need no server: URLs, key slots, key
// names, metadata.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "blockbloom/redis_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/redis_client/metadata.h"
#include "src/redis_client/router.h"
#include "tests/redis_client/redis_server.h"

namespace blockbloom::redis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ParseUrl, HostPortDatabaseAndAuth) {
  auto o = ParseUrl("redis://alice:s%40cret@10.0.0.7:7000/3?timeout=250");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "10.0.0.7");
  EXPECT_EQ(o->port, 7000);
  EXPECT_EQ(o->database, 3);
  EXPECT_EQ(o->username, "alice");
  EXPECT_EQ(o->password, "s@cret");
  EXPECT_EQ(o->command_timeout, absl::Milliseconds(250));
  EXPECT_EQ(o->mode, ConnectionOptions::Mode::kAuto);
}

TEST(ParseUrl, Defaults) {
  auto o = ParseUrl("redis://localhost");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "localhost");
  EXPECT_EQ(o->port, 6379);
  EXPECT_EQ(o->database, 0);
  EXPECT_TRUE(o->username.empty());
  EXPECT_TRUE(o->password.empty());
}

TEST(ParseUrl, PasswordOnlyAndIpv6AndCluster) {
  auto o = ParseUrl("redis://:pw@[::1]:6380?cluster=yes&connect_timeout=50");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "::1");
  EXPECT_EQ(o->port, 6380);
  EXPECT_EQ(o->password, "pw");
  EXPECT_TRUE(o->username.empty());
  EXPECT_EQ(o->mode, ConnectionOptions::Mode::kCluster);
  EXPECT_EQ(o->connect_timeout, absl::Milliseconds(50));
  auto p = ParseUrl("redis://secret@h");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->password, "secret");
}

TEST(ParseUrl, RejectsWhatItCannotUse) {
  for (const char* url :
       {"http://h", "redis://", "redis://h:0", "redis://h:65536",
        "redis://h:port", "redis://h/db", "redis://h?cluster=maybe",
        "redis://h?timeout=-1", "redis://h?colour=blue", "redis://[::1"}) {
    auto o = ParseUrl(url);
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << url;
  }
}

TEST(ParseUrl, ErrorsDoNotRepeatThePassword) {
  // Error messages end up in logs; the URL they quote keeps its user only.
  for (const char* url : {"redis://alice:hunter2@h:0", "redis://hunter2@h:0",
                          "redis://alice:hun/ter2@h?colour=blue"}) {
    auto o = ParseUrl(url);
    ASSERT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(o.status().message(), Not(HasSubstr("hunter2"))) << url;
    EXPECT_THAT(o.status().message(), Not(HasSubstr("ter2"))) << url;
    EXPECT_THAT(o.status().message(), HasSubstr("***@h")) << url;
  }
}

TEST(KeySlot, MatchesRedisCluster) {
  // The reference value of the Redis Cluster specification.
  EXPECT_EQ(internal::KeySlot("123456789"), 12739);
  // Hash tags: only the text between the first { and the next }.
  EXPECT_EQ(internal::KeySlot("{user1000}.following"),
            internal::KeySlot("user1000"));
  EXPECT_EQ(internal::KeySlot("foo{}{bar}"), internal::KeySlot("foo{}{bar}"));
  EXPECT_NE(internal::KeySlot("foo{}{bar}"), internal::KeySlot("bar"));
  for (int i = 0; i < 2000; ++i) {
    const std::string key = absl::StrCat("k", i * 7919, "{t", i % 13, "}x");
    EXPECT_EQ(internal::KeySlot(key), blockbloom::testing::KeySlot(key));
  }
}

TEST(KeyNames, PlacementDecidesTheHashTag) {
  const std::string meta = internal::MetadataKey("bb:", "users");
  EXPECT_EQ(meta, "bb:{users}");
  const std::string together =
      internal::ShardKey("bb:", "users", Placement::kTogether, 0xabc, 3);
  const std::string spread =
      internal::ShardKey("bb:", "users", Placement::kSpread, 0xabc, 3);
  EXPECT_EQ(together, "bb:{users}:0000000000000abc:3");
  EXPECT_EQ(spread, "bb:{users:0000000000000abc:3}");
  EXPECT_EQ(internal::KeySlot(together), internal::KeySlot(meta));
  // Spread shards land on many slots.
  std::set<uint16_t> slots;
  for (int i = 0; i < 64; ++i) {
    slots.insert(internal::KeySlot(
        internal::ShardKey("bb:", "users", Placement::kSpread, 0xabc, i)));
  }
  EXPECT_GT(slots.size(), 60u);
}

TEST(KeyNames, BracesAndEmptyNamesAreRefused) {
  EXPECT_TRUE(internal::ValidateName("urls:2026-11").ok());
  EXPECT_TRUE(internal::ValidateName(std::string("a\0b", 3)).ok());
  for (const char* name : {"", "a{b", "a}b"}) {
    EXPECT_EQ(internal::ValidateName(name).code(),
              absl::StatusCode::kInvalidArgument)
        << name;
  }
  EXPECT_FALSE(internal::ValidateName(std::string(1001, 'x')).ok());
}

TEST(Metadata, RoundTripsAndRejectsOthers) {
  internal::Metadata m;
  m.shape = {123457, 7, 32};
  m.blocks_per_shard = 1000;
  m.num_shards = 124;
  m.placement = Placement::kSpread;
  m.generation = 0x1234567890abcdefULL & ((uint64_t{1} << 63) - 1);
  m.seed_check = internal::SeedCheck(42);
  const std::string text = internal::EncodeMetadata(m);
  EXPECT_THAT(text, HasSubstr("blockbloom-redis/1 blocks=123457 k=7"));
  auto back = internal::ParseMetadata(text + " future_field=1", "bb:{x}");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape, m.shape);
  EXPECT_EQ(back->blocks_per_shard, m.blocks_per_shard);
  EXPECT_EQ(back->num_shards, m.num_shards);
  EXPECT_EQ(back->placement, m.placement);
  EXPECT_EQ(back->generation, m.generation);
  EXPECT_EQ(back->seed_check, m.seed_check);
  EXPECT_NE(internal::SeedCheck(42), internal::SeedCheck(43));

  EXPECT_EQ(internal::ParseMetadata("hello", "k").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(internal::ParseMetadata("blockbloom-redis/2 blocks=1", "k")
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  std::string bad = absl::StrReplaceAll(text, {{"shards=124", "shards=125"}});
  EXPECT_EQ(internal::ParseMetadata(bad, "k").status().code(),
            absl::StatusCode::kDataLoss);
  bad = absl::StrReplaceAll(text, {{" k=7", " k=x"}});
  EXPECT_EQ(internal::ParseMetadata(bad, "k").status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace blockbloom::redis
