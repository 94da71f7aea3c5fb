// Opening a RocksDB database on both sides of RocksDB 11.0, which removed the
// DB::Open / DB::OpenForReadOnly overloads that return a raw DB** (9.2 added
// the std::unique_ptr<DB>* ones). The CLI, tests, examples and benchmarks
// open databases through these, so one source builds against 7.8 - 11.x.
// `db` is a std::unique_ptr<rocksdb::DB>* or a rocksdb::DB** whose DB the
// caller deletes; the other arguments are those of DB::Open.
#ifndef BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_
#define BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_

#include <rocksdb/db.h>
#include <rocksdb/version.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace blockbloom::rocksdb_compat {
namespace open_internal {

inline void Store(std::unique_ptr<rocksdb::DB> opened,
                  std::unique_ptr<rocksdb::DB>* db) {
  *db = std::move(opened);
}
inline void Store(std::unique_ptr<rocksdb::DB> opened, rocksdb::DB** db) {
  *db = opened.release();
}

// `open(out)` is one DB::Open overload of this release, called with the
// out-parameter it has.
template <typename Open, typename Out>
rocksdb::Status Call(Open open, Out* db) {
#if ROCKSDB_MAJOR >= 11
  std::unique_ptr<rocksdb::DB> opened;
  rocksdb::Status s = open(&opened);
#else
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = open(&raw);
  std::unique_ptr<rocksdb::DB> opened(raw);
#endif
  Store(std::move(opened), db);
  return s;
}

}  // namespace open_internal

template <typename Out>
rocksdb::Status OpenDB(const rocksdb::Options& options, const std::string& path,
                       Out* db) {
  return open_internal::Call(
      [&](auto* out) { return rocksdb::DB::Open(options, path, out); }, db);
}
template <typename Out>
rocksdb::Status OpenDB(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles, Out* db) {
  return open_internal::Call(
      [&](auto* out) {
        return rocksdb::DB::Open(options, path, families, handles, out);
      },
      db);
}
template <typename Out>
rocksdb::Status OpenDBForReadOnly(const rocksdb::Options& options,
                                  const std::string& path, Out* db) {
  return open_internal::Call(
      [&](auto* out) {
        return rocksdb::DB::OpenForReadOnly(options, path, out);
      },
      db);
}
template <typename Out>
rocksdb::Status OpenDBForReadOnly(
    const rocksdb::DBOptions& options, const std::string& path,
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles, Out* db) {
  return open_internal::Call(
      [&](auto* out) {
        return rocksdb::DB::OpenForReadOnly(options, path, families, handles,
                                            out);
      },
      db);
}

}  // namespace blockbloom::rocksdb_compat

#endif  // BLOCKBLOOM_SRC_ROCKSDB_DB_OPEN_H_
