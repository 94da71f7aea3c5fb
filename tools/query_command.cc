// blockbloom query: may these keys be in the filter?
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "tools/batch_prober.h"
#include "tools/commands.h"
#include "tools/filter_file.h"
#include "tools/flags.h"
#include "tools/key_reader.h"
#include "tools/report.h"

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "query";
// Keys are probed in batches (MayContainBatch prefetches their blocks) of at
// most this many keys or bytes; a single longer key is a batch of its own.
constexpr size_t kBatchKeys = 1024;
constexpr size_t kBatchBytes = size_t{1} << 20;

}  // namespace

int RunQuery(const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2) {
    return UsageError(kCommand, absl::StrCat("expected FILTER [KEYS|-], got ",
                                             args.size(), " arguments"));
  }
  const std::string& filter_path = args[0];
  const std::string keys_path = args.size() == 2 ? args[1] : "-";
  if (filter_path == "-" && keys_path == "-") {
    return UsageError(kCommand,
                      "the filter and the keys cannot both come from "
                      "standard input");
  }
  absl::StatusOr<InputFormat> format = InputFormatFlag();
  if (!format.ok()) return UsageError(kCommand, format.status());

  absl::StatusOr<std::unique_ptr<FilterFile>> file =
      LoadFilterFile(filter_path, FilterFileLimitsFromFlags());
  if (!file.ok()) return Fail(kCommand, kExitBadInput, file.status());
  absl::StatusOr<std::unique_ptr<KeyReader>> reader =
      KeyReader::Open(keys_path, *format);
  if (!reader.ok()) return Fail(kCommand, kExitBadInput, reader.status());
  (*reader)->set_max_key_bytes(absl::GetFlag(FLAGS_max_memory).bytes,
                               "--max_memory");

  const Filter& filter = *(*file)->filter;
  return ProbeKeys(
      kCommand, reader->get(), kBatchKeys, kBatchBytes,
      [&filter](absl::Span<const std::string_view> keys,
                absl::Span<bool> results) {
        filter.MayContainBatch(keys, results);
        return absl::OkStatus();
      },
      // MayContainBatch of a local filter cannot fail.
      [](const absl::Status& status) {
        return Fail(kCommand, kExitBadInput, status);
      });
}

}  // namespace blockbloom::cli
