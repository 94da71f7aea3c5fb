#include "src/filter_stack/value_codec.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace blockbloom::redis_module {
namespace {

// The next string of the value into a std::string of at most max_bytes.
absl::StatusOr<std::string> ReadString(RdbReader& reader, uint64_t max_bytes,
                                       const char* what) {
  std::string out;
  absl::Status s = reader.Bytes([&](size_t size) -> absl::StatusOr<uint8_t*> {
    if (size > max_bytes) {
      return absl::DataLossError(
          absl::StrCat("a saved ", what, " of ", size,
                       " bytes is larger than one can be (", max_bytes, ")"));
    }
    out.resize(size);
    return reinterpret_cast<uint8_t*>(out.data());
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::unique_ptr<ChunkLoader>> LoadChunkLoad(RdbReader& reader,
                                                           uint64_t max_bytes) {
  absl::StatusOr<uint64_t> calls = reader.Unsigned();
  if (!calls.ok()) return calls.status();
  if (*calls == 0) {
    return absl::DataLossError("a saved BF.LOADCHUNK load has no header");
  }
  std::unique_ptr<ChunkLoader> loader;
  for (uint64_t i = 0; i < *calls; ++i) {
    absl::StatusOr<uint64_t> iter = reader.Unsigned();
    if (!iter.ok()) return iter.status();
    // A chunk is its header and at most kMaxChunkBytes of bits; the header
    // chunk is smaller.
    absl::StatusOr<std::string> chunk =
        ReadString(reader, kMaxChunkBytes + 4096, "LOADCHUNK chunk");
    if (!chunk.ok()) return chunk.status();
    if (loader == nullptr) {
      absl::StatusOr<ChunkLoader> started =
          ChunkLoader::Start(*iter, *chunk, max_bytes);
      if (!started.ok()) return started.status();
      loader = std::make_unique<ChunkLoader>(*std::move(started));
    } else if (absl::Status s = loader->Apply(*iter, *chunk); !s.ok()) {
      return s;
    }
  }
  return loader;
}

absl::StatusOr<std::shared_ptr<FileLoad>> LoadFileLoad(RdbReader& reader,
                                                       uint64_t max_bytes) {
  // total, has error rate, has capacity, capacity, expansion, nonscaling,
  // parts; then the error rate (a double).
  uint64_t fields[7];
  for (uint64_t& field : fields) {
    absl::StatusOr<uint64_t> v = reader.Unsigned();
    if (!v.ok()) return v.status();
    field = *v;
  }
  absl::StatusOr<double> fp_rate = reader.Double();
  if (!fp_rate.ok()) return fp_rate.status();
  LoadOptions options;
  if (fields[1] != 0) options.fp_rate = *fp_rate;
  if (fields[2] != 0) options.capacity = fields[3];
  options.expansion = static_cast<uint32_t>(
      std::min<uint64_t>(fields[4], FilterStack::kMaxExpansion + 1));
  options.nonscaling = fields[5] != 0;
  absl::StatusOr<std::shared_ptr<FileLoad>> load =
      FileLoad::Start(fields[0], options, max_bytes);
  if (!load.ok()) return load.status();
  for (uint64_t part = 0; part < fields[6]; ++part) {
    absl::StatusOr<std::string> bytes =
        ReadString(reader, kFilePartBytes, "BB.LOAD part");
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = (*load)->Append((*load)->received(), *bytes);
        !s.ok()) {
      return s;
    }
  }
  return load;
}

void SaveFileLoad(const FileLoad& load, RdbWriter& writer) {
  const LoadOptions& options = load.options();
  const std::string_view bytes = load.bytes();
  const uint64_t parts = (bytes.size() + kFilePartBytes - 1) / kFilePartBytes;
  writer.Unsigned(load.total());
  writer.Unsigned(options.fp_rate.has_value());
  writer.Unsigned(options.capacity.has_value());
  writer.Unsigned(options.capacity.value_or(0));
  writer.Unsigned(options.expansion);
  writer.Unsigned(options.nonscaling);
  writer.Unsigned(parts);
  writer.Double(options.fp_rate.value_or(0));
  for (uint64_t part = 0; part < parts; ++part) {
    writer.Bytes(bytes.substr(part * kFilePartBytes, kFilePartBytes));
  }
}

}  // namespace

void SaveValue(const FilterValue& value, RdbWriter& writer) {
  if (value.chunks != nullptr) {
    writer.Unsigned(kSavedChunkLoad);
    writer.Unsigned(1 + value.chunks->received_chunks());  // with the header
    value.chunks->Replay([&](uint64_t iter, std::string_view chunk) {
      writer.Unsigned(iter);
      writer.Bytes(chunk);
    });
    return;
  }
  if (value.file != nullptr) {
    writer.Unsigned(kSavedFileLoad);
    SaveFileLoad(*value.file, writer);
    return;
  }
  if (!value.ready()) {
    writer.Unsigned(kSavedInterrupted);
    return;
  }
  writer.Unsigned(kSavedStack);
  SaveStack(*value.stack, writer);
}

absl::StatusOr<std::unique_ptr<FilterValue>> LoadValue(RdbReader& reader,
                                                       int encver,
                                                       uint64_t max_bytes) {
  if (encver > kRdbEncodingVersion) {
    return absl::UnimplementedError(absl::StrCat(
        "bb-filter encoding version ", encver, " is newer than this module ",
        "reads (", kRdbEncodingVersion, "): upgrade the module"));
  }
  absl::StatusOr<uint64_t> state = reader.Unsigned();
  if (!state.ok()) return state.status();
  auto value = std::make_unique<FilterValue>();
  switch (*state) {
    case kSavedInterrupted:
      return value;
    case kSavedStack: {
      absl::StatusOr<FilterStack> stack = LoadStack(reader, encver, max_bytes);
      if (!stack.ok()) return stack.status();
      value->stack.emplace(*std::move(stack));
      return value;
    }
    case kSavedChunkLoad: {
      absl::StatusOr<std::unique_ptr<ChunkLoader>> loader =
          LoadChunkLoad(reader, max_bytes);
      if (!loader.ok()) return loader.status();
      if ((*loader)->complete()) {
        value->stack.emplace(std::move(**loader).Finish());
      } else {
        value->chunks = *std::move(loader);
      }
      return value;
    }
    case kSavedFileLoad: {
      absl::StatusOr<std::shared_ptr<FileLoad>> load =
          LoadFileLoad(reader, max_bytes);
      if (!load.ok()) return load.status();
      if (!(*load)->complete()) {
        value->file = *std::move(load);
        return value;
      }
      // Saved while it was being verified (in a thread of the server that
      // saved it): verify it here, as a replica does with the last chunk of
      // a replicated BB.LOAD. If it does not verify, the saving server
      // removes the key and replicates the removal; here it stays
      // interrupted until then.
      absl::StatusOr<FilterStack> stack = (*load)->Finish();
      if (stack.ok()) value->stack.emplace(*std::move(stack));
      return value;
    }
    default:
      return absl::DataLossError(
          absl::StrCat("bad bb-filter value (state ", *state, ")"));
  }
}

}  // namespace blockbloom::redis_module
