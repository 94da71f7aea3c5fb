// blockbloom redis query: keys checked against a shared filter.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <cstddef>
#include <memory>

#include "absl/flags/flag.h"
#include "absl/types/span.h"
#include "tools/batch_prober.h"
#include "tools/flags.h"
#include "tools/key_reader.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

namespace {

// Keys are checked in batches of at most this many keys or bytes (each batch
// is a few pipelined round trips).
constexpr size_t kBatchKeys = 4096;
constexpr size_t kBatchBytes = size_t{1} << 20;

}  // namespace

int Query(const std::vector<std::string>& args) {
  if (args.size() > 2) {
    return UsageError(kCommand, "redis query takes at most one KEYS file");
  }
  const std::string keys_path = args.size() == 2 ? args[1] : "-";
  absl::StatusOr<InputFormat> format = InputFormatFlag();
  if (!format.ok()) return UsageError(kCommand, format.status());
  absl::StatusOr<std::unique_ptr<KeyReader>> reader =
      KeyReader::Open(keys_path, *format);
  if (!reader.ok()) return Fail(kCommand, kExitBadInput, reader.status());
  (*reader)->set_max_key_bytes(absl::GetFlag(FLAGS_max_memory).bytes,
                               "--max_memory");
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  shared->set_pipeline_depth(256);

  redis::SharedFilter& filter = *shared;
  return ProbeKeys(
      kCommand, reader->get(), kBatchKeys, kBatchBytes,
      [&filter](absl::Span<const std::string_view> keys,
                absl::Span<bool> results) {
        return filter.MayContainBatch(keys, results);
      },
      [&c](const absl::Status& status) { return RedisError(c, status); });
}

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
