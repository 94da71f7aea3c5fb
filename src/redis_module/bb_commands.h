// The BB.* commands: what blockbloom adds to RedisBloom's set (bb_commands.cc).
#ifndef BLOCKBLOOM_SRC_REDIS_MODULE_BB_COMMANDS_H_
#define BLOCKBLOOM_SRC_REDIS_MODULE_BB_COMMANDS_H_

#include "src/redis_module/redis_api.h"

namespace blockbloom::redis_module {

// Registers BB.RESERVE, BB.LOAD, BB.DUMP, BB.MEXISTS and BB.INFO.
int RegisterBbCommands(RedisModuleCtx* ctx);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_REDIS_MODULE_BB_COMMANDS_H_
