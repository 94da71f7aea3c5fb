// Redis's module API (redismodule.h, from Debian's `redis` source package at
// build time: scripts/fetch-redis-module-api). The header defines its API
// function pointers in every file that includes it unless REDISMODULE_API
// says "extern": module.cc defines them, every other file includes this.
#ifndef BLOCKBLOOM_SRC_REDIS_MODULE_REDIS_API_H_
#define BLOCKBLOOM_SRC_REDIS_MODULE_REDIS_API_H_

#ifndef REDISMODULE_API
#define REDISMODULE_API extern
#endif
#include "redismodule.h"

#endif  // BLOCKBLOOM_SRC_REDIS_MODULE_REDIS_API_H_
