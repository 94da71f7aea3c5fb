// blockbloom as a RocksDB filter policy (RocksDB 7.8 through 11.x).
//
//   rocksdb::BlockBasedTableOptions table;
//   table.filter_policy = blockbloom::NewRocksDBFilterPolicy(10);
//   options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
//
// Full (per-SSTable) and partitioned filters in blockbloom's full encoding,
// probed in place. MultiGet's batches go to the batch probe (block addresses
// computed and prefetched first). Filters are stored under
// "fullfilter.blockbloom.v1": a DB reopened with another policy or none simply
// does not use them. A filter that cannot be read answers "may match" (fails
// open).
//
// OPTIONS files. The policy's id (GetId(), what RocksDB writes as
// `filter_policy=` in OPTIONS-*) carries every setting, e.g.
//   blockbloom.v1:10:seed:0:verify_checksum:1:level_aware:0:
//       level_size_multiplier:10:level_moved_fraction:0.6   (one line)
// with `:ribbon_from_level:N` and `:ribbon_saves:false_reads` appended when
// those are set,
// and RocksDB turns it back into the policy (LoadLatestOptions,
// GetBlockBasedTableOptionsFromString, FilterPolicy::CreateFromString) once
// the id is registered with its ObjectLibrary. Registration happens when this
// adapter's object file is linked into the program, which it is as soon as
// the program calls NewRocksDBFilterPolicy (or any function below). A program
// that only LOADS options (never names the policy) must call
// RegisterRocksDBFilterPolicy() first: from a static library the linker keeps
// only object files that something refers to. With an unregistered id,
// RocksDB's default ConfigOptions silently load NO filter policy, and new
// tables are then written without filters (docs/ROCKSDB.md, "RocksDB tools").
//
// detect_filter_construct_corruption: when set in the table options, each
// builder keeps its keys' hashes and checks every one against the finished
// filter (MaybePostVerify); a mismatch fails the table write with Corruption.
//
// Level-aware filters (FilterPolicy::LevelOptions::level_aware): bits_per_key
// is the average, and each table gets bits/key from its FilterBuildingContext
// (level, bottommost or not, compaction style): docs/LEVELS.md.
//
// The kind per level (FilterPolicy::LevelOptions::ribbon_from_level, like
// RocksDB's Ribbon `bloom_before_level`): with 1, flushes and L0 get the
// blocked kind (built often, probed by every Get) and every table written at
// L1 or below a ribbon at the same rate in ~30% fewer bytes; bits_per_key is
// then "Bloom-equivalent", as in NewRibbonFilterPolicy. The level is
// FilterBuildingContext::level_at_creation (-1 under FIFO compaction, for
// ingested files and with num_levels = 1). Blocks describe their kind, so
// readers need no setting; tables moved down unrewritten keep theirs. With
// ribbon_saves = kFalseReads the ribbon levels keep the blocked kind's bytes
// and their rate falls instead; with level_aware (and level_learned) the plan
// then chooses each level's kind and real bits over both kinds' curves.
//
// RocksDB 7.8 through 11.x: the adapter mirrors RocksDB-internal classes
// (src/rocksdb/filter_bits.h), in the layout of the release it is compiled
// against; outside that range the build stops with an #error that says so.
// The librocksdb a program runs with must be of the same layout (a program
// built against 9.10's headers and run with 8.11's library is not): if it is
// not, the policy fails open (no builder, no reader: tables are written
// without blockbloom filters and every lookup reads), says why in the DB's
// LOG, and NewRocksDBFilterPolicy(options) returns FailedPrecondition.
#ifndef BLOCKBLOOM_ROCKSDB_H_
#define BLOCKBLOOM_ROCKSDB_H_

#include <rocksdb/filter_policy.h>
#include <rocksdb/utilities/object_registry.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/level_report.h"

namespace blockbloom {

// A policy with `bits_per_key` bits of filter per key (fractional values
// allowed; values below 1, and NaN, are taken as 1).
std::shared_ptr<const rocksdb::FilterPolicy> NewRocksDBFilterPolicy(
    double bits_per_key);

// The same with every option; InvalidArgument for invalid options,
// FailedPrecondition when the running librocksdb is not of the layout the
// adapter was compiled for (above).
absl::StatusOr<std::shared_ptr<const rocksdb::FilterPolicy>>
NewRocksDBFilterPolicy(const FilterPolicy::Options& options);

// Adds the factory for blockbloom ids ("blockbloom.v1" and
// "blockbloom.v1:...") to `library`; returns the number of factories added
// (1). Has the signature of a rocksdb::RegistrarFunc, for
// ObjectRegistry::AddLibrary(id, AddRocksDBFilterPolicyFactory, "").
int AddRocksDBFilterPolicyFactory(rocksdb::ObjectLibrary& library,
                                  const std::string& arg);

// Registers with rocksdb::ObjectLibrary::Default(), which every default
// ConfigOptions searches. Idempotent and thread-safe; already done when this
// adapter is linked in (see above).
void RegisterRocksDBFilterPolicy();

// What a blockbloom policy plans and what its readers observed, per column
// family (of the tables built by this process) and level of creation (the
// level a table was WRITTEN at, recorded in its filter block, format 4.1),
// with the bottommost tables of every level in a row of their own: the report
// of docs/LEVELS.md, "The learned plan". Counts are of this process (since the
// policy was made), and cover only readers made by this policy object. Tables
// written before format 4.1 (no origin), and ribbons written before format 6,
// are one row with level -1. The rows: blockbloom/level_report.h.
std::vector<LevelReport> RocksDBFilterReport(
    const rocksdb::FilterPolicy* policy);
// The group a column family's filter blocks record (10 bits of a hash of its
// name): to name the report's "group N" rows.
int RocksDBColumnFamilyGroup(const std::string& column_family);
// The same as text, one line per row; with `gets` (e.g. the Statistics
// ticker rocksdb::NUMBER_KEYS_READ) also the probes per Get.
std::string RocksDBFilterReportText(const rocksdb::FilterPolicy* policy,
                                    uint64_t gets = 0);

// The options of `policy` if it is a blockbloom policy, else nullptr (e.g. to
// check what LoadLatestOptions gave back).
const FilterPolicy::Options* RocksDBFilterPolicyOptions(
    const rocksdb::FilterPolicy* policy);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_ROCKSDB_H_
