// A LevelDB Env that counts RandomAccessFile::Read calls: with fill_cache =
// false, every data block a Get looks at is one read, so the reads of absent
// lookups are a filter's false positives. Optionally each read also waits a
// fixed time (a busy wait: sleeps overshoot by tens of microseconds), to
// stand for a device slower than the page cache (100 us: an SSD's random
// read). For the engine tests, the demo and bench/leveldb/leveldb_disk_reads;
// not part of the API.
#ifndef BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_COUNTING_ENV_H_
#define BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_COUNTING_ENV_H_

#include <leveldb/env.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace blockbloom::internal {

class CountingEnv : public leveldb::EnvWrapper {
 public:
  explicit CountingEnv(
      std::chrono::nanoseconds read_latency = std::chrono::nanoseconds(0))
      : leveldb::EnvWrapper(leveldb::Env::Default()),
        read_latency_(read_latency) {}

  leveldb::Status NewRandomAccessFile(
      const std::string& name, leveldb::RandomAccessFile** result) override {
    leveldb::Status s = target()->NewRandomAccessFile(name, result);
    if (s.ok()) *result = new CountingFile(*result, &reads_, read_latency_);
    return s;
  }
  uint64_t reads() const { return reads_.load(); }
  void Reset() { reads_ = 0; }

 private:
  class CountingFile : public leveldb::RandomAccessFile {
   public:
    CountingFile(leveldb::RandomAccessFile* f, std::atomic<uint64_t>* reads,
                 std::chrono::nanoseconds latency)
        : file_(f), reads_(reads), latency_(latency) {}
    ~CountingFile() override { delete file_; }
    leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                         char* scratch) const override {
      reads_->fetch_add(1);
      if (latency_.count() > 0) {
        const auto until = std::chrono::steady_clock::now() + latency_;
        while (std::chrono::steady_clock::now() < until) {
        }
      }
      return file_->Read(offset, n, result, scratch);
    }

   private:
    leveldb::RandomAccessFile* file_;
    std::atomic<uint64_t>* reads_;
    const std::chrono::nanoseconds latency_;
  };
  const std::chrono::nanoseconds read_latency_;
  std::atomic<uint64_t> reads_{0};
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_COUNTING_ENV_H_
