// The BF.* commands (bf_commands.cc, scandump_commands.cc) and what the
// BB.* commands share with them.
#ifndef BLOCKBLOOM_SRC_REDIS_MODULE_BF_COMMANDS_H_
#define BLOCKBLOOM_SRC_REDIS_MODULE_BF_COMMANDS_H_

#include <vector>

#include "src/filter_stack/value.h"
#include "src/redis_module/redis_api.h"

namespace blockbloom::redis_module {

// Registers BF.RESERVE, ADD, MADD, INSERT, EXISTS, MEXISTS, INFO and CARD.
int RegisterBfCommands(RedisModuleCtx* ctx);
// Registers BF.SCANDUMP and BF.LOADCHUNK.
int RegisterScanDumpCommands(RedisModuleCtx* ctx);

// BF.RESERVE / BB.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING]
// (and [SEED s] if allow_seed): replies and returns REDISMODULE_OK.
int ReserveCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc,
                   bool allow_seed);

// Probes argv[first..argc) as one prefetched batch (all 0 for a null value).
void ProbeItems(const FilterValue* value, RedisModuleString** argv, int first,
                int argc, std::vector<char>* results);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_REDIS_MODULE_BF_COMMANDS_H_
