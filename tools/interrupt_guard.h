// Lets a long operation stop cleanly on Ctrl-C: `blockbloom redis publish`
// hands flag() to the library as its cancel flag.
#ifndef BLOCKBLOOM_TOOLS_INTERRUPT_GUARD_H_
#define BLOCKBLOOM_TOOLS_INTERRUPT_GUARD_H_

#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iterator>

namespace blockbloom::cli {

// While alive, SIGINT, SIGTERM and SIGHUP set flag() instead of ending the
// process (once: the next one ends it, as usual). Signals ignored by whoever
// started us stay ignored.
class InterruptGuard {
 public:
  InterruptGuard() {
    caught_ = 0;
    flag_.store(false);
    struct sigaction action = {};
    action.sa_handler = &InterruptGuard::OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_RESETHAND;
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler != SIG_IGN) {
        ::sigaction(kSignals[i], &action, nullptr);
      }
    }
  }
  ~InterruptGuard() {
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &old_[i], nullptr);
    }
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  const std::atomic<bool>& flag() const { return flag_; }
  int signal() const { return caught_; }
  // Ends the process with the signal caught (its default action).
  void Reraise() {
    std::fflush(nullptr);
    ::signal(caught_, SIG_DFL);
    ::raise(caught_);
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  static void OnSignal(int signal_number) {
    caught_ = signal_number;
    flag_.store(true);
  }
  static inline std::atomic<bool> flag_{false};
  static inline volatile std::sig_atomic_t caught_ = 0;
  struct sigaction old_[std::size(kSignals)] = {};
};
static_assert(std::atomic<bool>::is_always_lock_free,
              "a signal handler may only set a lock-free atomic");

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_INTERRUPT_GUARD_H_
