// SharedFilter's maintenance calls: Expire, Ttl, Check, ApproximateCount and
// Download (a snapshot as a filter block).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/format.h"
#include "blockbloom/redis_client.h"
#include "src/memory/fill_stats.h"
#include "src/redis_client/shared_filter_access.h"

namespace blockbloom::redis {

using internal::kTransferBytes;
using internal::kTransfersPerRoundTrip;
using internal::Trailer;

// ---------------------------------------------------------------------------
// Lifecycle.

absl::Status SharedFilter::Expire(absl::Duration ttl) {
  const std::vector<std::string> keys = RedisKeys();
  const bool persist = ttl == absl::InfiniteDuration();
  const std::string ms =
      std::to_string(std::max<int64_t>(1, absl::ToInt64Milliseconds(ttl)));
  SharedFilterAccess::Batch batch;
  for (const std::string& key : keys) {
    if (persist) {
      batch.Add(internal::KeySlot(key), {"PERSIST", key});
    } else {
      batch.Add(internal::KeySlot(key), {"PEXPIRE", key, ms});
    }
  }
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, &batch, &replies);
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    const std::string what =
        absl::StrCat(persist ? "PERSIST " : "PEXPIRE ", Quoted(keys[i]));
    if (absl::Status s = internal::CheckReply(*replies[i], what); !s.ok()) {
      return s;
    }
    // PEXPIRE answers 0 for a key that does not exist (PERSIST also for a
    // key without a TTL, which is fine).
    if (!persist && replies[i]->integer == 0) {
      return absl::DataLossError(absl::StrCat(
          "shared filter ", Quoted(name_), ": ", what,
          ": the key does not exist (deleted or expired already)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> SharedFilter::Ttl() {
  std::string command;
  AppendCommand(&command, {"PTTL", meta_key_});
  auto reply = SharedFilterAccess::router(*this).ExecuteOne(
      internal::KeySlot(meta_key_), command);
  if (!reply.ok()) return reply.status();
  if (absl::Status s = internal::CheckReply(**reply, "PTTL"); !s.ok()) return s;
  const long long ms = (*reply)->integer;
  if (ms == -2) {
    return absl::NotFoundError(
        absl::StrCat("shared filter ", Quoted(name_), " no longer exists"));
  }
  if (ms < 0) return absl::InfiniteDuration();
  return absl::Milliseconds(ms);
}

absl::Status SharedFilter::Check() {
  // GET the metadata; per shard STRLEN and GETRANGE of its trailer.
  SharedFilterAccess::Batch batch;
  batch.Add(internal::KeySlot(meta_key_), {"GET", meta_key_});
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t bytes = SharedFilterAccess::ShardBytes(*this, shard);
    batch.Add(shard_slots_[shard], {"STRLEN", shard_keys_[shard]});
    batch.Add(shard_slots_[shard],
              {"GETRANGE", shard_keys_[shard],
               std::to_string(bytes - internal::kTrailerBytes),
               std::to_string(bytes - 1)});
  }
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, &batch, &replies);
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    if (absl::Status s = internal::CheckReply(*replies[i], "Check"); !s.ok()) {
      return s;
    }
  }
  if (replies[0]->type == REDIS_REPLY_NIL) {
    return absl::NotFoundError(
        absl::StrCat("shared filter ", Quoted(name_),
                     " no longer exists (deleted or expired)"));
  }
  auto metadata = internal::ParseMetadata(ReplyText(*replies[0]), meta_key_);
  if (!metadata.ok()) return metadata.status();
  if (metadata->generation != generation_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "shared filter ", Quoted(name_),
        " was replaced (re-published or recreated) since it was opened: "
        "open it again"));
  }
  const std::string trailer = Trailer(generation_);
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t bytes = SharedFilterAccess::ShardBytes(*this, shard);
    const redisReply& length = *replies[1 + 2 * shard];
    const redisReply& tail = *replies[2 + 2 * shard];
    if (static_cast<uint64_t>(length.integer) != bytes ||
        ReplyText(tail) != trailer) {
      return absl::DataLossError(absl::StrCat(
          "shared filter ", Quoted(name_), ": shard ",
          Quoted(shard_keys_[shard]),
          length.integer == 0 ? " is missing" : " is damaged",
          " (deleted, evicted or overwritten behind the filter's back; ",
          length.integer, " bytes, expected ", bytes,
          "); recreate or re-publish the filter"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> SharedFilter::ApproximateCount() {
  SharedFilterAccess::Batch batch;
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t block_bytes =
        SharedFilterAccess::ShardBlocks(*this, shard) * kBlockBytes;
    batch.Add(shard_slots_[shard], {"BITCOUNT", shard_keys_[shard], "0",
                                    std::to_string(block_bytes - 1)});
  }
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, &batch, &replies);
      !s.ok()) {
    return s;
  }
  uint64_t set_bits = 0;
  for (const Reply& reply : replies) {
    if (absl::Status s = internal::CheckReply(*reply, "BITCOUNT"); !s.ok()) {
      return s;
    }
    set_bits += static_cast<uint64_t>(reply->integer);
  }
  return static_cast<uint64_t>(
      blockbloom::internal::EstimateKeys(
          set_bits, shape_.num_blocks * kBlockBits, shape_.num_probes) +
      0.5);
}

absl::StatusOr<std::string> SharedFilter::Download(
    const WriteOptions& options) {
  std::vector<uint8_t> bits(shape_.size_bytes());
  SharedFilterAccess::Batch batch;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;  // (offset, length)
  std::vector<uint64_t> piece_shard;
  auto flush = [&]() -> absl::Status {
    std::vector<Reply> replies;
    absl::Status s = SharedFilterAccess::Run(*this, &batch, &replies);
    for (size_t i = 0; s.ok() && i < replies.size(); ++i) {
      const redisReply& reply = *replies[i];
      const std::string& key = shard_keys_[piece_shard[i]];
      s = internal::CheckReply(reply, absl::StrCat("GETRANGE ", Quoted(key)));
      if (s.ok() && reply.len != pieces[i].second) {
        s = absl::DataLossError(absl::StrCat(
            "shared filter ", Quoted(name_), ": shard ", Quoted(key),
            " is missing or short (deleted behind the filter's back)"));
      }
      if (s.ok()) {
        std::memcpy(bits.data() + pieces[i].first, reply.str, reply.len);
      }
    }
    batch.clear();
    pieces.clear();
    piece_shard.clear();
    return s;
  };
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t block_bytes =
        SharedFilterAccess::ShardBlocks(*this, shard) * kBlockBytes;
    const uint64_t base = shard * blocks_per_shard_ * kBlockBytes;
    for (uint64_t offset = 0; offset < block_bytes; offset += kTransferBytes) {
      const uint64_t length = std::min(kTransferBytes, block_bytes - offset);
      batch.Add(shard_slots_[shard],
                {"GETRANGE", shard_keys_[shard], std::to_string(offset),
                 std::to_string(offset + length - 1)});
      pieces.push_back({base + offset, length});
      piece_shard.push_back(shard);
      if (batch.size() >= kTransfersPerRoundTrip) {
        if (absl::Status s = flush(); !s.ok()) return s;
      }
    }
  }
  if (batch.size() > 0) {
    if (absl::Status s = flush(); !s.ok()) return s;
  }
  // Still the filter we opened? (A Publish with replace would have switched
  // generations and deleted these shards, failing the reads above.)
  if (absl::Status s = Check(); !s.ok()) return s;
  uint64_t set_bits = 0;
  for (size_t i = 0; i + 8 <= bits.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bits.data() + i, 8);
    set_bits += std::popcount(word);
  }
  const auto num_keys = static_cast<uint64_t>(
      blockbloom::internal::EstimateKeys(
          set_bits, shape_.num_blocks * kBlockBits, shape_.num_probes) +
      0.5);
  auto filter = Filter::Wrap(bits, shape_, seed_, num_keys);
  if (!filter.ok()) return filter.status();
  WriteOptions write = options;
  if (write.encoding == Encoding::kAuto) write.encoding = Encoding::kFull;
  return SerializeFilter(*filter, write);
}
}  // namespace blockbloom::redis
