// Sends pipelined commands to a standalone Redis server or to the nodes of a
// Redis Cluster, routing each by its key slot. hiredis 0.14 (Debian 12) has
// no cluster support, so this is the small part of a cluster client that the
// shared filter needs: the slot map from CLUSTER SLOTS, MOVED (update the
// map, retry, refresh it) and ASK (ASKING + retry on the node named, without
// updating the map), one blocking hiredis context per node, reconnection on
// the next call after a connection is lost.
#ifndef BLOCKBLOOM_SRC_REDIS_CLIENT_ROUTER_H_
#define BLOCKBLOOM_SRC_REDIS_CLIENT_ROUTER_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/redis_client.h"
#include "src/redis_client/resp.h"

namespace blockbloom::redis::internal {

inline constexpr int kClusterSlots = 16384;

// The cluster key slot of `key`: CRC16-XMODEM of its hash tag (the text
// between the first '{' and the next '}', if not empty; else the whole key),
// mod 16384.
uint16_t KeySlot(std::string_view key);

// One range of CLUSTER SLOTS: slots [first, last] served by host:port (an
// empty host: the node that was asked).
struct SlotRange {
  int first = 0;
  int last = 0;
  std::string host;
  int port = 0;
};
// Parses a CLUSTER SLOTS reply: [[first, last, [host, port, id...],
// replicas...], ...]. Internal error for anything malformed (the reply of a
// server we do not understand; never trusted blindly).
absl::StatusOr<std::vector<SlotRange>> ParseClusterSlots(
    const redisReply& reply);

// A MOVED or ASK error reply: "MOVED <slot> <host>:<port>".
struct Redirect {
  bool ask = false;
  int slot = 0;
  std::string host;  // empty: the node that answered
  int port = 0;
};
// nullopt if `error` is not a well-formed MOVED or ASK.
std::optional<Redirect> ParseRedirect(std::string_view error);

// One command: its RESP bytes and the slot of its key (ignored by a
// standalone server).
struct Request {
  uint16_t slot = 0;
  std::string_view resp;
};

class Router {
 public:
  static absl::StatusOr<std::unique_ptr<Router>> Connect(
      const ConnectionOptions& options);
  ~Router();

  bool is_cluster() const { return cluster_; }

  // Requests sent together and their replies.
  struct Batch {
    std::vector<Request> requests;  // their bytes live until Receive returns
    std::vector<Reply> replies;     // replies[i] answers requests[i]
    // Internal state of Send/Receive.
    std::vector<int> ask;  // per request: the node to ASK, or -1
    std::vector<size_t> redirected;
    absl::Status status;
    bool read = false;
  };

  // Sends every request of `batch`: the requests for one node are written
  // together (one write), every node's before any reply is read, so a batch
  // spread over N nodes costs about one round trip. Returns at once; several
  // batches may be in flight (the next one is formatted and sent while the
  // server works on this one), and must be Received in the order sent.
  absl::Status Send(Batch* batch);
  // Reads the replies of `batch`, the oldest in flight. Error replies are
  // returned as replies; MOVED and ASK are followed (at most 5 times per
  // request). A connection that fails (refused, lost, timed out) fails this
  // and every batch in flight with Unavailable or DeadlineExceeded naming
  // the node; it is dropped and reconnected on the next call.
  absl::Status Receive(Batch* batch);
  // Send + Receive.
  absl::Status Execute(absl::Span<const Request> requests,
                       std::vector<Reply>* replies);
  // One command (already formatted) for the node of `slot`.
  absl::StatusOr<Reply> ExecuteOne(uint16_t slot, std::string_view resp);
  // `resp` on every node that serves slots (one node if standalone).
  absl::Status ExecuteOnEveryNode(std::string_view resp,
                                  std::vector<Reply>* replies);
  // A slot of each node that serves slots ({0} if standalone): a command
  // for a given node (SCAN, CONFIG) goes to the node of its slot.
  std::vector<uint16_t> OneSlotPerNode() const;

  uint64_t round_trips() const { return round_trips_; }
  uint64_t redirections() const { return redirections_; }

 private:
  struct Node;
  explicit Router(const ConnectionOptions& options);
  absl::Status ConnectNode(Node& node);
  absl::Status LoadSlots(Node& node);
  absl::Status RefreshSlots();
  int NodeIndex(std::string_view host, int port);
  absl::Status NodeFailed(Node& node, std::string_view doing);
  absl::Status Write(Node& node, std::string_view bytes,
                     std::string_view doing);
  absl::Status SendSome(Batch* batch, const std::vector<size_t>* only);
  absl::Status ReadBatch(Batch* batch);
  // Drops every connection with replies outstanding and fails every batch
  // in flight with `status`.
  absl::Status Fail(absl::Status status);

  ConnectionOptions options_;
  bool cluster_ = false;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::array<int16_t, kClusterSlots> slot_node_;
  bool slots_stale_ = false;
  std::deque<Batch*> in_flight_;
  uint64_t round_trips_ = 0;
  uint64_t redirections_ = 0;
};

}  // namespace blockbloom::redis::internal

#endif  // BLOCKBLOOM_SRC_REDIS_CLIENT_ROUTER_H_
