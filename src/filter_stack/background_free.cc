#include "src/filter_stack/background_free.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace blockbloom::redis_module {
namespace {

class Freer {
 public:
  void Enqueue(FilterValue* value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(value);
      if (!started_) {
        started_ = true;
        std::thread([this] { Run(); }).detach();
      }
    }
    ready_.notify_one();
  }

 private:
  void Run() {
    for (;;) {
      FilterValue* value;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty(); });
        value = queue_.front();
        queue_.pop_front();
      }
      delete value;
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<FilterValue*> queue_;
  bool started_ = false;
};

// Never destroyed: the thread runs for the life of the server.
Freer& TheFreer() {
  static Freer* freer = new Freer();
  return *freer;
}

size_t AllocatedPieces(const FilterValue& value) {
  return value.ready() ? value.stack->allocated_pieces() : 0;
}

}  // namespace

void FreeValue(FilterValue* value) {
  if (value == nullptr) return;
  if (AllocatedPieces(*value) <= kInlineFreePieces) {
    delete value;
    return;
  }
  TheFreer().Enqueue(value);
}

}  // namespace blockbloom::redis_module
