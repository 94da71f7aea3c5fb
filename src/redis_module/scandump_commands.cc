// BF.SCANDUMP and BF.LOADCHUNK: RedisBloom's protocol for copying a filter
// out and back in a chunk per call, with chunks in blockbloom's own
// versioned, checksummed format (chunk_format.h). A damaged, foreign or
// misplaced chunk is refused, and the key answers nothing until every chunk
// has arrived: unlike RedisBloom, a partial or damaged load never answers
// "absent" for a key it holds.
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/filter_stack/chunk_format.h"
#include "src/redis_module/bf_commands.h"
#include "src/redis_module/command_util.h"

namespace blockbloom::redis_module {
namespace {

int BfScanDump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  OpenedKey opened = OpenFilterKey(ctx, argv[1], REDISMODULE_READ);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  if (opened.value == nullptr) {
    return RedisModule_ReplyWithError(ctx, "ERR not found");
  }
  long long iter = 0;
  if (RedisModule_StringToLongLong(argv[2], &iter) != REDISMODULE_OK ||
      iter < 0) {
    return RedisModule_ReplyWithError(ctx,
                                      "ERR Second argument must be numeric");
  }
  if (ReplyIfNotReady(ctx, *opened.value)) return REDISMODULE_OK;
  absl::StatusOr<DumpChunk> chunk =
      ScanDump(*opened.value->stack, static_cast<uint64_t>(iter),
               DumpNonce(*opened.value));
  if (!chunk.ok()) return ReplyWithStatus(ctx, chunk.status());
  RedisModule_ReplyWithArray(ctx, 2);
  RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(chunk->next_iter));
  return RedisModule_ReplyWithStringBuffer(ctx, chunk->bytes.data(),
                                           chunk->bytes.size());
}

int BfLoadChunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 4) return RedisModule_WrongArity(ctx);
  long long iter = 0;
  if (RedisModule_StringToLongLong(argv[2], &iter) != REDISMODULE_OK ||
      iter < 0) {
    return RedisModule_ReplyWithError(ctx,
                                      "ERR Second argument must be numeric");
  }
  OpenedKey opened =
      OpenFilterKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
  if (opened.wrong_type) {
    return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
  }
  const std::string_view data = View(argv[3]);
  FilterValue* value = opened.value;
  if (value == nullptr) {
    if (!LooksLikeHeaderChunk(data)) {
      return RedisModule_ReplyWithError(
          ctx,
          "ERR not found (load the dump's first chunk, its header, first)");
    }
    absl::StatusOr<ChunkLoader> loader = ChunkLoader::Start(
        static_cast<uint64_t>(iter), data, g_defaults.max_bytes);
    if (!loader.ok()) return ReplyWithStatus(ctx, loader.status());
    value = new FilterValue();
    value->chunks = std::make_unique<ChunkLoader>(*std::move(loader));
    if (value->chunks->complete()) {
      value->stack.emplace(std::move(*value->chunks).Finish());
      value->chunks.reset();
    }
    RedisModule_ModuleTypeSetValue(opened.key, g_filter_type, value);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
  }
  if (value->chunks == nullptr) {
    return RedisModule_ReplyWithError(
        ctx,
        value->ready()
            ? "ERR item exists (the key already holds a complete filter; DEL "
              "it to load another)"
            : "ERR the key is not being loaded with BF.LOADCHUNK");
  }
  if (absl::Status s = value->chunks->Apply(static_cast<uint64_t>(iter), data);
      !s.ok()) {
    return ReplyWithStatus(ctx, s);
  }
  value->Touch();
  if (value->chunks->complete()) {
    value->stack.emplace(std::move(*value->chunks).Finish());
    value->chunks.reset();
  }
  RedisModule_ReplicateVerbatim(ctx);
  return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

}  // namespace

int RegisterScanDumpCommands(RedisModuleCtx* ctx) {
  static constexpr CommandSpec kCommands[] = {
      {"bf.scandump", BfScanDump, "readonly"},
      {"bf.loadchunk", BfLoadChunk, "write deny-oom"},
  };
  return RegisterCommands(ctx, kCommands);
}

}  // namespace blockbloom::redis_module
