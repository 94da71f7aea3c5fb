// The C API (blockbloom/c.h) of hashing, sizing, FilterBuilder and Filter:
// opaque handles around the C++ types (src/c/handles.h), errors as
// malloc()ed strings, no exception across the boundary.
#include "blockbloom/version.h"
#include "src/c/handles.h"

using blockbloom::c_api::FromShape;
using blockbloom::c_api::Guard;
using blockbloom::c_api::kBatchChunk;
using blockbloom::c_api::Key;
using blockbloom::c_api::NewFilter;
using blockbloom::c_api::SaveError;
using blockbloom::c_api::ToShape;

extern "C" {

void blockbloom_free(void* ptr) { std::free(ptr); }

// --- Version ------------------------------------------------------------

// Version() views a std::string, so its data() ends with a NUL.
const char* blockbloom_version(void) { return blockbloom::Version().data(); }

// --- Hashing ------------------------------------------------------------

uint64_t blockbloom_hash_key(const char* key, size_t len, uint64_t seed) {
  return blockbloom::HashKey(Key(key, len), seed);
}

const char* blockbloom_active_simd_target(void) {
  return blockbloom::ActiveSimdTarget();
}

void blockbloom_set_simd_target(const char* name, char** errptr) {
  SaveError(errptr, blockbloom::SetSimdTarget(name == nullptr ? "" : name));
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
void blockbloom_options_set_kind(blockbloom_options_t* o, int kind) {
  // FilterBuilder::Create refuses the kinds it cannot build, with its
  // message; values past FilterKind's byte become 255 (refused too) rather
  // than wrap around to a kind.
  o->rep.kind = static_cast<blockbloom::FilterKind>(
      kind >= 0 && kind <= 255 ? kind : 255);
}
int blockbloom_options_kind(const blockbloom_options_t* o) {
  return static_cast<int>(o->rep.kind);
}
void blockbloom_options_set_exact_size(blockbloom_options_t* o,
                                       unsigned char v) {
  o->rep.exact_size = v != 0;
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

}  // extern "C"
