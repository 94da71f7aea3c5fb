// PLACEHOLDER (build plumbing only): proves that blockbloom.so builds and
// loads (tests/redis_module/module_load_test.cc). The module's real sources
// replace this file.
//
// The module is compiled with -fvisibility=hidden and linked with
// exports.map: the entry points must be marked visible, as here.
#include "redismodule.h"

namespace {

int PingCommand(RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int argc) {
  if (argc != 1) return RedisModule_WrongArity(ctx);
  return RedisModule_ReplyWithSimpleString(ctx, "PONG");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(
    RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int /*argc*/) {
  if (RedisModule_Init(ctx, "blockbloom", 1, REDISMODULE_APIVER_1) ==
      REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  if (RedisModule_CreateCommand(ctx, "bb.ping", PingCommand, "readonly fast", 0,
                                0, 0) == REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  return REDISMODULE_OK;
}
