// The fixture of the module's command tests: one redis-server that loads the
// module for the whole suite (each test uses its own keys), a client per
// test, and a check after each test that the server is still up.
#ifndef BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_TEST_H_
#define BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_TEST_H_

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"

namespace blockbloom::testing {

class ModuleTest : public ::testing::Test {
 protected:
  // The server's options: a suite that needs others (DEBUG RELOAD, say)
  // starts its server with StartServer(options) in its own
  // SetUpTestSuite.
  static void SetUpTestSuite() { StartServer({}); }
  static void StartServer(const ModuleServerOptions& options) {
    server_ = NewModuleServer(options).release();
    ASSERT_TRUE(server_->Start()) << "module: " << RedisModulePath();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    ASSERT_TRUE(server_->running());
    client_ = std::make_unique<Client>(server_->port());
    ASSERT_TRUE(client_->connected());
  }
  void TearDown() override {
    // Whatever a test sent, the server must still be up.
    EXPECT_THAT(client_->Command({"PING"}), IsStatus("PONG"));
  }
  Reply Cmd(const std::vector<std::string>& args) {
    return client_->Command(args);
  }

  static inline RedisServer* server_ = nullptr;
  std::unique_ptr<Client> client_;
};

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_TEST_H_
