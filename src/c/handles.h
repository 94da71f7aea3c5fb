// What the C API's files share (src/c): the handles' definitions (the opaque
// types of blockbloom/c.h around the C++ types) and the helpers every call
// uses: errors into *errptr, exceptions stopped at the boundary, shape and
// option conversions, malloc()ed copies. Not part of the API.
#ifndef BLOCKBLOOM_SRC_C_HANDLES_H_
#define BLOCKBLOOM_SRC_C_HANDLES_H_

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/c.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/sizing.h"

namespace blockbloom::c_api {

// 64-byte-aligned storage for the bytes blockbloom_filter_open copies.
struct AlignedDelete {
  void operator()(uint8_t* p) const {
    ::operator delete[](p, std::align_val_t(64));
  }
};
using AlignedBytes = std::unique_ptr<uint8_t[], AlignedDelete>;

}  // namespace blockbloom::c_api

struct blockbloom_options_t {
  blockbloom::FilterOptions rep;
};
struct blockbloom_builder_t {
  blockbloom::FilterBuilder rep;
  // An add ran out of memory: the builder's count may include a key it
  // could not store, so the next finish fails instead of building a filter
  // without it.
  bool failed = false;
};
struct blockbloom_filter_t {
  blockbloom::Filter rep;
  blockbloom::c_api::AlignedBytes
      copy;  // the bytes rep probes, when opened with a copy
};
struct blockbloom_writeoptions_t {
  int encoding = blockbloom_encoding_auto;
  int compression = blockbloom_compression_none;
  int zstd_level = blockbloom::WriteOptions().zstd_level;
};
struct blockbloom_readoptions_t {
  blockbloom::ReadOptions rep;
};
struct blockbloom_bloomfilter_t {
  blockbloom::BloomFilter rep;
};
struct blockbloom_bloomoptions_t {
  blockbloom::BloomFilterOptions rep;
};

namespace blockbloom::c_api {

// LevelDB's SaveError: the previous message is freed, the new one copied
// (malloc, so that blockbloom_free and free both release it). Returns
// whether `status` is an error. If even the copy cannot be allocated,
// *errptr is NULL: the functions that return a handle return NULL then too.
inline bool SaveError(char** errptr, const absl::Status& status) {
  if (status.ok()) return false;
  std::free(*errptr);
  const std::string text = status.ToString();
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
  *errptr = copy;
  return true;
}

inline absl::Status CurrentException() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory");
  } catch (const std::exception& e) {
    return absl::InternalError(e.what());
  } catch (...) {
    return absl::InternalError("unknown C++ exception");
  }
}

// Runs fn(), turning an exception into *errptr. Returns fn()'s value, or
// `failed` if it threw.
template <typename T, typename Fn>
T Guard(char** errptr, T failed, Fn fn) {
  try {
    return fn();
  } catch (...) {
    SaveError(errptr, CurrentException());
    return failed;
  }
}

inline std::string_view Key(const char* key, size_t len) {
  return len == 0 ? std::string_view() : std::string_view(key, len);
}

inline blockbloom::FilterShape ToShape(const blockbloom_shape_t& s) {
  blockbloom::FilterShape shape;
  shape.num_blocks = s.num_blocks;
  shape.num_probes = s.num_probes;
  shape.lane_bits = s.lane_bits;
  return shape;
}

inline blockbloom_shape_t FromShape(const blockbloom::FilterShape& s) {
  blockbloom_shape_t shape;
  shape.num_blocks = s.num_blocks;
  shape.num_probes = s.num_probes;
  shape.lane_bits = s.lane_bits;
  return shape;
}

inline absl::StatusOr<blockbloom::WriteOptions> ToWriteOptions(
    const blockbloom_writeoptions_t* options) {
  blockbloom::WriteOptions write;
  if (options == nullptr) return write;
  if (options->encoding < blockbloom_encoding_auto ||
      options->encoding > blockbloom_encoding_ribbon) {
    return absl::InvalidArgumentError("unknown encoding");
  }
  if (options->compression != blockbloom_compression_none &&
      options->compression != blockbloom_compression_zstd) {
    return absl::InvalidArgumentError("unknown compression");
  }
  write.encoding = static_cast<blockbloom::Encoding>(options->encoding);
  write.compression =
      static_cast<blockbloom::Compression>(options->compression);
  write.zstd_level = options->zstd_level;
  return write;
}

inline blockbloom::ReadOptions ToReadOptions(
    const blockbloom_readoptions_t* o) {
  return o == nullptr ? blockbloom::ReadOptions() : o->rep;
}

inline blockbloom::BloomFilterOptions ToBloomOptions(
    const blockbloom_bloomoptions_t* o) {
  return o == nullptr ? blockbloom::BloomFilterOptions() : o->rep;
}

// A malloc()ed copy of `bytes` (never NULL: at least one byte is
// allocated), or nullptr with RESOURCE_EXHAUSTED.
inline char* MallocCopy(std::string_view bytes, size_t* len, char** errptr) {
  char* buffer =
      static_cast<char*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  if (buffer == nullptr) {
    SaveError(errptr, absl::ResourceExhaustedError("out of memory"));
    return nullptr;
  }
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  *len = bytes.size();
  return buffer;
}

inline blockbloom_filter_t* NewFilter(blockbloom::Filter filter,
                                      AlignedBytes copy) {
  return new blockbloom_filter_t{std::move(filter), std::move(copy)};
}

inline blockbloom_filter_t* Open(const void* bytes, size_t len,
                                 const blockbloom_readoptions_t* options,
                                 bool copy, char** errptr) {
  return Guard(errptr, static_cast<blockbloom_filter_t*>(nullptr),
               [&]() -> blockbloom_filter_t* {
                 AlignedBytes owned;
                 const uint8_t* data = static_cast<const uint8_t*>(bytes);
                 if (copy && len > 0) {
                   owned.reset(new (std::align_val_t(64)) uint8_t[len]);
                   std::memcpy(owned.get(), bytes, len);
                   data = owned.get();
                 }
                 absl::StatusOr<blockbloom::Filter> filter =
                     blockbloom::OpenFilter(
                         absl::MakeConstSpan(len == 0 ? nullptr : data, len),
                         ToReadOptions(options));
                 if (SaveError(errptr, filter.status())) return nullptr;
                 return NewFilter(*std::move(filter), std::move(owned));
               });
}

// The batch probes take spans of bool; C gets unsigned char. Chunks of this
// many keys go through a stack buffer (the batch kernels prefetch 32 ahead).
inline constexpr size_t kBatchChunk = 256;

template <typename Probe>
blockbloom_bloomfilter_t* NewBloomFilter(char** errptr, Probe create) {
  return Guard(errptr, static_cast<blockbloom_bloomfilter_t*>(nullptr),
               [&]() -> blockbloom_bloomfilter_t* {
                 absl::StatusOr<blockbloom::BloomFilter> filter = create();
                 if (SaveError(errptr, filter.status())) return nullptr;
                 return new blockbloom_bloomfilter_t{*std::move(filter)};
               });
}

}  // namespace blockbloom::c_api

#endif  // BLOCKBLOOM_SRC_C_HANDLES_H_
