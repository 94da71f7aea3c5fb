// blockbloom redis download: a shared filter back into a filter file.
#ifdef BLOCKBLOOM_HAVE_REDIS

#include <cstdint>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/filter_file.h"
#include "tools/flags.h"
#include "tools/output_file.h"
#include "tools/redis/subcommands.h"
#include "tools/report.h"

namespace blockbloom::cli::redis_cli {

int Download(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand,
                      "redis download takes no arguments: -o FILTER "
                      "names the file to write");
  }
  const std::string output = absl::GetFlag(FLAGS_o);
  if (output.empty() || output == "-") {
    return UsageError(kCommand, "-o FILTER (a file) is required");
  }
  // Settled before connecting (tools/output_file.h): a directory or a block
  // device is refused, a device or pipe is written into.
  absl::StatusOr<OutputFile> out = OutputFile::Resolve(output);
  if (!out.ok()) return Fail(kCommand, kExitWriteError, out.status());
  Connected c = Connect();
  if (c.exit_code != kExitOk) return c.exit_code;
  absl::StatusOr<redis::SharedFilter> shared = OpenShared(c);
  if (!shared.ok()) return RedisError(c, shared.status());
  // The whole filter is held in memory to be written: within --max_memory.
  const uint64_t bits_bytes = shared->shape().size_bytes();
  const uint64_t max_memory = absl::GetFlag(FLAGS_max_memory).bytes;
  if (bits_bytes > max_memory) {
    return Fail(
        kCommand, kExitBadInput,
        absl::StrFormat("%s: shared filter %s holds %d bytes of bits, "
                        "over --max_memory=%s; give --max_memory=%s "
                        "(or more) to download it",
                        c.where, Quoted(shared->name()), bits_bytes,
                        SizeForFlag(max_memory), SizeForFlag(bits_bytes)));
  }
  absl::StatusOr<std::string> block = shared->Download();
  if (!block.ok()) return RedisError(c, block.status());
  if (absl::Status s = out->Write(*block); !s.ok()) {
    Fail(kCommand, kExitWriteError, s);
    std::fprintf(stderr, "nothing written to %s\n", output.c_str());
    return kExitWriteError;
  }
  Print(absl::StrFormat("downloaded %s from %s: %d bytes written to %s\n",
                        Quoted(shared->name()), c.where, block->size(),
                        output));
  return FinishOutput(kCommand, stdout,
                      absl::StrCat("the filter was written to ", output,
                                   "; only this report was lost"));
}

}  // namespace blockbloom::cli::redis_cli

#endif  // BLOCKBLOOM_HAVE_REDIS
