// redis-server processes with the blockbloom module loaded, for the module's
// tests: a standalone server, a master with a replica, a cluster. Built on
// tests/redis_client/redis_server.h (free loopback ports, scratch directories,
// stopped by pid).
//
// The module's path comes from the environment variable
// BLOCKBLOOM_REDIS_MODULE (ctest's ENVIRONMENT in CMake, the test's `env`
// in Bazel), else from the compile definition BLOCKBLOOM_REDIS_MODULE_PATH.
#ifndef BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_SERVER_H_
#define BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "tests/redis_client/redis_server.h"

namespace blockbloom::testing {

// The absolute path of blockbloom.so, or "" when the test was given none.
std::string RedisModulePath();

struct ModuleServerOptions {
  // --enable-debug-command yes: DEBUG RELOAD (an RDB save and load in
  // place), DEBUG DIGEST-VALUE and the other DEBUG subcommands.
  bool debug_command = false;
  // Arguments of the module itself: --loadmodule PATH module_args...
  std::vector<std::string> module_args;
  // Appended to the command line, e.g. {"--maxmemory", "100mb"}.
  std::vector<std::string> extra_args;
};

// The command-line arguments that load the module with `options`.
std::vector<std::string> ModuleServerArgs(
    const ModuleServerOptions& options = {});

// A standalone redis-server with the module loaded (Start() it).
std::unique_ptr<RedisServer> NewModuleServer(
    const ModuleServerOptions& options = {});

// A cluster of `masters` nodes, each with the module loaded (Start() it).
std::unique_ptr<RedisCluster> NewModuleCluster(
    int masters = 3, const ModuleServerOptions& options = {});

// A master and one replica (--replicaof 127.0.0.1 <master port>), both with
// the module loaded and `options`. Start() returns once the replica has
// synced (master_link_status:up).
class ModuleReplicaPair {
 public:
  explicit ModuleReplicaPair(ModuleServerOptions options = {});
  // False, with the reason on stderr, if either server does not come up or
  // the replica does not sync within 10 s.
  bool Start();
  // True once the replica has processed every write the master made before
  // the call (its replication offset reached the master's), false after
  // timeout_ms.
  bool WaitForReplica(int timeout_ms = 5000);
  RedisServer& master() { return *master_; }
  RedisServer& replica() { return *replica_; }

 private:
  ModuleServerOptions options_;
  std::unique_ptr<RedisServer> master_;
  std::unique_ptr<RedisServer> replica_;
};

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_SERVER_H_
