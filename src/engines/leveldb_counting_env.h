// A LevelDB Env that counts RandomAccessFile::Read calls: with fill_cache =
// false, every data block a Get looks at is one read, so the reads of absent
// lookups are a filter's false positives. For the engine tests and the demo;
// not part of the API.
#ifndef BLOCKBLOOM_SRC_ENGINES_LEVELDB_COUNTING_ENV_H_
#define BLOCKBLOOM_SRC_ENGINES_LEVELDB_COUNTING_ENV_H_

#include <leveldb/env.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace blockbloom::internal {

class CountingEnv : public leveldb::EnvWrapper {
 public:
  CountingEnv() : leveldb::EnvWrapper(leveldb::Env::Default()) {}

  leveldb::Status NewRandomAccessFile(
      const std::string& name, leveldb::RandomAccessFile** result) override {
    leveldb::Status s = target()->NewRandomAccessFile(name, result);
    if (s.ok()) *result = new CountingFile(*result, &reads_);
    return s;
  }
  uint64_t reads() const { return reads_.load(); }
  void Reset() { reads_ = 0; }

 private:
  class CountingFile : public leveldb::RandomAccessFile {
   public:
    CountingFile(leveldb::RandomAccessFile* f, std::atomic<uint64_t>* reads)
        : file_(f), reads_(reads) {}
    ~CountingFile() override { delete file_; }
    leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                         char* scratch) const override {
      reads_->fetch_add(1);
      return file_->Read(offset, n, result, scratch);
    }

   private:
    leveldb::RandomAccessFile* file_;
    std::atomic<uint64_t>* reads_;
  };
  std::atomic<uint64_t> reads_{0};
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_ENGINES_LEVELDB_COUNTING_ENV_H_
