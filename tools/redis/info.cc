// blockbloom redis info: what a shared filter is, as text or JSON.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <cmath>
#include <cstdint>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "blockbloom/filter.h"
#include "blockbloom/sizing.h"
#include "src/core/simd_target.h"
#include "tools/flags.h"
#include "tools/info_lines.h"
#include "tools/json_writer.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

int Info(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand, "redis info takes no arguments");
  }
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  absl::StatusOr<uint64_t> count = shared->ApproximateCount();
  if (!count.ok()) return RedisError(c, count.status());
  absl::StatusOr<absl::Duration> ttl = shared->Ttl();
  if (!ttl.ok()) return RedisError(c, ttl.status());
  const FilterShape& shape = shared->shape();
  const uint64_t bits_bytes = shape.size_bytes();
  const double fp_rate = EstimatedFpRate(shape, *count).value_or(NAN);
  const double bits_per_key =
      *count == 0
          ? NAN
          : 8.0 * static_cast<double>(bits_bytes) / static_cast<double>(*count);
  const bool spread = shared->placement() == redis::Placement::kSpread;
  const std::vector<std::string> keys = shared->RedisKeys();
  const std::string ttl_text =
      *ttl == absl::InfiniteDuration() ? "none" : absl::FormatDuration(*ttl);

  std::string out;
  if (absl::GetFlag(FLAGS_json)) {
    JsonObject json;
    json.Add("server", c.where);
    json.Add("name", shared->name());
    json.Add("metadata_key", keys.front());
    json.Add("placement", spread ? "spread" : "together");
    json.Add("lane_bits", shape.lane_bits);
    json.Add("block_bytes", uint64_t{2} * shape.lane_bits);
    json.Add("num_probes", shape.num_probes);
    json.Add("seed", shared->seed());
    json.Add("num_blocks", shape.num_blocks);
    json.Add("bits_bytes", bits_bytes);
    json.Add("num_shards", shared->num_shards());
    json.Add("blocks_per_shard", shared->blocks_per_shard());
    if (*ttl == absl::InfiniteDuration()) {
      json.AddNull("ttl_seconds");
    } else {
      json.Add("ttl_seconds", absl::ToDoubleSeconds(*ttl));
    }
    json.Add("estimated_keys", *count);
    json.Add("bits_per_key", bits_per_key);
    json.Add("estimated_fp_rate", fp_rate);
    // What this process probes the shared filter's blocks with.
    json.Add("simd_target", ActiveSimdTarget());
    json.Add("simd_target_source", internal::SimdTargetSource());
    out = json.str() + "\n";
  } else {
    const auto line = [&out](const char* name, const std::string& value) {
      AppendInfoLine(&out, name, value);
    };
    line("server", c.where);
    line("name", shared->name());
    line("metadata key", keys.front());
    AppendShapeLines(&out, shape, shared->seed());
    line("size", absl::StrFormat("%d bytes of bits", bits_bytes));
    line("shards",
         absl::StrFormat("%d of up to %d blocks (placement %s)",
                         shared->num_shards(), shared->blocks_per_shard(),
                         spread ? "spread" : "together"));
    line("expires in", ttl_text);
    line("estimated distinct keys",
         absl::StrFormat("%d (from the bits set)", *count));
    if (!std::isnan(bits_per_key)) {
      line("bits per key", absl::StrFormat("%.2f", bits_per_key));
    }
    line("estimated FPR",
         absl::StrFormat("%.4g%% (for the estimated keys)", 100 * fp_rate));
    AppendSimdTargetLine(&out);
  }
  Print(out);
  return FinishOutput(kCommand);
}

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
