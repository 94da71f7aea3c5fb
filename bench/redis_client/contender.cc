#include "bench/redis_client/contender.h"

#include <algorithm>
#include <deque>

namespace blockbloom::redis_client_bench {

absl::Status PipelinedBaseline::Add(absl::Span<const std::string_view> keys) {
  std::deque<int> replies;  // per batch in flight
  size_t sent = 0;
  while (sent < keys.size() || !replies.empty()) {
    while (sent < keys.size() && replies.size() < size_t(in_flight_)) {
      const size_t end = std::min(keys.size(), sent + depth_);
      int n = 0;
      for (; sent < end; ++sent) n += AppendAdd(keys[sent]);
      replies.push_back(n);
      if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
    }
    for (int r = 0; r < replies.front(); ++r) {
      absl::StatusOr<Reply> reply = pipe_->Read();
      if (!reply.ok()) return reply.status();
    }
    replies.pop_front();
  }
  return absl::OkStatus();
}

absl::Status PipelinedBaseline::Query(absl::Span<const std::string_view> keys,
                                      absl::Span<bool> results) {
  size_t sent = 0, read = 0;
  const size_t window = size_t(in_flight_) * depth_;
  while (read < keys.size()) {
    while (sent < keys.size() && sent - read < window) {
      const size_t end = std::min(keys.size(), sent + depth_);
      for (; sent < end; ++sent) AppendQuery(keys[sent]);
      if (absl::Status s = pipe_->Flush(); !s.ok()) return s;
    }
    const size_t end = std::min(keys.size(), read + depth_);
    for (; read < end; ++read) {
      absl::StatusOr<bool> answer = ReadQuery();
      if (!answer.ok()) return answer.status();
      results[read] = *answer;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> PipelinedBaseline::QueryOne(std::string_view key) {
  AppendQuery(key);
  return ReadQuery();
}

}  // namespace blockbloom::redis_client_bench
