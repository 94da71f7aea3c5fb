// blockbloom::redis::Connection and ParseUrl.
#include <charconv>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "blockbloom/redis_client.h"
#include "src/redis_client/router.h"

namespace blockbloom::redis {
namespace {

bool ParseNumber(std::string_view text, int64_t* value) {
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && error == std::errc() &&
         end == text.data() + text.size();
}

// %XX escapes in the user and password of a URL.
absl::StatusOr<std::string> Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    int value = 0;
    if (i + 2 >= text.size() ||
        std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16)
                .ptr != text.data() + i + 3) {
      return absl::InvalidArgumentError("bad %-escape in the Redis URL");
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

// `url` with the password of its user info (before the last '@', if any)
// replaced by "***", for error messages, which end up in logs. Masks more
// than ParseUrl would read as the password (an unescaped '/' or '?' in it)
// rather than less.
std::string WithoutPassword(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t at = url.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos ||
      at < scheme_end + 3) {
    return std::string(url);
  }
  const size_t authority = scheme_end + 3;
  const std::string_view user_info = url.substr(authority, at - authority);
  // "user:password@", or "password@" (a password alone, as redis-cli reads
  // it).
  const size_t colon = user_info.find(':');
  const std::string_view user = colon == std::string_view::npos
                                    ? std::string_view()
                                    : user_info.substr(0, colon);
  return absl::StrCat(absl::string_view(url.data(), authority),
                      absl::string_view(user.data(), user.size()),
                      colon == std::string_view::npos ? "***" : ":***",
                      absl::string_view(url.data() + at, url.size() - at));
}

}  // namespace

absl::StatusOr<ConnectionOptions> ParseUrl(std::string_view url) {
  ConnectionOptions options;
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Redis URL \"", WithoutPassword(url),
        "\": ", absl::string_view(why.data(), why.size()),
        " (expected redis://[[user]:password@]host[:port][/db] with "
        "options ?cluster=yes|no|auto&connect_timeout=MS&timeout=MS)"));
  };
  constexpr std::string_view kScheme = "redis://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return bad("only the redis:// scheme is supported");
  }
  std::string_view rest = url.substr(kScheme.size());
  std::string_view query;
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view path;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view user_info = rest.substr(0, at);
    rest = rest.substr(at + 1);
    std::string_view user = user_info;
    std::string_view password;
    if (const size_t colon = user_info.find(':');
        colon != std::string_view::npos) {
      user = user_info.substr(0, colon);
      password = user_info.substr(colon + 1);
    } else {
      // "redis://secret@host": a password alone, as redis-cli reads it.
      password = user_info;
      user = {};
    }
    auto u = Unescape(user);
    auto p = Unescape(password);
    if (!u.ok()) return u.status();
    if (!p.ok()) return p.status();
    options.username = *u;
    options.password = *p;
  }
  // host[:port], or [v6 address][:port].
  std::string_view host = rest;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("junk after the address");
      port = after.substr(1);
    }
  } else if (const size_t colon = rest.rfind(':');
             colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) return bad("no host");
  options.host = std::string(host);
  if (!port.empty()) {
    int64_t value;
    if (!ParseNumber(port, &value) || value < 1 || value > 65535) {
      return bad("the port must be a number in [1, 65535]");
    }
    options.port = static_cast<int>(value);
  }
  if (!path.empty()) {
    int64_t value;
    if (!ParseNumber(path, &value) || value < 0 || value > 1 << 20) {
      return bad("the path must be a database number");
    }
    options.database = static_cast<int>(value);
  }
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(query.data(), query.size()), '&',
                      absl::SkipEmpty())) {
    const std::string_view item(piece.data(), piece.size());
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    int64_t ms = 0;
    if (key == "cluster") {
      if (value == "yes" || value == "true" || value == "1") {
        options.mode = ConnectionOptions::Mode::kCluster;
      } else if (value == "no" || value == "false" || value == "0") {
        options.mode = ConnectionOptions::Mode::kStandalone;
      } else if (value == "auto") {
        options.mode = ConnectionOptions::Mode::kAuto;
      } else {
        return bad("cluster= takes yes, no or auto");
      }
    } else if (key == "timeout" || key == "connect_timeout") {
      if (!ParseNumber(value, &ms) || ms <= 0) {
        return bad("timeouts are positive numbers of milliseconds");
      }
      (key == "timeout" ? options.command_timeout : options.connect_timeout) =
          absl::Milliseconds(ms);
    } else {
      return bad(absl::StrCat("unknown option \"",
                              absl::string_view(key.data(), key.size()), "\""));
    }
  }
  return options;
}

Connection::Connection(std::unique_ptr<internal::Router> router)
    : router_(std::move(router)) {}

Connection::~Connection() = default;

absl::StatusOr<std::unique_ptr<Connection>> Connection::Connect(
    const ConnectionOptions& options) {
  auto router = internal::Router::Connect(options);
  if (!router.ok()) return router.status();
  return std::unique_ptr<Connection>(new Connection(std::move(*router)));
}

bool Connection::is_cluster() const { return router_->is_cluster(); }

absl::Status Connection::Ping() {
  std::string ping;
  internal::AppendCommand(&ping, {"PING"});
  std::vector<internal::Reply> replies;
  if (absl::Status s = router_->ExecuteOnEveryNode(ping, &replies); !s.ok()) {
    return s;
  }
  for (const internal::Reply& reply : replies) {
    if (absl::Status s = internal::CheckReply(*reply, "PING"); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Connection::EvictionPolicy() {
  // maxmemory, maxmemory-policy (and a few more) in one command, per node.
  std::string config;
  internal::AppendCommand(&config, {"CONFIG", "GET", "maxmemory*"});
  std::vector<internal::Reply> replies;
  if (absl::Status s = router_->ExecuteOnEveryNode(config, &replies); !s.ok()) {
    return s;
  }
  for (const internal::Reply& reply : replies) {
    if (absl::Status s = internal::CheckReply(*reply, "CONFIG GET maxmemory*");
        !s.ok()) {
      return s;
    }
    std::string maxmemory = "0", policy = "noeviction";
    for (size_t i = 0;
         reply->type == REDIS_REPLY_ARRAY && i + 1 < reply->elements; i += 2) {
      const std::string_view name(reply->element[i]->str,
                                  reply->element[i]->len);
      const std::string value(reply->element[i + 1]->str,
                              reply->element[i + 1]->len);
      if (name == "maxmemory") maxmemory = value;
      if (name == "maxmemory-policy") policy = value;
    }
    // Without maxmemory Redis never evicts, whatever the policy says.
    if (maxmemory != "0" && policy != "noeviction") return policy;
  }
  return std::string("noeviction");
}

uint64_t Connection::round_trips() const { return router_->round_trips(); }
uint64_t Connection::redirections() const { return router_->redirections(); }

}  // namespace blockbloom::redis
