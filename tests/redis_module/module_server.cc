#include "tests/redis_module/module_server.h"

#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <utility>

namespace blockbloom::testing {

std::string RedisModulePath() {
  std::string path;
  if (const char* env = getenv("BLOCKBLOOM_REDIS_MODULE");
      env != nullptr && *env != '\0') {
    path = env;
  }
#ifdef BLOCKBLOOM_REDIS_MODULE_PATH
  if (path.empty()) path = BLOCKBLOOM_REDIS_MODULE_PATH;
#endif
  if (path.empty()) return path;
  // redis-server runs in its own scratch directory: a relative path (Bazel's
  // runfiles) must become absolute.
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.string();
}

std::vector<std::string> ModuleServerArgs(const ModuleServerOptions& options) {
  std::vector<std::string> args = {"--loadmodule", RedisModulePath()};
  args.insert(args.end(), options.module_args.begin(),
              options.module_args.end());
  if (options.debug_command) {
    args.push_back("--enable-debug-command");
    args.push_back("yes");
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  return args;
}

std::unique_ptr<RedisServer> NewModuleServer(
    const ModuleServerOptions& options) {
  return std::make_unique<RedisServer>(ModuleServerArgs(options));
}

std::unique_ptr<RedisCluster> NewModuleCluster(
    int masters, const ModuleServerOptions& options) {
  return std::make_unique<RedisCluster>(masters, ModuleServerArgs(options));
}

ModuleReplicaPair::ModuleReplicaPair(ModuleServerOptions options)
    : options_(std::move(options)), master_(NewModuleServer(options_)) {}

bool ModuleReplicaPair::Start() {
  if (!master_->Start()) return false;
  if (replica_ == nullptr) {
    ModuleServerOptions replica_options = options_;
    for (std::string arg :
         {std::string("--replicaof"), std::string("127.0.0.1"),
          std::to_string(master_->port())}) {
      replica_options.extra_args.push_back(std::move(arg));
    }
    replica_ = NewModuleServer(replica_options);
  }
  if (!replica_->Start()) return false;
  for (int i = 0; i < 1000; ++i) {
    std::string info;
    replica_->Cli({"INFO", "replication"}, &info);
    if (info.find("master_link_status:up") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fprintf(stderr, "the replica on port %d did not sync with port %d\n",
          replica_->port(), master_->port());
  return false;
}

namespace {

// The value of `field` in INFO text, or -1.
long long InfoField(const std::string& info, const std::string& field) {
  const size_t at = info.find(field + ":");
  if (at == std::string::npos) return -1;
  return std::atoll(info.c_str() + at + field.size() + 1);
}

}  // namespace

bool ModuleReplicaPair::WaitForReplica(int timeout_ms) {
  // Not WAIT: it waits for the calling connection's own writes, and a new
  // redis-cli connection has none (it returns at once). Instead: the
  // master's replication offset now, reached by the replica's.
  std::string info;
  if (!master_->Cli({"INFO", "replication"}, &info)) return false;
  const long long target = InfoField(info, "master_repl_offset");
  if (target < 0) return false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  do {
    if (replica_->Cli({"INFO", "replication"}, &info) &&
        info.find("master_link_status:up") != std::string::npos &&
        InfoField(info, "slave_repl_offset") >= target) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

}  // namespace blockbloom::testing
