// Deprecated: include "blockbloom/redis_client.h" (the Redis client: shared
// filters in Redis and Redis Cluster), whose old name this was. Kept for one
// release so that existing code builds; the names it declares are the same
// (namespace blockbloom::redis).
#ifndef BLOCKBLOOM_REDIS_H_
#define BLOCKBLOOM_REDIS_H_

#include "blockbloom/redis_client.h"

#endif  // BLOCKBLOOM_REDIS_H_
