// A one-line progress display on stderr for long builds, redrawn in place at
// most ten times a second and erased when done, so that it leaves nothing in
// the terminal's scrollback. Disabled (every call a no-op) unless asked for:
// the build command enables it only when stderr is a terminal and --quiet is
// not given, so logs and pipes never see it.
//
//   ProgressBar bar(/*enabled=*/isatty(2) && !quiet, reader.total_bytes());
//   while (reader.Next(&key)) {
//     ...; bar.Update(keys, reader.bytes_consumed());
//   }
//   bar.Finish(keys, reader.bytes_consumed());
//   bar.SetPhase("building the filter");
//   ...
//   bar.Clear();
#ifndef BLOCKBLOOM_TOOLS_PROGRESS_BAR_H_
#define BLOCKBLOOM_TOOLS_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace blockbloom::cli {

class ProgressBar {
 public:
  // `total_bytes`, if known (a regular file), gives a bar and a percentage;
  // otherwise keys and bytes read are shown.
  ProgressBar(bool enabled, std::optional<uint64_t> total_bytes,
              std::FILE* out = stderr);
  ~ProgressBar() { Clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  bool enabled() const { return enabled_; }

  // `keys` read so far, whose bytes (what the input reader consumed, not
  // what it buffered ahead) are `bytes`. Cheap enough to call for every
  // key: it looks at the clock once every few thousand calls. The first
  // call draws at once.
  void Update(uint64_t keys, uint64_t bytes) {
    if (!enabled_) return;
    keys_ = keys;
    bytes_ = bytes;
    if (++calls_ % 4096 == 1) MaybeDraw();
  }
  // Draws the final count now (100% for a file read to its end).
  void Finish(uint64_t keys, uint64_t bytes) {
    if (!enabled_) return;
    keys_ = keys;
    bytes_ = bytes;
    Draw();
  }
  // Replaces the line by a phase name ("building the filter"), drawn now.
  void SetPhase(const std::string& phase);
  // Erases the line. Call before printing anything else to the terminal.
  void Clear();

 private:
  void MaybeDraw();
  void Draw();

  bool enabled_;
  std::optional<uint64_t> total_bytes_;
  std::FILE* out_;
  uint64_t keys_ = 0;
  uint64_t bytes_ = 0;
  uint64_t calls_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_PROGRESS_BAR_H_
