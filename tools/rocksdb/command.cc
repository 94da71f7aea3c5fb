#include "tools/rocksdb/command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/exit_codes.h"
#include "tools/report.h"

#ifdef BLOCKBLOOM_HAVE_ROCKSDB
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_format.h"
#include "blockbloom/rocksdb.h"
#include "src/rocksdb/db_open.h"
#endif

namespace blockbloom::cli {
namespace {

constexpr char kCommand[] = "rocksdb";

}  // namespace

#ifndef BLOCKBLOOM_HAVE_ROCKSDB
int RunRocksDB(const std::vector<std::string>&) {
  return Fail(kCommand, kExitUsage,
              "this blockbloom was built without the RocksDB adapter "
              "(librocksdb-dev was not found)");
}
#else
int RunRocksDB(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(kCommand, absl::StrCat("expected one DB_DIR, got ",
                                             args.size(), " arguments"));
  }
  const std::string& dir = args[0];
  // The OPTIONS file names the policy by its id; it loads as a blockbloom
  // policy only once the id is registered.
  RegisterRocksDBFilterPolicy();
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = true;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  rocksdb::Status s =
      rocksdb::LoadLatestOptions(config, dir, &db_options, &families);
  if (!s.ok()) {
    return Fail(kCommand, kExitBadInput,
                absl::StrCat("cannot read the OPTIONS file of ", dir, ": ",
                             s.ToString()));
  }
  // Every table opened (and its filter read) when the DB opens.
  db_options.max_open_files = -1;
  db_options.create_if_missing = false;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = blockbloom::rocksdb_compat::OpenDBForReadOnly(db_options, dir, families,
                                                    &handles, &raw);
  if (!s.ok()) {
    return Fail(
        kCommand, kExitBadInput,
        absl::StrCat("cannot open ", dir, " read-only: ", s.ToString()));
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::map<int, std::string> names;  // by the group the blocks record
  std::set<const rocksdb::FilterPolicy*> policies;
  for (const rocksdb::ColumnFamilyDescriptor& f : families) {
    names[RocksDBColumnFamilyGroup(f.name)] = f.name;
    const auto* table =
        f.options.table_factory
            ? f.options.table_factory
                  ->GetOptions<rocksdb::BlockBasedTableOptions>()
            : nullptr;
    if (table != nullptr && table->filter_policy != nullptr &&
        RocksDBFilterPolicyOptions(table->filter_policy.get()) != nullptr) {
      policies.insert(table->filter_policy.get());
    }
  }
  if (policies.empty()) {
    Print(absl::StrCat(dir,
                       ": no column family uses a blockbloom filter "
                       "policy\n"));
  }
  for (const rocksdb::FilterPolicy* policy : policies) {
    Print(absl::StrCat("policy ", policy->GetId(), "\n"));
    for (const LevelReport& r : RocksDBFilterReport(policy)) {
      const auto name = names.find(r.group);
      Print(absl::StrFormat(
          "cf=%s level=%d%s plan=%s kind=%s bits_per_key=%.2f "
          "planned_fpr=%.3g tables=%u keys=%u filter_bytes=%u "
          "filter_bits_per_key=%.2f\n",
          r.level < 0           ? "-"
          : name != names.end() ? name->second
                                : r.column_family,
          r.level, r.bottommost ? " bottommost=1" : "", r.plan, r.kind,
          r.bits_per_key, r.planned_fp_rate, r.tables, r.keys, r.filter_bytes,
          r.keys > 0 ? 8.0 * r.filter_bytes / r.keys : 0.0));
    }
  }
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  return FinishOutput(kCommand);
}
#endif

}  // namespace blockbloom::cli
