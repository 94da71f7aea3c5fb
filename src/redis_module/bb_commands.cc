// The BB.* commands, which connect the module with the rest of blockbloom:
//
//   BB.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING] [SEED s]
//   BB.LOAD key offset total data [ERROR e] [CAPACITY n] [EXPANSION n]
//           [NONSCALING]
//   BB.DUMP key cursor [LAYER i]
//   BB.MEXISTS key item [item ...]
//   BB.INFO key
//
// docs/REDIS_MODULE.md describes them for users.
#include "src/redis_module/bb_commands.h"

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "blockbloom/filter.h"
#include "blockbloom/version.h"
#include "src/redis_module/bf_commands.h"
#include "src/redis_module/command_util.h"

namespace blockbloom::redis_module {
namespace {

// Files up to this size are verified inside the command (XXH3 reads them in
// about a millisecond); larger ones in a thread while the client waits.
constexpr uint64_t kInlineVerifyBytes = uint64_t{8} << 20;

// BB.DUMP cursors: a dump id (24 bits) and the number of the next chunk
// (28 bits: 2^28 chunks of 4 MiB is 1 PiB), so that cursors stay below 2^53
// and survive clients that hold numbers as doubles.
constexpr int kChunkBits = 28;
constexpr uint64_t kChunkMask = (uint64_t{1} << kChunkBits) - 1;

int BbReserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc > 9) return RedisModule_WrongArity(ctx);
  return ReserveCommand(ctx, argv, argc, /*allow_seed=*/true);
}

// ---------------------------------------------------------------------------
// BB.LOAD

// Puts a verified stack into the key that holds `load`, or deletes the key
// if the file was bad. OK, or the error to reply.
absl::Status CompleteLoad(RedisModuleCtx* ctx, RedisModuleString* name,
                          const std::shared_ptr<FileLoad>& load,
                          absl::StatusOr<FilterStack> stack) {
  OpenedKey opened =
      OpenFilterKey(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE);
  if (opened.value == nullptr || opened.value->file != load) {
    return absl::AbortedError(
        "the key was deleted or replaced while its file was verified; "
        "nothing was loaded");
  }
  if (!stack.ok()) {
    RedisModule_DeleteKey(opened.key);
    return absl::InvalidArgumentError(
        absl::StrCat("the loaded bytes are not a filter file BB.LOAD can "
                     "read (nothing was loaded; the key was removed): ",
                     stack.status().message()));
  }
  opened.value->file.reset();
  opened.value->stack.emplace(*std::move(stack));
  opened.value->Touch();
  return absl::OkStatus();
}

int ReplyLoadCompleted(RedisModuleCtx* ctx, const absl::Status& status) {
  if (!status.ok()) return ReplyWithStatus(ctx, status);
  return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

// A large file verified in a thread: the thread also completes the load (it
// takes the server's lock), so that the key does not stay loading if the
// client leaves meanwhile (Redis then never calls the reply callback); the
// client, if still there, gets the outcome.
struct LoadResult {
  std::shared_ptr<FileLoad> load;
  RedisModuleString* key_name = nullptr;  // retained
  absl::Status status = absl::UnknownError("not run");
};

int LoadReply(RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int /*argc*/) {
  auto* result =
      static_cast<LoadResult*>(RedisModule_GetBlockedClientPrivateData(ctx));
  return ReplyLoadCompleted(ctx, result->status);
}

void FreeLoadResult(RedisModuleCtx* ctx, void* privdata) {
  auto* result = static_cast<LoadResult*>(privdata);
  if (result->key_name != nullptr) {
    RedisModule_FreeString(ctx, result->key_name);
  }
  delete result;
}

bool CanBlock(RedisModuleCtx* ctx) {
  const int flags = RedisModule_GetContextFlags(ctx);
  return (flags &
          (REDISMODULE_CTX_FLAGS_MULTI | REDISMODULE_CTX_FLAGS_LUA |
           REDISMODULE_CTX_FLAGS_REPLICATED | REDISMODULE_CTX_FLAGS_LOADING |
           REDISMODULE_CTX_FLAGS_DENY_BLOCKING)) == 0;
}

int ParseLoadOptions(RedisModuleCtx* ctx, RedisModuleString** argv, int first,
                     int argc, LoadOptions* options) {
  bool have_expansion = false;
  for (int i = first; i < argc; ++i) {
    if (EqualsIgnoreCase(argv[i], "NONSCALING")) {
      options->nonscaling = true;
      continue;
    }
    const bool error = EqualsIgnoreCase(argv[i], "ERROR");
    const bool capacity = EqualsIgnoreCase(argv[i], "CAPACITY");
    const bool expansion = EqualsIgnoreCase(argv[i], "EXPANSION");
    if (!error && !capacity && !expansion) {
      ReplyWithErrorText(ctx, absl::StrCat("ERR unknown argument '",
                                           std::string(View(argv[i])), "'"));
      return REDISMODULE_ERR;
    }
    if (i + 1 >= argc) {
      RedisModule_WrongArity(ctx);
      return REDISMODULE_ERR;
    }
    RedisModuleString* arg = argv[++i];
    if (error) {
      double rate = 0;
      if (!ParseDouble(arg, &rate)) {
        RedisModule_ReplyWithError(ctx, "ERR bad error rate");
        return REDISMODULE_ERR;
      }
      options->fp_rate = rate;
    } else if (capacity) {
      uint64_t n = 0;
      if (!ParseUnsigned(arg, &n) || n == 0) {
        RedisModule_ReplyWithError(ctx, "ERR bad capacity");
        return REDISMODULE_ERR;
      }
      options->capacity = n;
    } else {
      if (!ParseExpansion(ctx, arg, &options->expansion)) {
        return REDISMODULE_ERR;
      }
      have_expansion = true;
    }
  }
  if (have_expansion && options->nonscaling) {
    RedisModule_ReplyWithError(ctx, "ERR Nonscaling filters cannot expand");
    return REDISMODULE_ERR;
  }
  return REDISMODULE_OK;
}

int BbLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 5) return RedisModule_WrongArity(ctx);
  uint64_t offset = 0;
  uint64_t total = 0;
  if (!ParseUnsigned(argv[2], &offset)) {
    return RedisModule_ReplyWithError(ctx, "ERR bad offset");
  }
  if (!ParseUnsigned(argv[3], &total)) {
    return RedisModule_ReplyWithError(ctx, "ERR bad total size");
  }
  OpenedKey opened =
      OpenFilterKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  std::shared_ptr<FileLoad> load;
  FilterValue* value = opened.value;
  if (offset == 0) {
    if (value != nullptr) {
      return RedisModule_ReplyWithError(
          ctx, "ERR item exists (DEL the key before loading a file into it)");
    }
    LoadOptions options;
    options.expansion = g_defaults.expansion;
    if (ParseLoadOptions(ctx, argv, 5, argc, &options) != REDISMODULE_OK) {
      return REDISMODULE_OK;
    }
    absl::StatusOr<std::shared_ptr<FileLoad>> started =
        FileLoad::Start(total, options, g_defaults.max_bytes);
    if (!started.ok()) return ReplyWithStatus(ctx, started.status());
    load = *std::move(started);
    // The first chunk must fit before the key is created: a refused call
    // leaves nothing behind (and, not being replicated, must not change
    // the keyspace).
    if (absl::Status s = load->Append(offset, View(argv[4])); !s.ok()) {
      return ReplyWithStatus(ctx, s);
    }
    value = new FilterValue();
    value->file = load;
    RedisModule_ModuleTypeSetValue(opened.key, g_filter_type, value);
  } else {
    if (argc > 5) {
      return RedisModule_ReplyWithError(
          ctx, "ERR options go with the first chunk (offset 0) only");
    }
    if (value == nullptr || value->file == nullptr) {
      return RedisModule_ReplyWithError(
          ctx, "ERR no BB.LOAD in progress for this key: start at offset 0");
    }
    load = value->file;
    if (total != load->total()) {
      return ReplyWithErrorText(
          ctx, absl::StrCat("ERR total size ", total,
                            " differs from the first chunk's ", load->total()));
    }
  }
  if (offset != 0) {
    if (absl::Status s = load->Append(offset, View(argv[4])); !s.ok()) {
      return ReplyWithStatus(ctx, s);
    }
  }
  value->Touch();
  RedisModule_ReplicateVerbatim(ctx);
  if (!load->complete()) {
    return RedisModule_ReplyWithLongLong(
        ctx, static_cast<long long>(load->received()));
  }
  if (load->total() <= kInlineVerifyBytes || !CanBlock(ctx)) {
    return ReplyLoadCompleted(ctx,
                              CompleteLoad(ctx, argv[1], load, load->Finish()));
  }
  // A large file: verify it in a thread while the client waits. The thread
  // only reads the staged bytes, which nothing changes any more (the load
  // is complete, so further chunks are refused); DEL of the key meanwhile
  // drops the key's reference, not the thread's. It then completes the load
  // under the server's lock, in the client's database.
  RedisModuleBlockedClient* blocked =
      RedisModule_BlockClient(ctx, LoadReply, nullptr, FreeLoadResult, 0);
  auto* result = new LoadResult();
  result->load = load;
  RedisModule_RetainString(ctx, argv[1]);
  result->key_name = argv[1];
  std::thread([blocked, result] {
    absl::StatusOr<FilterStack> stack = result->load->Finish();
    RedisModuleCtx* locked = RedisModule_GetThreadSafeContext(blocked);
    RedisModule_ThreadSafeContextLock(locked);
    result->status =
        CompleteLoad(locked, result->key_name, result->load, std::move(stack));
    RedisModule_ThreadSafeContextUnlock(locked);
    RedisModule_FreeThreadSafeContext(locked);
    RedisModule_UnblockClient(blocked, result);
  }).detach();
  return REDISMODULE_OK;
}

// ---------------------------------------------------------------------------
// BB.DUMP

// Opens a key for a read-only command that needs a ready filter; replies
// and returns null otherwise.
FilterValue* OpenReady(RedisModuleCtx* ctx, RedisModuleString* name) {
  OpenedKey opened = OpenFilterKey(ctx, name, REDISMODULE_READ);
  if (opened.wrong_type) {
    RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return nullptr;
  }
  if (opened.value == nullptr) {
    RedisModule_ReplyWithError(ctx, "ERR not found");
    return nullptr;
  }
  if (ReplyIfNotReady(ctx, *opened.value)) return nullptr;
  return opened.value;
}

int ReplyDumpChunk(RedisModuleCtx* ctx, uint64_t cursor,
                   const std::string& bytes) {
  RedisModule_ReplyWithArray(ctx, 2);
  RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(cursor));
  return RedisModule_ReplyWithStringBuffer(ctx, bytes.data(), bytes.size());
}

int BbDump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3 && argc != 5) return RedisModule_WrongArity(ctx);
  FilterValue* value = OpenReady(ctx, argv[1]);
  if (value == nullptr) return REDISMODULE_OK;
  uint64_t cursor = 0;
  if (!ParseUnsigned(argv[2], &cursor)) {
    return RedisModule_ReplyWithError(ctx, "ERR bad cursor");
  }
  const FilterStack& stack = *value->stack;
  if (cursor == 0) {
    uint64_t layer = 0;
    if (argc == 5) {
      if (!EqualsIgnoreCase(argv[3], "LAYER") ||
          !ParseUnsigned(argv[4], &layer)) {
        return RedisModule_ReplyWithError(
            ctx, "ERR syntax: BB.DUMP key cursor [LAYER i]");
      }
    } else if (stack.layers().size() > 1) {
      return ReplyWithErrorText(
          ctx, absl::StrCat("ERR the filter has ", stack.layers().size(),
                            " layers: dump each as a file with BB.DUMP key 0 "
                            "LAYER i (i = 0 .. ",
                            stack.layers().size() - 1, ")"));
    }
    // A dump id in [1, 2^24) that differs from the key's previous one.
    uint64_t id = (RandomSeed() & ((uint64_t{1} << 24) - 1)) | 1;
    if (value->dump != nullptr && value->dump->id() == id) id ^= 2;
    absl::StatusOr<std::unique_ptr<FileDump>> dump =
        FileDump::Start(stack, layer, id);
    if (!dump.ok()) return ReplyWithStatus(ctx, dump.status());
    value->dump = *std::move(dump);
    value->dump_version = value->version;
  } else {
    FileDump* dump = value->dump.get();
    if (dump == nullptr || dump->id() != (cursor >> kChunkBits) ||
        dump->chunks() != (cursor & kChunkMask)) {
      return RedisModule_ReplyWithError(
          ctx,
          "ERR unknown or stale BB.DUMP cursor (another dump of this key "
          "started since): start again with cursor 0");
    }
    if (value->dump_version != value->version) {
      value->dump.reset();
      return RedisModule_ReplyWithError(
          ctx,
          "ERR the filter changed during BB.DUMP: start again with cursor 0");
    }
    if (dump->done()) {
      value->dump.reset();
      return ReplyDumpChunk(ctx, 0, "");
    }
  }
  FileDump* dump = value->dump.get();
  std::string bytes;
  dump->Next(stack, &bytes);
  return ReplyDumpChunk(ctx, (dump->id() << kChunkBits) | dump->chunks(),
                        bytes);
}

// ---------------------------------------------------------------------------
// BB.MEXISTS and BB.INFO

int BbMexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc < 3) return RedisModule_WrongArity(ctx);
  OpenedKey opened = OpenFilterKey(ctx, argv[1], REDISMODULE_READ);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  if (opened.value != nullptr && ReplyIfNotReady(ctx, *opened.value)) {
    return REDISMODULE_OK;
  }
  std::vector<char> results;
  ProbeItems(opened.value, argv, 2, argc, &results);
  for (char& c : results) c = c ? '1' : '0';
  return RedisModule_ReplyWithStringBuffer(ctx, results.data(), results.size());
}

void ReplyPair(RedisModuleCtx* ctx, const char* name, long long value) {
  RedisModule_ReplyWithSimpleString(ctx, name);
  RedisModule_ReplyWithLongLong(ctx, value);
}

void ReplyPair(RedisModuleCtx* ctx, const char* name, double value) {
  RedisModule_ReplyWithSimpleString(ctx, name);
  RedisModule_ReplyWithDouble(ctx, value);
}

// The last two pairs of every BB.INFO reply: the SIMD target the module's
// probes use (ActiveSimdTarget: the rule's, or BLOCKBLOOM_SIMD_TARGET's in
// the server's environment), and the release that answers
// (blockbloom::Version(); MODULE LIST shows it as an integer).
void ReplyModuleFields(RedisModuleCtx* ctx) {
  RedisModule_ReplyWithSimpleString(ctx, "SIMD target");
  RedisModule_ReplyWithSimpleString(ctx, ActiveSimdTarget());
  RedisModule_ReplyWithSimpleString(ctx, "Module version");
  const std::string_view version = Version();
  RedisModule_ReplyWithStringBuffer(ctx, version.data(), version.size());
}

int BbInfo(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  OpenedKey opened = OpenFilterKey(ctx, argv[1], REDISMODULE_READ);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  if (opened.value == nullptr) {
    return RedisModule_ReplyWithError(ctx, "ERR not found");
  }
  const FilterValue& value = *opened.value;
  if (!value.ready()) {
    RedisModule_ReplyWithArray(ctx, 10);
    RedisModule_ReplyWithSimpleString(ctx, "State");
    RedisModule_ReplyWithSimpleString(
        ctx, value.chunks != nullptr || value.file != nullptr ? "loading"
                                                              : "interrupted");
    uint64_t received = 0, total = 0;
    if (value.file != nullptr) {
      received = value.file->received();
      total = value.file->total();
    }
    ReplyPair(ctx, "Bytes received", static_cast<long long>(received));
    ReplyPair(ctx, "Bytes total", static_cast<long long>(total));
    ReplyModuleFields(ctx);
    return REDISMODULE_OK;
  }
  const FilterStack& stack = *value.stack;
  RedisModule_ReplyWithArray(ctx, 24);
  RedisModule_ReplyWithSimpleString(ctx, "State");
  RedisModule_ReplyWithSimpleString(ctx, "ready");
  ReplyPair(ctx, "Capacity", static_cast<long long>(stack.capacity()));
  ReplyPair(ctx, "Number of items inserted",
            static_cast<long long>(stack.num_insertions()));
  // The asked rate (a bound at every fill), and the stack's expected rate
  // as filled now.
  ReplyPair(ctx, "Error rate", stack.options().fp_rate);
  ReplyPair(ctx, "Expected false-positive rate", stack.EstimatedFpRate());
  RedisModule_ReplyWithSimpleString(ctx, "Expansion rate");
  if (stack.options().nonscaling) {
    RedisModule_ReplyWithNull(ctx);
  } else {
    RedisModule_ReplyWithLongLong(ctx, stack.options().expansion);
  }
  ReplyPair(ctx, "Bytes reserved",
            static_cast<long long>(stack.reserved_bytes()));
  ReplyPair(ctx, "Bytes allocated",
            static_cast<long long>(stack.allocated_bytes()));
  ReplyPair(ctx, "Bits per item",
            8.0 * static_cast<double>(stack.reserved_bytes()) /
                static_cast<double>(stack.capacity()));
  RedisModule_ReplyWithSimpleString(ctx, "Layers");
  RedisModule_ReplyWithArray(ctx, static_cast<long>(stack.layers().size()));
  for (const Layer& layer : stack.layers()) {
    RedisModule_ReplyWithArray(ctx, 14);
    ReplyPair(ctx, "Capacity", static_cast<long long>(layer.capacity()));
    ReplyPair(ctx, "Number of items inserted",
              static_cast<long long>(layer.count()));
    ReplyPair(ctx, "Error rate", layer.fp_rate());
    ReplyPair(ctx, "Blocks", static_cast<long long>(layer.shape().num_blocks));
    ReplyPair(ctx, "Bits per lane",
              static_cast<long long>(layer.shape().lane_bits));
    ReplyPair(ctx, "Hashes", static_cast<long long>(layer.shape().num_probes));
    absl::StatusOr<double> expected =
        EstimatedFpRate(layer.shape(), layer.count());
    ReplyPair(ctx, "Expected false-positive rate",
              expected.ok() ? *expected : 1.0);
  }
  ReplyModuleFields(ctx);
  return REDISMODULE_OK;
}

}  // namespace

int RegisterBbCommands(RedisModuleCtx* ctx) {
  static constexpr CommandSpec kCommands[] = {
      {"bb.reserve", BbReserve, "write deny-oom"},
      {"bb.load", BbLoad, "write deny-oom"},
      {"bb.dump", BbDump, "readonly"},
      {"bb.mexists", BbMexists, "readonly fast"},
      {"bb.info", BbInfo, "readonly fast"},
  };
  return RegisterCommands(ctx, kCommands);
}

}  // namespace blockbloom::redis_module
