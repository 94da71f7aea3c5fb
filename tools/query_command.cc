// blockbloom query: may these keys be in the filter?
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "tools/commands.h"
#include "tools/filter_file.h"
#include "tools/flags.h"
#include "tools/json_writer.h"
#include "tools/key_reader.h"
#include "tools/report.h"

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "query";
// Keys are probed in batches (MayContainBatch prefetches their blocks) of at
// most this many keys or bytes; a single longer key is a batch of its own.
constexpr size_t kBatchKeys = 1024;
constexpr size_t kBatchBytes = size_t{1} << 20;

// Collects keys (copied: the reader's views do not last) and probes them a
// batch at a time.
class BatchProber {
 public:
  BatchProber(const Filter& filter, bool count_only)
      : filter_(filter),
        count_only_(count_only),
        results_(new bool[kBatchKeys]) {}

  void Add(std::string_view key) {
    arena_.append(key);
    ends_.push_back(arena_.size());
    if (ends_.size() == kBatchKeys || arena_.size() >= kBatchBytes) Flush();
  }

  void Flush() {
    if (ends_.empty()) return;
    views_.clear();
    size_t begin = 0;
    for (size_t end : ends_) {
      views_.emplace_back(arena_.data() + begin, end - begin);
      begin = end;
    }
    const size_t n = views_.size();
    filter_.MayContainBatch(views_, absl::MakeSpan(results_.get(), n));
    for (size_t i = 0; i < n; ++i) {
      may_contain_ += results_[i];
      if (!count_only_) std::fputs(results_[i] ? "1\n" : "0\n", stdout);
    }
    queried_ += n;
    arena_.clear();
    ends_.clear();
  }

  uint64_t queried() const { return queried_; }
  uint64_t may_contain() const { return may_contain_; }

 private:
  const Filter& filter_;
  const bool count_only_;
  std::string arena_;
  std::vector<size_t> ends_;
  std::vector<std::string_view> views_;
  std::unique_ptr<bool[]> results_;
  uint64_t queried_ = 0;
  uint64_t may_contain_ = 0;
};

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
      LoadFilterFile(filter_path);
  if (!file.ok()) return Fail(kCommand, kExitBadInput, file.status());
  absl::StatusOr<std::unique_ptr<KeyReader>> reader =
      KeyReader::Open(keys_path, *format);
  if (!reader.ok()) return Fail(kCommand, kExitBadInput, reader.status());

  const bool count_only = absl::GetFlag(FLAGS_count);
  BatchProber prober(*(*file)->filter, count_only);
  std::string_view key;
  while ((*reader)->Next(&key)) prober.Add(key);
  prober.Flush();
  // Answers printed so far stay printed: they are right for the keys read.
  if (!(*reader)->status().ok()) {
    std::fflush(stdout);
    return Fail(kCommand, kExitBadInput, (*reader)->status());
  }
  if (count_only) {
    JsonObject json;
    json.Add("queried", prober.queried());
    json.Add("may_contain", prober.may_contain());
    std::fputs((json.str() + "\n").c_str(), stdout);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return Fail(kCommand, kExitWriteError, "error writing standard output");
  }
  return kExitOk;
}

}  // namespace blockbloom::cli
