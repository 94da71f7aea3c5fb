// Opening a RocksDB database on both sides of RocksDB 11.0, which removed the
// DB::Open / DB::OpenForReadOnly overloads that return a raw DB** (9.2 added
// the std::unique_ptr<DB>* ones). The CLI, tests, examples and benchmarks
// open databases through these, so one source builds against 7.8 - 11.x.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_
#define BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_

#include <rocksdb/db.h>
#include <rocksdb/version.h>

#include <memory>
#include <string>
#include <vector>

namespace blockbloom::rocksdb_compat {

#if ROCKSDB_MAJOR >= 11
inline rocksdb::Status OpenDB(const rocksdb::Options& options,
                              const std::string& path,
                              std::unique_ptr<rocksdb::DB>* db) {
  return rocksdb::DB::Open(options, path, db);
}
inline rocksdb::Status OpenDB(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles,
    std::unique_ptr<rocksdb::DB>* db) {
  return rocksdb::DB::Open(options, path, families, handles, db);
}
inline rocksdb::Status OpenDBForReadOnly(const rocksdb::Options& options,
                                         const std::string& path,
                                         std::unique_ptr<rocksdb::DB>* db) {
  return rocksdb::DB::OpenForReadOnly(options, path, db);
}
inline rocksdb::Status OpenDBForReadOnly(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles,
    std::unique_ptr<rocksdb::DB>* db) {
  return rocksdb::DB::OpenForReadOnly(options, path, families, handles, db);
}
#else
inline rocksdb::Status OpenDB(const rocksdb::Options& options,
                              const std::string& path,
                              std::unique_ptr<rocksdb::DB>* db) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
}
inline rocksdb::Status OpenDB(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles,
    std::unique_ptr<rocksdb::DB>* db) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, families, handles, &raw);
  db->reset(raw);
  return s;
}
inline rocksdb::Status OpenDBForReadOnly(const rocksdb::Options& options,
                                         const std::string& path,
                                         std::unique_ptr<rocksdb::DB>* db) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, path, &raw);
  db->reset(raw);
  return s;
}
inline rocksdb::Status OpenDBForReadOnly(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles,
    std::unique_ptr<rocksdb::DB>* db) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::OpenForReadOnly(options, path, families, handles, &raw);
  db->reset(raw);
  return s;
}
#endif

// The same into a raw pointer the caller deletes, as DB** did.
inline rocksdb::Status OpenDB(const rocksdb::Options& options,
                              const std::string& path, rocksdb::DB** db) {
  std::unique_ptr<rocksdb::DB> owned;
  rocksdb::Status s = OpenDB(options, path, &owned);
  *db = owned.release();
  return s;
}
inline rocksdb::Status OpenDB(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles, rocksdb::DB** db) {
  std::unique_ptr<rocksdb::DB> owned;
  rocksdb::Status s = OpenDB(options, path, families, handles, &owned);
  *db = owned.release();
  return s;
}
inline rocksdb::Status OpenDBForReadOnly(const rocksdb::Options& options,
                                         const std::string& path,
                                         rocksdb::DB** db) {
  std::unique_ptr<rocksdb::DB> owned;
  rocksdb::Status s = OpenDBForReadOnly(options, path, &owned);
  *db = owned.release();
  return s;
}
inline rocksdb::Status OpenDBForReadOnly(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles, rocksdb::DB** db) {
  std::unique_ptr<rocksdb::DB> owned;
  rocksdb::Status s =
      OpenDBForReadOnly(options, path, families, handles, &owned);
  *db = owned.release();
  return s;
}

}  // namespace blockbloom::rocksdb_compat

#endif  // BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_
