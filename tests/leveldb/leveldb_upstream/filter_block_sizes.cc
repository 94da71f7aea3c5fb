// filter_block_sizes DB_DIR
//
// Sums the filter blocks of every table (*.ldb, *.sst) in a LevelDB folder,
// read the way LevelDB's Table::ReadMeta finds them (footer -> metaindex ->
// "filter.<policy name>"), and prints one line:
//
//   filters: policy=NAME tables=T entries=E filter_block_bytes=B
//     filter_bytes=F filters=N bits_per_key_block=... bits_per_key_filters=...
//
// filter_bytes counts only what FilterPolicy::CreateFilter appended (the
// block minus LevelDB's offset array and 5-byte tail: table/filter_block.cc),
// entries the keys of the tables. Built with LevelDB's internal headers from
// its source (tests/leveldb/leveldb_upstream/CMakeLists.txt).
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "table/block.h"
#include "table/format.h"
#include "util/coding.h"

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int Fail(const std::string& what, const leveldb::Status& s) {
  std::fprintf(stderr, "filter_block_sizes: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DB_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  leveldb::Env* env = leveldb::Env::Default();
  std::vector<std::string> children;
  leveldb::Status s = env->GetChildren(dir, &children);
  if (!s.ok()) return Fail(dir, s);

  std::string policy;
  uint64_t tables = 0, entries = 0, block_bytes = 0, filter_bytes = 0,
           filters = 0;
  for (const std::string& name : children) {
    if (!EndsWith(name, ".ldb") && !EndsWith(name, ".sst")) continue;
    const std::string path = dir + "/" + name;
    uint64_t size = 0;
    s = env->GetFileSize(path, &size);
    if (!s.ok()) return Fail(path, s);
    leveldb::RandomAccessFile* raw = nullptr;
    s = env->NewRandomAccessFile(path, &raw);
    if (!s.ok()) return Fail(path, s);
    std::unique_ptr<leveldb::RandomAccessFile> file(raw);

    // Entries: iterate the table.
    leveldb::Table* raw_table = nullptr;
    s = leveldb::Table::Open(leveldb::Options(), file.get(), size, &raw_table);
    if (!s.ok()) return Fail(path, s);
    std::unique_ptr<leveldb::Table> table(raw_table);
    std::unique_ptr<leveldb::Iterator> it(
        table->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) entries++;
    tables++;

    // The filter block: footer -> metaindex -> "filter.*".
    if (size < leveldb::Footer::kEncodedLength) {
      return Fail(path, leveldb::Status::Corruption("too short"));
    }
    char footer_space[leveldb::Footer::kEncodedLength];
    leveldb::Slice footer_input;
    s = file->Read(size - leveldb::Footer::kEncodedLength,
                   leveldb::Footer::kEncodedLength, &footer_input,
                   footer_space);
    if (!s.ok()) return Fail(path, s);
    leveldb::Footer footer;
    s = footer.DecodeFrom(&footer_input);
    if (!s.ok()) return Fail(path, s);
    leveldb::ReadOptions verify;
    verify.verify_checksums = true;
    leveldb::BlockContents meta_contents;
    s = leveldb::ReadBlock(file.get(), verify, footer.metaindex_handle(),
                           &meta_contents);
    if (!s.ok()) return Fail(path, s);
    leveldb::Block meta(meta_contents);
    std::unique_ptr<leveldb::Iterator> mit(
        meta.NewIterator(leveldb::BytewiseComparator()));
    for (mit->Seek("filter."); mit->Valid(); mit->Next()) {
      if (!mit->key().starts_with("filter.")) break;
      policy = mit->key().ToString().substr(7);
      leveldb::Slice v = mit->value();
      leveldb::BlockHandle handle;
      s = handle.DecodeFrom(&v);
      if (!s.ok()) return Fail(path, s);
      leveldb::BlockContents filter_contents;
      s = leveldb::ReadBlock(file.get(), verify, handle, &filter_contents);
      if (!s.ok()) return Fail(path, s);
      const leveldb::Slice block = filter_contents.data;
      block_bytes += block.size();
      // Tail: offsets of each filter (4 bytes each), the offset array's
      // start (4 bytes), base_lg (1 byte).
      if (block.size() >= 5) {
        const uint32_t array_start =
            leveldb::DecodeFixed32(block.data() + block.size() - 5);
        if (array_start <= block.size() - 5) {
          filter_bytes += array_start;
          const size_t slots = (block.size() - 5 - array_start) / 4;
          for (size_t i = 0; i < slots; i++) {
            const uint32_t start =
                leveldb::DecodeFixed32(block.data() + array_start + 4 * i);
            const uint32_t limit =
                i + 1 < slots ? leveldb::DecodeFixed32(
                                    block.data() + array_start + 4 * (i + 1))
                              : array_start;
            if (limit > start) filters++;
          }
        }
      }
      if (filter_contents.heap_allocated) delete[] filter_contents.data.data();
    }
  }
  const double e = entries > 0 ? static_cast<double>(entries) : 1.0;
  std::printf("filters: policy=%s tables=%" PRIu64 " entries=%" PRIu64
              " filter_block_bytes=%" PRIu64 " filter_bytes=%" PRIu64
              " filters=%" PRIu64
              " bits_per_key_block=%.3f bits_per_key_filters=%.3f\n",
              policy.empty() ? "none" : policy.c_str(), tables, entries,
              block_bytes, filter_bytes, filters, 8.0 * block_bytes / e,
              8.0 * filter_bytes / e);
  return 0;
}
