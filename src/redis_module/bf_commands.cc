// RedisBloom's BF.* commands on a blockbloom filter stack: the same names,
// arguments, reply shapes and, where clients depend on them, error texts
// (docs/REDIS_MODULE.md lists every difference). BF.SCANDUMP and
// BF.LOADCHUNK are in scandump_commands.cc.
#include "src/redis_module/bf_commands.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/redis_module/command_util.h"

namespace blockbloom::redis_module {
namespace {

// Options of BF.RESERVE, BB.RESERVE and BF.INSERT after the positional
// arguments.
struct ParsedOptions {
  StackOptions stack;
  bool have_expansion = false;
};

int ReplyAddResult(RedisModuleCtx* ctx, const absl::StatusOr<bool>& added) {
  if (!added.ok()) return ReplyWithStatus(ctx, added.status());
  return RedisModule_ReplyWithLongLong(ctx, *added ? 1 : 0);
}

// Opens `name` for an add, creating the key with the module's defaults
// unless `nocreate`. Replies (and returns null) on a wrong type, a missing
// key with nocreate, or a value that is not ready.
FilterValue* OpenForAdd(RedisModuleCtx* ctx, RedisModuleString* name,
                        const StackOptions* create_options, bool nocreate) {
  OpenedKey opened =
      OpenFilterKey(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
  if (opened.wrong_type) {
    RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return nullptr;
  }
  if (opened.value != nullptr) {
    if (ReplyIfNotReady(ctx, *opened.value)) return nullptr;
    return opened.value;
  }
  if (nocreate) {
    RedisModule_ReplyWithError(ctx, "ERR not found");
    return nullptr;
  }
  StackOptions options;
  if (create_options != nullptr) {
    options = *create_options;
  } else {
    options.fp_rate = g_defaults.fp_rate;
    options.capacity = g_defaults.capacity;
    options.expansion = g_defaults.expansion;
  }
  options.seed = RandomSeed();
  absl::StatusOr<FilterStack> stack = FilterStack::Create(options);
  if (!stack.ok()) {
    ReplyWithStatus(ctx, stack.status());
    return nullptr;
  }
  return CreateInKey(ctx, name, opened.key, *std::move(stack));
}

}  // namespace

namespace {

int ParseReserveArguments(RedisModuleCtx* ctx, RedisModuleString** argv,
                          int argc, bool allow_seed, StackOptions* options,
                          bool* have_seed) {
  *have_seed = false;
  if (!ParseDouble(argv[2], &options->fp_rate)) {
    RedisModule_ReplyWithError(ctx, "ERR bad error rate");
    return REDISMODULE_ERR;
  }
  if (!(options->fp_rate > 0 && options->fp_rate < 1)) {
    RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1)");
    return REDISMODULE_ERR;
  }
  uint64_t capacity = 0;
  if (!ParseUnsigned(argv[3], &capacity)) {
    long long signed_capacity = 0;
    if (RedisModule_StringToLongLong(argv[3], &signed_capacity) ==
            REDISMODULE_OK &&
        signed_capacity <= 0) {
      RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
    } else {
      RedisModule_ReplyWithError(ctx, "ERR bad capacity");
    }
    return REDISMODULE_ERR;
  }
  if (capacity == 0) {
    RedisModule_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
    return REDISMODULE_ERR;
  }
  options->capacity = capacity;
  options->expansion = g_defaults.expansion;
  bool have_expansion = false;
  for (int i = 4; i < argc; ++i) {
    if (EqualsIgnoreCase(argv[i], "NONSCALING")) {
      options->nonscaling = true;
    } else if (EqualsIgnoreCase(argv[i], "EXPANSION")) {
      if (i + 1 >= argc) {
        RedisModule_ReplyWithError(ctx, "ERR no expansion");
        return REDISMODULE_ERR;
      }
      if (!ParseExpansion(ctx, argv[++i], &options->expansion)) {
        return REDISMODULE_ERR;
      }
      have_expansion = true;
    } else if (allow_seed && EqualsIgnoreCase(argv[i], "SEED")) {
      if (i + 1 >= argc || !ParseUnsigned(argv[++i], &options->seed)) {
        RedisModule_ReplyWithError(ctx,
                                   "ERR bad seed: an unsigned 64-bit integer");
        return REDISMODULE_ERR;
      }
      *have_seed = true;
    } else {
      ReplyWithErrorText(ctx, absl::StrCat("ERR unknown argument '",
                                           std::string(View(argv[i])), "'"));
      return REDISMODULE_ERR;
    }
  }
  if (have_expansion && options->nonscaling) {
    RedisModule_ReplyWithError(ctx, "ERR Nonscaling filters cannot expand");
    return REDISMODULE_ERR;
  }
  if (absl::Status s = FilterStack::ValidateOptions(*options); !s.ok()) {
    ReplyWithStatus(ctx, s);
    return REDISMODULE_ERR;
  }
  return REDISMODULE_OK;
}

}  // namespace

int ReserveCommand(RedisModuleCtx* ctx, RedisModuleString** argv, int argc,
                   bool allow_seed) {
  if (argc < 4) return RedisModule_WrongArity(ctx);
  StackOptions options;
  bool have_seed = false;
  if (ParseReserveArguments(ctx, argv, argc, allow_seed, &options,
                            &have_seed) != REDISMODULE_OK) {
    return REDISMODULE_OK;
  }
  OpenedKey opened =
      OpenFilterKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  if (opened.value != nullptr) {
    return RedisModule_ReplyWithError(ctx, "ERR item exists");
  }
  if (!have_seed) options.seed = RandomSeed();
  absl::StatusOr<FilterStack> stack = FilterStack::Create(options);
  if (!stack.ok()) return ReplyWithStatus(ctx, stack.status());
  CreateInKey(ctx, argv[1], opened.key, *std::move(stack));
  return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

namespace {

int BfReserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc > 7) return RedisModule_WrongArity(ctx);
  return ReserveCommand(ctx, argv, argc, /*allow_seed=*/false);
}

int BfAdd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  FilterValue* value = OpenForAdd(ctx, argv[1], nullptr, false);
  if (value == nullptr) return REDISMODULE_OK;
  value->Touch();
  RedisModule_ReplicateVerbatim(ctx);
  return ReplyAddResult(ctx, value->stack->Add(View(argv[2])));
}

// Adds argv[first..argc) in order and replies an array: 1/0 per key, and an
// error element at the first key that could not be added (the rest are not
// added), as RedisBloom does.
int AddItemsAndReply(RedisModuleCtx* ctx, FilterValue* value,
                     RedisModuleString** argv, int first, int argc) {
  value->Touch();
  RedisModule_ReplicateVerbatim(ctx);
  std::vector<absl::StatusOr<bool>> added;
  const std::vector<std::string_view> items = Views(argv + first, argc - first);
  value->stack->AddBatch(items, &added);
  RedisModule_ReplyWithArray(ctx, static_cast<long>(added.size()));
  for (const absl::StatusOr<bool>& result : added) ReplyAddResult(ctx, result);
  return REDISMODULE_OK;
}

int BfMadd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  FilterValue* value = OpenForAdd(ctx, argv[1], nullptr, false);
  if (value == nullptr) return REDISMODULE_OK;
  return AddItemsAndReply(ctx, value, argv, 2, argc);
}

// Opens a key for a query. Returns false after replying for a wrong type or
// a value that is not ready; *value is null for a missing key.
bool OpenForQuery(RedisModuleCtx* ctx, RedisModuleString* name,
                  FilterValue** value) {
  OpenedKey opened = OpenFilterKey(ctx, name, REDISMODULE_READ);
  if (opened.wrong_type) {
    RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return false;
  }
  if (opened.value != nullptr && ReplyIfNotReady(ctx, *opened.value)) {
    return false;
  }
  *value = opened.value;
  return true;
}

int BfExists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  FilterValue* value = nullptr;
  if (!OpenForQuery(ctx, argv[1], &value)) return REDISMODULE_OK;
  const bool found =
      value != nullptr && value->stack->MayContain(View(argv[2]));
  return RedisModule_ReplyWithLongLong(ctx, found ? 1 : 0);
}

}  // namespace

// Probes argv[first..argc) as one prefetched batch; results[i] per key (all
// false for a missing key).
void ProbeItems(const FilterValue* value, RedisModuleString** argv, int first,
                int argc, std::vector<char>* results) {
  const size_t n = static_cast<size_t>(argc - first);
  results->assign(n, 0);
  if (value == nullptr || n == 0) return;
  const std::vector<std::string_view> items = Views(argv + first, argc - first);
  static_assert(sizeof(bool) == sizeof(char));
  value->stack->MayContainBatch(items,
                                reinterpret_cast<bool*>(results->data()));
}

namespace {

int BfMexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  FilterValue* value = nullptr;
  if (!OpenForQuery(ctx, argv[1], &value)) return REDISMODULE_OK;
  std::vector<char> results;
  ProbeItems(value, argv, 2, argc, &results);
  RedisModule_ReplyWithArray(ctx, static_cast<long>(results.size()));
  for (char found : results) RedisModule_ReplyWithLongLong(ctx, found ? 1 : 0);
  return REDISMODULE_OK;
}

int BfInsert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 4) return RedisModule_WrongArity(ctx);
  StackOptions options;
  options.fp_rate = g_defaults.fp_rate;
  options.capacity = g_defaults.capacity;
  options.expansion = g_defaults.expansion;
  bool nocreate = false;
  int items_at = -1;
  for (int i = 2; i < argc; ++i) {
    if (EqualsIgnoreCase(argv[i], "ITEMS")) {
      items_at = i + 1;
      break;
    }
    if (EqualsIgnoreCase(argv[i], "NOCREATE")) {
      nocreate = true;
      continue;
    }
    if (EqualsIgnoreCase(argv[i], "NONSCALING")) {
      options.nonscaling = true;
      continue;
    }
    const bool capacity = EqualsIgnoreCase(argv[i], "CAPACITY");
    const bool error = EqualsIgnoreCase(argv[i], "ERROR");
    const bool expansion = EqualsIgnoreCase(argv[i], "EXPANSION");
    if (!capacity && !error && !expansion) {
      return ReplyWithErrorText(ctx,
                                absl::StrCat("ERR unknown argument '",
                                             std::string(View(argv[i])), "'"));
    }
    if (i + 1 >= argc) return RedisModule_WrongArity(ctx);
    RedisModuleString* arg = argv[++i];
    if (capacity) {
      if (!ParseUnsigned(arg, &options.capacity)) {
        return RedisModule_ReplyWithError(ctx, "ERR bad capacity");
      }
    } else if (error) {
      if (!ParseDouble(arg, &options.fp_rate)) {
        return RedisModule_ReplyWithError(ctx, "ERR bad error rate");
      }
    } else {
      if (!ParseExpansion(ctx, arg, &options.expansion)) return REDISMODULE_OK;
    }
  }
  if (items_at < 0 || items_at >= argc) return RedisModule_WrongArity(ctx);
  if (!(options.fp_rate > 0 && options.fp_rate < 1)) {
    return RedisModule_ReplyWithError(ctx, "ERR (0 < error rate range < 1)");
  }
  if (options.capacity < 1) {
    return RedisModule_ReplyWithError(ctx,
                                      "ERR (capacity should be larger than 0)");
  }
  if (absl::Status s = FilterStack::ValidateOptions(options); !s.ok()) {
    return ReplyWithStatus(ctx, s);
  }
  FilterValue* value = OpenForAdd(ctx, argv[1], &options, nocreate);
  if (value == nullptr) return REDISMODULE_OK;
  return AddItemsAndReply(ctx, value, argv, items_at, argc);
}

int ReplyInfoField(RedisModuleCtx* ctx, const FilterValue& value,
                   std::string_view field) {
  const FilterStack& stack = *value.stack;
  if (field == "CAPACITY") {
    return RedisModule_ReplyWithLongLong(
        ctx, static_cast<long long>(stack.capacity()));
  }
  if (field == "SIZE") {
    return RedisModule_ReplyWithLongLong(
        ctx, static_cast<long long>(FilterSizeBytes(value)));
  }
  if (field == "FILTERS") {
    return RedisModule_ReplyWithLongLong(
        ctx, static_cast<long long>(stack.layers().size()));
  }
  if (field == "ITEMS") {
    return RedisModule_ReplyWithLongLong(
        ctx, static_cast<long long>(stack.num_insertions()));
  }
  // Not in the full reply (clients parse that one strictly: go-redis fails
  // on a field it does not know), only asked by name.
  if (field == "ERROR") {
    return RedisModule_ReplyWithDouble(ctx, stack.EstimatedFpRate());
  }
  // EXPANSION: nil for a filter that does not grow.
  if (stack.options().nonscaling) return RedisModule_ReplyWithNull(ctx);
  return RedisModule_ReplyWithLongLong(ctx, stack.options().expansion);
}

// BF.INFO's fields, in RedisBloom's order (node-redis reads them by
// position).
int BfInfo(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
  OpenedKey opened = OpenFilterKey(ctx, argv[1], REDISMODULE_READ);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  if (opened.value == nullptr) {
    return RedisModule_ReplyWithError(ctx, "ERR not found");
  }
  if (ReplyIfNotReady(ctx, *opened.value)) return REDISMODULE_OK;
  static constexpr std::pair<const char*, const char*> kFields[] = {
      {"Capacity", "CAPACITY"},
      {"Size", "SIZE"},
      {"Number of filters", "FILTERS"},
      {"Number of items inserted", "ITEMS"},
      {"Expansion rate", "EXPANSION"}};
  if (argc == 3) {
    for (const auto& [name, field] : kFields) {
      if (EqualsIgnoreCase(argv[2], field)) {
        RedisModule_ReplyWithArray(ctx, 1);
        return ReplyInfoField(ctx, *opened.value, field);
      }
    }
    // blockbloom's own field: the expected false-positive rate of the
    // stack as filled now (at most the asked rate).
    if (EqualsIgnoreCase(argv[2], "ERROR")) {
      RedisModule_ReplyWithArray(ctx, 1);
      return ReplyInfoField(ctx, *opened.value, "ERROR");
    }
    return RedisModule_ReplyWithError(ctx, "ERR Invalid information value");
  }
  RedisModule_ReplyWithArray(ctx, 2 * std::size(kFields));
  for (const auto& [name, field] : kFields) {
    RedisModule_ReplyWithSimpleString(ctx, name);
    ReplyInfoField(ctx, *opened.value, field);
  }
  return REDISMODULE_OK;
}

int BfCard(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  FilterValue* value = nullptr;
  if (!OpenForQuery(ctx, argv[1], &value)) return REDISMODULE_OK;
  return RedisModule_ReplyWithLongLong(
      ctx, value == nullptr
               ? 0
               : static_cast<long long>(value->stack->num_insertions()));
}

}  // namespace

int RegisterBfCommands(RedisModuleCtx* ctx) {
  static constexpr CommandSpec kCommands[] = {
      {"bf.reserve", BfReserve, "write deny-oom"},
      {"bf.add", BfAdd, "write deny-oom"},
      {"bf.madd", BfMadd, "write deny-oom"},
      {"bf.insert", BfInsert, "write deny-oom"},
      {"bf.exists", BfExists, "readonly fast"},
      {"bf.mexists", BfMexists, "readonly fast"},
      {"bf.info", BfInfo, "readonly fast"},
      {"bf.card", BfCard, "readonly fast"},
  };
  return RegisterCommands(ctx, kCommands);
}

}  // namespace blockbloom::redis_module
