// The C API (blockbloom/c.h) of the file format: write and read options,
// serializing, opening and inspecting filters.
#include "src/c/handles.h"

using blockbloom::c_api::Guard;
using blockbloom::c_api::MallocCopy;
using blockbloom::c_api::Open;
using blockbloom::c_api::SaveError;
using blockbloom::c_api::ToWriteOptions;

extern "C" {

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

}  // extern "C"
