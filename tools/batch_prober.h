// Probing keys a batch at a time and printing the answers, for the commands
// that query a filter (query, redis query).
#ifndef BLOCKBLOOM_TOOLS_BATCH_PROBER_H_
#define BLOCKBLOOM_TOOLS_BATCH_PROBER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tools/key_reader.h"

namespace blockbloom::cli {

// Answers `results[i]` for `keys[i]` (keys.size() == results.size()).
using ProbeFunction = std::function<absl::Status(
    absl::Span<const std::string_view> keys, absl::Span<bool> results)>;

// Collects keys (copied: the reader's views do not last) and probes them a
// batch at a time: at most `batch_keys` keys, or `batch_bytes` bytes (a
// single longer key is a batch of its own). Prints one line per key ("1"
// may be in the set, "0" definitely not) unless `count_only`.
class BatchProber {
 public:
  BatchProber(size_t batch_keys, size_t batch_bytes, bool count_only,
              ProbeFunction probe);

  // The first error of `probe`; no more keys are probed after one.
  absl::Status Add(std::string_view key);
  absl::Status Flush();

  uint64_t queried() const { return queried_; }
  uint64_t may_contain() const { return may_contain_; }

 private:
  const size_t batch_keys_;
  const size_t batch_bytes_;
  const bool count_only_;
  const ProbeFunction probe_;
  std::string arena_;
  std::vector<size_t> ends_;
  std::vector<std::string_view> views_;
  std::unique_ptr<bool[]> results_;
  uint64_t queried_ = 0;
  uint64_t may_contain_ = 0;
};

// The body of a query command: probes every key of `reader` with `probe`
// (a batch at a time, or each key as it comes when the input is a
// terminal), prints the answers (or, with --count, {"queried": N,
// "may_contain": M}) and checks standard output. Answers printed before an
// error stay printed: they are right for those keys. A failed probe is reported
// by `probe_error` (which returns the exit code), a bad input as kExitBadInput
// of `command`.
int ProbeKeys(const char* command, KeyReader* reader, size_t batch_keys,
              size_t batch_bytes, const ProbeFunction& probe,
              const std::function<int(const absl::Status&)>& probe_error);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_BATCH_PROBER_H_
