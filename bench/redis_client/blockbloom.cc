#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/redis_client/contender.h"

namespace blockbloom::redis_client_bench {
namespace {

// The library: blockbloom::redis::SharedFilter.
class Ours : public Contender {
 public:
  Ours(blockbloom::redis::Connection* connection, Pipe* pipe, int depth,
       double bits_per_key)
      : connection_(connection),
        pipe_(pipe),
        depth_(depth),
        bits_per_key_(bits_per_key) {}

  std::string name() const override {
    return absl::StrCat("blockbloom (batch ", depth_, ")");
  }
  std::string params() const override {
    if (!filter_) return "";
    return absl::StrCat("k=", filter_->shape().num_probes,
                        " m=", filter_->shape().size_bytes() * 8);
  }

  absl::Status Create(uint64_t n) override {
    filter_.reset();
    if (absl::Status s =
            blockbloom::redis::SharedFilter::Delete(connection_, redis_name());
        !s.ok()) {
      return s;
    }
    blockbloom::redis::SharedFilterOptions options;
    options.expected_keys = n;
    options.bits_per_key = bits_per_key_;
    options.seed = 0x5eed'b10c'b100'0009;
    absl::StatusOr<blockbloom::redis::SharedFilter> filter =
        blockbloom::redis::SharedFilter::Create(connection_, redis_name(),
                                                options);
    if (!filter.ok()) return filter.status();
    filter_ =
        std::make_unique<blockbloom::redis::SharedFilter>(std::move(*filter));
    filter_->set_pipeline_depth(depth_);
    return absl::OkStatus();
  }
  // Its own name per depth: all contenders' filters stay for the latency
  // phase.
  std::string redis_name() const { return absl::StrCat("bench-", depth_); }
  absl::Status Add(absl::Span<const std::string_view> keys) override {
    return filter_->AddBatch(keys).status();
  }
  absl::Status Query(absl::Span<const std::string_view> keys,
                     absl::Span<bool> results) override {
    return filter_->MayContainBatch(keys, results);
  }
  absl::StatusOr<bool> QueryOne(std::string_view key) override {
    return filter_->MayContain(key);
  }
  absl::StatusOr<uint64_t> Bytes() override {
    uint64_t total = 0;
    for (const std::string& key : filter_->RedisKeys()) {
      absl::StatusOr<uint64_t> n = StrLen(*pipe_, key);
      if (!n.ok()) return n.status();
      total += *n;
    }
    return total;
  }

 private:
  blockbloom::redis::Connection* connection_;
  Pipe* pipe_;
  const int depth_;
  const double bits_per_key_;
  std::unique_ptr<blockbloom::redis::SharedFilter> filter_;
};

}  // namespace

std::unique_ptr<Contender> NewBlockbloom(redis::Connection* connection,
                                         Pipe* pipe, int depth,
                                         double bits_per_key) {
  return std::make_unique<Ours>(connection, pipe, depth, bits_per_key);
}

}  // namespace blockbloom::redis_client_bench
