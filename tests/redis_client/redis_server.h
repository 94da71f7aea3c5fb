// Real redis-server processes for tests and benchmarks: a standalone server
// or a cluster of N masters on free loopback ports, started with
// `--save '' --appendonly no` in a scratch directory and stopped by pid.
#ifndef BLOCKBLOOM_TESTS_REDIS_CLIENT_REDIS_SERVER_H_
#define BLOCKBLOOM_TESTS_REDIS_CLIENT_REDIS_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace blockbloom::testing {

// One redis-server process. Start() picks a free port (or reuses the last
// one, for restarts) and waits until the server answers PING.
//
// When the environment has BLOCKBLOOM_REDIS_SERVER_PRELOAD, the server (and
// only it, not redis-cli) runs with LD_PRELOAD set to it and LeakSanitizer
// off: a sanitized Redis module needs the sanitizer's runtime loaded first
// (tests/redis_module/CMakeLists.txt sets it in the sanitizer build).
class RedisServer {
 public:
  // `extra_args` are appended to the command line, e.g. {"--requirepass",
  // "secret"}. `cpu` >= 0 pins the server to that core (taskset).
  explicit RedisServer(std::vector<std::string> extra_args = {}, int cpu = -1);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // False (with the reason on stderr) if redis-server is missing or does not
  // come up within 10 s.
  bool Start();
  // SIGKILL (a crash) or SIGTERM (a clean shutdown), and wait for the pid.
  void Kill();
  void Stop();
  // Starts again on the same port (a server restarted mid-run), empty.
  bool Restart() {
    Kill();
    return Start();
  }
  bool running() const { return pid_ > 0; }
  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  // Runs redis-cli against this server with `args`; returns its stdout (and
  // false on a non-zero exit).
  bool Cli(const std::vector<std::string>& args, std::string* out = nullptr,
           const std::vector<std::string>& auth = {}) const;

 private:
  std::vector<std::string> extra_args_;
  int cpu_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string dir_;
};

// A Redis Cluster of `masters` nodes with no replicas, created with
// `redis-cli --cluster create`; Start() returns when every node reports
// cluster_state:ok. `extra_args` are appended to every node's command line
// (e.g. {"--loadmodule", path}).
class RedisCluster {
 public:
  explicit RedisCluster(int masters = 3,
                        const std::vector<std::string>& extra_args = {});
  bool Start();
  int port(int node) const { return nodes_[node]->port(); }
  RedisServer& node(int i) { return *nodes_[i]; }
  int size() const { return static_cast<int>(nodes_.size()); }
  // The index of the node that serves `slot` now (CLUSTER SLOTS), or -1.
  int NodeForSlot(int slot) const;
  // Moves `slot` from node `from` to node `to` (MIGRATING/IMPORTING, MIGRATE
  // of its keys, SETSLOT NODE on every node), as `redis-cli --cluster
  // reshard` does for one slot. False on any failure.
  bool MigrateSlot(int slot, int from, int to);
  // Sets up the first half of a migration only (MIGRATING on `from`,
  // IMPORTING on `to`, and moves the slot's keys): requests for keys of
  // `slot` now get ASK redirections. FinishMigration completes it.
  bool StartMigration(int slot, int from, int to);
  bool FinishMigration(int slot, int from, int to);
  std::string NodeId(int node) const;

 private:
  std::vector<std::unique_ptr<RedisServer>> nodes_;
};

// CRC16-XMODEM of the hash tag of `key`, mod 16384, as the cluster computes
// it (an independent implementation from the library's).
int KeySlot(const std::string& key);

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_CLIENT_REDIS_SERVER_H_
