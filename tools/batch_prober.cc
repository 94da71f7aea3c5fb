#include "tools/batch_prober.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/flags/flag.h"
#include "tools/exit_codes.h"
#include "tools/flags.h"
#include "tools/json_writer.h"
#include "tools/report.h"

namespace blockbloom::cli {

BatchProber::BatchProber(size_t batch_keys, size_t batch_bytes, bool count_only,
                         ProbeFunction probe)
    : batch_keys_(batch_keys),
      batch_bytes_(batch_bytes),
      count_only_(count_only),
      probe_(std::move(probe)),
      results_(new bool[batch_keys]) {}

absl::Status BatchProber::Add(std::string_view key) {
  arena_.append(key);
  ends_.push_back(arena_.size());
  if (ends_.size() == batch_keys_ || arena_.size() >= batch_bytes_) {
    return Flush();
  }
  return absl::OkStatus();
}

absl::Status BatchProber::Flush() {
  if (ends_.empty()) return absl::OkStatus();
  views_.clear();
  size_t begin = 0;
  for (size_t end : ends_) {
    views_.emplace_back(arena_.data() + begin, end - begin);
    begin = end;
  }
  const size_t n = views_.size();
  if (absl::Status s = probe_(views_, absl::MakeSpan(results_.get(), n));
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < n; ++i) {
    may_contain_ += results_[i];
    if (!count_only_) Print(results_[i] ? "1\n" : "0\n");
  }
  queried_ += n;
  arena_.clear();
  ends_.clear();
  return absl::OkStatus();
}

int ProbeKeys(const char* command, KeyReader* reader, size_t batch_keys,
              size_t batch_bytes, const ProbeFunction& probe,
              const std::function<int(const absl::Status&)>& probe_error) {
  const bool count_only = absl::GetFlag(FLAGS_count);
  // Keys typed at a terminal are answered as each line is entered, not when
  // a batch fills or the input ends.
  const bool interactive = ::isatty(reader->fd()) == 1;
  BatchProber prober(interactive ? 1 : batch_keys, batch_bytes, count_only,
                     probe);
  std::string_view key;
  absl::Status status;
  while (status.ok() && reader->Next(&key)) {
    status = prober.Add(key);
    if (interactive) std::fflush(stdout);
  }
  if (status.ok()) status = prober.Flush();
  // Answers printed so far stay printed: they are right for those keys.
  if (!status.ok()) {
    std::fflush(stdout);
    return probe_error(status);
  }
  if (!reader->status().ok()) {
    std::fflush(stdout);
    return Fail(command, kExitBadInput, reader->status());
  }
  if (count_only) {
    JsonObject json;
    json.Add("queried", prober.queried());
    json.Add("may_contain", prober.may_contain());
    Print(json.str() + "\n");
  }
  return FinishOutput(command);
}

}  // namespace blockbloom::cli
