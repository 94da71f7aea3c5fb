#include "tools/progress_bar.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
// Erase the line: carriage return, then ANSI "erase to end of line".
constexpr char kEraseLine[] = "\r\033[K";

std::string HumanBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1024) return absl::StrFormat("%d B", bytes);
  if (bytes < (uint64_t{1} << 20)) return absl::StrFormat("%.1f KiB", b / 1024);
  if (bytes < (uint64_t{1} << 30)) {
    return absl::StrFormat("%.1f MiB", b / (1 << 20));
  }
  return absl::StrFormat("%.2f GiB", b / (1 << 30));
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, std::optional<uint64_t> total_bytes,
                         std::FILE* out)
    : enabled_(enabled), total_bytes_(total_bytes), out_(out) {}

void ProgressBar::MaybeDraw() {
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  Draw();
}

void ProgressBar::Draw() {
  std::string line = kEraseLine;
  if (total_bytes_.has_value() && *total_bytes_ > 0) {
    const double done = std::min(
        1.0, static_cast<double>(bytes_) / static_cast<double>(*total_bytes_));
    const int filled = static_cast<int>(done * kBarWidth);
    absl::StrAppendFormat(
        &line, "reading keys [%s%s] %3d%%  ", std::string(filled, '#'),
        std::string(kBarWidth - filled, '.'), static_cast<int>(done * 100));
  } else {
    line += "reading keys  ";
  }
  absl::StrAppendFormat(&line, "%d key%s, %s", keys_, keys_ == 1 ? "" : "s",
                        HumanBytes(bytes_));
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::SetPhase(const std::string& phase) {
  if (!enabled_) return;
  std::fputs(absl::StrCat(kEraseLine, phase, " ...").c_str(), out_);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::Clear() {
  if (!enabled_ || !drawn_) return;
  std::fputs(kEraseLine, out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace blockbloom::cli
