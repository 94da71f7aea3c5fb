/* blockbloom's C API, in the style of LevelDB's include/leveldb/c.h.

   Usable from C99 (and C++). Everything is reached through opaque handles
   created by *_create / *_finish / *_open functions and released by the
   matching *_destroy function; buffers this API returns (serialized
   filters, error messages) are malloc()ed and released with
   blockbloom_free(). No C++ type or exception crosses the boundary: an
   allocation failure or any other error inside is reported through errptr
   (or, for functions without one, documented below).

   Errors. A function that can fail takes a "char** errptr" as its last
   argument. *errptr must be NULL or a string this library returned. On
   error the previous *errptr is freed (as LevelDB does: the caller keeps
   only the last message) and *errptr is set to a malloc()ed,
   NUL-terminated copy of the error, "CODE: message" with CODE the absl
   status code's name (INVALID_ARGUMENT, OUT_OF_RANGE, DATA_LOSS,
   UNIMPLEMENTED, RESOURCE_EXHAUSTED, INTERNAL), to be freed with
   blockbloom_free(). On success *errptr is left unchanged: set it to NULL
   before a call to tell whether that call failed. errptr itself must not be
   NULL.

   NULL handles and NULL pointers. Passing NULL where a handle, key array,
   result array or errptr is expected is undefined behaviour (as in
   LevelDB's C API), except where a parameter says "may be NULL" (options
   arguments, which then mean the defaults; key pointers whose length is
   0). The *_destroy functions and blockbloom_free accept NULL.

   Thread safety. A blockbloom_filter_t is immutable: any number of threads
   may probe one at once. Builders, option objects and (non-concurrent)
   Bloom filters need one thread at a time, like a standard container; a
   Bloom filter created with blockbloom_bloomoptions_set_concurrent(o, 1)
   takes concurrent adds and probes (blockbloom/bloom_filter.h). Free
   functions (sizing, hashing) are thread-safe.

   Booleans are unsigned char: 0 false, 1 true (any non-zero is taken as
   true on input).

   Linking. The core API is in the blockbloom library itself (CMake
   blockbloom::blockbloom, pkg-config blockbloom, Bazel
   @blockbloom//:blockbloom); blockbloom_leveldb_filterpolicy_create* are in the
   LevelDB adapter (blockbloom::leveldb, pkg-config blockbloom-leveldb,
   @blockbloom//:leveldb). The libraries are C++: link a C program with the C++
   driver (g++), or add the C++ runtime (-lstdc++ -lm) when linking the static
   libraries with the C driver (CMake does this by itself). */
#ifndef BLOCKBLOOM_C_H_
#define BLOCKBLOOM_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BLOCKBLOOM_C_EXPORT __attribute__((visibility("default")))
#else
#define BLOCKBLOOM_C_EXPORT
#endif

/* ------------------------------------------------------------------------
   Types. */

/* Options of a builder (blockbloom::FilterOptions). */
typedef struct blockbloom_options_t blockbloom_options_t;
/* Collects keys, then builds a filter (blockbloom::FilterBuilder). */
typedef struct blockbloom_builder_t blockbloom_builder_t;
/* An immutable filter (blockbloom::Filter), with the bytes it was opened
   from when it owns a copy of them. */
typedef struct blockbloom_filter_t blockbloom_filter_t;
/* How to serialize (blockbloom::WriteOptions). */
typedef struct blockbloom_writeoptions_t blockbloom_writeoptions_t;
/* How to open serialized bytes (blockbloom::ReadOptions). */
typedef struct blockbloom_readoptions_t blockbloom_readoptions_t;
/* A mutable in-memory filter (blockbloom::BloomFilter). */
typedef struct blockbloom_bloomfilter_t blockbloom_bloomfilter_t;
/* Options of a Bloom filter (blockbloom::BloomFilterOptions). */
typedef struct blockbloom_bloomoptions_t blockbloom_bloomoptions_t;

/* The geometry of a filter (blockbloom::FilterShape): num_blocks blocks of
   16 lanes of lane_bits bits (32: a block is one 64-byte cache line), and
   num_probes bits set per key. A plain value: copy it freely. */
typedef struct blockbloom_shape_t {
  uint64_t num_blocks; /* [1, 2^32] */
  int num_probes;      /* [1, 16] */
  int lane_bits;       /* [1, 512]; 32 except in filters of <= 1 KiB */
} blockbloom_shape_t;

/* Filter::kind(). */
enum {
  blockbloom_kind_blocked = 0,
  blockbloom_kind_spread = 1,
  blockbloom_kind_set = 2,
  blockbloom_kind_standard = 3,
  blockbloom_kind_ribbon = 4 /* FilterKind::kRibbon */
};

/* WriteOptions::encoding (blockbloom/format.h). */
enum {
  blockbloom_encoding_auto = 0,
  blockbloom_encoding_compact = 1,
  blockbloom_encoding_full = 2,
  blockbloom_encoding_accurate = 3,
  blockbloom_encoding_in_place = 4,
  blockbloom_encoding_ribbon = 5 /* ribbon filters only (format version 5) */
};

/* WriteOptions::compression. */
enum { blockbloom_compression_none = 0, blockbloom_compression_zstd = 1 };

/* Frees a buffer or error message this library returned. NULL is fine. */
BLOCKBLOOM_C_EXPORT void blockbloom_free(void* ptr);

/* ------------------------------------------------------------------------
   Version (blockbloom/version.h). */

/* The version of the linked library, "major.minor.patch" (e.g. "0.1.0"):
   blockbloom::Version(). A static string, never freed. Within one major
   version (the shared library's SONAME, libblockbloom.so.<major>) the C API
   only gains functions: docs/COMPATIBILITY.md. */
BLOCKBLOOM_C_EXPORT const char* blockbloom_version(void);

/* ------------------------------------------------------------------------
   Hashing (blockbloom/hash.h). */

/* XXH3-64 of key[0, len) with seed: exactly blockbloom::HashKey. The hash
   blockbloom_filter_may_contain_hash and blockbloom_builder_add_hash take
   (with the filter's seed). key may be NULL if len is 0. */
BLOCKBLOOM_C_EXPORT uint64_t blockbloom_hash_key(const char* key, size_t len,
                                                 uint64_t seed);

/* The SIMD instruction set the probes of filters made from now on use
   ("AVX2", ...; blockbloom::ActiveSimdTarget): a static string, never
   freed. */
BLOCKBLOOM_C_EXPORT const char* blockbloom_active_simd_target(void);

/* Chooses it for the filters made from now on: blockbloom::SetSimdTarget
   ("AVX3", "AVX2", "SSE4", ..., "best" or "auto"; the environment variable
   BLOCKBLOOM_SIMD_TARGET takes the same names). An unknown name, or a
   target this CPU lacks, sets *errptr and changes nothing. */
BLOCKBLOOM_C_EXPORT void blockbloom_set_simd_target(const char* name,
                                                    char** errptr);

/* ------------------------------------------------------------------------
   Sizing (blockbloom/sizing.h). On error *shape is unchanged. */

/* The smallest shape with at least bits_per_key bits per key (fractional
   values are fine) and the k that minimizes false positives for it.
   compact_small_filters: filters of at most 8192 bits are one block of
   narrower lanes (1, the C++ default) or always 32-bit lanes (0).
   Errors: INVALID_ARGUMENT if num_keys is 0 or bits_per_key is not a
   positive finite number; OUT_OF_RANGE past 2^32 blocks. */
BLOCKBLOOM_C_EXPORT void blockbloom_shape_for_bits_per_key(
    uint64_t num_keys, double bits_per_key, unsigned char compact_small_filters,
    blockbloom_shape_t* shape, char** errptr);

/* The smallest shape whose expected false-positive rate with num_keys keys
   is at most fp_rate, with its optimal k. Errors: INVALID_ARGUMENT if
   num_keys is 0 or fp_rate is not in (0, 1); OUT_OF_RANGE if no shape
   within 2^32 blocks reaches it. */
BLOCKBLOOM_C_EXPORT void blockbloom_shape_for_fp_rate(
    uint64_t num_keys, double fp_rate, unsigned char compact_small_filters,
    blockbloom_shape_t* shape, char** errptr);

/* The k in [1, 16] minimizing false positives of num_keys keys in
   num_blocks blocks of lane_bits-bit lanes. Returns 0 with INVALID_ARGUMENT
   if num_blocks or lane_bits is out of range. */
BLOCKBLOOM_C_EXPORT int blockbloom_optimal_num_probes(uint64_t num_keys,
                                                      uint64_t num_blocks,
                                                      int lane_bits,
                                                      char** errptr);

/* The expected false-positive rate of *shape holding num_keys distinct keys
   (0 for 0 keys). Returns 1 with INVALID_ARGUMENT if the shape is
   invalid. */
BLOCKBLOOM_C_EXPORT double blockbloom_estimated_fp_rate(
    const blockbloom_shape_t* shape, uint64_t num_keys, char** errptr);

/* Sets INVALID_ARGUMENT naming the field if *shape is out of range; returns
   1 if it is valid, 0 if not. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_shape_validate(
    const blockbloom_shape_t* shape, char** errptr);

/* The filter's bits: num_blocks * 16 * lane_bits / 8 bytes (no check). */
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_shape_size_bytes(const blockbloom_shape_t* shape);

/* ------------------------------------------------------------------------
   Builder options (blockbloom::FilterOptions). Values are checked by
   blockbloom_builder_create, not by the setters. Returns NULL only if out of
   memory. */

BLOCKBLOOM_C_EXPORT blockbloom_options_t* blockbloom_options_create(void);
BLOCKBLOOM_C_EXPORT void blockbloom_options_destroy(blockbloom_options_t*);
/* Default 10; used when fp_rate is 0 and no shape is set. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_bits_per_key(
    blockbloom_options_t*, double bits_per_key);
/* If > 0 (and < 1): size for this false-positive rate instead. Default 0. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_fp_rate(blockbloom_options_t*,
                                                        double fp_rate);
/* Exactly this geometry whatever the number of keys (NULL: unset, the
   default). The shape is copied. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_shape(
    blockbloom_options_t*, const blockbloom_shape_t* shape);
/* The hash seed, stored with the filter. Default 0. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_seed(blockbloom_options_t*,
                                                     uint64_t seed);
/* Default 1 (see blockbloom_shape_for_bits_per_key). */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_compact_small_filters(
    blockbloom_options_t*, unsigned char);
/* The kind of filter to build (FilterOptions::kind): blockbloom_kind_blocked
   (the default) or blockbloom_kind_ribbon, the same false-positive rate in
   about 30% less memory, built and probed a few times slower, with
   bits_per_key or fp_rate only. Where a ribbon would be the larger or
   less accurate filter (below a few dozen keys; below 8,192 keys the
   builder makes both and keeps the better) it makes a blocked one: ask the
   filter (blockbloom_filter_kind). Another kind: the builder refuses the
   options (INVALID_ARGUMENT). */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_kind(blockbloom_options_t*,
                                                     int kind);
/* The kind the options ask for (blockbloom_kind_*). */
BLOCKBLOOM_C_EXPORT int blockbloom_options_kind(const blockbloom_options_t*);
/* Exact-size per-data-block filters (FilterOptions::exact_size;
   bits_per_key only). Their seed is not stored: open them with
   blockbloom_readoptions_set_seed. Default 0. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_exact_size(
    blockbloom_options_t*, unsigned char);
/* Exact-size filters only: FilterOptions::fewer_false_positives. Default 0. */
BLOCKBLOOM_C_EXPORT void blockbloom_options_set_fewer_false_positives(
    blockbloom_options_t*, unsigned char);

/* ------------------------------------------------------------------------
   Builder (blockbloom::FilterBuilder). One thread at a time. */

/* A builder with a copy of *options (NULL: the defaults, 10 bits/key).
   Errors (returns NULL): INVALID_ARGUMENT for options out of range;
   RESOURCE_EXHAUSTED if out of memory. */
BLOCKBLOOM_C_EXPORT blockbloom_builder_t* blockbloom_builder_create(
    const blockbloom_options_t* options, char** errptr);
BLOCKBLOOM_C_EXPORT void blockbloom_builder_destroy(blockbloom_builder_t*);

/* Adds key[0, len) (copied as a hash; the key need not outlive the call).
   Adjacent duplicates count once. Returns 1, or 0 if out of memory: the
   next blockbloom_builder_finish then fails with RESOURCE_EXHAUSTED and
   resets the builder to empty (a filter missing a key is never built). key
   may be NULL if len is 0. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_builder_add(blockbloom_builder_t*,
                                                         const char* key,
                                                         size_t len);
/* Adds blockbloom_hash_key(key, len, seed) directly. Returns as above. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_builder_add_hash(
    blockbloom_builder_t*, uint64_t hash);
/* Distinct keys added so far. */
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_builder_num_keys(const blockbloom_builder_t*);

/* Builds the filter (the caller owns it: blockbloom_filter_destroy) and
   resets the builder to empty with the same options. With no keys, a filter
   that contains nothing. Errors (returns NULL): OUT_OF_RANGE past 2^32
   blocks; RESOURCE_EXHAUSTED if out of memory now or in an earlier add
   (see blockbloom_builder_add). */
BLOCKBLOOM_C_EXPORT blockbloom_filter_t* blockbloom_builder_finish(
    blockbloom_builder_t*, char** errptr);

/* ------------------------------------------------------------------------
   Filter (blockbloom::Filter): immutable, any number of threads may probe
   it at once. */

BLOCKBLOOM_C_EXPORT void blockbloom_filter_destroy(blockbloom_filter_t*);

/* 0 if key[0, len) is certainly not in the set, 1 if it may be. A key that
   was added always answers 1. key may be NULL if len is 0. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_filter_may_contain(
    const blockbloom_filter_t*, const char* key, size_t len);
/* The same for blockbloom_hash_key(key, len, blockbloom_filter_seed(f)). */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_filter_may_contain_hash(
    const blockbloom_filter_t*, uint64_t hash);

/* results[i] = may_contain(keys[i], lengths[i]) for i < n, with the keys'
   blocks prefetched ahead (faster than a loop for filters beyond the
   cache). keys and lengths hold n elements, results room for n. Never
   fails: works in chunks, allocating nothing. */
BLOCKBLOOM_C_EXPORT void blockbloom_filter_may_contain_batch(
    const blockbloom_filter_t*, size_t n, const char* const* keys,
    const size_t* lengths, unsigned char* results);
/* results[i] = may_contain_hash(hashes[i]) for i < n. */
BLOCKBLOOM_C_EXPORT void blockbloom_filter_may_contain_hash_batch(
    const blockbloom_filter_t*, size_t n, const uint64_t* hashes,
    unsigned char* results);

/* Properties: the hash seed; distinct keys added (0 if the encoding read
   does not store it); the geometry (for exact-size kinds see
   blockbloom::Filter::shape()); the kind (blockbloom_kind_*); bytes of bits;
   estimated false-positive rate for num_keys; 1 for a match-all filter. */
BLOCKBLOOM_C_EXPORT uint64_t blockbloom_filter_seed(const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_filter_num_keys(const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT blockbloom_shape_t
blockbloom_filter_shape(const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT int blockbloom_filter_kind(const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_filter_size_bytes(const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT double blockbloom_filter_estimated_fp_rate(
    const blockbloom_filter_t*);
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_filter_is_match_all(
    const blockbloom_filter_t*);

/* A filter that answers 1 for every key ("fail open"), as storage engines
   use for a filter they cannot read. Returns NULL only if out of memory. */
BLOCKBLOOM_C_EXPORT blockbloom_filter_t* blockbloom_filter_create_match_all(
    void);

/* Probes len bytes of bits the caller owns, without copying
   (Filter::Wrap): bits must hold exactly blockbloom_shape_size_bytes(shape)
   bytes, stay unchanged and outlive the filter; any alignment. num_keys
   only feeds the estimated rate. Errors (returns NULL): INVALID_ARGUMENT
   for an invalid shape or a size mismatch. */
BLOCKBLOOM_C_EXPORT blockbloom_filter_t* blockbloom_filter_wrap_bits(
    const void* bits, size_t len, const blockbloom_shape_t* shape,
    uint64_t seed, uint64_t num_keys, char** errptr);

/* ------------------------------------------------------------------------
   The file format (blockbloom/format.h, docs/FORMAT.md). */

/* Write options; NULL only if out of memory. */
BLOCKBLOOM_C_EXPORT blockbloom_writeoptions_t* blockbloom_writeoptions_create(
    void);
BLOCKBLOOM_C_EXPORT void blockbloom_writeoptions_destroy(
    blockbloom_writeoptions_t*);
/* blockbloom_encoding_* (default auto); checked when serializing. */
BLOCKBLOOM_C_EXPORT void blockbloom_writeoptions_set_encoding(
    blockbloom_writeoptions_t*, int encoding);
/* blockbloom_compression_* (default none; zstd: full encoding only). */
BLOCKBLOOM_C_EXPORT void blockbloom_writeoptions_set_compression(
    blockbloom_writeoptions_t*, int compression);
/* 1 (fast) .. 19 (small); default 3. */
BLOCKBLOOM_C_EXPORT void blockbloom_writeoptions_set_zstd_level(
    blockbloom_writeoptions_t*, int level);

/* Read options; NULL only if out of memory. */
BLOCKBLOOM_C_EXPORT blockbloom_readoptions_t* blockbloom_readoptions_create(
    void);
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_destroy(
    blockbloom_readoptions_t*);
/* Verify checksums (default 1). 0 only for bytes verified otherwise: a
   flipped bit in unverified bits can turn an added key into a false
   negative. */
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_set_verify_checksum(
    blockbloom_readoptions_t*, unsigned char);
/* The seed of accurate and in-place filters, which do not store it (default
   0); the other encodings store theirs and ignore this. */
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_set_seed(
    blockbloom_readoptions_t*, uint64_t seed);
/* Also read in-place blocks, which have no checksum (default 0): only for
   bytes whose integrity is guaranteed otherwise. */
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_set_allow_in_place(
    blockbloom_readoptions_t*, unsigned char);
/* Limits on what a compressed filter may make the reader allocate
   (defaults 4 GiB and 1024; see blockbloom::ReadOptions). */
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_set_max_decompressed_bytes(
    blockbloom_readoptions_t*, uint64_t bytes);
BLOCKBLOOM_C_EXPORT void blockbloom_readoptions_set_max_decompression_ratio(
    blockbloom_readoptions_t*, uint64_t ratio);

/* Serializes filter (options NULL: the defaults) into a new malloc()ed
   buffer of *len bytes (free it with blockbloom_free). Errors (returns NULL,
   *len unchanged): INVALID_ARGUMENT for a match-all filter, an encoding
   this filter cannot use or an unknown enum value; INTERNAL if zstd fails;
   RESOURCE_EXHAUSTED if out of memory. */
BLOCKBLOOM_C_EXPORT char* blockbloom_filter_serialize(
    const blockbloom_filter_t* filter, const blockbloom_writeoptions_t* options,
    size_t* len, char** errptr);

/* Opens serialized bytes[0, len) (options NULL: the defaults), COPYING
   them: the bytes may be freed once this returns. Errors (returns NULL):
   DATA_LOSS (truncated, not a filter, inconsistent, checksum mismatch,
   bad zstd data), UNIMPLEMENTED (a newer version), RESOURCE_EXHAUSTED (over
   the decompression limits, or out of memory). Never reads outside the
   bytes, never crashes on any input. */
BLOCKBLOOM_C_EXPORT blockbloom_filter_t* blockbloom_filter_open(
    const void* bytes, size_t len, const blockbloom_readoptions_t* options,
    char** errptr);

/* The same without copying: uncompressed bits are probed where they are,
   so bytes must stay unchanged and outlive the filter. */
BLOCKBLOOM_C_EXPORT blockbloom_filter_t* blockbloom_filter_open_wrap(
    const void* bytes, size_t len, const blockbloom_readoptions_t* options,
    char** errptr);

/* ------------------------------------------------------------------------
   In-memory Bloom filter (blockbloom::BloomFilter): mutable, add any time.
   One thread at a time unless created concurrent. */

/* Options; NULL only if out of memory. */
BLOCKBLOOM_C_EXPORT blockbloom_bloomoptions_t* blockbloom_bloomoptions_create(
    void);
BLOCKBLOOM_C_EXPORT void blockbloom_bloomoptions_destroy(
    blockbloom_bloomoptions_t*);
/* A fixed seed (default: a fresh random one per filter; filters to merge
   need the same seed). */
BLOCKBLOOM_C_EXPORT void blockbloom_bloomoptions_set_seed(
    blockbloom_bloomoptions_t*, uint64_t seed);
/* Lock-free concurrent adds and probes (default 0). */
BLOCKBLOOM_C_EXPORT void blockbloom_bloomoptions_set_concurrent(
    blockbloom_bloomoptions_t*, unsigned char);

/* A filter for expected_insertions keys at a false-positive rate of at
   most fp_rate (options may be NULL). Errors (returns NULL):
   INVALID_ARGUMENT if expected_insertions is 0 or fp_rate is not in
   (0, 1); OUT_OF_RANGE past 2^32 blocks; RESOURCE_EXHAUSTED if out of
   memory. */
BLOCKBLOOM_C_EXPORT blockbloom_bloomfilter_t* blockbloom_bloomfilter_create(
    uint64_t expected_insertions, double fp_rate,
    const blockbloom_bloomoptions_t* options, char** errptr);
/* The same sized by bits per expected key. INVALID_ARGUMENT if
   bits_per_key is not a positive finite number. */
BLOCKBLOOM_C_EXPORT blockbloom_bloomfilter_t*
blockbloom_bloomfilter_create_with_bits_per_key(
    uint64_t expected_insertions, double bits_per_key,
    const blockbloom_bloomoptions_t* options, char** errptr);
BLOCKBLOOM_C_EXPORT void blockbloom_bloomfilter_destroy(
    blockbloom_bloomfilter_t*);

/* Adds a key (or its hash with the filter's seed). Returns 1 if the key was
   certainly new, 0 if it may have been added before. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_bloomfilter_add(
    blockbloom_bloomfilter_t*, const char* key, size_t len);
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_bloomfilter_add_hash(
    blockbloom_bloomfilter_t*, uint64_t hash);
/* 0 if the key was certainly never added, 1 if it may have been. */
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_bloomfilter_may_contain(
    const blockbloom_bloomfilter_t*, const char* key, size_t len);
BLOCKBLOOM_C_EXPORT unsigned char blockbloom_bloomfilter_may_contain_hash(
    const blockbloom_bloomfilter_t*, uint64_t hash);
/* Removes every key. */
BLOCKBLOOM_C_EXPORT void blockbloom_bloomfilter_clear(
    blockbloom_bloomfilter_t*);

/* Union (merge) or intersection with other, which must have the same shape
   and seed: INVALID_ARGUMENT naming the difference otherwise, and dst is
   unchanged. */
BLOCKBLOOM_C_EXPORT void blockbloom_bloomfilter_merge(
    blockbloom_bloomfilter_t* dst, const blockbloom_bloomfilter_t* other,
    char** errptr);
BLOCKBLOOM_C_EXPORT void blockbloom_bloomfilter_intersect(
    blockbloom_bloomfilter_t* dst, const blockbloom_bloomfilter_t* other,
    char** errptr);

/* Distinct keys added, estimated from the bits; the number of adds that
   returned 1; the false-positive rate from the current bits (reads every
   block); the seed; the geometry; bytes of bits. */
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_bloomfilter_approximate_count(const blockbloom_bloomfilter_t*);
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_bloomfilter_num_insertions(const blockbloom_bloomfilter_t*);
BLOCKBLOOM_C_EXPORT double blockbloom_bloomfilter_estimated_fp_rate(
    const blockbloom_bloomfilter_t*);
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_bloomfilter_seed(const blockbloom_bloomfilter_t*);
BLOCKBLOOM_C_EXPORT blockbloom_shape_t
blockbloom_bloomfilter_shape(const blockbloom_bloomfilter_t*);
BLOCKBLOOM_C_EXPORT uint64_t
blockbloom_bloomfilter_size_bytes(const blockbloom_bloomfilter_t*);

/* Serializes in the file format (options may be NULL), like
   blockbloom_filter_serialize: a malloc()ed buffer of *len bytes, NULL on
   error. */
BLOCKBLOOM_C_EXPORT char* blockbloom_bloomfilter_serialize(
    const blockbloom_bloomfilter_t*, const blockbloom_writeoptions_t* options,
    size_t* len, char** errptr);
/* Reads serialized bytes (copied; read_options and options may be NULL)
   into a new Bloom filter. The errors of blockbloom_filter_open, and
   INVALID_ARGUMENT for a match-all filter or a seed option that differs
   from the stored seed. */
BLOCKBLOOM_C_EXPORT blockbloom_bloomfilter_t*
blockbloom_bloomfilter_deserialize(const void* bytes, size_t len,
                                   const blockbloom_readoptions_t* read_options,
                                   const blockbloom_bloomoptions_t* options,
                                   char** errptr);

/* ------------------------------------------------------------------------
   LevelDB (in the LevelDB adapter library; needs no LevelDB header here).

   A filter policy for LevelDB's C API (leveldb_options_set_filter_policy),
   made with LevelDB's own leveldb_filterpolicy_create: destroy it with
   leveldb_filterpolicy_destroy once no DB uses it. It writes and reads
   exactly what the C++ blockbloom::NewLevelDBFilterPolicy with the same
   arguments does (same name, same bytes), so C and C++ programs share
   databases. Thread-safe, as LevelDB requires. */
struct leveldb_filterpolicy_t;

/* bits_per_key: fractional allowed; below 1 (and NaN) taken as 1. Returns
   NULL only if out of memory. */
BLOCKBLOOM_C_EXPORT struct leveldb_filterpolicy_t*
blockbloom_leveldb_filterpolicy_create(double bits_per_key);

/* The same with a hash seed (readers need the same seed; a DB reopened
   with another seed ignores the old filters) and the accurate encoding
   (FilterPolicy::Options::fewer_false_positives). Errors (returns NULL):
   INVALID_ARGUMENT for options out of range; RESOURCE_EXHAUSTED if out of
   memory. */
BLOCKBLOOM_C_EXPORT struct leveldb_filterpolicy_t*
blockbloom_leveldb_filterpolicy_create_with_options(
    double bits_per_key, uint64_t seed, unsigned char fewer_false_positives,
    char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BLOCKBLOOM_C_H_ */
