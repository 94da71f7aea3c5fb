// The connection the Redis tests use: to a server (or a cluster node) on
// loopback, with a long command timeout.
#ifndef BLOCKBLOOM_TESTS_REDIS_CLIENT_TEST_CONNECTION_H_
#define BLOCKBLOOM_TESTS_REDIS_CLIENT_TEST_CONNECTION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "blockbloom/redis_client.h"

namespace blockbloom::testing {

// To 127.0.0.1:`port`. These tests check behaviour, not speed: on a loaded
// CI machine creating a 576 MiB filter or a cluster resharding can take
// longer than the 1 s default (tests/redis_client/failure_test.cc tests
// timeouts), so each command gets 30 s.
inline absl::StatusOr<std::unique_ptr<redis::Connection>> ConnectForTest(
    int port) {
  redis::ConnectionOptions options;
  options.port = port;
  options.command_timeout = absl::Seconds(30);
  return redis::Connection::Connect(options);
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_CLIENT_TEST_CONNECTION_H_
