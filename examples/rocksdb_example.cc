// The smallest RocksDB program with a blockbloom filter.
#include <rocksdb/db.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <memory>
#include <string>

#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"

int main() {
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = blockbloom::NewRocksDBFilterPolicy(10);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // A fresh DB each run: one left by a newer RocksDB (format_version 7 from
  // 10.11) would not open with an older one.
  const std::string path = "/tmp/blockbloom_rocksdb_example";
  rocksdb::DestroyDB(path, options).PermitUncheckedError();
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = blockbloom::rocksdb_compat::OpenDB(options, path, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  db->Put(rocksdb::WriteOptions(), "user:42", "Ada");
  db->Flush(rocksdb::FlushOptions());  // write a table, with its filter
  std::string value;
  s = db->Get(rocksdb::ReadOptions(), "user:42", &value);
  std::printf("user:42 -> %s\n", s.ok() ? value.c_str() : "not found");
  // An absent key: the filter answers without reading the data block.
  s = db->Get(rocksdb::ReadOptions(), "user:43", &value);
  std::printf("user:43 -> %s\n", s.IsNotFound() ? "not found" : value.c_str());
  return 0;
}
