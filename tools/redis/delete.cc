// blockbloom redis delete: a shared filter and the orphaned shards of
// interrupted publishes under its name.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <cstdint>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "tools/flags.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

int Delete(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand, "redis delete takes no arguments");
  }
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  const std::string name = absl::GetFlag(FLAGS_name);
  if (absl::Status s = redis::SharedFilter::Delete(c.connection.get(), name);
      !s.ok()) {
    return RedisError(c, s);
  }
  // And what interrupted publishes left behind under the name.
  absl::StatusOr<uint64_t> orphans =
      redis::SharedFilter::DeleteOrphans(c.connection.get(), name);
  if (!orphans.ok()) return RedisError(c, orphans.status());
  Print(absl::StrFormat(
      "deleted %s from %s (nothing to do if it did not exist)%s\n",
      Quoted(name), c.where,
      *orphans == 0 ? ""
                    : absl::StrFormat("; also %d orphaned shard%s of "
                                      "interrupted publishes",
                                      *orphans, *orphans == 1 ? "" : "s")));
  return FinishOutput(kCommand, stdout,
                      "the filter was deleted; only this report was lost");
}

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
