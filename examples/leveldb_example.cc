// The smallest LevelDB program with a blockbloom filter.
#include <leveldb/db.h>

#include <cstdio>
#include <memory>
#include <string>

#include "blockbloom/leveldb.h"

int main() {
  // The policy must outlive the DB; the caller owns it.
  std::unique_ptr<const leveldb::FilterPolicy> policy(
      blockbloom::NewLevelDBFilterPolicy(10));
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy.get();
  leveldb::DB* raw = nullptr;
  leveldb::Status s =
      leveldb::DB::Open(options, "/tmp/blockbloom_leveldb_example", &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<leveldb::DB> db(raw);
  db->Put(leveldb::WriteOptions(), "user:42", "Ada");
  db->CompactRange(nullptr, nullptr);  // write a table, with its filters
  std::string value;
  s = db->Get(leveldb::ReadOptions(), "user:42", &value);
  std::printf("user:42 -> %s\n", s.ok() ? value.c_str() : "not found");
  // An absent key: the filter answers without reading the data block.
  s = db->Get(leveldb::ReadOptions(), "user:43", &value);
  std::printf("user:43 -> %s\n", s.IsNotFound() ? "not found" : value.c_str());
  return 0;
}
