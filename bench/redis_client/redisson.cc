#include <xxhash.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "bench/redis_client/contender.h"

namespace blockbloom::redis_client_bench {
namespace {

// Redisson RBloomFilter (redisson/redisson, RedissonBloomFilter.java):
// tryInit(n, p) sizes m = (long)(-n ln p / (ln 2)^2) bits and
// k = max(1, round(m / n * ln 2)) (7 for p = 1%); a key's 128-bit hash (two
// longs h1, h2; HighwayHash there, XXH3-128 here) gives the positions
// idx_i = (h & Long.MAX_VALUE) % m with h = h1, then h += h2 / h1 alternately;
// add = k SETBITs, contains = k GETBITs, sent as one batch. (Redisson also
// runs a config-check script with every call; left out here, which favours
// it.)
class Redisson : public PipelinedBaseline {
 public:
  Redisson(Pipe* pipe, int depth, double fp_rate)
      : PipelinedBaseline(pipe, depth), fp_rate_(fp_rate) {}

  std::string name() const override { return "Redisson (k=7 GETBITs)"; }
  std::string params() const override {
    return absl::StrCat("k=", k_, " m=", bits_);
  }

  absl::Status Create(uint64_t n) override {
    if (absl::Status s = ExpectInteger(pipe_->Call({"DEL", kKey})); !s.ok()) {
      return s;
    }
    const double ln2 = std::log(2.0);
    bits_ = static_cast<uint64_t>(-static_cast<double>(n) * std::log(fp_rate_) /
                                  (ln2 * ln2));
    k_ = std::max<int>(
        1, static_cast<int>(std::llround(double(bits_) / double(n) * ln2)));
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Bytes() override { return StrLen(*pipe_, kKey); }

 protected:
  int AppendAdd(std::string_view key) override {
    AppendBits("SETBIT", key, true);
    return k_;
  }
  void AppendQuery(std::string_view key) override {
    AppendBits("GETBIT", key, false);
  }
  absl::StatusOr<bool> ReadQuery() override {
    bool all = true;
    for (int i = 0; i < k_; ++i) {
      absl::StatusOr<Reply> reply = pipe_->Read();
      if (!reply.ok()) return reply.status();
      all = all && (*reply)->integer == 1;
    }
    return all;
  }

 private:
  static constexpr std::string_view kKey = "bench:redisson";

  void AppendBits(std::string_view command, std::string_view key, bool set) {
    const XXH128_hash_t hash = XXH3_128bits(key.data(), key.size());
    const int64_t h1 = static_cast<int64_t>(hash.low64);
    const int64_t h2 = static_cast<int64_t>(hash.high64);
    uint64_t h = static_cast<uint64_t>(h1);
    for (int i = 0; i < k_; ++i) {
      pipe_->Begin(set ? 4 : 3);
      pipe_->Arg(command);
      pipe_->Arg(kKey);
      pipe_->Arg((h & uint64_t{INT64_MAX}) % bits_);
      if (set) pipe_->Arg("1");
      h += static_cast<uint64_t>(i % 2 == 0 ? h2 : h1);
    }
  }

  const double fp_rate_;
  uint64_t bits_ = 0;
  int k_ = 0;
};

}  // namespace

std::unique_ptr<Contender> NewRedisson(Pipe* pipe, int depth, double fp_rate) {
  return std::make_unique<Redisson>(pipe, depth, fp_rate);
}

}  // namespace blockbloom::redis_client_bench
