// blockbloom.so loads into Debian's redis-server: MODULE LIST names it, its
// commands answer, on a standalone server, across DEBUG RELOAD, on a replica
// and on every node of a cluster. Checks the build plumbing and the test
// fixture (module_server.h) that the module's other tests use.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_server.h"

namespace blockbloom::testing {
namespace {

using ::testing::HasSubstr;

std::string Reply(const RedisServer& server,
                  const std::vector<std::string>& args) {
  std::string out;
  server.Cli(args, &out);
  return out;
}

TEST(ModuleLoad, PathIsGiven) {
  ASSERT_FALSE(RedisModulePath().empty())
      << "set BLOCKBLOOM_REDIS_MODULE to the path of blockbloom.so";
}

TEST(ModuleLoad, ModuleListAndPing) {
  auto server = NewModuleServer();
  ASSERT_TRUE(server->Start()) << "module: " << RedisModulePath();
  EXPECT_THAT(Reply(*server, {"MODULE", "LIST"}), HasSubstr("blockbloom"));
  EXPECT_EQ(Reply(*server, {"BF.ADD", "f", "a"}), "1");
  // Command names are case-insensitive.
  EXPECT_EQ(Reply(*server, {"bf.exists", "f", "a"}), "1");
}

TEST(ModuleLoad, SurvivesDebugReload) {
  ModuleServerOptions options;
  options.debug_command = true;
  auto server = NewModuleServer(options);
  ASSERT_TRUE(server->Start());
  EXPECT_EQ(Reply(*server, {"BF.ADD", "f", "a"}), "1");
  EXPECT_EQ(Reply(*server, {"DEBUG", "RELOAD"}), "OK");
  EXPECT_EQ(Reply(*server, {"BF.EXISTS", "f", "a"}), "1");
}

TEST(ModuleLoad, ReplicaLoadsItToo) {
  ModuleReplicaPair pair;
  ASSERT_TRUE(pair.Start());
  EXPECT_EQ(Reply(pair.master(), {"SET", "k", "v"}), "OK");
  EXPECT_TRUE(pair.WaitForReplica());
  EXPECT_EQ(Reply(pair.replica(), {"GET", "k"}), "v");
  EXPECT_THAT(Reply(pair.replica(), {"MODULE", "LIST"}),
              HasSubstr("blockbloom"));
  EXPECT_THAT(Reply(pair.replica(), {"COMMAND", "INFO", "BF.ADD"}),
              HasSubstr("bf.add"));
}

TEST(ModuleLoad, EveryClusterNode) {
  auto cluster = NewModuleCluster(3);
  ASSERT_TRUE(cluster->Start());
  for (int i = 0; i < cluster->size(); ++i) {
    EXPECT_THAT(Reply(cluster->node(i), {"MODULE", "LIST"}),
                HasSubstr("blockbloom"))
        << "node " << i;
    EXPECT_THAT(Reply(cluster->node(i), {"COMMAND", "INFO", "BF.ADD"}),
                HasSubstr("bf.add"))
        << "node " << i;
  }
}

}  // namespace
}  // namespace blockbloom::testing
