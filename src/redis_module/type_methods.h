// The module's data type, "bb-filter": how Redis saves, loads, rewrites,
// measures, digests, copies and frees a FilterValue (type_methods.cc).
#ifndef BLOCKBLOOM_SRC_REDIS_MODULE_TYPE_METHODS_H_
#define BLOCKBLOOM_SRC_REDIS_MODULE_TYPE_METHODS_H_

#include "src/redis_module/redis_api.h"

namespace blockbloom::redis_module {

// Creates the type and stores it in g_filter_type.
int RegisterFilterType(RedisModuleCtx* ctx);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_REDIS_MODULE_TYPE_METHODS_H_
