// The private side of blockbloom::redis::SharedFilter, shared by the files
// that implement it by role:
//   shared_filter_lifecycle.cc  create, open, delete, publish (shard writing)
//   shared_filter_probe.cc      queries and adds (the pipelined hot path)
//   shared_filter_admin.cc      expiry, checks, key counts, download
//   shared_filter_orphans.cc    removing shards no published filter uses
// SharedFilterAccess is the one friend of SharedFilter and Connection.
#ifndef BLOCKBLOOM_SRC_REDIS_CLIENT_SHARED_FILTER_ACCESS_H_
#define BLOCKBLOOM_SRC_REDIS_CLIENT_SHARED_FILTER_ACCESS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "blockbloom/redis_client.h"
#include "src/core/layout.h"
#include "src/redis_client/metadata.h"
#include "src/redis_client/resp.h"
#include "src/redis_client/router.h"

namespace blockbloom::redis {
namespace internal {

inline constexpr uint64_t kBlockBytes = blockbloom::internal::kBlockBytes;
inline constexpr uint64_t kBlockBits = kBlockBytes * 8;
// Snapshots move data in pieces of this size, several per round trip.
inline constexpr uint64_t kTransferBytes = uint64_t{1} << 20;
inline constexpr size_t kTransfersPerRoundTrip = 8;
// Zero-filling a new shard is the slow server-side step, and its time
// grows with the bytes allocated (docs/BENCHMARKS.md, "Server-side cost of
// big strings"): one round trip allocates at most this much (one shard if
// larger), so that its replies come well within the default command
// timeout (ConnectionOptions::command_timeout, 1 s).
inline constexpr uint64_t kAllocatedBytesPerRoundTrip = uint64_t{32} << 20;

inline std::string Trailer(uint64_t generation) {
  std::string bytes(kTrailerBytes, '\0');
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(generation >> (56 - 8 * i));
  }
  return bytes;
}

inline std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", absl::string_view(text.data(), text.size()), "\"");
}

inline std::string_view ReplyText(const redisReply& reply) {
  return std::string_view(reply.str, reply.len);
}

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

// The names the implementation files use unqualified (this header is
// included only by them).
using internal::AppendArg;
using internal::AppendArrayHeader;
using internal::AppendCommand;
using internal::AppendIntArg;
using internal::kBlockBits;
using internal::kBlockBytes;
using internal::Metadata;
using internal::Quoted;
using internal::Reply;
using internal::ReplyText;
using internal::Request;

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

  // Commands for one round trip, each sent to the slot of its key: Add
  // them, then Run the batch (or hand Requests() to a Router).
  struct Batch {
    std::string buffer;
    std::vector<size_t> ends;
    std::vector<Request> requests;

    void Add(uint16_t slot, std::initializer_list<std::string_view> args) {
      AppendCommand(&buffer, args);
      ends.push_back(buffer.size());
      requests.push_back({slot, {}});
    }
    size_t size() const { return requests.size(); }
    bool empty() const { return requests.empty(); }
    void clear() {
      buffer.clear();
      ends.clear();
      requests.clear();
    }
    // The requests, pointed at their bytes (valid until the next Add).
    const std::vector<Request>& Requests() {
      Bind(buffer, ends, &requests);
      return requests;
    }
  };
  static absl::Status Run(SharedFilter& f, Batch* batch,
                          std::vector<Reply>* replies) {
    return Run(f, batch->Requests(), replies);
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

  // Creates every shard at full size (zeros, then the trailer) with the
  // pending expiry (kPendingShardTtl, renewed while it goes on). `bits`
  // (optional) writes the shards' non-zero bytes too. Cancelled if
  // `cancel` becomes true between round trips.
  static absl::Status CreateShards(SharedFilter& f, const uint8_t* bits,
                                   const std::atomic<bool>* cancel);
  // Gives every shard its final expiry (`ttl`, or none): they become part
  // of a filter. DataLoss naming a shard that is gone already (evicted, or
  // expired during an upload paused for longer than kPendingShardTtl).
  static absl::Status CommitShards(SharedFilter& f, absl::Duration ttl);
  // CreateShards, CommitShards, then the metadata: SET NX, or SET GET when
  // replacing. The SET's reply (nil if NX found the name taken; the old
  // metadata when replacing). On any error the shards written are deleted.
  static absl::StatusOr<Reply> Upload(SharedFilter& f, const Metadata& m,
                                      const uint8_t* bits,
                                      const SharedFilterOptions& options,
                                      bool replace);

  // The shards named by a generation, for deleting them.
  static absl::Status DeleteKeys(Connection* connection,
                                 const std::vector<std::string>& keys);
};

}  // namespace blockbloom::redis

#endif  // BLOCKBLOOM_SRC_REDIS_CLIENT_SHARED_FILTER_ACCESS_H_
