// SharedFilter's queries and adds: one GETRANGE of the key's 64-byte block
// (probed here with the same kernel as an in-process Filter) or one atomic
// BITFIELD per key, pipelined. The block of a key and its bits come from
// src/core/layout.h, as for an in-process Filter; only where the block's bytes
// come from differs.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/hash.h"
#include "blockbloom/redis_client.h"
#include "src/core/batch_size.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/redis_client/shared_filter_access.h"

namespace blockbloom::redis {
namespace {

// Redis numbers the bits of a string from the MOST significant bit of byte
// 0 (SETBIT/BITFIELD offset 0 is 0x80 of byte 0); the layout numbers them
// from the least significant (bit 0 is 0x01). Same byte, mirrored bit.
constexpr uint64_t RedisBitOffset(uint64_t layout_bit) {
  return (layout_bit & ~uint64_t{7}) | (7 - (layout_bit & 7));
}

}  // namespace

// ---------------------------------------------------------------------------
// Queries and adds.

absl::Status SharedFilter::MayContainBatch(
    absl::Span<const std::string_view> keys, absl::Span<bool> results) {
  blockbloom::internal::CheckBatchSize("SharedFilter::MayContainBatch",
                                       keys.size(), results.size());
  const blockbloom::internal::Kernels* kernels =
      blockbloom::internal::KernelsFor(32);
  blockbloom::internal::FilterRef block =
      blockbloom::internal::OneBlockView(shape_, seed_);
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
  if (!added.empty())
    blockbloom::internal::CheckBatchSize("SharedFilter::AddBatch", keys.size(),
                                         added.size());
  const blockbloom::internal::FilterRef ref =
      blockbloom::internal::BlockedRef(nullptr, shape_, seed_);
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
}  // namespace blockbloom::redis
