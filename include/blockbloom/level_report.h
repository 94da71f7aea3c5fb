// One row of a level-aware policy's report: what it plans for the tables of
// one column family (or engine namespace) written at one level, and what the
// readers of those tables observed (docs/LEVELS.md, "The learned plan"). The
// RocksDB adapter returns them (RocksDBFilterReport, blockbloom/rocksdb.h).
#ifndef BLOCKBLOOM_LEVEL_REPORT_H_
#define BLOCKBLOOM_LEVEL_REPORT_H_

#include <cstdint>
#include <string>

namespace blockbloom {

struct LevelReport {
  // The column family's name if this process built tables for it, else
  // "group N" (a reader-only process: see RocksDBColumnFamilyGroup).
  std::string column_family;
  int group = -1;  // its 10-bit group as recorded in the blocks
  // The level of creation; in the bottommost row, the deepest level known.
  int level = 0;
  // The row of the bottommost tables: written at any level >= 1 with nothing
  // below them for their keys (RocksDB's is_bottommost), the tree's keys at
  // rest wherever compactions moved them. They are planned as the last
  // level's; the other rows are the rest of their level's tables.
  bool bottommost = false;
  // "learned", "prior" (learned, but nothing built by this process yet:
  // the model's plan), "model" (level_aware), "uniform".
  std::string plan;
  std::string kind;            // the filter kind new tables at this level get
  double bits_per_key = 0;     // what new tables at this level get
  double planned_fp_rate = 0;  // the kind's rate at those bits
  uint64_t tables = 0;         // live filter readers
  uint64_t keys = 0;           // in their filters
  uint64_t filter_bytes = 0;   // their filter blocks
  uint64_t probes = 0;         // of their filters
  uint64_t positives = 0;      // "may match" answers (true positives too)
  // Hot ranges (FilterPolicy::LevelOptions::hot_ranges), of the tables this
  // process built at this level: how many asked, how many got bits/key
  // other than the plan's, and the mean |change| over their keys (the
  // changes average about 0: the level's memory stays the plan's), and
  // their mean (signed) change.
  uint64_t hot_range_tables = 0;
  uint64_t hot_range_changed = 0;
  double hot_range_mean_change = 0;
  double hot_range_net_change = 0;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LEVEL_REPORT_H_
