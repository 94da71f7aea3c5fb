// A small hiredis client for the module's integration tests: commands as
// vectors of (binary-safe) strings, replies copied into plain structs that
// gMock can match, pipelining for large batches, and a cluster client that
// follows MOVED redirections.
#ifndef BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_CLIENT_H_
#define BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_CLIENT_H_

#include <hiredis/hiredis.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"

namespace blockbloom::testing {

// A reply, copied out of hiredis's redisReply.
struct Reply {
  int type = REDIS_REPLY_NIL;
  long long integer = 0;
  std::string str;  // string, status, error (RESP2: doubles are strings)
  std::vector<Reply> elements;

  bool is_error() const { return type == REDIS_REPLY_ERROR; }
  bool is_nil() const { return type == REDIS_REPLY_NIL; }
  bool is_int() const { return type == REDIS_REPLY_INTEGER; }
  bool is_array() const { return type == REDIS_REPLY_ARRAY; }
  // A connection failure is reported as an error reply starting so.
  static Reply ConnectionError(const std::string& what) {
    Reply r;
    r.type = REDIS_REPLY_ERROR;
    r.str = "CONNECTION " + what;
    return r;
  }
  static Reply From(const redisReply* reply) {
    Reply r;
    if (reply == nullptr) return ConnectionError("no reply");
    r.type = reply->type;
    switch (reply->type) {
      case REDIS_REPLY_INTEGER:
        r.integer = reply->integer;
        break;
      case REDIS_REPLY_STRING:
      case REDIS_REPLY_STATUS:
      case REDIS_REPLY_ERROR:
        r.str.assign(reply->str, reply->len);
        break;
      case REDIS_REPLY_ARRAY:
        for (size_t i = 0; i < reply->elements; ++i) {
          r.elements.push_back(From(reply->element[i]));
        }
        break;
      default:
        break;
    }
    return r;
  }
  // Field `name` of a flat [name, value, name, value...] array (BF.INFO,
  // BB.INFO), or nil.
  Reply Field(const std::string& name) const {
    for (size_t i = 0; i + 1 < elements.size(); i += 2) {
      if (elements[i].str == name) return elements[i + 1];
    }
    return Reply();
  }
};

inline bool operator==(const Reply& a, const Reply& b) {
  return a.type == b.type && a.integer == b.integer && a.str == b.str &&
         a.elements == b.elements;
}

inline void PrintTo(const Reply& r, std::ostream* os) {
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      *os << "(integer) " << r.integer;
      break;
    case REDIS_REPLY_STRING:
      if (r.str.size() > 200) {
        *os << "\"" << r.str.substr(0, 200) << "...\" (" << r.str.size()
            << " bytes)";
      } else {
        *os << "\"" << r.str << "\"";
      }
      break;
    case REDIS_REPLY_STATUS:
      *os << "+" << r.str;
      break;
    case REDIS_REPLY_ERROR:
      *os << "(error) " << r.str;
      break;
    case REDIS_REPLY_NIL:
      *os << "(nil)";
      break;
    case REDIS_REPLY_ARRAY: {
      *os << "[";
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i > 0) *os << ", ";
        PrintTo(r.elements[i], os);
      }
      *os << "]";
      break;
    }
    default:
      *os << "(type " << r.type << ") " << r.str;
  }
}

MATCHER_P(IsInt, n, "is the integer " + ::testing::PrintToString(n)) {
  return arg.type == REDIS_REPLY_INTEGER && arg.integer == n;
}
MATCHER_P(IsStatus, s, "is the status +" + std::string(s)) {
  return arg.type == REDIS_REPLY_STATUS && arg.str == s;
}
MATCHER_P(IsBulk, s, "is the bulk string \"" + std::string(s) + "\"") {
  return arg.type == REDIS_REPLY_STRING && arg.str == s;
}
MATCHER(IsNil, "is nil") { return arg.type == REDIS_REPLY_NIL; }
MATCHER_P(IsErrorText, s, "is the error \"" + std::string(s) + "\"") {
  return arg.type == REDIS_REPLY_ERROR && arg.str == s;
}
MATCHER_P(IsErrorWith, s, "is an error containing \"" + std::string(s) + "\"") {
  return arg.type == REDIS_REPLY_ERROR && arg.str.find(s) != std::string::npos;
}
MATCHER(IsError, "is an error") { return arg.type == REDIS_REPLY_ERROR; }
// An array of the given integers.
MATCHER_P(IsInts, values,
          "is the integer array " + ::testing::PrintToString(values)) {
  if (arg.type != REDIS_REPLY_ARRAY || arg.elements.size() != values.size()) {
    return false;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (arg.elements[i].type != REDIS_REPLY_INTEGER ||
        arg.elements[i].integer != values[i]) {
      return false;
    }
  }
  return true;
}

inline const std::string kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

inline std::string ArityError(const std::string& lower_name) {
  return "ERR wrong number of arguments for '" + lower_name + "' command";
}

// One connection to 127.0.0.1:port, reconnecting on demand.
class Client {
 public:
  explicit Client(int port, int timeout_seconds = 60) : port_(port) {
    timeout_.tv_sec = timeout_seconds;
    timeout_.tv_usec = 0;
    Connect();
  }
  ~Client() {
    if (ctx_ != nullptr) redisFree(ctx_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int port() const { return port_; }
  bool Connect() {
    if (ctx_ != nullptr) redisFree(ctx_);
    ctx_ = redisConnectWithTimeout("127.0.0.1", port_, timeout_);
    if (ctx_ == nullptr || ctx_->err) {
      if (ctx_ != nullptr) redisFree(ctx_);
      ctx_ = nullptr;
      return false;
    }
    redisSetTimeout(ctx_, timeout_);
    return true;
  }
  bool connected() const { return ctx_ != nullptr && ctx_->err == 0; }

  Reply Command(const std::vector<std::string>& args) {
    if (!connected() && !Connect()) return Reply::ConnectionError("refused");
    Append(args);
    return GetReply();
  }
  // Pipelining: Append any number of commands, then GetReply once each.
  void Append(const std::vector<std::string>& args) {
    if (!connected() && !Connect()) return;
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    redisAppendCommandArgv(ctx_, static_cast<int>(args.size()), argv.data(),
                           lens.data());
  }
  // Writes the appended commands out without reading replies (to leave
  // with a command in flight).
  bool Flush() {
    if (!connected()) return false;
    int done = 0;
    while (!done) {
      if (redisBufferWrite(ctx_, &done) != REDIS_OK) return false;
    }
    return true;
  }
  Reply GetReply() {
    if (!connected()) return Reply::ConnectionError("lost");
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) {
      Reply r = Reply::ConnectionError(ctx_->errstr);
      redisFree(ctx_);
      ctx_ = nullptr;
      return r;
    }
    Reply r = Reply::From(static_cast<redisReply*>(raw));
    freeReplyObject(raw);
    return r;
  }

 private:
  int port_;
  timeval timeout_{};
  redisContext* ctx_ = nullptr;
};

// Waits until the server has loaded its data set (a server restarted with
// an RDB or AOF file accepts connections but answers LOADING until then).
inline bool WaitUntilLoaded(Client& client) {
  for (int i = 0; i < 3000; ++i) {
    const Reply r = client.Command({"PING"});
    if (r.type == REDIS_REPLY_STATUS) return true;
    usleep(10000);
  }
  return false;
}

// `n` items "<prefix><i>" for i in [begin, begin + n).
inline std::vector<std::string> Items(const std::string& prefix, uint64_t begin,
                                      uint64_t n) {
  std::vector<std::string> items;
  items.reserve(n);
  for (uint64_t i = begin; i < begin + n; ++i) {
    items.push_back(prefix + std::to_string(i));
  }
  return items;
}

// `command key items[i..]` in batches of `batch` items, pipelined; returns
// the concatenated integer replies (or -1 for an error element / reply).
inline std::vector<long long> Batched(Client& client,
                                      const std::string& command,
                                      const std::string& key,
                                      const std::vector<std::string>& items,
                                      size_t batch = 1000) {
  size_t sent = 0;
  for (size_t i = 0; i < items.size(); i += batch) {
    std::vector<std::string> args = {command, key};
    for (size_t j = i; j < std::min(items.size(), i + batch); ++j) {
      args.push_back(items[j]);
    }
    client.Append(args);
    ++sent;
  }
  std::vector<long long> out;
  out.reserve(items.size());
  for (size_t s = 0; s < sent; ++s) {
    const Reply r = client.GetReply();
    if (!r.is_array()) {
      out.push_back(-1);
      continue;
    }
    for (const Reply& e : r.elements)
      out.push_back(e.is_int() ? e.integer : -1);
  }
  return out;
}

// How many of the batched replies equal `value`.
inline size_t Count(const std::vector<long long>& replies, long long value) {
  size_t n = 0;
  for (long long r : replies) n += r == value;
  return n;
}

// The (iterator, chunk) pairs of a full BF.SCANDUMP of `key`, as clients
// save them; empty on an error (reported through *error).
inline std::vector<std::pair<long long, std::string>> ScanDumpAll(
    Client& client, const std::string& key, std::string* error = nullptr) {
  std::vector<std::pair<long long, std::string>> chunks;
  long long iter = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    const Reply r = client.Command({"BF.SCANDUMP", key, std::to_string(iter)});
    if (!r.is_array() || r.elements.size() != 2 || !r.elements[0].is_int()) {
      if (error != nullptr) {
        std::ostringstream os;
        PrintTo(r, &os);
        *error = os.str();
      }
      return {};
    }
    iter = r.elements[0].integer;
    if (iter == 0) break;
    chunks.emplace_back(iter, r.elements[1].str);
  }
  return chunks;
}

// The bytes of BB.DUMP key [LAYER layer], concatenated.
inline std::string BbDumpAll(Client& client, const std::string& key,
                             int layer = -1) {
  std::string bytes;
  std::vector<std::string> args = {"BB.DUMP", key, "0"};
  if (layer >= 0) {
    args.push_back("LAYER");
    args.push_back(std::to_string(layer));
  }
  for (int guard = 0; guard < 100000; ++guard) {
    const Reply r = client.Command(args);
    if (!r.is_array() || r.elements.size() != 2) return "";
    bytes += r.elements[1].str;
    if (r.elements[0].integer == 0) break;
    args = {"BB.DUMP", key, std::to_string(r.elements[0].integer)};
  }
  return bytes;
}

// Sends `file` with BB.LOAD in chunks of `chunk` bytes; returns the last
// reply (+OK when the load completed). `options` go with the first call.
inline Reply BbLoadAll(Client& client, const std::string& key,
                       const std::string& file, size_t chunk = 1 << 20,
                       const std::vector<std::string>& options = {}) {
  Reply last;
  size_t offset = 0;
  do {
    const size_t n = std::min(chunk, file.size() - offset);
    std::vector<std::string> args = {"BB.LOAD", key, std::to_string(offset),
                                     std::to_string(file.size()),
                                     file.substr(offset, n)};
    if (offset == 0) args.insert(args.end(), options.begin(), options.end());
    last = client.Command(args);
    if (last.is_error()) return last;
    offset += n;
  } while (offset < file.size());
  return last;
}

// A client of a Redis Cluster that follows MOVED (and ASK) redirections,
// opening connections to the nodes it is sent to.
class ClusterClient {
 public:
  explicit ClusterClient(int seed_port) : seed_port_(seed_port) {}

  // Sends `args`; follows up to 5 redirections. *redirections (if given) is
  // increased by the number followed.
  Reply Command(const std::vector<std::string>& args,
                int* redirections = nullptr) {
    int port = seed_port_;
    bool asking = false;
    for (int hop = 0; hop < 6; ++hop) {
      Client& c = To(port);
      if (asking) c.Command({"ASKING"});
      Reply r = c.Command(args);
      if (!r.is_error()) return r;
      const bool moved = r.str.rfind("MOVED ", 0) == 0;
      const bool ask = r.str.rfind("ASK ", 0) == 0;
      if (!moved && !ask) return r;
      const size_t colon = r.str.rfind(':');
      port = std::stoi(r.str.substr(colon + 1));
      asking = ask;
      if (redirections != nullptr) ++*redirections;
    }
    return Reply::ConnectionError("too many redirections");
  }

 private:
  Client& To(int port) {
    auto it = clients_.find(port);
    if (it == clients_.end()) {
      it = clients_.emplace(port, std::make_unique<Client>(port)).first;
    }
    return *it->second;
  }
  int seed_port_;
  std::map<int, std::unique_ptr<Client>> clients_;
};

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_REDIS_MODULE_MODULE_CLIENT_H_
