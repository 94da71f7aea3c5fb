// The blockbloom Redis module: RedisBloom's BF.* commands and blockbloom's
// BB.* commands on one data type, "bb-filter" (a FilterStack).
//
//   redis-server --loadmodule /path/to/blockbloom.so [ERROR_RATE 0.01]
//       [INITIAL_SIZE 100] [EXPANSION 2] [MAX_BYTES n]
//
// The module arguments set the defaults of keys that BF.ADD, BF.MADD and
// BF.INSERT create (RedisBloom's names and defaults), and MAX_BYTES the
// largest filter a load may declare (BB.LOAD, BF.LOADCHUNK, RDB).
// docs/REDIS_MODULE.md describes the commands.

// This file defines the module API's function pointers (redis_api.h).
#define REDISMODULE_API
#include "src/redis_module/redis_api.h"
//
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "blockbloom/version.h"
#include "src/filter_stack/allocator.h"
#include "src/filter_stack/filter_stack.h"
#include "src/redis_module/bb_commands.h"
#include "src/redis_module/bf_commands.h"
#include "src/redis_module/command_util.h"
#include "src/redis_module/type_methods.h"

namespace blockbloom::redis_module {
namespace {

// The version MODULE LIST shows: blockbloom::Version() encoded as RedisBloom
// encodes its own, major * 10000 + minor * 100 + patch (0.1.0 is 100, as
// RedisBloom 2.4.5 is 20405).
static_assert(kVersionMinor < 100 && kVersionPatch < 100,
              "the module version integer holds two digits per part");
constexpr int kModuleVersion =
    kVersionMajor * 10000 + kVersionMinor * 100 + kVersionPatch;

void* RedisAlloc(size_t bytes) { return RedisModule_Alloc(bytes); }
void* RedisCalloc(size_t bytes) { return RedisModule_Calloc(1, bytes); }
void RedisFree(void* p) { RedisModule_Free(p); }

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{1} << 40;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// Reads the module arguments into g_defaults; logs and fails on a bad one.
int ParseModuleArguments(RedisModuleCtx* ctx, RedisModuleString** argv,
                         int argc) {
  for (int i = 0; i < argc; i += 2) {
    const std::string name(View(argv[i]));
    if (i + 1 >= argc) {
      RedisModule_Log(ctx, "warning",
                      "blockbloom: module argument %s has no value",
                      name.c_str());
      return REDISMODULE_ERR;
    }
    bool ok = false;
    if (EqualsIgnoreCase(argv[i], "ERROR_RATE")) {
      double rate = 0;
      ok = ParseDouble(argv[i + 1], &rate) && rate >= FilterStack::kMinFpRate &&
           rate < 1;
      if (ok) g_defaults.fp_rate = rate;
    } else if (EqualsIgnoreCase(argv[i], "INITIAL_SIZE")) {
      uint64_t capacity = 0;
      ok = ParseUnsigned(argv[i + 1], &capacity) && capacity >= 1;
      if (ok) g_defaults.capacity = capacity;
    } else if (EqualsIgnoreCase(argv[i], "EXPANSION")) {
      uint64_t expansion = 0;
      ok = ParseUnsigned(argv[i + 1], &expansion) && expansion >= 1 &&
           expansion <= FilterStack::kMaxExpansion;
      if (ok) g_defaults.expansion = static_cast<uint32_t>(expansion);
    } else if (EqualsIgnoreCase(argv[i], "MAX_BYTES")) {
      uint64_t max_bytes = 0;
      ok = ParseUnsigned(argv[i + 1], &max_bytes) && max_bytes >= 64;
      if (ok) g_defaults.max_bytes = max_bytes;
    } else {
      RedisModule_Log(ctx, "warning",
                      "blockbloom: unknown module argument %s (known: "
                      "ERROR_RATE, INITIAL_SIZE, EXPANSION, MAX_BYTES)",
                      name.c_str());
      return REDISMODULE_ERR;
    }
    if (!ok) {
      RedisModule_Log(ctx, "warning", "blockbloom: bad value for %s",
                      name.c_str());
      return REDISMODULE_ERR;
    }
  }
  return REDISMODULE_OK;
}

}  // namespace
}  // namespace blockbloom::redis_module

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(
    RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  namespace rm = blockbloom::redis_module;
  if (RedisModule_Init(ctx, "blockbloom", rm::kModuleVersion,
                       REDISMODULE_APIVER_1) == REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  rm::SetAllocator({rm::RedisAlloc, rm::RedisCalloc, rm::RedisFree});
  rm::g_defaults.max_bytes = rm::PhysicalMemoryBytes();
  if (rm::ParseModuleArguments(ctx, argv, argc) == REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  rm::FilterStack::SetMaxBytes(rm::g_defaults.max_bytes);
  // The sizing math builds its tables on first use (tens of ms): here, not in
  // the first BF.RESERVE, which must not hold the server that long.
  (void)blockbloom::ShapeForFpRate(rm::g_defaults.capacity,
                                   rm::g_defaults.fp_rate,
                                   /*compact_small_filters=*/false);
  // RDB loads report errors instead of stopping the server (a truncated or
  // damaged payload is refused: RESTORE fails, a startup load fails).
  RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);
  if (rm::RegisterFilterType(ctx) == REDISMODULE_ERR ||
      rm::RegisterBfCommands(ctx) == REDISMODULE_ERR ||
      rm::RegisterScanDumpCommands(ctx) == REDISMODULE_ERR ||
      rm::RegisterBbCommands(ctx) == REDISMODULE_ERR) {
    return REDISMODULE_ERR;
  }
  return REDISMODULE_OK;
}
