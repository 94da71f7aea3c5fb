// blockbloom's C API (blockbloom/c.h): opaque handles around the C++ types,
// errors as malloc()ed strings, no exception across the boundary.
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

namespace {

// 64-byte-aligned storage for the bytes blockbloom_filter_open copies.
struct AlignedDelete {
  void operator()(uint8_t* p) const {
    ::operator delete[](p, std::align_val_t(64));
  }
};
using AlignedBytes = std::unique_ptr<uint8_t[], AlignedDelete>;

}  // namespace

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
  AlignedBytes copy;  // the bytes rep probes, when opened with a copy
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

namespace {

// LevelDB's SaveError: the previous message is freed, the new one copied
// (malloc, so that blockbloom_free and free both release it). Returns
// whether `status` is an error. If even the copy cannot be allocated,
// *errptr is NULL: the functions that return a handle return NULL then too.
bool SaveError(char** errptr, const absl::Status& status) {
  if (status.ok()) return false;
  std::free(*errptr);
  const std::string text = status.ToString();
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
  *errptr = copy;
  return true;
}

absl::Status CurrentException() {
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

std::string_view Key(const char* key, size_t len) {
  return len == 0 ? std::string_view() : std::string_view(key, len);
}

blockbloom::FilterShape ToShape(const blockbloom_shape_t& s) {
  blockbloom::FilterShape shape;
  shape.num_blocks = s.num_blocks;
  shape.num_probes = s.num_probes;
  shape.lane_bits = s.lane_bits;
  return shape;
}

blockbloom_shape_t FromShape(const blockbloom::FilterShape& s) {
  blockbloom_shape_t shape;
  shape.num_blocks = s.num_blocks;
  shape.num_probes = s.num_probes;
  shape.lane_bits = s.lane_bits;
  return shape;
}

absl::StatusOr<blockbloom::WriteOptions> ToWriteOptions(
    const blockbloom_writeoptions_t* options) {
  blockbloom::WriteOptions write;
  if (options == nullptr) return write;
  if (options->encoding < blockbloom_encoding_auto ||
      options->encoding > blockbloom_encoding_in_place) {
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

blockbloom::ReadOptions ToReadOptions(const blockbloom_readoptions_t* o) {
  return o == nullptr ? blockbloom::ReadOptions() : o->rep;
}

blockbloom::BloomFilterOptions ToBloomOptions(
    const blockbloom_bloomoptions_t* o) {
  return o == nullptr ? blockbloom::BloomFilterOptions() : o->rep;
}

// A malloc()ed copy of `bytes` (never NULL: at least one byte is
// allocated), or nullptr with RESOURCE_EXHAUSTED.
char* MallocCopy(std::string_view bytes, size_t* len, char** errptr) {
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

blockbloom_filter_t* NewFilter(blockbloom::Filter filter, AlignedBytes copy) {
  return new blockbloom_filter_t{std::move(filter), std::move(copy)};
}

blockbloom_filter_t* Open(const void* bytes, size_t len,
                          const blockbloom_readoptions_t* options, bool copy,
                          char** errptr) {
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
constexpr size_t kBatchChunk = 256;

template <typename Probe>
blockbloom_bloomfilter_t* NewBloomFilter(char** errptr, Probe create) {
  return Guard(errptr, static_cast<blockbloom_bloomfilter_t*>(nullptr),
               [&]() -> blockbloom_bloomfilter_t* {
                 absl::StatusOr<blockbloom::BloomFilter> filter = create();
                 if (SaveError(errptr, filter.status())) return nullptr;
                 return new blockbloom_bloomfilter_t{*std::move(filter)};
               });
}

}  // namespace

extern "C" {

void blockbloom_free(void* ptr) { std::free(ptr); }

// --- Hashing ------------------------------------------------------------

uint64_t blockbloom_hash_key(const char* key, size_t len, uint64_t seed) {
  return blockbloom::HashKey(Key(key, len), seed);
}

const char* blockbloom_active_simd_target(void) {
  return blockbloom::ActiveSimdTarget();
}

// --- Sizing -------------------------------------------------------------

void blockbloom_shape_for_bits_per_key(uint64_t num_keys, double bits_per_key,
                                       unsigned char compact_small_filters,
                                       blockbloom_shape_t* shape,
                                       char** errptr) {
  absl::StatusOr<blockbloom::FilterShape> s = blockbloom::ShapeForBitsPerKey(
      num_keys, bits_per_key, compact_small_filters != 0);
  if (!SaveError(errptr, s.status())) *shape = FromShape(*s);
}

void blockbloom_shape_for_fp_rate(uint64_t num_keys, double fp_rate,
                                  unsigned char compact_small_filters,
                                  blockbloom_shape_t* shape, char** errptr) {
  absl::StatusOr<blockbloom::FilterShape> s =
      blockbloom::ShapeForFpRate(num_keys, fp_rate, compact_small_filters != 0);
  if (!SaveError(errptr, s.status())) *shape = FromShape(*s);
}

int blockbloom_optimal_num_probes(uint64_t num_keys, uint64_t num_blocks,
                                  int lane_bits, char** errptr) {
  absl::StatusOr<int> k =
      blockbloom::OptimalNumProbes(num_keys, num_blocks, lane_bits);
  return SaveError(errptr, k.status()) ? 0 : *k;
}

double blockbloom_estimated_fp_rate(const blockbloom_shape_t* shape,
                                    uint64_t num_keys, char** errptr) {
  absl::StatusOr<double> rate =
      blockbloom::EstimatedFpRate(ToShape(*shape), num_keys);
  return SaveError(errptr, rate.status()) ? 1.0 : *rate;
}

unsigned char blockbloom_shape_validate(const blockbloom_shape_t* shape,
                                        char** errptr) {
  return SaveError(errptr, blockbloom::ValidateShape(ToShape(*shape))) ? 0 : 1;
}

uint64_t blockbloom_shape_size_bytes(const blockbloom_shape_t* shape) {
  return ToShape(*shape).size_bytes();
}

// --- Builder options ----------------------------------------------------

blockbloom_options_t* blockbloom_options_create(void) {
  return new (std::nothrow) blockbloom_options_t;
}
void blockbloom_options_destroy(blockbloom_options_t* options) {
  delete options;
}
void blockbloom_options_set_bits_per_key(blockbloom_options_t* o, double v) {
  o->rep.bits_per_key = v;
}
void blockbloom_options_set_fp_rate(blockbloom_options_t* o, double v) {
  o->rep.fp_rate = v;
}
void blockbloom_options_set_shape(blockbloom_options_t* o,
                                  const blockbloom_shape_t* shape) {
  o->rep.shape = shape == nullptr ? blockbloom::FilterShape() : ToShape(*shape);
}
void blockbloom_options_set_seed(blockbloom_options_t* o, uint64_t seed) {
  o->rep.seed = seed;
}
void blockbloom_options_set_compact_small_filters(blockbloom_options_t* o,
                                                  unsigned char v) {
  o->rep.compact_small_filters = v != 0;
}
void blockbloom_options_set_exact_size(blockbloom_options_t* o,
                                       unsigned char v) {
  o->rep.exact_size = v != 0;
}
void blockbloom_options_set_packed(blockbloom_options_t* o, unsigned char v) {
  blockbloom_options_set_exact_size(o, v);
}
void blockbloom_options_set_fewer_false_positives(blockbloom_options_t* o,
                                                  unsigned char v) {
  o->rep.fewer_false_positives = v != 0;
}

// --- Builder ------------------------------------------------------------

blockbloom_builder_t* blockbloom_builder_create(
    const blockbloom_options_t* options, char** errptr) {
  return Guard(errptr, static_cast<blockbloom_builder_t*>(nullptr),
               [&]() -> blockbloom_builder_t* {
                 absl::StatusOr<blockbloom::FilterBuilder> builder =
                     blockbloom::FilterBuilder::Create(
                         options == nullptr ? blockbloom::FilterOptions()
                                            : options->rep);
                 if (SaveError(errptr, builder.status())) return nullptr;
                 return new blockbloom_builder_t{*std::move(builder)};
               });
}

void blockbloom_builder_destroy(blockbloom_builder_t* builder) {
  delete builder;
}

unsigned char blockbloom_builder_add(blockbloom_builder_t* builder,
                                     const char* key, size_t len) {
  try {
    builder->rep.Add(Key(key, len));
    return 1;
  } catch (...) {
    builder->failed = true;
    return 0;
  }
}

unsigned char blockbloom_builder_add_hash(blockbloom_builder_t* builder,
                                          uint64_t hash) {
  try {
    builder->rep.AddHash(hash);
    return 1;
  } catch (...) {
    builder->failed = true;
    return 0;
  }
}

uint64_t blockbloom_builder_num_keys(const blockbloom_builder_t* builder) {
  return builder->rep.num_keys();
}

blockbloom_filter_t* blockbloom_builder_finish(blockbloom_builder_t* builder,
                                               char** errptr) {
  return Guard(errptr, static_cast<blockbloom_filter_t*>(nullptr),
               [&]() -> blockbloom_filter_t* {
                 if (builder->failed) {
                   // Reset to empty (Finish does) and report the loss.
                   builder->failed = false;
                   builder->rep.Finish().IgnoreError();
                   SaveError(errptr, absl::ResourceExhaustedError(
                                         "an add ran out of memory; the "
                                         "builder was reset to empty"));
                   return nullptr;
                 }
                 absl::StatusOr<blockbloom::Filter> filter =
                     builder->rep.Finish();
                 if (SaveError(errptr, filter.status())) return nullptr;
                 return NewFilter(*std::move(filter), nullptr);
               });
}

// --- Filter -------------------------------------------------------------

void blockbloom_filter_destroy(blockbloom_filter_t* filter) { delete filter; }

unsigned char blockbloom_filter_may_contain(const blockbloom_filter_t* filter,
                                            const char* key, size_t len) {
  return filter->rep.MayContain(Key(key, len));
}

unsigned char blockbloom_filter_may_contain_hash(
    const blockbloom_filter_t* filter, uint64_t hash) {
  return filter->rep.MayContainHash(hash);
}

void blockbloom_filter_may_contain_batch(const blockbloom_filter_t* filter,
                                         size_t n, const char* const* keys,
                                         const size_t* lengths,
                                         unsigned char* results) {
  std::string_view views[kBatchChunk];
  bool answers[kBatchChunk];
  for (size_t start = 0; start < n; start += kBatchChunk) {
    const size_t count = std::min(kBatchChunk, n - start);
    for (size_t i = 0; i < count; ++i) {
      views[i] = Key(keys[start + i], lengths[start + i]);
    }
    filter->rep.MayContainBatch(absl::MakeConstSpan(views, count),
                                absl::MakeSpan(answers, count));
    for (size_t i = 0; i < count; ++i) results[start + i] = answers[i];
  }
}

void blockbloom_filter_may_contain_hash_batch(const blockbloom_filter_t* filter,
                                              size_t n, const uint64_t* hashes,
                                              unsigned char* results) {
  bool answers[kBatchChunk];
  for (size_t start = 0; start < n; start += kBatchChunk) {
    const size_t count = std::min(kBatchChunk, n - start);
    filter->rep.MayContainHashBatch(absl::MakeConstSpan(hashes + start, count),
                                    absl::MakeSpan(answers, count));
    for (size_t i = 0; i < count; ++i) results[start + i] = answers[i];
  }
}

uint64_t blockbloom_filter_seed(const blockbloom_filter_t* f) {
  return f->rep.seed();
}
uint64_t blockbloom_filter_num_keys(const blockbloom_filter_t* f) {
  return f->rep.num_keys();
}
blockbloom_shape_t blockbloom_filter_shape(const blockbloom_filter_t* f) {
  return FromShape(f->rep.shape());
}
int blockbloom_filter_kind(const blockbloom_filter_t* f) {
  return static_cast<int>(f->rep.kind());
}
int blockbloom_filter_layout(const blockbloom_filter_t* f) {
  return blockbloom_filter_kind(f);
}
uint64_t blockbloom_filter_size_bytes(const blockbloom_filter_t* f) {
  return f->rep.bits().size();
}
double blockbloom_filter_estimated_fp_rate(const blockbloom_filter_t* f) {
  return f->rep.EstimatedFpRate();
}
unsigned char blockbloom_filter_is_match_all(const blockbloom_filter_t* f) {
  return f->rep.is_match_all();
}

blockbloom_filter_t* blockbloom_filter_create_match_all(void) {
  return new (std::nothrow)
      blockbloom_filter_t{blockbloom::Filter::MatchAll(), nullptr};
}

blockbloom_filter_t* blockbloom_filter_wrap_bits(
    const void* bits, size_t len, const blockbloom_shape_t* shape,
    uint64_t seed, uint64_t num_keys, char** errptr) {
  return Guard(
      errptr, static_cast<blockbloom_filter_t*>(nullptr),
      [&]() -> blockbloom_filter_t* {
        absl::StatusOr<blockbloom::Filter> filter = blockbloom::Filter::Wrap(
            absl::MakeConstSpan(static_cast<const uint8_t*>(bits), len),
            ToShape(*shape), seed, num_keys);
        if (SaveError(errptr, filter.status())) return nullptr;
        return NewFilter(*std::move(filter), nullptr);
      });
}

// --- Format -------------------------------------------------------------

blockbloom_writeoptions_t* blockbloom_writeoptions_create(void) {
  return new (std::nothrow) blockbloom_writeoptions_t;
}
void blockbloom_writeoptions_destroy(blockbloom_writeoptions_t* o) { delete o; }
void blockbloom_writeoptions_set_encoding(blockbloom_writeoptions_t* o,
                                          int encoding) {
  o->encoding = encoding;
}
void blockbloom_writeoptions_set_compression(blockbloom_writeoptions_t* o,
                                             int compression) {
  o->compression = compression;
}
void blockbloom_writeoptions_set_zstd_level(blockbloom_writeoptions_t* o,
                                            int level) {
  o->zstd_level = level;
}

blockbloom_readoptions_t* blockbloom_readoptions_create(void) {
  return new (std::nothrow) blockbloom_readoptions_t;
}
void blockbloom_readoptions_destroy(blockbloom_readoptions_t* o) { delete o; }
void blockbloom_readoptions_set_verify_checksum(blockbloom_readoptions_t* o,
                                                unsigned char v) {
  o->rep.verify_checksum = v != 0;
}
void blockbloom_readoptions_set_seed(blockbloom_readoptions_t* o,
                                     uint64_t seed) {
  o->rep.seed = seed;
}
void blockbloom_readoptions_set_allow_in_place(blockbloom_readoptions_t* o,
                                               unsigned char v) {
  o->rep.allow_in_place = v != 0;
}
void blockbloom_readoptions_set_max_decompressed_bytes(
    blockbloom_readoptions_t* o, uint64_t bytes) {
  o->rep.max_decompressed_bytes = bytes;
}
void blockbloom_readoptions_set_max_decompression_ratio(
    blockbloom_readoptions_t* o, uint64_t ratio) {
  o->rep.max_decompression_ratio = ratio;
}

char* blockbloom_filter_serialize(const blockbloom_filter_t* filter,
                                  const blockbloom_writeoptions_t* options,
                                  size_t* len, char** errptr) {
  return Guard(errptr, static_cast<char*>(nullptr), [&]() -> char* {
    absl::StatusOr<blockbloom::WriteOptions> write = ToWriteOptions(options);
    if (SaveError(errptr, write.status())) return nullptr;
    absl::StatusOr<std::string> bytes =
        blockbloom::SerializeFilter(filter->rep, *write);
    if (SaveError(errptr, bytes.status())) return nullptr;
    return MallocCopy(*bytes, len, errptr);
  });
}

blockbloom_filter_t* blockbloom_filter_open(
    const void* bytes, size_t len, const blockbloom_readoptions_t* options,
    char** errptr) {
  return Open(bytes, len, options, /*copy=*/true, errptr);
}

blockbloom_filter_t* blockbloom_filter_open_wrap(
    const void* bytes, size_t len, const blockbloom_readoptions_t* options,
    char** errptr) {
  return Open(bytes, len, options, /*copy=*/false, errptr);
}

// --- Bloom filter -------------------------------------------------------

blockbloom_bloomoptions_t* blockbloom_bloomoptions_create(void) {
  return new (std::nothrow) blockbloom_bloomoptions_t;
}
void blockbloom_bloomoptions_destroy(blockbloom_bloomoptions_t* o) { delete o; }
void blockbloom_bloomoptions_set_seed(blockbloom_bloomoptions_t* o,
                                      uint64_t seed) {
  o->rep.seed = seed;
}
void blockbloom_bloomoptions_set_concurrent(blockbloom_bloomoptions_t* o,
                                            unsigned char v) {
  o->rep.concurrent = v != 0;
}

blockbloom_bloomfilter_t* blockbloom_bloomfilter_create(
    uint64_t expected_insertions, double fp_rate,
    const blockbloom_bloomoptions_t* options, char** errptr) {
  return NewBloomFilter(errptr, [&] {
    return blockbloom::BloomFilter::Create(expected_insertions, fp_rate,
                                           ToBloomOptions(options));
  });
}

blockbloom_bloomfilter_t* blockbloom_bloomfilter_create_with_bits_per_key(
    uint64_t expected_insertions, double bits_per_key,
    const blockbloom_bloomoptions_t* options, char** errptr) {
  return NewBloomFilter(errptr, [&] {
    return blockbloom::BloomFilter::CreateWithBitsPerKey(
        expected_insertions, bits_per_key, ToBloomOptions(options));
  });
}

void blockbloom_bloomfilter_destroy(blockbloom_bloomfilter_t* f) { delete f; }

unsigned char blockbloom_bloomfilter_add(blockbloom_bloomfilter_t* f,
                                         const char* key, size_t len) {
  return f->rep.Add(Key(key, len));
}
unsigned char blockbloom_bloomfilter_add_hash(blockbloom_bloomfilter_t* f,
                                              uint64_t hash) {
  return f->rep.AddHash(hash);
}
unsigned char blockbloom_bloomfilter_may_contain(
    const blockbloom_bloomfilter_t* f, const char* key, size_t len) {
  return f->rep.MayContain(Key(key, len));
}
unsigned char blockbloom_bloomfilter_may_contain_hash(
    const blockbloom_bloomfilter_t* f, uint64_t hash) {
  return f->rep.MayContainHash(hash);
}
void blockbloom_bloomfilter_clear(blockbloom_bloomfilter_t* f) {
  f->rep.Clear();
}

void blockbloom_bloomfilter_merge(blockbloom_bloomfilter_t* dst,
                                  const blockbloom_bloomfilter_t* other,
                                  char** errptr) {
  SaveError(errptr, dst->rep.Merge(other->rep));
}
void blockbloom_bloomfilter_intersect(blockbloom_bloomfilter_t* dst,
                                      const blockbloom_bloomfilter_t* other,
                                      char** errptr) {
  SaveError(errptr, dst->rep.Intersect(other->rep));
}

uint64_t blockbloom_bloomfilter_approximate_count(
    const blockbloom_bloomfilter_t* f) {
  return f->rep.ApproximateCount();
}
uint64_t blockbloom_bloomfilter_num_insertions(
    const blockbloom_bloomfilter_t* f) {
  return f->rep.num_insertions();
}
double blockbloom_bloomfilter_expected_fp_rate(
    const blockbloom_bloomfilter_t* f) {
  return f->rep.ExpectedFpRate();
}
uint64_t blockbloom_bloomfilter_seed(const blockbloom_bloomfilter_t* f) {
  return f->rep.seed();
}
blockbloom_shape_t blockbloom_bloomfilter_shape(
    const blockbloom_bloomfilter_t* f) {
  return FromShape(f->rep.shape());
}
uint64_t blockbloom_bloomfilter_size_bytes(const blockbloom_bloomfilter_t* f) {
  return f->rep.size_bytes();
}

char* blockbloom_bloomfilter_serialize(const blockbloom_bloomfilter_t* f,
                                       const blockbloom_writeoptions_t* options,
                                       size_t* len, char** errptr) {
  return Guard(errptr, static_cast<char*>(nullptr), [&]() -> char* {
    absl::StatusOr<blockbloom::WriteOptions> write = ToWriteOptions(options);
    if (SaveError(errptr, write.status())) return nullptr;
    absl::StatusOr<std::string> bytes = f->rep.Serialize(*write);
    if (SaveError(errptr, bytes.status())) return nullptr;
    return MallocCopy(*bytes, len, errptr);
  });
}

blockbloom_bloomfilter_t* blockbloom_bloomfilter_deserialize(
    const void* bytes, size_t len, const blockbloom_readoptions_t* read_options,
    const blockbloom_bloomoptions_t* options, char** errptr) {
  return NewBloomFilter(errptr, [&] {
    return blockbloom::BloomFilter::Deserialize(
        absl::MakeConstSpan(static_cast<const uint8_t*>(bytes), len),
        ToReadOptions(read_options), ToBloomOptions(options));
  });
}

}  // extern "C"
