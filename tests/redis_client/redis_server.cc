#include "tests/redis_client/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace blockbloom::testing {
namespace {

// A port the kernel says is free now (bind to port 0, read it back). A
// cluster node also needs port + 10000 (its bus port) free.
int FreePort() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      close(fd);
      continue;
    }
    close(fd);
    const int port = ntohs(addr.sin_port);
    if (port < 55535) return port;  // leaves room for the cluster bus port
  }
  return 0;
}

bool Run(const std::vector<std::string>& argv, std::string* out) {
  std::string command;
  for (const std::string& arg : argv) {
    command += "'";
    for (char c : arg) {
      if (c == '\'') {
        command += "'\\''";
      } else {
        command += c;
      }
    }
    command += "' ";
  }
  command += "2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  const int status = pclose(pipe);
  if (out != nullptr) *out = text;
  return status == 0;
}

std::string Trim(std::string s) {
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.pop_back();
  return s;
}

}  // namespace

RedisServer::RedisServer(std::vector<std::string> extra_args, int cpu)
    : extra_args_(std::move(extra_args)), cpu_(cpu) {
  char pattern[] = "/tmp/blockbloom-redis-XXXXXX";
  if (mkdtemp(pattern) != nullptr) dir_ = pattern;
}

RedisServer::~RedisServer() {
  Kill();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

bool RedisServer::Start() {
  if (pid_ > 0) return true;
  if (port_ == 0) port_ = FreePort();
  std::vector<std::string> args;
  if (cpu_ >= 0) {
    args = {"taskset", "-c", std::to_string(cpu_)};
  }
  for (const char* arg : {"redis-server", "--port"}) args.push_back(arg);
  args.push_back(std::to_string(port_));
  for (const char* arg : {"--bind", "127.0.0.1", "--save", "", "--appendonly",
                          "no", "--protected-mode", "no", "--daemonize", "no",
                          "--logfile", "redis.log"}) {
    args.push_back(arg);
  }
  args.push_back("--dir");
  args.push_back(dir_);
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());

  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    // If the test process dies (a crash, a signal), its servers die with
    // it: a leftover server would hold ctest's output pipe open and hang it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (const char* preload = getenv("BLOCKBLOOM_REDIS_SERVER_PRELOAD");
        preload != nullptr && *preload != '\0') {
      setenv("LD_PRELOAD", preload, 1);
      // The server frees little at exit: no leak report of its own memory.
      const char* asan = getenv("ASAN_OPTIONS");
      std::string options = asan != nullptr ? asan : "";
      options += options.empty() ? "detect_leaks=0" : ":detect_leaks=0";
      setenv("ASAN_OPTIONS", options.c_str(), 1);
    }
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  // Wait for the port to accept and the server to answer.
  for (int i = 0; i < 1000; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      fprintf(stderr, "redis-server exited at start (see %s/redis.log)\n",
              dir_.c_str());
      pid_ = -1;
      return false;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    const bool up =
        connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    close(fd);
    if (up) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fprintf(stderr, "redis-server did not start on port %d\n", port_);
  Kill();
  return false;
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void RedisServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool RedisServer::Cli(const std::vector<std::string>& args, std::string* out,
                      const std::vector<std::string>& auth) const {
  std::vector<std::string> argv = {"redis-cli", "-h", "127.0.0.1", "-p",
                                   std::to_string(port_)};
  argv.insert(argv.end(), auth.begin(), auth.end());
  argv.insert(argv.end(), args.begin(), args.end());
  std::string text;
  const bool ok = Run(argv, &text);
  if (out != nullptr) *out = Trim(text);
  return ok;
}

RedisCluster::RedisCluster(int masters,
                           const std::vector<std::string>& extra_args) {
  for (int i = 0; i < masters; ++i) {
    std::vector<std::string> args = {"--cluster-enabled",      "yes",
                                     "--cluster-config-file",  "nodes.conf",
                                     "--cluster-node-timeout", "5000"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    nodes_.push_back(std::make_unique<RedisServer>(std::move(args)));
  }
}

bool RedisCluster::Start() {
  std::vector<std::string> create = {"redis-cli", "--cluster", "create"};
  for (auto& node : nodes_) {
    if (!node->Start()) return false;
    create.push_back("127.0.0.1:" + std::to_string(node->port()));
  }
  for (const char* arg : {"--cluster-replicas", "0", "--cluster-yes"}) {
    create.push_back(arg);
  }
  std::string out;
  if (!Run(create, &out)) {
    fprintf(stderr, "redis-cli --cluster create failed:\n%s\n", out.c_str());
    return false;
  }
  for (int i = 0; i < 1000; ++i) {
    bool all_ok = true;
    for (auto& node : nodes_) {
      std::string info;
      node->Cli({"CLUSTER", "INFO"}, &info);
      all_ok &= info.find("cluster_state:ok") != std::string::npos;
    }
    // Every node must also agree on the slot map.
    for (int n = 0; all_ok && n < size(); ++n) {
      std::string slots;
      nodes_[n]->Cli({"CLUSTER", "COUNTKEYSINSLOT", "0"}, &slots);
      all_ok &= !slots.empty();
    }
    if (all_ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fprintf(stderr, "cluster did not reach cluster_state:ok\n");
  return false;
}

std::string RedisCluster::NodeId(int node) const {
  std::string id;
  nodes_[node]->Cli({"CLUSTER", "MYID"}, &id);
  return id;
}

int RedisCluster::NodeForSlot(int slot) const {
  // CLUSTER SLOTS as text: ranges followed by their master's ip and port.
  std::string text;
  nodes_[0]->Cli({"CLUSTER", "SLOTS"}, &text);
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  // Layout: start end ip port id [replicas...] repeated; find a start <= slot
  // <= end followed by ip and port.
  for (size_t i = 0; i + 3 < words.size(); ++i) {
    char* end = nullptr;
    const long lo = strtol(words[i].c_str(), &end, 10);
    if (*end != '\0') continue;
    const long hi = strtol(words[i + 1].c_str(), &end, 10);
    if (*end != '\0' || words[i + 2] != "127.0.0.1") continue;
    const long port = strtol(words[i + 3].c_str(), &end, 10);
    if (lo <= slot && slot <= hi) {
      for (int n = 0; n < size(); ++n) {
        if (nodes_[n]->port() == port) return n;
      }
    }
  }
  return -1;
}

bool RedisCluster::StartMigration(int slot, int from, int to) {
  const std::string s = std::to_string(slot);
  if (!nodes_[to]->Cli({"CLUSTER", "SETSLOT", s, "IMPORTING", NodeId(from)}) ||
      !nodes_[from]->Cli({"CLUSTER", "SETSLOT", s, "MIGRATING", NodeId(to)})) {
    return false;
  }
  for (;;) {
    std::string keys;
    nodes_[from]->Cli({"CLUSTER", "GETKEYSINSLOT", s, "100"}, &keys);
    if (keys.empty()) return true;
    std::istringstream in(keys);
    std::vector<std::string> migrate = {
        "MIGRATE", "127.0.0.1", std::to_string(nodes_[to]->port()), "", "0",
        "5000",    "KEYS"};
    for (std::string key; std::getline(in, key);) migrate.push_back(key);
    std::string out;
    if (!nodes_[from]->Cli(migrate, &out) || out.rfind("OK", 0) != 0) {
      fprintf(stderr, "MIGRATE failed: %s\n", out.c_str());
      return false;
    }
  }
}

bool RedisCluster::FinishMigration(int slot, int from, int to) {
  const std::string s = std::to_string(slot);
  const std::string owner = NodeId(to);
  bool ok = nodes_[to]->Cli({"CLUSTER", "SETSLOT", s, "NODE", owner}) &&
            nodes_[from]->Cli({"CLUSTER", "SETSLOT", s, "NODE", owner});
  for (int n = 0; n < size(); ++n) {
    if (n != from && n != to) {
      ok &= nodes_[n]->Cli({"CLUSTER", "SETSLOT", s, "NODE", owner});
    }
  }
  return ok;
}

bool RedisCluster::MigrateSlot(int slot, int from, int to) {
  return StartMigration(slot, from, to) && FinishMigration(slot, from, to);
}

// Bitwise CRC16, not the library's table (src/redis_client/router.cc): an
// oracle written apart from the code it checks.
int KeySlot(const std::string& key) {
  std::string tag = key;
  const size_t open = key.find('{');
  if (open != std::string::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string::npos && close > open + 1) {
      tag = key.substr(open + 1, close - open - 1);
    }
  }
  uint16_t crc = 0;
  for (unsigned char c : tag) {
    crc ^= static_cast<uint16_t>(c) << 8;
    for (int i = 0; i < 8; ++i) {
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
    }
  }
  return crc % 16384;
}

}  // namespace blockbloom::testing
