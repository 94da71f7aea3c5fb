// The data type's callbacks. The RDB encoding is rdb_codec.h's (versioned,
// checksummed), read and written through RedisModuleIO; the AOF rewrite
// emits the value as BF.LOADCHUNK commands (chunk_format.h), which replay
// into the same filter.
#include "src/redis_module/type_methods.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/filter_stack/background_free.h"
#include "src/filter_stack/chunk_format.h"
#include "src/filter_stack/rdb_codec.h"
#include "src/filter_stack/value_codec.h"
#include "src/redis_module/command_util.h"

namespace blockbloom::redis_module {
namespace {

// The type's name (exactly 9 characters) and its encoding version: the
// version of rdb_codec.h's encoding, which rdb_load is given back.
constexpr char kTypeName[] = "bb-filter";
static_assert(sizeof(kTypeName) == 10);

class IoWriter final : public RdbWriter {
 public:
  explicit IoWriter(RedisModuleIO* io) : io_(io) {}
  void Unsigned(uint64_t value) override {
    RedisModule_SaveUnsigned(io_, value);
  }
  void Double(double value) override { RedisModule_SaveDouble(io_, value); }
  void Bytes(std::string_view bytes) override {
    RedisModule_SaveStringBuffer(io_, bytes.data(), bytes.size());
  }

 private:
  RedisModuleIO* io_;
};

class IoReader final : public RdbReader {
 public:
  explicit IoReader(RedisModuleIO* io) : io_(io) {}
  absl::StatusOr<uint64_t> Unsigned() override {
    const uint64_t value = RedisModule_LoadUnsigned(io_);
    if (RedisModule_IsIOError(io_)) return Truncated();
    return value;
  }
  absl::StatusOr<double> Double() override {
    const double value = RedisModule_LoadDouble(io_);
    if (RedisModule_IsIOError(io_)) return Truncated();
    return value;
  }
  absl::Status Bytes(Placer place) override {
    size_t size = 0;
    char* buffer = RedisModule_LoadStringBuffer(io_, &size);
    if (RedisModule_IsIOError(io_)) {
      if (buffer != nullptr) RedisModule_Free(buffer);
      return Truncated();
    }
    absl::StatusOr<uint8_t*> dst = place(size);
    if (dst.ok() && size > 0) std::memcpy(*dst, buffer, size);
    RedisModule_Free(buffer);
    return dst.status();
  }

 private:
  static absl::Status Truncated() {
    return absl::DataLossError("the RDB payload is truncated or damaged");
  }
  RedisModuleIO* io_;
};

// BB.LOAD calls that recreate a load in progress: the bytes received so far
// in parts, with the options on the first call.
void EmitFileLoad(RedisModuleIO* aof, RedisModuleString* key,
                  const FileLoad& load) {
  const std::string_view bytes = load.bytes();
  const LoadOptions& options = load.options();
  std::vector<std::string> extra;
  if (options.fp_rate.has_value()) {
    extra.push_back("ERROR");
    extra.push_back(absl::StrFormat("%.17g", *options.fp_rate));
  }
  if (options.capacity.has_value()) {
    extra.push_back("CAPACITY");
    extra.push_back(absl::StrCat(*options.capacity));
  }
  if (options.nonscaling) {
    extra.push_back("NONSCALING");
  } else {
    extra.push_back("EXPANSION");
    extra.push_back(absl::StrCat(options.expansion));
  }
  uint64_t offset = 0;
  do {
    const std::string_view part = bytes.substr(offset, kFilePartBytes);
    std::vector<RedisModuleString*> args = {
        RedisModule_CreateStringPrintf(nullptr, "%llu",
                                       static_cast<unsigned long long>(offset)),
        RedisModule_CreateStringPrintf(
            nullptr, "%llu", static_cast<unsigned long long>(load.total())),
        RedisModule_CreateString(nullptr, part.data(), part.size())};
    if (offset == 0) {
      for (const std::string& arg : extra) {
        args.push_back(
            RedisModule_CreateString(nullptr, arg.data(), arg.size()));
      }
    }
    RedisModule_EmitAOF(aof, "BB.LOAD", "sv", key, args.data(), args.size());
    for (RedisModuleString* arg : args) RedisModule_FreeString(nullptr, arg);
    offset += part.size();
  } while (offset < bytes.size());
}

void* RdbLoad(RedisModuleIO* io, int encver) {
  IoReader reader(io);
  absl::StatusOr<std::unique_ptr<FilterValue>> value =
      LoadValue(reader, encver, g_defaults.max_bytes);
  if (!value.ok()) {
    const std::string message(value.status().message());
    RedisModule_LogIOError(io, "warning",
                           "blockbloom: cannot load a bb-filter value: %s",
                           message.c_str());
    return nullptr;
  }
  return value->release();
}

void RdbSave(RedisModuleIO* io, void* v) {
  IoWriter writer(io);
  SaveValue(*static_cast<const FilterValue*>(v), writer);
}

void AofRewrite(RedisModuleIO* aof, RedisModuleString* key, void* v) {
  const auto* value = static_cast<const FilterValue*>(v);
  if (value->chunks != nullptr) {  // the LOADCHUNK calls so far
    value->chunks->Replay([&](uint64_t iter, std::string_view chunk) {
      RedisModule_EmitAOF(aof, "BF.LOADCHUNK", "slb", key,
                          static_cast<long long>(iter), chunk.data(),
                          chunk.size());
    });
    return;
  }
  if (value->file != nullptr) {  // the BB.LOAD calls so far
    EmitFileLoad(aof, key, *value->file);
    return;
  }
  if (!value->ready()) return;  // an interrupted load: nothing to replay
  uint64_t iter = 0;
  for (;;) {
    absl::StatusOr<DumpChunk> chunk =
        ScanDump(*value->stack, iter, DumpNonce(*value));
    if (!chunk.ok()) {
      const std::string message(chunk.status().message());
      RedisModule_LogIOError(aof, "warning",
                             "blockbloom: cannot rewrite a bb-filter: %s",
                             message.c_str());
      return;
    }
    if (chunk->next_iter == 0) return;
    RedisModule_EmitAOF(aof, "BF.LOADCHUNK", "slb", key,
                        static_cast<long long>(chunk->next_iter),
                        chunk->bytes.data(), chunk->bytes.size());
    iter = chunk->next_iter;
  }
}

size_t MemUsage(const void* v) {
  const auto* value = static_cast<const FilterValue*>(v);
  size_t bytes = sizeof(FilterValue);
  if (value->ready()) {
    for (const Layer& layer : value->stack->layers()) {
      bytes += sizeof(Layer) + layer.table().num_pieces() * sizeof(void*);
    }
    bytes += value->stack->allocated_bytes();
  }
  if (value->file != nullptr) bytes += value->file->allocated();
  return bytes;
}

void Digest(RedisModuleDigest* md, void* v) {
  const auto* value = static_cast<const FilterValue*>(v);
  if (!value->ready()) {
    RedisModule_DigestAddLongLong(md, 0);
    RedisModule_DigestEndSequence(md);
    return;
  }
  const FilterStack& stack = *value->stack;
  const StackOptions& options = stack.options();
  RedisModule_DigestAddLongLong(md, static_cast<long long>(options.seed));
  RedisModule_DigestAddLongLong(md, static_cast<long long>(options.capacity));
  RedisModule_DigestAddLongLong(md, options.expansion);
  RedisModule_DigestAddLongLong(md, options.nonscaling);
  RedisModule_DigestEndSequence(md);
  // Bits as bytes, a never-written piece as its zeros: the digest depends
  // on what the filter answers, not on which pieces happen to be allocated.
  static const std::vector<char> zeros(PieceTable::kTargetPieceBytes, 0);
  for (const Layer& layer : stack.layers()) {
    RedisModule_DigestAddLongLong(md, static_cast<long long>(layer.count()));
    RedisModule_DigestAddLongLong(
        md, static_cast<long long>(layer.shape().num_blocks));
    RedisModule_DigestAddLongLong(md, layer.shape().num_probes);
    const PieceTable& table = layer.table();
    for (size_t i = 0; i < table.num_pieces(); ++i) {
      const uint8_t* piece = table.Piece(i);
      const size_t size = table.PieceSize(i);
      const char* bytes = piece != nullptr
                              ? reinterpret_cast<const char*>(piece)
                              : zeros.data();
      RedisModule_DigestAddStringBuffer(md, bytes, size);
    }
    RedisModule_DigestEndSequence(md);
  }
}

void Free(void* v) { FreeValue(static_cast<FilterValue*>(v)); }

// Redis frees a value in its background thread (UNLINK, FLUSHALL ASYNC,
// lazyfree-lazy-* settings) when this is above its threshold (64): one unit
// per allocated piece, so a big filter never stops the main thread to free.
size_t FreeEffort(RedisModuleString* /*key*/, const void* v) {
  const auto* value = static_cast<const FilterValue*>(v);
  return 1 + (value->ready() ? value->stack->allocated_pieces() : 0);
}

// COPY shares the pieces (copy-on-write): O(pieces), no bits copied. A key
// being loaded cannot be copied (COPY then fails).
void* Copy(RedisModuleString* /*from*/, RedisModuleString* /*to*/,
           const void* v) {
  const auto* value = static_cast<const FilterValue*>(v);
  if (!value->ready()) return nullptr;
  auto* copy = new FilterValue();
  copy->stack.emplace(*value->stack);
  return copy;
}

}  // namespace

int RegisterFilterType(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods = {};
  methods.version = REDISMODULE_TYPE_METHOD_VERSION;
  methods.rdb_load = RdbLoad;
  methods.rdb_save = RdbSave;
  methods.aof_rewrite = AofRewrite;
  methods.mem_usage = MemUsage;
  methods.digest = Digest;
  methods.free = Free;
  methods.free_effort = FreeEffort;
  methods.copy = Copy;
  g_filter_type =
      RedisModule_CreateDataType(ctx, kTypeName, kRdbEncodingVersion, &methods);
  return g_filter_type == nullptr ? REDISMODULE_ERR : REDISMODULE_OK;
}

}  // namespace blockbloom::redis_module
