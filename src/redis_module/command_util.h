// What every command of the module shares: the data type, reading
// arguments, opening keys, and turning a Status into an error reply.
#ifndef BLOCKBLOOM_SRC_REDIS_MODULE_COMMAND_UTIL_H_
#define BLOCKBLOOM_SRC_REDIS_MODULE_COMMAND_UTIL_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "src/filter_stack/filter_stack.h"
#include "src/filter_stack/value.h"
#include "src/redis_module/redis_api.h"

namespace blockbloom::redis_module {

// The module's data type, registered in RedisModule_OnLoad.
extern RedisModuleType* g_filter_type;

// Defaults for keys that BF.ADD, BF.MADD and BF.INSERT create (RedisBloom's:
// error 0.01, capacity 100, expansion 2), changed by the module arguments
// ERROR_RATE, INITIAL_SIZE and EXPANSION.
struct ModuleDefaults {
  double fp_rate = 0.01;
  uint64_t capacity = 100;
  uint32_t expansion = 2;
  // The most bytes of bits a filter may reserve (BF.RESERVE, growth) or
  // declare (BF.LOADCHUNK header, RDB value), and the largest file BB.LOAD
  // accepts (module argument MAX_BYTES). Default: the machine's physical
  // memory (module.cc); a filter larger than memory cannot work anyway, and
  // a stated size beyond it would make the allocator abort the server.
  uint64_t max_bytes = uint64_t{1} << 40;
};
extern ModuleDefaults g_defaults;

std::string_view View(RedisModuleString* s);
bool EqualsIgnoreCase(RedisModuleString* s, std::string_view word);

// Parsers in RedisBloom's terms: false if `s` is not a number of that kind.
bool ParseDouble(RedisModuleString* s, double* out);
bool ParseUnsigned(RedisModuleString* s, uint64_t* out);  // >= 0, no sign

// An EXPANSION value: an integer in [1, FilterStack::kMaxExpansion]. On
// anything else replies "ERR bad expansion: ..." (the same text for every
// command) and returns false.
bool ParseExpansion(RedisModuleCtx* ctx, RedisModuleString* s,
                    uint32_t* expansion);

// Replies "ERR <status message>" (or the message as is when it already
// starts with an upper-case error code such as WRONGTYPE).
int ReplyWithStatus(RedisModuleCtx* ctx, const absl::Status& status);
int ReplyWithErrorText(RedisModuleCtx* ctx, std::string_view text);

// A key of the module's type opened for a command; closed when this goes
// out of scope (a value pointer taken from it stays valid for the rest of
// the command: the value stays in the keyspace).
struct OpenedKey {
  OpenedKey() = default;
  OpenedKey(OpenedKey&& other) noexcept
      : key(std::exchange(other.key, nullptr)),
        value(other.value),
        wrong_type(other.wrong_type) {}
  OpenedKey& operator=(OpenedKey&&) = delete;
  ~OpenedKey() {
    if (key != nullptr) RedisModule_CloseKey(key);
  }

  RedisModuleKey* key = nullptr;
  FilterValue* value = nullptr;  // null if the key is empty
  bool wrong_type = false;
};
// Opens `name` with `mode` (REDISMODULE_READ / WRITE).
OpenedKey OpenFilterKey(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
// Replies the error for a value that cannot answer queries yet (a load in
// progress or interrupted) and returns true; false if it is ready.
bool ReplyIfNotReady(RedisModuleCtx* ctx, const FilterValue& value);

// A fresh random seed for a new key (RedisModule_GetRandomBytes).
uint64_t RandomSeed();

// Creates a filter value in an empty opened key and replicates its creation
// as BB.RESERVE with the stack's explicit seed, so replicas and the AOF get
// the same hash seed.
FilterValue* CreateInKey(RedisModuleCtx* ctx, RedisModuleString* name,
                         RedisModuleKey* key, FilterStack stack);

// What BF.INFO reports as Size: the bytes the filter takes once every piece
// is written (its bits, piece tables and bookkeeping). MEMORY USAGE reports
// what is allocated now (type_methods.cc).
uint64_t FilterSizeBytes(const FilterValue& value);

// The nonce of a SCANDUMP of the value as it is now (chunk_format.h): it
// differs whenever the content may differ, so chunks of a dump taken before
// a write cannot mix with chunks taken after it.
inline uint64_t DumpNonce(const FilterValue& value) {
  return value.stack->seed() ^ (value.version * 0x9e3779b97f4a7c15ull);
}

// A command of the module: its name (lower case, as RedisBloom's, which
// Redis uses in its error messages), handler and flags. Every command takes
// one key, its first argument (so Redis Cluster routes it by that key).
struct CommandSpec {
  const char* name;
  RedisModuleCmdFunc handler;
  const char* flags;
};
int RegisterCommands(RedisModuleCtx* ctx,
                     absl::Span<const CommandSpec> commands);

// Views of command arguments, for batches.
std::vector<std::string_view> Views(RedisModuleString** argv, int argc);

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_REDIS_MODULE_COMMAND_UTIL_H_
