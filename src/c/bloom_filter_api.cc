// The C API (blockbloom/c.h) of BloomFilter, the mutable in-memory filter.
#include "src/c/handles.h"

using blockbloom::c_api::FromShape;
using blockbloom::c_api::Guard;
using blockbloom::c_api::Key;
using blockbloom::c_api::MallocCopy;
using blockbloom::c_api::NewBloomFilter;
using blockbloom::c_api::SaveError;
using blockbloom::c_api::ToBloomOptions;
using blockbloom::c_api::ToReadOptions;
using blockbloom::c_api::ToWriteOptions;

extern "C" {

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
double blockbloom_bloomfilter_estimated_fp_rate(
    const blockbloom_bloomfilter_t* f) {
  return f->rep.EstimatedFpRate();
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
