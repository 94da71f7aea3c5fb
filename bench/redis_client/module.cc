#include <hiredis/hiredis.h>

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/redis_client/contender.h"

namespace blockbloom::redis_client_bench {
namespace {

// blockbloom's Redis module (src/redis_module, loaded with --loadmodule; the
// server must have it): the filter lives in the server, the client sends the
// keys. Two ways of batching, as a RedisBloom user would:
//   per-key   BF.ADD / BF.EXISTS, `depth` commands pipelined per round trip
//             (the same shape as the baselines' batches);
//   multi     one BF.MADD / BF.MEXISTS of `depth` keys per round trip.
// Sized by BF.RESERVE key <fp_rate> <n> (the module's own sizing), so its
// memory follows the asked rate like Redisson's, not --bits_per_key.
class ModuleFilter : public PipelinedBaseline {
 public:
  ModuleFilter(Pipe* pipe, int depth, bool multi, double fp_rate)
      : PipelinedBaseline(pipe, depth), multi_(multi), fp_rate_(fp_rate) {}

  std::string name() const override {
    return multi_ ? absl::StrCat("module (BF.MEXISTS of ", depth_, ")")
                  : "module (BF.EXISTS, pipelined)";
  }
  std::string params() const override {
    return absl::StrCat("p=", fp_rate_, " m=", bits_);
  }

  absl::Status Create(uint64_t n) override {
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    if (absl::Status s = ExpectStatusOk(pipe_->Call(
            {"BF.RESERVE", kKey, absl::StrCat(fp_rate_), std::to_string(n)}));
        !s.ok()) {
      return s;
    }
    // BF.INFO key SIZE: a one-element array, the filter's bytes.
    absl::StatusOr<Reply> info = pipe_->Call({"BF.INFO", kKey, "SIZE"});
    if (!info.ok()) return info.status();
    const redisReply* r = info->get();
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 1) r = r->element[0];
    if (r->type != REDIS_REPLY_INTEGER) {
      return absl::DataLossError("BF.INFO SIZE: not an integer");
    }
    bits_ = uint64_t(r->integer) * 8;
    return absl::OkStatus();
  }

  absl::Status Add(absl::Span<const std::string_view> keys) override {
    if (!multi_) return PipelinedBaseline::Add(keys);
    for (size_t begin = 0; begin < keys.size(); begin += depth_) {
      const size_t end = std::min(keys.size(), begin + depth_);
      AppendMulti("BF.MADD", keys.subspan(begin, end - begin));
      if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
      absl::StatusOr<Reply> reply = pipe_->Read();
      if (!reply.ok()) return reply.status();
      if ((*reply)->type != REDIS_REPLY_ARRAY ||
          (*reply)->elements != end - begin) {
        return absl::DataLossError("BF.MADD: not one answer per key");
      }
    }
    return absl::OkStatus();
  }

  absl::Status Query(absl::Span<const std::string_view> keys,
                     absl::Span<bool> results) override {
    if (!multi_) return PipelinedBaseline::Query(keys, results);
    for (size_t begin = 0; begin < keys.size(); begin += depth_) {
      const size_t end = std::min(keys.size(), begin + depth_);
      AppendMulti("BF.MEXISTS", keys.subspan(begin, end - begin));
      if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
      absl::StatusOr<Reply> reply = pipe_->Read();
      if (!reply.ok()) return reply.status();
      const redisReply& r = **reply;
      if (r.type != REDIS_REPLY_ARRAY || r.elements != end - begin) {
        return absl::DataLossError("BF.MEXISTS: not one answer per key");
      }
      for (size_t i = 0; i < r.elements; ++i) {
        results[begin + i] = r.element[i]->type == REDIS_REPLY_INTEGER &&
                             r.element[i]->integer == 1;
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Bytes() override {
    // The whole value as the server accounts it (MEMORY USAGE), not only
    // the bits.
    absl::StatusOr<Reply> reply = pipe_->Call({"MEMORY", "USAGE", kKey});
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_INTEGER) {
      return absl::DataLossError("MEMORY USAGE: not an integer");
    }
    return uint64_t((*reply)->integer);
  }

 protected:
  int AppendAdd(std::string_view key) override {
    pipe_->Command({"BF.ADD", kKey, key});
    return 1;
  }
  void AppendQuery(std::string_view key) override {
    pipe_->Command({"BF.EXISTS", kKey, key});
  }
  absl::StatusOr<bool> ReadQuery() override {
    absl::StatusOr<Reply> reply = pipe_->Read();
    if (!reply.ok()) return reply.status();
    if ((*reply)->type != REDIS_REPLY_INTEGER) {
      return absl::DataLossError("BF.EXISTS: not an integer");
    }
    return (*reply)->integer == 1;
  }

 private:
  static constexpr std::string_view kKey = "bench:module";

  void AppendMulti(std::string_view command,
                   absl::Span<const std::string_view> keys) {
    pipe_->Begin(2 + int(keys.size()));
    pipe_->Arg(command);
    pipe_->Arg(kKey);
    for (std::string_view key : keys) pipe_->Arg(key);
  }

  const bool multi_;
  const double fp_rate_;
  uint64_t bits_ = 0;
};

}  // namespace

std::unique_ptr<Contender> NewModule(Pipe* pipe, int depth, bool multi,
                                     double fp_rate) {
  return std::make_unique<ModuleFilter>(pipe, depth, multi, fp_rate);
}

}  // namespace blockbloom::redis_client_bench
