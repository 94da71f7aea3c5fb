// SharedFilter's lifecycle: Create, Open, OpenOrCreate, Delete, Publish,
// and the shard writing and deleting they share.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/redis_client.h"
#include "src/redis_client/metadata.h"
#include "src/redis_client/router.h"
#include "src/redis_client/shared_filter_access.h"

namespace blockbloom::redis {

using internal::kAllocatedBytesPerRoundTrip;
using internal::kTransferBytes;
using internal::kTransfersPerRoundTrip;
using internal::Trailer;

namespace {

absl::StatusOr<FilterShape> ShapeFor(const SharedFilterOptions& options) {
  if (options.shape.num_blocks > 0) {
    if (options.shape.lane_bits != 32) {
      return absl::InvalidArgumentError(
          "a shared filter has 32-bit lanes (64-byte blocks)");
    }
    if (absl::Status s = ValidateShape(options.shape); !s.ok()) return s;
    return options.shape;
  }
  if (options.expected_keys == 0) {
    return absl::InvalidArgumentError(
        "SharedFilterOptions: set expected_keys (or an explicit shape)");
  }
  if (options.bits_per_key > 0) {
    return ShapeForBitsPerKey(options.expected_keys, options.bits_per_key,
                              /*compact_small_filters=*/false);
  }
  return ShapeForFpRate(options.expected_keys, options.fp_rate,
                        /*compact_small_filters=*/false);
}

// The metadata stored under `key`, or nullopt if there is no such key. An
// error if Redis fails or the value is not a shared filter's metadata.
absl::StatusOr<std::optional<internal::Metadata>> GetMetadata(
    Connection* connection, const std::string& key) {
  std::string get;
  AppendCommand(&get, {"GET", key});
  auto reply = SharedFilterAccess::router(connection)
                   .ExecuteOne(internal::KeySlot(key), get);
  if (!reply.ok()) return reply.status();
  if (absl::Status s =
          internal::CheckReply(**reply, absl::StrCat("GET ", Quoted(key)));
      !s.ok()) {
    return s;
  }
  if ((*reply)->type == REDIS_REPLY_NIL) return std::nullopt;
  auto metadata = internal::ParseMetadata(ReplyText(**reply), key);
  if (!metadata.ok()) return metadata.status();
  return *std::move(metadata);
}

// The Redis keys of the shards a filter's metadata names.
std::vector<std::string> ShardKeysOf(std::string_view key_prefix,
                                     std::string_view name,
                                     const internal::Metadata& metadata) {
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < metadata.num_shards; ++i) {
    keys.push_back(internal::ShardKey(key_prefix, name, metadata.placement,
                                      metadata.generation, i));
  }
  return keys;
}

}  // namespace

absl::Status SharedFilterAccess::DeleteKeys(
    Connection* connection, const std::vector<std::string>& keys) {
  // UNLINK frees big strings in a background thread: deleting a 1 GiB
  // filter does not stall the server, as DEL would (docs/BENCHMARKS.md,
  // "Server-side cost of big strings").
  Batch batch;
  for (const std::string& key : keys) {
    batch.Add(internal::KeySlot(key), {"UNLINK", key});
  }
  std::vector<Reply> replies;
  if (absl::Status s = router(connection).Execute(batch.Requests(), &replies);
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    if (absl::Status s = internal::CheckReply(
            *replies[i], absl::StrCat("UNLINK ", Quoted(keys[i])));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status SharedFilterAccess::CreateShards(SharedFilter& f,
                                              const uint8_t* bits,
                                              const std::atomic<bool>* cancel) {
  const std::string trailer = Trailer(f.generation_);
  const std::string pending_ms =
      std::to_string(absl::ToInt64Milliseconds(kPendingShardTtl));
  Batch batch;
  std::vector<std::string> what;
  uint64_t allocated = 0;
  uint64_t created = 0;  // shards [0, created) exist
  absl::Time renewed = absl::Now();
  auto add = [&](std::initializer_list<std::string_view> command, uint16_t slot,
                 std::string_view doing, std::string_view key) {
    batch.Add(slot, command);
    what.push_back(absl::StrCat(internal::Av(doing), " ", Quoted(key)));
  };
  auto flush = [&]() -> absl::Status {
    if (cancel != nullptr && cancel->load()) {
      return absl::CancelledError(
          absl::StrCat("shared filter ", Quoted(f.name_),
                       ": interrupted before it was published"));
    }
    // An upload longer than a fraction of the pending expiry renews it on
    // the shards written so far, so that none expires before the commit.
    if (absl::Now() - renewed > kPendingShardTtl / 4) {
      for (uint64_t i = 0; i < created; ++i) {
        add({"PEXPIRE", f.shard_keys_[i], pending_ms}, f.shard_slots_[i],
            "PEXPIRE", f.shard_keys_[i]);
      }
      renewed = absl::Now();
    }
    allocated = 0;
    std::vector<Reply> replies;
    absl::Status s = Run(f, &batch, &replies);
    for (size_t i = 0; s.ok() && i < replies.size(); ++i) {
      s = internal::CheckReply(*replies[i], what[i]);
    }
    batch.clear();
    what.clear();
    return s;
  };
  for (uint64_t shard = 0; shard < f.num_shards_; ++shard) {
    const std::string& key = f.shard_keys_[shard];
    const uint16_t slot = f.shard_slots_[shard];
    const uint64_t block_bytes = ShardBlocks(f, shard) * kBlockBytes;
    // SETRANGE at the end allocates the whole string, zero-filled; the
    // pending expiry follows in the same write.
    add({"SETRANGE", key, std::to_string(block_bytes), trailer}, slot,
        "SETRANGE", key);
    add({"PEXPIRE", key, pending_ms}, slot, "PEXPIRE", key);
    created = shard + 1;
    allocated += block_bytes;
    if (bits != nullptr) {
      // The non-zero pieces of the shard's bits (a sparse filter uploads
      // little).
      const uint8_t* shard_bits =
          bits + shard * f.blocks_per_shard_ * kBlockBytes;
      for (uint64_t offset = 0; offset < block_bytes;
           offset += kTransferBytes) {
        const uint64_t length = std::min(kTransferBytes, block_bytes - offset);
        const uint8_t* piece = shard_bits + offset;
        if (std::all_of(piece, piece + length,
                        [](uint8_t b) { return b == 0; })) {
          continue;
        }
        add({"SETRANGE", key, std::to_string(offset),
             std::string_view(reinterpret_cast<const char*>(piece), length)},
            slot, "SETRANGE", key);
        if (batch.size() >= kTransfersPerRoundTrip) {
          if (absl::Status s = flush(); !s.ok()) return s;
        }
      }
    }
    if (batch.size() >= kTransfersPerRoundTrip ||
        allocated >= kAllocatedBytesPerRoundTrip) {
      if (absl::Status s = flush(); !s.ok()) return s;
    }
  }
  return batch.empty() ? absl::OkStatus() : flush();
}

absl::Status SharedFilterAccess::CommitShards(SharedFilter& f,
                                              absl::Duration ttl) {
  const bool persist = ttl == absl::InfiniteDuration();
  const std::string ms =
      std::to_string(std::max<int64_t>(1, absl::ToInt64Milliseconds(ttl)));
  Batch batch;
  for (uint64_t shard = 0; shard < f.num_shards_; ++shard) {
    if (persist) {
      batch.Add(f.shard_slots_[shard], {"PERSIST", f.shard_keys_[shard]});
    } else {
      batch.Add(f.shard_slots_[shard], {"PEXPIRE", f.shard_keys_[shard], ms});
    }
  }
  std::vector<Reply> replies;
  if (absl::Status s = Run(f, &batch, &replies); !s.ok()) return s;
  for (size_t i = 0; i < replies.size(); ++i) {
    const std::string& key = f.shard_keys_[i];
    if (absl::Status s = internal::CheckReply(
            *replies[i],
            absl::StrCat(persist ? "PERSIST " : "PEXPIRE ", Quoted(key)));
        !s.ok()) {
      return s;
    }
    // Every shard has the pending expiry: 0 means the key is gone.
    if (replies[i]->integer != 1) {
      return absl::DataLossError(absl::StrCat(
          "shared filter ", Quoted(f.name_), ": shard ", Quoted(key),
          " disappeared while the filter was being uploaded (evicted by a "
          "server short of memory, deleted, or expired after an upload "
          "paused for more than ",
          absl::FormatDuration(kPendingShardTtl), "); nothing was published"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Reply> SharedFilterAccess::Upload(
    SharedFilter& f, const Metadata& m, const uint8_t* bits,
    const SharedFilterOptions& options, bool replace) {
  Connection* connection = f.connection_;
  auto fail = [&](absl::Status status) {
    DeleteKeys(connection, f.shard_keys_).IgnoreError();
    return status;
  };
  if (absl::Status s = CreateShards(f, bits, options.cancel); !s.ok()) {
    return fail(s);
  }
  if (options.cancel != nullptr && options.cancel->load()) {
    return fail(absl::CancelledError(
        absl::StrCat("shared filter ", Quoted(f.name_),
                     ": interrupted before it was published")));
  }
  // The shards' final expiry first, then the metadata: a process killed
  // between the two (one round trip) leaves shards that DeleteOrphans
  // finds, never a published filter whose shards are about to expire.
  if (absl::Status s = CommitShards(f, options.ttl); !s.ok()) return fail(s);
  if (options.cancel != nullptr && options.cancel->load()) {
    return fail(absl::CancelledError(
        absl::StrCat("shared filter ", Quoted(f.name_),
                     ": interrupted before it was published")));
  }
  const std::string value = internal::EncodeMetadata(m);
  std::vector<std::string_view> args = {"SET", f.meta_key_, value,
                                        replace ? "GET" : "NX"};
  std::string ttl_ms;
  if (options.ttl != absl::InfiniteDuration()) {
    ttl_ms = std::to_string(
        std::max<int64_t>(1, absl::ToInt64Milliseconds(options.ttl)));
    args.push_back("PX");
    args.push_back(ttl_ms);
  }
  std::string set;
  AppendArrayHeader(&set, args.size());
  for (std::string_view arg : args) AppendArg(&set, arg);
  auto reply =
      router(connection).ExecuteOne(internal::KeySlot(f.meta_key_), set);
  if (!reply.ok()) return fail(reply.status());
  if (absl::Status s = internal::CheckReply(
          **reply, absl::StrCat("SET ", Quoted(f.meta_key_)));
      !s.ok()) {
    return fail(s);
  }
  if (!replace && (*reply)->type == REDIS_REPLY_NIL) {
    DeleteKeys(connection, f.shard_keys_).IgnoreError();
  }
  return std::move(*reply);
}

// ---------------------------------------------------------------------------
// Create, open, delete, publish.

absl::StatusOr<SharedFilter> SharedFilter::Create(
    Connection* connection, std::string_view name,
    const SharedFilterOptions& options) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  auto shape = ShapeFor(options);
  if (!shape.ok()) return shape.status();
  auto metadata =
      SharedFilterAccess::NewMetadata(*shape, options.seed, options);
  if (!metadata.ok()) return metadata.status();
  SharedFilter f = SharedFilterAccess::Make(
      connection, name, options.key_prefix, *metadata, options.seed);
  // Shards first, under a generation nobody else uses; then the metadata
  // with NX. An opener therefore never sees metadata without its shards, and
  // of two creators exactly one wins (the other removes its shards).
  auto reply =
      SharedFilterAccess::Upload(f, *metadata, nullptr, options, false);
  if (!reply.ok()) return reply.status();
  if ((*reply)->type == REDIS_REPLY_NIL) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a shared filter named ", Quoted(name), " already exists (Redis key ",
        Quoted(f.meta_key_), "); Open it, or Delete it first"));
  }
  return f;
}

absl::StatusOr<SharedFilter> SharedFilter::Open(Connection* connection,
                                                std::string_view name,
                                                uint64_t seed,
                                                std::string_view key_prefix) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  const std::string key = internal::MetadataKey(key_prefix, name);
  auto found = GetMetadata(connection, key);
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(absl::StrCat("no shared filter named ",
                                            Quoted(name), " (Redis key ",
                                            Quoted(key), " does not exist)"));
  }
  const internal::Metadata* metadata = &**found;
  if (metadata->seed_check != internal::SeedCheck(seed)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "shared filter ", Quoted(name),
        " was created with another seed: every process must use the seed it "
        "was created with"));
  }
  SharedFilter f =
      SharedFilterAccess::Make(connection, name, key_prefix, *metadata, seed);
  if (absl::Status s = f.Check(); !s.ok()) return s;
  return f;
}

absl::StatusOr<SharedFilter> SharedFilter::OpenOrCreate(
    Connection* connection, std::string_view name,
    const SharedFilterOptions& options) {
  auto shape = ShapeFor(options);
  if (!shape.ok()) return shape.status();
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto opened = Open(connection, name, options.seed, options.key_prefix);
    if (opened.ok()) {
      const FilterShape& have = opened->shape();
      if (have != *shape) {
        return absl::FailedPreconditionError(absl::StrCat(
            "shared filter ", Quoted(name), " exists with ", have.num_blocks,
            " blocks and k=", have.num_probes, ", but these options ask for ",
            shape->num_blocks, " blocks and k=", shape->num_probes,
            ": use the same sizing options everywhere, or Delete it"));
      }
      if (opened->placement() != options.placement) {
        return absl::FailedPreconditionError(absl::StrCat(
            "shared filter ", Quoted(name), " exists with another placement"));
      }
      return opened;
    }
    if (opened.status().code() != absl::StatusCode::kNotFound) {
      return opened.status();
    }
    auto created = Create(connection, name, options);
    if (created.ok() ||
        created.status().code() != absl::StatusCode::kAlreadyExists) {
      return created;
    }
    // Another process created it between our Open and Create: open theirs.
  }
  return absl::AbortedError(absl::StrCat(
      "shared filter ", Quoted(name),
      ": created and deleted repeatedly by others while opening it"));
}

absl::Status SharedFilter::Delete(Connection* connection, std::string_view name,
                                  std::string_view key_prefix) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  const std::string key = internal::MetadataKey(key_prefix, name);
  auto found = GetMetadata(connection, key);
  if (!found.ok()) return found.status();  // not ours: leave it
  if (!found->has_value()) return absl::OkStatus();
  std::vector<std::string> keys = ShardKeysOf(key_prefix, name, **found);
  keys.push_back(key);
  return SharedFilterAccess::DeleteKeys(connection, keys);
}

absl::StatusOr<SharedFilter> SharedFilter::Publish(
    Connection* connection, std::string_view name, const Filter& filter,
    const SharedFilterOptions& options, bool replace) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  if (filter.is_match_all() || filter.lane_bits() != 32) {
    return absl::InvalidArgumentError(
        "only filters of 64-byte blocks (32-bit lanes) can be published: "
        "build it with FilterOptions::compact_small_filters = false");
  }
  auto metadata =
      SharedFilterAccess::NewMetadata(filter.shape(), filter.seed(), options);
  if (!metadata.ok()) return metadata.status();
  SharedFilter f = SharedFilterAccess::Make(
      connection, name, options.key_prefix, *metadata, filter.seed());
  // The metadata switches to the new generation in one command: readers
  // that open the filter see the old shards or the new ones, never a mix.
  auto reply = SharedFilterAccess::Upload(f, *metadata, filter.bits().data(),
                                          options, replace);
  if (!reply.ok()) return reply.status();
  if (!replace && (*reply)->type == REDIS_REPLY_NIL) {
    return absl::AlreadyExistsError(
        absl::StrCat("a shared filter named ", Quoted(name),
                     " already exists; publish with replace to overwrite it"));
  }
  if (replace && (*reply)->type == REDIS_REPLY_STRING) {
    // The previous generation's shards, if it was a filter of ours.
    auto old = internal::ParseMetadata(ReplyText(**reply), f.meta_key_);
    if (old.ok() && old->generation != metadata->generation) {
      if (absl::Status s = SharedFilterAccess::DeleteKeys(
              connection, ShardKeysOf(options.key_prefix, name, *old));
          !s.ok()) {
        return s;
      }
    }
  }
  // Every shard still there? A server that evicts keys (maxmemory with an
  // allkeys-* policy) may have dropped some while it made room for the
  // others: say so now rather than let every query fail later.
  if (absl::Status s = f.Check(); !s.ok()) {
    if (absl::IsDataLoss(s) || absl::IsNotFound(s)) {
      // Ours to remove only while the metadata still names our generation.
      std::string get;
      AppendCommand(&get, {"GET", f.meta_key_});
      auto current = SharedFilterAccess::router(connection)
                         .ExecuteOne(internal::KeySlot(f.meta_key_), get);
      if (current.ok() && (*current)->type == REDIS_REPLY_STRING) {
        auto m = internal::ParseMetadata(ReplyText(**current), f.meta_key_);
        if (m.ok() && m->generation == metadata->generation) {
          SharedFilterAccess::DeleteKeys(connection, f.RedisKeys())
              .IgnoreError();
        }
      } else {
        SharedFilterAccess::DeleteKeys(connection, f.shard_keys_).IgnoreError();
      }
      return absl::DataLossError(absl::StrCat(
          s.message(),
          ". It was found so right after publishing, so it was removed "
          "again: the server probably evicts keys when short of memory "
          "(maxmemory with an allkeys-* policy); give it more memory or "
          "use maxmemory-policy noeviction"));
    }
    return s;
  }
  return f;
}

absl::Status SharedFilter::ValidateName(std::string_view name) {
  return internal::ValidateName(name);
}

SharedFilter::SharedFilter(SharedFilter&&) noexcept = default;
SharedFilter& SharedFilter::operator=(SharedFilter&&) noexcept = default;
SharedFilter::~SharedFilter() = default;

std::vector<std::string> SharedFilter::RedisKeys() const {
  std::vector<std::string> keys = {meta_key_};
  keys.insert(keys.end(), shard_keys_.begin(), shard_keys_.end());
  return keys;
}
}  // namespace blockbloom::redis
