#include "src/redis_client/router.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <charconv>
#include <cstring>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "src/core/crc16.h"

namespace blockbloom::redis::internal {
namespace {

timeval TimevalOf(absl::Duration d) {
  if (d <= absl::ZeroDuration()) d = absl::Seconds(1);
  if (d == absl::InfiniteDuration()) d = absl::Hours(24);
  return absl::ToTimeval(d);
}

bool ParseInt(std::string_view text, int* value) {
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

uint16_t KeySlot(std::string_view key) {
  const size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  // Redis Cluster's CRC-16 is XMODEM: ours (src/core/crc16.h) from 0.
  const uint16_t crc = blockbloom::internal::Crc16(
      0, reinterpret_cast<const uint8_t*>(key.data()), key.size());
  return crc & (kClusterSlots - 1);
}

absl::StatusOr<std::vector<SlotRange>> ParseClusterSlots(
    const redisReply& reply) {
  auto malformed = [](std::string_view why) {
    return absl::InternalError(
        absl::StrCat("CLUSTER SLOTS: unexpected reply (", Av(why), ")"));
  };
  if (reply.type != REDIS_REPLY_ARRAY) return malformed("not an array");
  std::vector<SlotRange> ranges;
  for (size_t i = 0; i < reply.elements; ++i) {
    const redisReply* range = reply.element[i];
    if (range == nullptr || range->type != REDIS_REPLY_ARRAY ||
        range->elements < 3) {
      return malformed("a range is not [first, last, master, ...]");
    }
    const redisReply* first = range->element[0];
    const redisReply* last = range->element[1];
    const redisReply* master = range->element[2];
    if (first->type != REDIS_REPLY_INTEGER ||
        last->type != REDIS_REPLY_INTEGER || first->integer < 0 ||
        last->integer >= kClusterSlots || first->integer > last->integer) {
      return malformed("bad slot numbers");
    }
    if (master->type != REDIS_REPLY_ARRAY || master->elements < 2 ||
        master->element[0]->type != REDIS_REPLY_STRING ||
        master->element[1]->type != REDIS_REPLY_INTEGER ||
        master->element[1]->integer <= 0 ||
        master->element[1]->integer > 65535) {
      return malformed("bad master address");
    }
    ranges.push_back(
        {static_cast<int>(first->integer), static_cast<int>(last->integer),
         std::string(master->element[0]->str, master->element[0]->len),
         static_cast<int>(master->element[1]->integer)});
  }
  return ranges;
}

std::optional<Redirect> ParseRedirect(std::string_view error) {
  Redirect redirect;
  if (error.substr(0, 6) == "MOVED ") {
    error.remove_prefix(6);
  } else if (error.substr(0, 4) == "ASK ") {
    error.remove_prefix(4);
    redirect.ask = true;
  } else {
    return std::nullopt;
  }
  const size_t space = error.find(' ');
  const size_t colon = error.rfind(':');
  if (space == std::string_view::npos || colon == std::string_view::npos ||
      colon < space || !ParseInt(error.substr(0, space), &redirect.slot) ||
      !ParseInt(error.substr(colon + 1), &redirect.port) || redirect.slot < 0 ||
      redirect.slot >= kClusterSlots || redirect.port <= 0 ||
      redirect.port > 65535) {
    return std::nullopt;
  }
  redirect.host = std::string(error.substr(space + 1, colon - space - 1));
  return redirect;
}

struct Router::Node {
  std::string host;
  int port = 0;
  redisContext* context = nullptr;
  // Per Execute(): the bytes to send and, for each reply expected, the
  // request it answers (-1: the reply to an ASKING, to be dropped).
  std::string out;
  // Batches written to this node whose replies are not read yet, oldest
  // first, with the requests each reply answers (-1: the reply to an
  // ASKING, dropped).
  struct Pending {
    Batch* batch;
    std::vector<long> expected;
  };
  std::deque<Pending> pending;
  // Emptied `expected` vectors, reused: no allocation per batch.
  std::vector<std::vector<long>> spare;
  std::vector<long> TakeSpare() {
    if (spare.empty()) return {};
    std::vector<long> v = std::move(spare.back());
    spare.pop_back();
    v.clear();
    return v;
  }

  std::string Name() const { return absl::StrCat(host, ":", port); }
  void Close() {
    if (context != nullptr) redisFree(context);
    context = nullptr;
  }
  ~Node() { Close(); }
};

Router::Router(const ConnectionOptions& options) : options_(options) {
  slot_node_.fill(-1);
}

Router::~Router() = default;

absl::StatusOr<std::unique_ptr<Router>> Router::Connect(
    const ConnectionOptions& options) {
  if (options.host.empty() || options.port <= 0 || options.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Redis address \"", options.host, ":", options.port, "\" is invalid"));
  }
  std::unique_ptr<Router> router(new Router(options));
  router->nodes_.push_back(std::make_unique<Node>());
  Node& seed = *router->nodes_[0];
  seed.host = options.host;
  seed.port = options.port;
  if (options.mode == ConnectionOptions::Mode::kStandalone) {
    if (absl::Status s = router->ConnectNode(seed); !s.ok()) return s;
    return router;
  }
  // Cluster or not: CLUSTER SLOTS answers an error on a standalone server.
  // (Connected as a cluster client first: no SELECT until we know.)
  router->cluster_ = true;
  absl::Status loaded = router->LoadSlots(seed);
  if (!loaded.ok()) {
    router->cluster_ = false;
    if (loaded.code() != absl::StatusCode::kFailedPrecondition ||
        options.mode == ConnectionOptions::Mode::kCluster) {
      return loaded;
    }
    if (options.database != 0) {
      seed.Close();  // reconnect with SELECT
      if (absl::Status s = router->ConnectNode(seed); !s.ok()) return s;
    }
  } else if (options.database != 0) {
    return absl::InvalidArgumentError(
        "Redis Cluster has only database 0; remove the database from the "
        "URL or options");
  }
  return router;
}

absl::Status Router::NodeFailed(Node& node, std::string_view doing) {
  const redisContext* c = node.context;
  const int err = c != nullptr ? c->err : REDIS_ERR_OTHER;
  const std::string why = c != nullptr ? c->errstr : "out of memory";
  node.Close();
  slots_stale_ = cluster_;
  const std::string message =
      absl::StrCat("Redis ", node.Name(), ": ", Av(doing), " failed: ", why);
  // hiredis reports a timeout of a blocking socket as an I/O error with
  // EAGAIN ("Resource temporarily unavailable").
  if ((err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK ||
                               errno == ETIMEDOUT || errno == EINPROGRESS)) ||
      why.find("temporarily unavailable") != std::string::npos ||
      why.find("timed out") != std::string::npos) {
    return absl::DeadlineExceededError(
        absl::StrCat(message,
                     " (timeout; the connection was dropped and is "
                     "reopened on the next call)"));
  }
  return absl::UnavailableError(message);
}

// Writes with send(MSG_NOSIGNAL) instead of hiredis's write(): a write to a
// socket whose peer has gone must fail with EPIPE, not raise SIGPIPE (which
// kills a process that has not ignored it, and a library must not change the
// process's signal handling). Also saves hiredis's copy into its output
// buffer. The socket is blocking with SO_SNDTIMEO = command_timeout.
absl::Status Router::Write(Node& node, std::string_view bytes,
                           std::string_view doing) {
  const int fd = node.context->fd;
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int error = n < 0 ? errno : EPIPE;
    node.Close();
    slots_stale_ = cluster_;
    const std::string message =
        absl::StrCat("Redis ", node.Name(), ": ", Av(doing),
                     " failed: ", std::strerror(error));
    if (error == EAGAIN || error == EWOULDBLOCK) {
      return absl::DeadlineExceededError(
          absl::StrCat(message,
                       " (timeout; the connection was dropped and "
                       "is reopened on the next call)"));
    }
    return absl::UnavailableError(message);
  }
  return absl::OkStatus();
}

absl::Status Router::ConnectNode(Node& node) {
  if (node.context != nullptr) return absl::OkStatus();
  node.context = redisConnectWithTimeout(node.host.c_str(), node.port,
                                         TimevalOf(options_.connect_timeout));
  if (node.context == nullptr || node.context->err) {
    return NodeFailed(node, "connect");
  }
  if (redisSetTimeout(node.context, TimevalOf(options_.command_timeout)) !=
      REDIS_OK) {
    return NodeFailed(node, "setting the timeout");
  }
  redisEnableKeepAlive(node.context);

  // AUTH and SELECT, in one round trip.
  std::string hello;
  int replies = 0;
  if (!options_.password.empty()) {
    if (options_.username.empty()) {
      AppendCommand(&hello, {"AUTH", options_.password});
    } else {
      AppendCommand(&hello, {"AUTH", options_.username, options_.password});
    }
    ++replies;
  }
  if (options_.database != 0 && !cluster_) {
    AppendCommand(&hello, {"SELECT", std::to_string(options_.database)});
    ++replies;
  }
  if (replies == 0) return absl::OkStatus();
  if (absl::Status s = Write(node, hello, "AUTH/SELECT"); !s.ok()) return s;
  absl::Status status;
  for (int i = 0; i < replies; ++i) {
    void* raw = nullptr;
    if (redisGetReply(node.context, &raw) != REDIS_OK) {
      return NodeFailed(node, "AUTH/SELECT");
    }
    Reply reply(static_cast<redisReply*>(raw));
    if (status.ok()) {
      status =
          CheckReply(*reply, absl::StrCat("Redis ", node.Name(),
                                          i == 0 && !options_.password.empty()
                                              ? ": AUTH"
                                              : ": SELECT"));
    }
  }
  ++round_trips_;
  if (!status.ok()) {
    node.Close();
    if (status.code() == absl::StatusCode::kInternal &&
        status.message().find("AUTH") != absl::string_view::npos) {
      return absl::PermissionDeniedError(status.message());
    }
  }
  return status;
}

int Router::NodeIndex(std::string_view host, int port) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->host == host && nodes_[i]->port == port) {
      return static_cast<int>(i);
    }
  }
  nodes_.push_back(std::make_unique<Node>());
  nodes_.back()->host = std::string(host);
  nodes_.back()->port = port;
  return static_cast<int>(nodes_.size() - 1);
}

// CLUSTER SLOTS: [[start, end, [host, port, id, ...], replicas...], ...].
absl::Status Router::LoadSlots(Node& node) {
  if (absl::Status s = ConnectNode(node); !s.ok()) return s;
  std::string command;
  AppendCommand(&command, {"CLUSTER", "SLOTS"});
  if (absl::Status s = Write(node, command, "CLUSTER SLOTS"); !s.ok()) {
    return s;
  }
  void* raw = nullptr;
  if (redisGetReply(node.context, &raw) != REDIS_OK) {
    return NodeFailed(node, "CLUSTER SLOTS");
  }
  ++round_trips_;
  Reply reply(static_cast<redisReply*>(raw));
  if (reply->type == REDIS_REPLY_ERROR) {
    // "ERR This instance has cluster support disabled": standalone. Any
    // other error (NOAUTH, NOPERM...) is an error.
    const std::string_view text(reply->str, reply->len);
    if (text.find("cluster support disabled") == std::string_view::npos) {
      return ErrorReplyStatus(
          *reply, absl::StrCat("Redis ", node.Name(), ": CLUSTER SLOTS"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "Redis ", node.Name(),
        " is not a cluster node: ", absl::string_view(reply->str, reply->len)));
  }
  const std::string asked_host = node.host;  // nodes_ may grow below
  auto ranges = ParseClusterSlots(*reply);
  if (!ranges.ok()) return ranges.status();
  std::array<int16_t, kClusterSlots> map;
  map.fill(-1);
  for (const SlotRange& range : *ranges) {
    // An empty or "?" endpoint means "the address you reached me at".
    const std::string host =
        range.host.empty() || range.host == "?" ? asked_host : range.host;
    const int index = NodeIndex(host, range.port);
    for (int slot = range.first; slot <= range.last; ++slot) {
      map[slot] = static_cast<int16_t>(index);
    }
  }
  slot_node_ = map;
  slots_stale_ = false;
  return absl::OkStatus();
}

absl::Status Router::RefreshSlots() {
  absl::Status last = absl::UnavailableError("no cluster node to ask");
  for (size_t i = 0; i < nodes_.size(); ++i) {
    last = LoadSlots(*nodes_[i]);
    if (last.ok()) return last;
  }
  return last;
}

absl::Status Router::Fail(absl::Status status) {
  for (auto& node : nodes_) {
    if (!node->pending.empty()) node->Close();
    node->pending.clear();
  }
  for (Batch* batch : in_flight_) {
    batch->status = status;
    batch->read = true;
  }
  in_flight_.clear();
  return status;
}

absl::Status Router::Send(Batch* batch) {
  const size_t n = batch->requests.size();
  batch->replies.clear();
  batch->replies.resize(n);
  batch->redirected.clear();
  batch->ask.assign(n, -1);
  batch->status = absl::OkStatus();
  batch->read = false;
  return SendSome(batch, nullptr);
}

// Sends batch->requests (or only those listed in `only`) to their nodes.
absl::Status Router::SendSome(Batch* batch, const std::vector<size_t>* only) {
  if (cluster_ && slots_stale_ && in_flight_.empty()) {
    RefreshSlots().IgnoreError();
  }
  // Group by node: each node's commands in one buffer, one write.
  std::vector<Node*> used;
  const size_t count = only ? only->size() : batch->requests.size();
  for (size_t j = 0; j < count; ++j) {
    const size_t i = only ? (*only)[j] : j;
    int n = 0;
    if (batch->ask[i] >= 0) {
      n = batch->ask[i];
    } else if (cluster_) {
      n = slot_node_[batch->requests[i].slot];
      if (n < 0) {
        return Fail(absl::UnavailableError(absl::StrCat(
            "Redis Cluster: no node serves slot ", batch->requests[i].slot,
            " (is the cluster down or being resharded?)")));
      }
    }
    Node& node = *nodes_[n];
    if (node.pending.empty() || node.pending.back().batch != batch) {
      node.pending.push_back({batch, node.TakeSpare()});
      node.out.clear();
      used.push_back(&node);
    }
    if (batch->ask[i] >= 0) {
      AppendCommand(&node.out, {"ASKING"});
      node.pending.back().expected.push_back(-1);
    }
    node.out.append(batch->requests[i].resp);
    node.pending.back().expected.push_back(static_cast<long>(i));
  }
  for (Node* node : used) {
    if (absl::Status s = ConnectNode(*node); !s.ok()) return Fail(s);
    if (absl::Status s = Write(*node, node->out, "sending commands"); !s.ok()) {
      return Fail(s);
    }
  }
  in_flight_.push_back(batch);
  return absl::OkStatus();
}

// Reads every reply of `batch`, which must be the oldest batch in flight.
absl::Status Router::ReadBatch(Batch* batch) {
  for (auto& owned : nodes_) {
    Node& node = *owned;
    if (node.pending.empty() || node.pending.front().batch != batch) continue;
    ++round_trips_;
    for (long index : node.pending.front().expected) {
      void* raw = nullptr;
      if (redisGetReply(node.context, &raw) != REDIS_OK) {
        return Fail(NodeFailed(node, "reading replies"));
      }
      Reply reply(static_cast<redisReply*>(raw));
      if (index < 0) continue;  // +OK to ASKING
      const size_t i = static_cast<size_t>(index);
      batch->ask[i] = -1;
      if (reply->type == REDIS_REPLY_ERROR && cluster_) {
        const std::optional<Redirect> redirect =
            ParseRedirect(std::string_view(reply->str, reply->len));
        if (redirect.has_value()) {
          const int target =
              NodeIndex(redirect->host.empty() ? node.host : redirect->host,
                        redirect->port);
          ++redirections_;
          if (redirect->ask) {
            batch->ask[i] = target;
          } else {
            slot_node_[redirect->slot] = static_cast<int16_t>(target);
            slots_stale_ = true;
          }
          batch->redirected.push_back(i);
          continue;
        }
      }
      batch->replies[i] = std::move(reply);
    }
    node.spare.push_back(std::move(node.pending.front().expected));
    node.pending.pop_front();
  }
  batch->read = true;
  if (!in_flight_.empty() && in_flight_.front() == batch) {
    in_flight_.pop_front();
  }
  return absl::OkStatus();
}

absl::Status Router::Receive(Batch* batch) {
  if (!batch->read) {
    if (in_flight_.empty() || in_flight_.front() != batch) {
      return absl::InternalError("Router::Receive out of order");
    }
    if (absl::Status s = ReadBatch(batch); !s.ok()) return s;
  }
  if (!batch->status.ok()) return batch->status;
  // Redirected requests: once every later batch's replies are read (the
  // connections must be idle to send and read the retries alone), send
  // them again, at most 5 times.
  for (int attempt = 0; !batch->redirected.empty(); ++attempt) {
    if (attempt == 5) {
      return absl::UnavailableError(
          "Redis Cluster: still redirected after 5 MOVED/ASK replies (slots "
          "migrating?)");
    }
    while (!in_flight_.empty()) {
      if (absl::Status s = ReadBatch(in_flight_.front()); !s.ok()) return s;
    }
    // One MOVED usually means a resharding: learn the whole new map once.
    if (slots_stale_) RefreshSlots().IgnoreError();
    const std::vector<size_t> retry = std::move(batch->redirected);
    batch->redirected.clear();
    if (absl::Status s = SendSome(batch, &retry); !s.ok()) return s;
    if (absl::Status s = ReadBatch(batch); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Router::Execute(absl::Span<const Request> requests,
                             std::vector<Reply>* replies) {
  Batch batch;
  batch.requests.assign(requests.begin(), requests.end());
  absl::Status s = Send(&batch);
  if (s.ok()) s = Receive(&batch);
  *replies = std::move(batch.replies);
  return s;
}

absl::StatusOr<Reply> Router::ExecuteOne(uint16_t slot, std::string_view resp) {
  std::vector<Reply> replies;
  const Request request{slot, resp};
  if (absl::Status s = Execute({&request, 1}, &replies); !s.ok()) return s;
  return std::move(replies[0]);
}

absl::Status Router::ExecuteOnEveryNode(std::string_view resp,
                                        std::vector<Reply>* replies) {
  // One request per node: a slot that node serves.
  std::vector<Request> requests;
  for (uint16_t slot : OneSlotPerNode()) requests.push_back({slot, resp});
  return Execute(requests, replies);
}

std::vector<uint16_t> Router::OneSlotPerNode() const {
  if (!cluster_) return {0};
  std::vector<uint16_t> slots;
  std::vector<bool> seen(nodes_.size(), false);
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    const int n = slot_node_[slot];
    if (n >= 0 && !seen[n]) {
      seen[n] = true;
      slots.push_back(static_cast<uint16_t>(slot));
    }
  }
  return slots;
}

}  // namespace blockbloom::redis::internal
