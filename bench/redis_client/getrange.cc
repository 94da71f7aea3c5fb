#include <hiredis/hiredis.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/redis_client/contender.h"
#include "blockbloom/hash.h"

namespace blockbloom::redis_client_bench {
namespace {

// The prototype of blockbloom's design over bare hiredis: one key of
// ceil(n * bits_per_key / 512) 64-byte blocks created at full size, block =
// (HashKey(key) >> 32) * blocks >> 32 (as src/core/layout.h), k = 7 bits
// anywhere in the block from 9-bit pieces of a remix of the hash (k = 7 is the
// best k for a 512-bit blocked filter at 10 bits/key: ~0.96%). Query: GETRANGE
// of the block, the bits tested on the client; add: one BITFIELD SET u1 per bit
// (atomic). No metadata, no shards, no checks: the protocol's floor.
class GetRange : public PipelinedBaseline {
 public:
  static constexpr int kProbes = 7;
  GetRange(Pipe* pipe, int depth, int in_flight, double bits_per_key)
      : PipelinedBaseline(pipe, depth, in_flight),
        bits_per_key_(bits_per_key),
        pending_bits_(size_t(depth) * in_flight) {}

  std::string name() const override {
    return in_flight_ == 1 ? "GETRANGE prototype (k=7)"
                           : absl::StrCat("GETRANGE prototype (k=7, ",
                                          in_flight_, " batches in flight)");
  }
  std::string params() const override {
    return absl::StrCat("k=", kProbes, " m=", blocks_ * 512);
  }

  absl::Status Create(uint64_t n) override {
    blocks_ = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(n * bits_per_key_ / 512)));
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    // Full size up front: GETRANGE must never come back short.
    return ExpectInteger(
        pipe_->Call({"SETRANGE", kKey, std::to_string(blocks_ * 64 - 1),
                     std::string_view("\0", 1)}));
  }

  absl::StatusOr<uint64_t> Bytes() override { return StrLen(*pipe_, kKey); }

 protected:
  int AppendAdd(std::string_view key) override {
    uint64_t block;
    uint16_t bits[kProbes];
    Locate(key, &block, bits);
    pipe_->Begin(2 + 4 * kProbes);
    pipe_->Arg("BITFIELD");
    pipe_->Arg(kKey);
    for (uint16_t bit : bits) {
      pipe_->Arg("SET");
      pipe_->Arg("u1");
      pipe_->Arg(block * 512 + bit);
      pipe_->Arg("1");
    }
    return 1;
  }
  void AppendQuery(std::string_view key) override {
    uint64_t block;
    Locate(key, &block,
           pending_bits_[pending_end_++ % pending_bits_.size()].data());
    pipe_->Begin(4);
    pipe_->Arg("GETRANGE");
    pipe_->Arg(kKey);
    pipe_->Arg(block * 64);
    pipe_->Arg(block * 64 + 63);
  }
  absl::StatusOr<bool> ReadQuery() override {
    const uint16_t* bits =
        pending_bits_[pending_begin_++ % pending_bits_.size()].data();
    absl::StatusOr<Reply> reply = pipe_->Read();
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_STRING || (*reply)->len != 64) {
      return absl::DataLossError("GETRANGE: not 64 bytes");
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>((*reply)->str);
    bool all = true;
    // Redis numbers bits from the top of byte 0 (SETBIT/BITFIELD offsets).
    for (int i = 0; i < kProbes; ++i) {
      all &= (bytes[bits[i] >> 3] >> (7 - (bits[i] & 7))) & 1;
    }
    return all;
  }

 private:
  static constexpr std::string_view kKey = "bench:getrange";

  void Locate(std::string_view key, uint64_t* block, uint16_t* bits) const {
    const uint64_t hash = blockbloom::HashKey(key);
    *block = ((hash >> 32) * blocks_) >> 32;  // as the library (blocks < 2^32)
    // splitmix64's finalizer: bits independent of the block's high bits.
    uint64_t x = hash ^ (hash >> 30);
    x *= 0xbf58476d1ce4e5b9;
    x ^= x >> 27;
    x *= 0x94d049bb133111eb;
    x ^= x >> 31;
    for (int i = 0; i < kProbes; ++i) bits[i] = (x >> (9 * i)) & 511;
  }

  const double bits_per_key_;
  uint64_t blocks_ = 0;
  // Bit positions of the queries in flight: a ring of depth * in_flight
  // (PipelinedBaseline::Query never has more unread; QueryOne has one).
  std::vector<std::array<uint16_t, kProbes>> pending_bits_;
  size_t pending_begin_ = 0, pending_end_ = 0;
};

}  // namespace

std::unique_ptr<Contender> NewGetRange(Pipe* pipe, int depth, int in_flight,
                                       double bits_per_key) {
  return std::make_unique<GetRange>(pipe, depth, in_flight, bits_per_key);
}

}  // namespace blockbloom::redis_client_bench
