// `blockbloom rocksdb DB_DIR`: the level plan of a RocksDB database's
// blockbloom filters (command.cc), which the command table
// (tools/commands.cc) names.
#ifndef BLOCKBLOOM_TOOLS_ROCKSDB_COMMAND_H_
#define BLOCKBLOOM_TOOLS_ROCKSDB_COMMAND_H_

#include <string>
#include <vector>

namespace blockbloom::cli {

// Runs `blockbloom rocksdb DB_DIR`; returns the exit code. Without the
// RocksDB adapter at build time (no librocksdb-dev), reports that the
// command was not built in.
int RunRocksDB(const std::vector<std::string>& args);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_ROCKSDB_COMMAND_H_
