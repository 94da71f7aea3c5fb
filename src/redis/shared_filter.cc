// blockbloom::redis::SharedFilter: the filter's bits in Redis strings, probed
// here. The block of a key and its bits come from src/layout.h, as for an
// in-process Filter; only where the block's bytes come from differs.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "blockbloom/hash.h"
#include "blockbloom/redis.h"
#include "src/fill_stats.h"
#include "src/layout.h"
#include "src/probe.h"
#include "src/redis/metadata.h"
#include "src/redis/router.h"

namespace blockbloom::redis {

using internal::AppendArg;
using internal::AppendArrayHeader;
using internal::AppendCommand;
using internal::AppendIntArg;
using internal::Metadata;
using internal::Reply;
using internal::Request;

namespace {

constexpr uint64_t kBlockBytes = blockbloom::internal::kBlockBytes;
constexpr uint64_t kBlockBits = kBlockBytes * 8;
// Snapshots move data in pieces of this size, several per round trip.
constexpr uint64_t kTransferBytes = uint64_t{1} << 20;
constexpr size_t kTransfersPerRoundTrip = 8;
// Zero-filling a new shard is the slow server-side step (about 2.6 ms per
// MiB measured here: SETRANGE of 64 MiB, 0.17 s with builds running): one
// round trip allocates at most this much (one shard if larger), so that
// its replies come well within the default 1 s command timeout.
constexpr uint64_t kAllocatedBytesPerRoundTrip = uint64_t{32} << 20;

// Redis numbers the bits of a string from the MOST significant bit of byte
// 0 (SETBIT/BITFIELD offset 0 is 0x80 of byte 0); the layout numbers them
// from the least significant (bit 0 is 0x01). Same byte, mirrored bit.
constexpr uint64_t RedisBitOffset(uint64_t layout_bit) {
  return (layout_bit & ~uint64_t{7}) | (7 - (layout_bit & 7));
}

std::string Trailer(uint64_t generation) {
  std::string bytes(internal::kTrailerBytes, '\0');
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(generation >> (56 - 8 * i));
  }
  return bytes;
}

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

std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", absl::string_view(text.data(), text.size()), "\"");
}

void CheckSameSize(const char* what, size_t keys, size_t results) {
  if (keys != results) {
    std::fprintf(stderr,
                 "blockbloom: SharedFilter::%s of %zu keys given %zu "
                 "results\n",
                 what, keys, results);
    std::abort();
  }
}

std::string_view ReplyText(const redisReply& reply) {
  return std::string_view(reply.str, reply.len);
}

}  // namespace

namespace internal {

// One batch of keys in the pipeline: the commands' bytes, what each reply
// needs (the key's hash and shard), the router batch.
struct Window {
  size_t begin = 0;
  size_t end = 0;
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<uint64_t> hashes;
  std::vector<uint64_t> shards;
  Router::Batch batch;

  void Reset(size_t first, size_t last) {
    begin = first;
    end = last;
    buffer.clear();
    ends.clear();
    hashes.clear();
    shards.clear();
    batch.requests.clear();
  }
  // Ends the command just appended to `buffer`.
  void Add(uint16_t slot, uint64_t hash, uint64_t shard) {
    ends.push_back(buffer.size());
    batch.requests.push_back({slot, {}});
    hashes.push_back(hash);
    shards.push_back(shard);
  }
};

// A filter's reusable buffers (no allocation per batch once warm) and the
// constant part of its commands.
struct Scratch {
  Window windows[2];
  std::vector<std::string> getrange_prefix;  // per shard
  std::vector<std::string> bitfield_prefix;  // per shard
};

}  // namespace internal

// Everything that needs the private parts of SharedFilter and Connection.
struct SharedFilterAccess {
  static internal::Router& router(SharedFilter& f) {
    return *f.connection_->router_;
  }
  static internal::Router& router(Connection* c) { return *c->router_; }

  static uint64_t ShardBlocks(const SharedFilter& f, uint64_t shard) {
    return std::min(f.blocks_per_shard_,
                    f.shape_.num_blocks - shard * f.blocks_per_shard_);
  }
  static uint64_t ShardBytes(const SharedFilter& f, uint64_t shard) {
    return ShardBlocks(f, shard) * kBlockBytes + internal::kTrailerBytes;
  }

  // A handle for `metadata` (already validated).
  static SharedFilter Make(Connection* connection, std::string_view name,
                           std::string_view prefix, const Metadata& m,
                           uint64_t seed) {
    SharedFilter f;
    f.connection_ = connection;
    f.name_ = std::string(name);
    f.prefix_ = std::string(prefix);
    f.shape_ = m.shape;
    f.seed_ = seed;
    f.generation_ = m.generation;
    f.num_shards_ = m.num_shards;
    f.blocks_per_shard_ = m.blocks_per_shard;
    f.placement_ = m.placement;
    f.meta_key_ = internal::MetadataKey(prefix, name);
    for (uint64_t i = 0; i < m.num_shards; ++i) {
      f.shard_keys_.push_back(
          internal::ShardKey(prefix, name, m.placement, m.generation, i));
      f.shard_slots_.push_back(internal::KeySlot(f.shard_keys_.back()));
    }
    // The constant start of each shard's GETRANGE and BITFIELD commands.
    f.scratch_ = std::make_unique<internal::Scratch>();
    for (uint64_t i = 0; i < m.num_shards; ++i) {
      std::string getrange;
      AppendArrayHeader(&getrange, 4);
      AppendArg(&getrange, "GETRANGE");
      AppendArg(&getrange, f.shard_keys_[i]);
      f.scratch_->getrange_prefix.push_back(std::move(getrange));
      std::string bitfield;
      AppendArrayHeader(&bitfield,
                        2 + 3 + 4 * static_cast<size_t>(m.shape.num_probes));
      AppendArg(&bitfield, "BITFIELD");
      AppendArg(&bitfield, f.shard_keys_[i]);
      AppendArg(&bitfield, "GET");
      AppendArg(&bitfield, "i64");
      AppendIntArg(&bitfield, ShardBlocks(f, i) * kBlockBits);
      f.scratch_->bitfield_prefix.push_back(std::move(bitfield));
    }
    return f;
  }

  static Metadata MetadataOf(const SharedFilter& f) {
    Metadata m;
    m.shape = f.shape_;
    m.blocks_per_shard = f.blocks_per_shard_;
    m.num_shards = f.num_shards_;
    m.placement = f.placement_;
    m.generation = f.generation_;
    m.seed_check = internal::SeedCheck(f.seed_);
    return m;
  }

  // The layout of a new filter of `shape` under `options`, with a fresh
  // generation.
  static absl::StatusOr<Metadata> NewMetadata(
      const FilterShape& shape, uint64_t seed,
      const SharedFilterOptions& options) {
    if (options.shard_bytes < kBlockBytes ||
        options.shard_bytes + internal::kTrailerBytes >
            internal::kMaxStringBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("shard_bytes must be in [64, 512 MiB - 8], not ",
                       options.shard_bytes));
    }
    Metadata m;
    m.shape = shape;
    m.blocks_per_shard =
        std::min(options.shard_bytes / kBlockBytes, shape.num_blocks);
    m.num_shards =
        (shape.num_blocks + m.blocks_per_shard - 1) / m.blocks_per_shard;
    m.placement = options.placement;
    m.generation = internal::NewGeneration();
    m.seed_check = internal::SeedCheck(seed);
    return m;
  }

  // Runs `requests`; a transport error names the filter.
  static absl::Status Run(SharedFilter& f, const std::vector<Request>& requests,
                          std::vector<Reply>* replies) {
    absl::Status s = router(f).Execute(requests, replies);
    if (!s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat("shared filter ", Quoted(f.name_), ": ", s.message()));
    }
    return s;
  }

  // Points each request at its bytes in `buffer` (built first, because the
  // buffer moves as it grows).
  static void Bind(const std::string& buffer, const std::vector<size_t>& ends,
                   std::vector<Request>* requests) {
    size_t start = 0;
    for (size_t i = 0; i < requests->size(); ++i) {
      (*requests)[i].resp =
          std::string_view(buffer.data() + start, ends[i] - start);
      start = ends[i];
    }
  }

  // Runs keys [0, n) through the pipeline, pipeline_depth keys per batch,
  // with two batches in flight: batch i+1 is formatted and sent while the
  // server answers batch i. build(window, i) formats key i's command and
  // calls window.Add; handle(window, j, reply, &error) takes the reply to
  // the window's j-th key; failed(window) is called for a window whose
  // batch got no replies. Returns the first error.
  template <typename Build, typename Handle, typename Failed>
  static absl::Status Pipelined(SharedFilter& f, size_t n, Build build,
                                Handle handle, Failed failed) {
    internal::Router& r = router(f);
    internal::Scratch& scratch = *f.scratch_;
    absl::Status error;
    auto finish = [&](internal::Window& w) {
      absl::Status s = r.Receive(&w.batch);
      if (!s.ok()) {
        failed(w);
        if (error.ok()) error = Named(f, s);
        return;
      }
      for (size_t j = 0; j < w.batch.replies.size(); ++j) {
        handle(w, j, *w.batch.replies[j], &error);
      }
    };
    internal::Window* previous = nullptr;
    for (size_t begin = 0, chunk = 0; begin < n;
         begin += f.pipeline_depth_, ++chunk) {
      internal::Window& w = scratch.windows[chunk % 2];
      w.Reset(begin, std::min(n, begin + f.pipeline_depth_));
      for (size_t i = w.begin; i < w.end; ++i) build(w, i);
      Bind(w.buffer, w.ends, &w.batch.requests);
      absl::Status sent = r.Send(&w.batch);
      if (!sent.ok()) {
        failed(w);
        if (error.ok()) error = Named(f, sent);
      }
      if (previous != nullptr) finish(*previous);
      previous = sent.ok() ? &w : nullptr;
    }
    if (previous != nullptr) finish(*previous);
    return error;
  }

  static absl::Status Named(const SharedFilter& f, const absl::Status& s) {
    return absl::Status(
        s.code(),
        absl::StrCat("shared filter ", Quoted(f.name_), ": ", s.message()));
  }

  // Creates every shard at full size (zeros, then the trailer), with the
  // TTL if any. `fill` (optional) writes the shard's non-zero bytes too.
  static absl::Status CreateShards(SharedFilter& f, absl::Duration ttl,
                                   const uint8_t* bits);

  // The shards named by a generation, for deleting them.
  static absl::Status DeleteKeys(Connection* connection,
                                 const std::vector<std::string>& keys);
};

absl::Status SharedFilterAccess::DeleteKeys(
    Connection* connection, const std::vector<std::string>& keys) {
  // UNLINK frees big strings in a background thread: deleting a 1 GiB
  // filter does not stall the server (DEL took ~90 ms).
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  for (const std::string& key : keys) {
    AppendCommand(&buffer, {"UNLINK", key});
    ends.push_back(buffer.size());
    requests.push_back({internal::KeySlot(key), {}});
  }
  Bind(buffer, ends, &requests);
  std::vector<Reply> replies;
  if (absl::Status s = router(connection).Execute(requests, &replies);
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
                                              absl::Duration ttl,
                                              const uint8_t* bits) {
  const std::string trailer = Trailer(f.generation_);
  const bool expires = ttl != absl::InfiniteDuration();
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  std::vector<std::string> what;
  uint64_t allocated = 0;
  auto flush = [&]() -> absl::Status {
    allocated = 0;
    Bind(buffer, ends, &requests);
    std::vector<Reply> replies;
    absl::Status s = Run(f, requests, &replies);
    for (size_t i = 0; s.ok() && i < replies.size(); ++i) {
      s = internal::CheckReply(*replies[i], what[i]);
    }
    buffer.clear();
    ends.clear();
    requests.clear();
    what.clear();
    return s;
  };
  for (uint64_t shard = 0; shard < f.num_shards_; ++shard) {
    const std::string& key = f.shard_keys_[shard];
    const uint16_t slot = f.shard_slots_[shard];
    const uint64_t block_bytes = ShardBlocks(f, shard) * kBlockBytes;
    // SETRANGE at the end allocates the whole string, zero-filled.
    AppendCommand(&buffer,
                  {"SETRANGE", key, std::to_string(block_bytes), trailer});
    ends.push_back(buffer.size());
    requests.push_back({slot, {}});
    what.push_back(absl::StrCat("SETRANGE ", Quoted(key)));
    allocated += block_bytes;
    if (expires) {
      AppendCommand(&buffer, {"PEXPIRE", key,
                              std::to_string(std::max<int64_t>(
                                  1, absl::ToInt64Milliseconds(ttl)))});
      ends.push_back(buffer.size());
      requests.push_back({slot, {}});
      what.push_back(absl::StrCat("PEXPIRE ", Quoted(key)));
    }
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
        AppendCommand(
            &buffer,
            {"SETRANGE", key, std::to_string(offset),
             std::string_view(reinterpret_cast<const char*>(piece), length)});
        ends.push_back(buffer.size());
        requests.push_back({slot, {}});
        what.push_back(absl::StrCat("SETRANGE ", Quoted(key)));
        if (requests.size() >= kTransfersPerRoundTrip) {
          if (absl::Status s = flush(); !s.ok()) return s;
        }
      }
    }
    if (requests.size() >= kTransfersPerRoundTrip ||
        allocated >= kAllocatedBytesPerRoundTrip) {
      if (absl::Status s = flush(); !s.ok()) return s;
    }
  }
  return requests.empty() ? absl::OkStatus() : flush();
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
  if (absl::Status s =
          SharedFilterAccess::CreateShards(f, options.ttl, nullptr);
      !s.ok()) {
    SharedFilterAccess::DeleteKeys(connection, f.shard_keys_).IgnoreError();
    return s;
  }
  std::string set;
  const std::string value = internal::EncodeMetadata(*metadata);
  if (options.ttl != absl::InfiniteDuration()) {
    AppendCommand(&set, {"SET", f.meta_key_, value, "NX", "PX",
                         std::to_string(std::max<int64_t>(
                             1, absl::ToInt64Milliseconds(options.ttl)))});
  } else {
    AppendCommand(&set, {"SET", f.meta_key_, value, "NX"});
  }
  auto reply = SharedFilterAccess::router(connection)
                   .ExecuteOne(internal::KeySlot(f.meta_key_), set);
  absl::Status status = reply.status();
  if (status.ok()) {
    status = internal::CheckReply(**reply,
                                  absl::StrCat("SET ", Quoted(f.meta_key_)));
  }
  if (status.ok() && (*reply)->type == REDIS_REPLY_NIL) {
    status = absl::AlreadyExistsError(absl::StrCat(
        "a shared filter named ", Quoted(name), " already exists (Redis key ",
        Quoted(f.meta_key_), "); Open it, or Delete it first"));
  }
  if (!status.ok()) {
    SharedFilterAccess::DeleteKeys(connection, f.shard_keys_).IgnoreError();
    return status;
  }
  return f;
}

absl::StatusOr<SharedFilter> SharedFilter::Open(Connection* connection,
                                                std::string_view name,
                                                uint64_t seed,
                                                std::string_view key_prefix) {
  if (absl::Status s = internal::ValidateName(name); !s.ok()) return s;
  const std::string key = internal::MetadataKey(key_prefix, name);
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
  if ((*reply)->type == REDIS_REPLY_NIL) {
    return absl::NotFoundError(absl::StrCat("no shared filter named ",
                                            Quoted(name), " (Redis key ",
                                            Quoted(key), " does not exist)"));
  }
  auto metadata = internal::ParseMetadata(ReplyText(**reply), key);
  if (!metadata.ok()) return metadata.status();
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
  if ((*reply)->type == REDIS_REPLY_NIL) return absl::OkStatus();
  auto metadata = internal::ParseMetadata(ReplyText(**reply), key);
  if (!metadata.ok()) return metadata.status();  // not ours: leave it
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < metadata->num_shards; ++i) {
    keys.push_back(internal::ShardKey(key_prefix, name, metadata->placement,
                                      metadata->generation, i));
  }
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
  if (absl::Status s = SharedFilterAccess::CreateShards(f, options.ttl,
                                                        filter.bits().data());
      !s.ok()) {
    SharedFilterAccess::DeleteKeys(connection, f.shard_keys_).IgnoreError();
    return s;
  }
  // Switch the metadata to the new generation in one command: readers that
  // open the filter see the old shards or the new ones, never a mix.
  const std::string value = internal::EncodeMetadata(*metadata);
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
  auto reply = SharedFilterAccess::router(connection)
                   .ExecuteOne(internal::KeySlot(f.meta_key_), set);
  absl::Status status = reply.status();
  if (status.ok()) {
    status = internal::CheckReply(**reply,
                                  absl::StrCat("SET ", Quoted(f.meta_key_)));
  }
  if (status.ok() && !replace && (*reply)->type == REDIS_REPLY_NIL) {
    status = absl::AlreadyExistsError(
        absl::StrCat("a shared filter named ", Quoted(name),
                     " already exists; publish with replace to overwrite it"));
  }
  if (!status.ok()) {
    SharedFilterAccess::DeleteKeys(connection, f.shard_keys_).IgnoreError();
    return status;
  }
  if (replace && (*reply)->type == REDIS_REPLY_STRING) {
    // The previous generation's shards, if it was a filter of ours.
    auto old = internal::ParseMetadata(ReplyText(**reply), f.meta_key_);
    if (old.ok() && old->generation != metadata->generation) {
      std::vector<std::string> keys;
      for (uint64_t i = 0; i < old->num_shards; ++i) {
        keys.push_back(internal::ShardKey(options.key_prefix, name,
                                          old->placement, old->generation, i));
      }
      if (absl::Status s = SharedFilterAccess::DeleteKeys(connection, keys);
          !s.ok()) {
        return s;
      }
    }
  }
  return f;
}

SharedFilter::SharedFilter(SharedFilter&&) noexcept = default;
SharedFilter& SharedFilter::operator=(SharedFilter&&) noexcept = default;
SharedFilter::~SharedFilter() = default;

std::vector<std::string> SharedFilter::RedisKeys() const {
  std::vector<std::string> keys = {meta_key_};
  keys.insert(keys.end(), shard_keys_.begin(), shard_keys_.end());
  return keys;
}

// ---------------------------------------------------------------------------
// Queries and adds.

absl::Status SharedFilter::MayContainBatch(
    absl::Span<const std::string_view> keys, absl::Span<bool> results) {
  CheckSameSize("MayContainBatch", keys.size(), results.size());
  const blockbloom::internal::Kernels* kernels =
      blockbloom::internal::KernelsFor(32);
  blockbloom::internal::FilterRef block = {
      nullptr, 1, blockbloom::internal::LaneSetsFor(shape_.num_probes), seed_,
      32};
  const internal::Scratch& scratch = *scratch_;
  auto build = [&](internal::Window& w, size_t i) {
    const uint64_t hash = HashKey(keys[i], seed_);
    const uint64_t index =
        blockbloom::internal::BlockIndex(hash, shape_.num_blocks);
    const uint64_t shard = index / blocks_per_shard_;
    const uint64_t first = (index % blocks_per_shard_) * kBlockBytes;
    // GETRANGE <shard> <first> <first + 63>: a prefix made once per shard,
    // then two numbers.
    w.buffer.append(scratch.getrange_prefix[shard]);
    AppendIntArg(&w.buffer, first);
    AppendIntArg(&w.buffer, first + kBlockBytes - 1);
    w.Add(shard_slots_[shard], hash, shard);
  };
  auto handle = [&](internal::Window& w, size_t j, const redisReply& reply,
                    absl::Status* error) {
    bool& result = results[w.begin + j];
    if (reply.type == REDIS_REPLY_STRING && reply.len == kBlockBytes) {
      // The same kernel as a local Filter, on a one-block filter: the block
      // index came from the high hash bits, the probe uses the low ones.
      block.bits = reinterpret_cast<const uint8_t*>(reply.str);
      result = kernels->probe_hash(block, w.hashes[j]);
      return;
    }
    result = true;  // unknown: "may contain"
    if (!error->ok()) return;
    const std::string& key = shard_keys_[w.shards[j]];
    if (reply.type == REDIS_REPLY_ERROR) {
      *error = internal::ErrorReplyStatus(
          reply, absl::StrCat("GETRANGE ", Quoted(key)));
    } else {
      *error = absl::DataLossError(absl::StrCat(
          "shared filter ", Quoted(name_), ": shard ", Quoted(key),
          reply.type == REDIS_REPLY_STRING && reply.len == 0
              ? " is missing (deleted, evicted or expired behind the "
                "filter's back)"
              : " is shorter than it should be",
          "; answers from it are unknown. Recreate or re-publish the "
          "filter"));
    }
  };
  auto failed = [&](internal::Window& w) {
    std::fill(results.begin() + w.begin, results.begin() + w.end, true);
  };
  return SharedFilterAccess::Pipelined(*this, keys.size(), build, handle,
                                       failed);
}

absl::StatusOr<bool> SharedFilter::MayContain(std::string_view key) {
  bool result = true;
  absl::Status s = MayContainBatch({&key, 1}, {&result, 1});
  if (!s.ok()) return s;
  return result;
}

bool SharedFilter::MayContainOrFailOpen(std::string_view key,
                                        absl::Status* error) {
  bool result = true;
  absl::Status s = MayContainBatch({&key, 1}, {&result, 1});
  if (error != nullptr) *error = s;
  return s.ok() ? result : true;
}

void SharedFilter::MayContainBatchOrFailOpen(
    absl::Span<const std::string_view> keys, absl::Span<bool> results,
    absl::Status* error) {
  // MayContainBatch already answers true for every key it could not check.
  absl::Status s = MayContainBatch(keys, results);
  if (error != nullptr) *error = s;
}

absl::StatusOr<uint64_t> SharedFilter::AddBatch(
    absl::Span<const std::string_view> keys, absl::Span<bool> added) {
  if (!added.empty()) CheckSameSize("AddBatch", keys.size(), added.size());
  const blockbloom::internal::FilterRef ref = {
      nullptr, shape_.num_blocks,
      blockbloom::internal::LaneSetsFor(shape_.num_probes), seed_, 32};
  const int k = shape_.num_probes;
  const internal::Scratch& scratch = *scratch_;
  std::vector<uint64_t> missing;  // shards found recreated by our own adds
  uint64_t new_keys = 0;
  auto build = [&](internal::Window& w, size_t i) {
    const uint64_t hash = HashKey(keys[i], seed_);
    const uint64_t index =
        blockbloom::internal::BlockIndex(hash, shape_.num_blocks);
    const uint64_t shard = index / blocks_per_shard_;
    const uint64_t shard_first_bit = shard * blocks_per_shard_ * kBlockBits;
    // BITFIELD <shard> GET i64 <trailer> SET u1 <bit> 1 ... (k times): the
    // GET reads the generation from the shard's trailer in the same atomic
    // command, which tells whether the shard is still there.
    w.buffer.append(scratch.bitfield_prefix[shard]);
    blockbloom::internal::ForEachBit(ref, hash, [&](uint64_t bit) {
      w.buffer.append("$3\r\nSET\r\n$2\r\nu1\r\n");
      AppendIntArg(&w.buffer, RedisBitOffset(bit - shard_first_bit));
      w.buffer.append("$1\r\n1\r\n");
    });
    w.Add(shard_slots_[shard], hash, shard);
  };
  auto handle = [&](internal::Window& w, size_t j, const redisReply& reply,
                    absl::Status* error) {
    const std::string& key = shard_keys_[w.shards[j]];
    if (reply.type == REDIS_REPLY_ERROR) {
      if (error->ok()) {
        *error = internal::ErrorReplyStatus(
            reply, absl::StrCat("BITFIELD ", Quoted(key)));
      }
      return;
    }
    if (reply.type != REDIS_REPLY_ARRAY ||
        reply.elements != static_cast<size_t>(k) + 1) {
      if (error->ok()) {
        *error = absl::InternalError(
            absl::StrCat("BITFIELD ", Quoted(key), ": unexpected reply"));
      }
      return;
    }
    if (static_cast<uint64_t>(reply.element[0]->integer) != generation_) {
      // The shard was gone (its trailer read 0) and our SETs have just
      // recreated it as a short string of zeros, which readers would take
      // for "absent". Remove it again so that they see it missing.
      missing.push_back(w.shards[j]);
      return;
    }
    bool changed = false;
    for (int b = 1; b <= k; ++b) changed |= reply.element[b]->integer == 0;
    new_keys += changed;
    if (!added.empty()) added[w.begin + j] = changed;
  };
  auto failed = [](internal::Window&) {};
  absl::Status status =
      SharedFilterAccess::Pipelined(*this, keys.size(), build, handle, failed);
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    std::vector<std::string> doomed;
    for (uint64_t shard : missing) doomed.push_back(shard_keys_[shard]);
    SharedFilterAccess::DeleteKeys(connection_, doomed).IgnoreError();
    return absl::DataLossError(absl::StrCat(
        "shared filter ", Quoted(name_), ": shard ", Quoted(doomed[0]),
        " is missing (deleted, evicted or expired behind the filter's back); "
        "the add was not stored. Recreate or re-publish the filter"));
  }
  if (!status.ok()) return status;
  return new_keys;
}

absl::StatusOr<bool> SharedFilter::Add(std::string_view key) {
  bool added = false;
  auto n = AddBatch({&key, 1}, {&added, 1});
  if (!n.ok()) return n.status();
  return added;
}

// ---------------------------------------------------------------------------
// Lifecycle.

absl::Status SharedFilter::Expire(absl::Duration ttl) {
  const std::vector<std::string> keys = RedisKeys();
  const bool persist = ttl == absl::InfiniteDuration();
  const std::string ms =
      std::to_string(std::max<int64_t>(1, absl::ToInt64Milliseconds(ttl)));
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  for (const std::string& key : keys) {
    if (persist) {
      AppendCommand(&buffer, {"PERSIST", key});
    } else {
      AppendCommand(&buffer, {"PEXPIRE", key, ms});
    }
    ends.push_back(buffer.size());
    requests.push_back({internal::KeySlot(key), {}});
  }
  SharedFilterAccess::Bind(buffer, ends, &requests);
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, requests, &replies);
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
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  AppendCommand(&buffer, {"GET", meta_key_});
  ends.push_back(buffer.size());
  requests.push_back({internal::KeySlot(meta_key_), {}});
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t bytes = SharedFilterAccess::ShardBytes(*this, shard);
    AppendCommand(&buffer, {"STRLEN", shard_keys_[shard]});
    ends.push_back(buffer.size());
    requests.push_back({shard_slots_[shard], {}});
    AppendCommand(&buffer, {"GETRANGE", shard_keys_[shard],
                            std::to_string(bytes - internal::kTrailerBytes),
                            std::to_string(bytes - 1)});
    ends.push_back(buffer.size());
    requests.push_back({shard_slots_[shard], {}});
  }
  SharedFilterAccess::Bind(buffer, ends, &requests);
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, requests, &replies);
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
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  for (uint64_t shard = 0; shard < num_shards_; ++shard) {
    const uint64_t block_bytes =
        SharedFilterAccess::ShardBlocks(*this, shard) * kBlockBytes;
    AppendCommand(&buffer, {"BITCOUNT", shard_keys_[shard], "0",
                            std::to_string(block_bytes - 1)});
    ends.push_back(buffer.size());
    requests.push_back({shard_slots_[shard], {}});
  }
  SharedFilterAccess::Bind(buffer, ends, &requests);
  std::vector<Reply> replies;
  if (absl::Status s = SharedFilterAccess::Run(*this, requests, &replies);
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
  std::string buffer;
  std::vector<size_t> ends;
  std::vector<Request> requests;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;  // (offset, length)
  std::vector<uint64_t> piece_shard;
  auto flush = [&]() -> absl::Status {
    SharedFilterAccess::Bind(buffer, ends, &requests);
    std::vector<Reply> replies;
    absl::Status s = SharedFilterAccess::Run(*this, requests, &replies);
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
    buffer.clear();
    ends.clear();
    requests.clear();
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
      AppendCommand(&buffer,
                    {"GETRANGE", shard_keys_[shard], std::to_string(offset),
                     std::to_string(offset + length - 1)});
      ends.push_back(buffer.size());
      requests.push_back({shard_slots_[shard], {}});
      pieces.push_back({base + offset, length});
      piece_shard.push_back(shard);
      if (requests.size() >= kTransfersPerRoundTrip) {
        if (absl::Status s = flush(); !s.ok()) return s;
      }
    }
  }
  if (!requests.empty()) {
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
