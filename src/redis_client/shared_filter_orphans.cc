// SharedFilter::DeleteOrphans: shards that no published filter uses, left by
// an upload that was killed (they also expire on their own after
// kPendingShardTtl) or by older versions that gave them no expiry.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/redis_client.h"
#include "src/redis_client/metadata.h"
#include "src/redis_client/router.h"
#include "src/redis_client/shared_filter_access.h"

namespace blockbloom::redis {

using internal::Trailer;

namespace {

// `text` with Redis's glob characters escaped, for SCAN MATCH.
std::string GlobEscaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// The generation of `key` if it is the name of a shard of `name` (either
// placement, in the exact form ShardKey writes).
std::optional<uint64_t> ShardGeneration(std::string_view key,
                                        std::string_view prefix,
                                        std::string_view name) {
  const std::string start =
      absl::StrCat(internal::Av(prefix), "{", internal::Av(name));
  if (key.substr(0, start.size()) != start) return std::nullopt;
  std::string_view rest = key.substr(start.size());
  Placement placement;
  if (rest.substr(0, 2) == "}:") {
    placement = Placement::kTogether;
    rest.remove_prefix(2);
  } else if (rest.substr(0, 1) == ":" && !rest.empty() && rest.back() == '}') {
    placement = Placement::kSpread;
    rest = rest.substr(1, rest.size() - 2);
  } else {
    return std::nullopt;
  }
  // "<16 hex digits>:<shard>"
  uint64_t generation = 0, shard = 0;
  if (rest.size() < 18 || rest[16] != ':') return std::nullopt;
  const auto [g_end, g_error] =
      std::from_chars(rest.data(), rest.data() + 16, generation, 16);
  const auto [s_end, s_error] =
      std::from_chars(rest.data() + 17, rest.data() + rest.size(), shard);
  if (g_error != std::errc() || s_error != std::errc() ||
      g_end != rest.data() + 16 || s_end != rest.data() + rest.size()) {
    return std::nullopt;
  }
  if (internal::ShardKey(prefix, name, placement, generation, shard) != key) {
    return std::nullopt;  // not in the canonical form: not ours
  }
  return generation;
}

}  // namespace

absl::StatusOr<uint64_t> SharedFilter::DeleteOrphans(
    Connection* connection, std::string_view name,
    std::string_view key_prefix) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  internal::Router& router = SharedFilterAccess::router(connection);
  // The published generation, if any, whose shards are not orphans.
  const std::string meta_key = internal::MetadataKey(key_prefix, name);
  std::optional<uint64_t> live;
  {
    std::string get;
    AppendCommand(&get, {"GET", meta_key});
    auto reply = router.ExecuteOne(internal::KeySlot(meta_key), get);
    if (!reply.ok()) return reply.status();
    if ((*reply)->type == REDIS_REPLY_STRING) {
      auto m = internal::ParseMetadata(ReplyText(**reply), meta_key);
      if (m.ok()) live = m->generation;
    }
  }
  // Every key named like a shard of `name`, on every node (spread shards
  // are on any node; together ones on the node of the name's slot).
  const std::string base =
      absl::StrCat(GlobEscaped(key_prefix), "{", GlobEscaped(name));
  std::vector<std::string> candidates;
  std::vector<uint64_t> generations;
  for (uint16_t slot : router.OneSlotPerNode()) {
    for (const std::string& pattern :
         {absl::StrCat(base, "}:*"), absl::StrCat(base, ":*}")}) {
      std::string cursor = "0";
      do {
        std::string scan;
        AppendCommand(&scan,
                      {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        auto reply = router.ExecuteOne(slot, scan);
        if (!reply.ok()) return reply.status();
        const redisReply& r = **reply;
        if (absl::Status s = internal::CheckReply(r, "SCAN"); !s.ok()) return s;
        if (r.type != REDIS_REPLY_ARRAY || r.elements != 2 ||
            r.element[0]->type != REDIS_REPLY_STRING ||
            r.element[1]->type != REDIS_REPLY_ARRAY) {
          return absl::InternalError("SCAN: unexpected reply");
        }
        cursor = std::string(ReplyText(*r.element[0]));
        const redisReply& keys = *r.element[1];
        for (size_t i = 0; i < keys.elements; ++i) {
          const std::string_view key = ReplyText(*keys.element[i]);
          const std::optional<uint64_t> generation =
              ShardGeneration(key, key_prefix, name);
          if (!generation.has_value() || generation == live) continue;
          if (std::find(candidates.begin(), candidates.end(), key) !=
              candidates.end()) {
            continue;  // SCAN may return a key twice
          }
          candidates.emplace_back(key);
          generations.push_back(*generation);
        }
      } while (cursor != "0");
    }
  }
  if (candidates.empty()) return 0;
  // Only strings that end in their generation's trailer are our shards.
  SharedFilterAccess::Batch batch;
  for (const std::string& key : candidates) {
    batch.Add(internal::KeySlot(key), {"GETRANGE", key, "-8", "-1"});
  }
  std::vector<Reply> replies;
  if (absl::Status s = router.Execute(batch.Requests(), &replies); !s.ok()) {
    return s;
  }
  std::vector<std::string> doomed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (replies[i]->type == REDIS_REPLY_STRING &&
        ReplyText(*replies[i]) == Trailer(generations[i])) {
      doomed.push_back(candidates[i]);
    }
  }
  if (absl::Status s = SharedFilterAccess::DeleteKeys(connection, doomed);
      !s.ok()) {
    return s;
  }
  return doomed.size();
}

}  // namespace blockbloom::redis
