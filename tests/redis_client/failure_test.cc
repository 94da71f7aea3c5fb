// Shared filters when things go wrong: connection refused, the server
// killed and restarted mid-run, a server that stops answering, the wrong
// type at a key, a shard deleted behind the filter's back, AUTH. Every call
// returns a Status naming the problem, nothing crashes (a write to a dead
// socket must not kill the process with SIGPIPE), fail-open answers "may
// contain", and the connection recovers when the server is back.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/redis_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_client/redis_server.h"
#include "tests/redis_client/status_matchers.h"

namespace blockbloom::redis {
namespace {

using blockbloom::testing::IsOkAndHolds;

using blockbloom::testing::RedisServer;
using ::testing::HasSubstr;

ConnectionOptions OptionsFor(const RedisServer& server) {
  ConnectionOptions options;
  options.port = server.port();
  options.connect_timeout = absl::Milliseconds(500);
  options.command_timeout = absl::Milliseconds(500);
  return options;
}

SharedFilterOptions Small() {
  SharedFilterOptions options;
  options.expected_keys = 5000;
  options.shard_bytes = 1024;
  return options;
}

std::vector<std::string> Keys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(absl::StrCat("id:", i));
  return keys;
}

TEST(RedisFailure, ConnectionRefused) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  ConnectionOptions options = OptionsFor(server);
  server.Kill();  // nothing listens on the port now
  auto c = Connection::Connect(options);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(c.status().message(),
              HasSubstr(absl::StrCat("127.0.0.1:", options.port)));
  EXPECT_THAT(c.status().message(), HasSubstr("refused"));
}

TEST(RedisFailure, ConnectTimeout) {
  // A listener that never accepts, with its queue full: the kernel drops
  // further SYNs, so a connect hangs until our timeout.
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
            0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ASSERT_EQ(listen(listener, 0), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fillers.push_back(fd);
  }
  ConnectionOptions options;
  options.port = ntohs(addr.sin_port);
  options.connect_timeout = absl::Milliseconds(200);
  const absl::Time start = absl::Now();
  auto c = Connection::Connect(options);
  const absl::Duration waited = absl::Now() - start;
  EXPECT_FALSE(c.ok());
  // Either the connect or the first command (CLUSTER SLOTS, to a socket the
  // server never reads) runs into a timeout.
  EXPECT_EQ(c.status().code(), absl::StatusCode::kDeadlineExceeded)
      << c.status();
  EXPECT_LT(waited, absl::Seconds(3));
  for (int fd : fillers) close(fd);
  close(listener);
}

TEST(RedisFailure, ServerKilledMidRunThenRestarted) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  auto c = Connection::Connect(OptionsFor(server));
  ASSERT_TRUE(c.ok()) << c.status();
  auto f = SharedFilter::Create(c->get(), "crash", Small());
  ASSERT_TRUE(f.ok()) << f.status();
  const std::vector<std::string> keys = Keys(3000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(f->AddBatch(views).ok());

  server.Kill();
  // Queries: an error naming the server, and fail-open answers true.
  auto q = f->MayContain(keys[0]);
  EXPECT_EQ(q.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(q.status().message(), HasSubstr("crash"));
  absl::Status error;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(f->MayContainOrFailOpen(absl::StrCat("absent", i), &error));
    EXPECT_FALSE(error.ok());
  }
  std::vector<char> results(views.size(), 0);
  f->MayContainBatchOrFailOpen(
      views,
      absl::Span<bool>(reinterpret_cast<bool*>(results.data()), results.size()),
      &error);
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable);
  for (char r : results) ASSERT_TRUE(r);
  EXPECT_FALSE(f->Add("more").ok());
  EXPECT_FALSE(c->get()->Ping().ok());

  // Back on the same port, empty (no persistence): the connection comes
  // back by itself; the filter is gone, which every call now says.
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(c->get()->Ping().ok());
  EXPECT_EQ(f->Check().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(f->MayContain(keys[0]).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_TRUE(f->MayContainOrFailOpen(keys[0]));
  EXPECT_EQ(f->Add(keys[0]).status().code(), absl::StatusCode::kDataLoss);
  // Recreate and carry on.
  auto again = SharedFilter::OpenOrCreate(c->get(), "crash", Small());
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE(again->AddBatch(views).ok());
  for (const std::string& key : keys) {
    ASSERT_THAT(again->MayContain(key), IsOkAndHolds(true));
  }
}

TEST(RedisFailure, ConnectionClosedByTheServerIsNoSigpipe) {
  // SIGPIPE's default action kills the process: the library must never
  // raise it, whatever the application does with the signal.
  signal(SIGPIPE, SIG_DFL);
  RedisServer server;
  ASSERT_TRUE(server.Start());
  auto c = Connection::Connect(OptionsFor(server));
  ASSERT_TRUE(c.ok());
  auto f = SharedFilter::Create(c->get(), "closed", Small());
  ASSERT_TRUE(f.ok());
  const std::vector<std::string> keys = Keys(20000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  f->set_pipeline_depth(2000);
  for (int round = 0; round < 5; ++round) {
    // The server drops our connection; the next batches write into a
    // socket whose peer is gone (EPIPE), then reconnect.
    ASSERT_TRUE(
        server.Cli({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}));
    auto added = f->AddBatch(views);
    EXPECT_FALSE(added.ok());
    EXPECT_EQ(added.status().code(), absl::StatusCode::kUnavailable)
        << added.status();
    auto again = f->AddBatch(views);
    EXPECT_TRUE(again.ok()) << again.status();
  }
}

TEST(RedisFailure, ServerThatStopsAnsweringTimesOut) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  ConnectionOptions options = OptionsFor(server);
  options.command_timeout = absl::Milliseconds(200);
  auto c = Connection::Connect(options);
  ASSERT_TRUE(c.ok());
  auto f = SharedFilter::Create(c->get(), "frozen", Small());
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->Add("here").ok());

  kill(server.pid(), SIGSTOP);
  const absl::Time start = absl::Now();
  auto q = f->MayContain("here");
  const absl::Duration waited = absl::Now() - start;
  EXPECT_EQ(q.status().code(), absl::StatusCode::kDeadlineExceeded)
      << q.status();
  EXPECT_LT(waited, absl::Seconds(5));
  EXPECT_TRUE(f->MayContainOrFailOpen("not here"));
  kill(server.pid(), SIGCONT);

  // The dropped connection is reopened; replies are in step again.
  EXPECT_THAT(f->MayContain("here"), IsOkAndHolds(true));
  EXPECT_THAT(f->Add("later"), IsOkAndHolds(true));
  EXPECT_THAT(f->MayContain("later"), IsOkAndHolds(true));
}

TEST(RedisFailure, WrongTypeAndKeysDeletedBehindOurBack) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  auto c = Connection::Connect(OptionsFor(server));
  ASSERT_TRUE(c.ok());
  auto f = SharedFilter::Create(c->get(), "victim", Small());
  ASSERT_TRUE(f.ok());
  const std::vector<std::string> keys = Keys(2000);
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(f->AddBatch(views).ok());
  const std::vector<std::string> redis_keys = f->RedisKeys();
  ASSERT_GE(redis_keys.size(), 4u);

  // A shard deleted: every call names it; no false "absent" answer.
  const std::string shard = redis_keys[2];
  ASSERT_TRUE(server.Cli({"DEL", shard}));
  EXPECT_EQ(f->Check().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(f->Check().message(), HasSubstr(shard));
  std::vector<char> results(views.size(), 0);
  absl::Status error = f->MayContainBatch(
      views, absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                              results.size()));
  EXPECT_EQ(error.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(error.message(), HasSubstr(shard));
  for (char r : results) ASSERT_TRUE(r);
  // Adds into the deleted shard are refused and leave no short key behind.
  auto added = f->AddBatch(views);
  EXPECT_EQ(added.status().code(), absl::StatusCode::kDataLoss);
  std::string exists;
  server.Cli({"EXISTS", shard}, &exists);
  EXPECT_EQ(exists, "0");
  EXPECT_EQ(SharedFilter::Open(c->get(), "victim", 0).status().code(),
            absl::StatusCode::kDataLoss);

  // The wrong type at a shard's key.
  ASSERT_TRUE(server.Cli({"HSET", shard, "field", "value"}));
  error = f->MayContainBatch(
      views, absl::Span<bool>(reinterpret_cast<bool*>(results.data()),
                              results.size()));
  EXPECT_EQ(error.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(error.message(), HasSubstr("WRONGTYPE"));
  for (char r : results) ASSERT_TRUE(r);
  auto wrong_type_add = f->AddBatch(views);
  EXPECT_EQ(wrong_type_add.status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(wrong_type_add.status().message(), HasSubstr(shard));

  // The wrong type at the metadata key.
  ASSERT_TRUE(server.Cli({"DEL", redis_keys[0]}));
  ASSERT_TRUE(server.Cli({"RPUSH", redis_keys[0], "x"}));
  auto opened = SharedFilter::Open(c->get(), "victim", 0);
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(opened.status().message(), HasSubstr("WRONGTYPE"));
}

TEST(RedisFailure, PasswordAndAclUser) {
  RedisServer server({"--requirepass", "s3cret"});
  ASSERT_TRUE(server.Start());
  ConnectionOptions options = OptionsFor(server);

  // No password: the server refuses the first command (CLUSTER SLOTS,
  // which Connect sends to learn the server's mode).
  auto anonymous = Connection::Connect(options);
  EXPECT_EQ(anonymous.status().code(), absl::StatusCode::kPermissionDenied)
      << anonymous.status();
  EXPECT_THAT(anonymous.status().message(), HasSubstr("NOAUTH"));
  ConnectionOptions standalone = options;
  standalone.mode = ConnectionOptions::Mode::kStandalone;  // no command sent
  auto quiet = Connection::Connect(standalone);
  ASSERT_TRUE(quiet.ok());
  auto refused = SharedFilter::Create(quiet->get(), "private", Small());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied)
      << refused.status();

  options.password = "wrong";
  auto wrong = Connection::Connect(options);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kPermissionDenied)
      << wrong.status();

  options.password = "s3cret";
  auto right = Connection::Connect(options);
  ASSERT_TRUE(right.ok()) << right.status();
  auto f = SharedFilter::Create(right->get(), "private", Small());
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->Add("x").ok());

  // An ACL user allowed only the commands a reader needs.
  ASSERT_TRUE(server.Cli({"ACL", "SETUSER", "reader", "on", ">readpw", "~bb:*",
                          "+get", "+getrange", "+strlen", "+ping", "+cluster"},
                         nullptr, {"-a", "s3cret", "--no-auth-warning"}));
  ConnectionOptions reader = OptionsFor(server);
  reader.username = "reader";
  reader.password = "readpw";
  auto rc = Connection::Connect(reader);
  ASSERT_TRUE(rc.ok()) << rc.status();
  auto ro = SharedFilter::Open(rc->get(), "private", 0);
  ASSERT_TRUE(ro.ok()) << ro.status();
  EXPECT_THAT(ro->MayContain("x"), IsOkAndHolds(true));
  auto denied = ro->Add("y");
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied)
      << denied.status();
  reader.password = "nope";
  EXPECT_EQ(Connection::Connect(reader).status().code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace blockbloom::redis
