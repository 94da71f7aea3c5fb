#include "src/redis_module/command_util.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::redis_module {

RedisModuleType* g_filter_type = nullptr;
ModuleDefaults g_defaults;

std::string_view View(RedisModuleString* s) {
  size_t len = 0;
  const char* p = RedisModule_StringPtrLen(s, &len);
  return {p, len};
}

bool EqualsIgnoreCase(RedisModuleString* s, std::string_view word) {
  const std::string_view v = View(s);
  if (v.size() != word.size()) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(v[i])) !=
        std::toupper(static_cast<unsigned char>(word[i]))) {
      return false;
    }
  }
  return true;
}

bool ParseDouble(RedisModuleString* s, double* out) {
  double value = 0;
  if (RedisModule_StringToDouble(s, &value) != REDISMODULE_OK) return false;
  if (!std::isfinite(value)) return false;
  *out = value;
  return true;
}

bool ParseUnsigned(RedisModuleString* s, uint64_t* out) {
  const std::string_view v = View(s);
  if (v.empty() || v.size() > 20) return false;
  uint64_t value = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

bool ParseExpansion(RedisModuleCtx* ctx, RedisModuleString* s,
                    uint32_t* expansion) {
  uint64_t value = 0;
  if (!ParseUnsigned(s, &value) || value < 1 ||
      value > FilterStack::kMaxExpansion) {
    ReplyWithErrorText(ctx,
                       absl::StrCat("ERR bad expansion: an integer in [1, ",
                                    FilterStack::kMaxExpansion, "]"));
    return false;
  }
  *expansion = static_cast<uint32_t>(value);
  return true;
}

int ReplyWithErrorText(RedisModuleCtx* ctx, std::string_view text) {
  // RedisModule_ReplyWithError needs a C string.
  const std::string copy(text);
  return RedisModule_ReplyWithError(ctx, copy.c_str());
}

int ReplyWithStatus(RedisModuleCtx* ctx, const absl::Status& status) {
  std::string text(status.message());
  // Error replies are one line.
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return ReplyWithErrorText(ctx, absl::StrCat("ERR ", text));
}

OpenedKey OpenFilterKey(RedisModuleCtx* ctx, RedisModuleString* name,
                        int mode) {
  OpenedKey opened;
  opened.key =
      static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode));
  const int type = RedisModule_KeyType(opened.key);
  if (type == REDISMODULE_KEYTYPE_EMPTY) return opened;
  if (RedisModule_ModuleTypeGetType(opened.key) != g_filter_type) {
    opened.wrong_type = true;
    return opened;
  }
  opened.value =
      static_cast<FilterValue*>(RedisModule_ModuleTypeGetValue(opened.key));
  return opened;
}

bool ReplyIfNotReady(RedisModuleCtx* ctx, const FilterValue& value) {
  if (value.ready()) return false;
  if (value.chunks != nullptr || value.file != nullptr) {
    ReplyWithErrorText(
        ctx,
        "ERR the filter is still being loaded (BF.LOADCHUNK or BB.LOAD): it "
        "answers once its last chunk has arrived and verified");
  } else {
    ReplyWithErrorText(
        ctx,
        "ERR the filter's load was interrupted (by a restart or a failed "
        "verification): DEL the key and load it again");
  }
  return true;
}

uint64_t RandomSeed() {
  uint64_t seed = 0;
  RedisModule_GetRandomBytes(reinterpret_cast<unsigned char*>(&seed),
                             sizeof(seed));
  return seed;
}

FilterValue* CreateInKey(RedisModuleCtx* ctx, RedisModuleString* name,
                         RedisModuleKey* key, FilterStack stack) {
  auto* value = new FilterValue();
  const StackOptions& options = stack.options();
  value->stack.emplace(std::move(stack));
  RedisModule_ModuleTypeSetValue(key, g_filter_type, value);
  // %.17g round-trips a double exactly; the seed goes as an unsigned
  // decimal string (a long long would turn half of them negative).
  const std::string error_rate = absl::StrFormat("%.17g", options.fp_rate);
  const std::string seed = absl::StrCat(options.seed);
  if (options.nonscaling) {
    RedisModule_Replicate(ctx, "BB.RESERVE", "sclccc", name, error_rate.c_str(),
                          static_cast<long long>(options.capacity),
                          "NONSCALING", "SEED", seed.c_str());
  } else {
    RedisModule_Replicate(
        ctx, "BB.RESERVE", "sclclcc", name, error_rate.c_str(),
        static_cast<long long>(options.capacity), "EXPANSION",
        static_cast<long long>(options.expansion), "SEED", seed.c_str());
  }
  return value;
}

uint64_t FilterSizeBytes(const FilterValue& value) {
  uint64_t bytes = sizeof(FilterValue);
  if (!value.stack.has_value()) return bytes;
  for (const Layer& layer : value.stack->layers()) {
    bytes += sizeof(Layer) + layer.table().size_bytes() +
             layer.table().num_pieces() * sizeof(void*);
  }
  return bytes;
}

int RegisterCommands(RedisModuleCtx* ctx,
                     absl::Span<const CommandSpec> commands) {
  for (const CommandSpec& c : commands) {
    if (RedisModule_CreateCommand(ctx, c.name, c.handler, c.flags,
                                  /*firstkey=*/1, /*lastkey=*/1,
                                  /*keystep=*/1) == REDISMODULE_ERR) {
      return REDISMODULE_ERR;
    }
  }
  return REDISMODULE_OK;
}

std::vector<std::string_view> Views(RedisModuleString** argv, int argc) {
  std::vector<std::string_view> views;
  views.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; ++i) views.push_back(View(argv[i]));
  return views;
}

}  // namespace blockbloom::redis_module
