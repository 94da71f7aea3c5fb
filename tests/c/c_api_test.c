/* The C API (blockbloom/c.h) from plain C99: every function, every error
   path, and byte-for-byte agreement with the C++ library through its golden
   files (tests/testdata, written by tests/format/golden_test.cc): filters
   the C API builds are the C++ bytes, and the C++ files open here with the
   same answers.

   Usage: c_api_test [TESTDATA_DIR] (default BLOCKBLOOM_TESTDATA_DIR). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom/c.h"

#ifndef BLOCKBLOOM_TESTDATA_DIR
#define BLOCKBLOOM_TESTDATA_DIR "tests/testdata"
#endif

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Checks that *err holds an error starting with `code`, then frees it. */
#define CHECK_ERROR(err, code)                                           \
  do {                                                                   \
    CHECK((err) != NULL);                                                \
    if ((err) != NULL) {                                                 \
      if (strncmp((err), (code), strlen(code)) != 0) {                   \
        fprintf(stderr, "%s:%d: error is \"%s\", wanted %s\n", __FILE__, \
                __LINE__, (err), (code));                                \
        ++failures;                                                      \
      }                                                                  \
      blockbloom_free(err);                                              \
      (err) = NULL;                                                      \
    }                                                                    \
  } while (0)

#define CHECK_OK(err)                                                     \
  do {                                                                    \
    if ((err) != NULL) {                                                  \
      fprintf(stderr, "%s:%d: unexpected error %s\n", __FILE__, __LINE__, \
              (err));                                                     \
      ++failures;                                                         \
      blockbloom_free(err);                                               \
      (err) = NULL;                                                       \
    }                                                                     \
  } while (0)

static const char* testdata_dir = BLOCKBLOOM_TESTDATA_DIR;

/* Keys as the golden files have them. */
static size_t Key(char* buf, const char* prefix, int i) {
  return (size_t)sprintf(buf, "%s%d", prefix, i);
}

/* A whole file, malloc()ed; NULL if it cannot be read. */
static char* ReadFile(const char* name, size_t* len) {
  char path[1024];
  FILE* f;
  long size;
  char* data;
  snprintf(path, sizeof(path), "%s/%s", testdata_dir, name);
  f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = (char*)malloc(size > 0 ? (size_t)size : 1);
  if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(data);
    return NULL;
  }
  fclose(f);
  *len = (size_t)size;
  return data;
}

/* How many of absent-0 .. absent-9999 the filter may contain. */
static int AbsentPositives(const blockbloom_filter_t* f) {
  char key[64];
  int i, count = 0;
  for (i = 0; i < 10000; ++i) {
    size_t len = Key(key, "absent-", i);
    count += blockbloom_filter_may_contain(f, key, len);
  }
  return count;
}

static int AllPresent(const blockbloom_filter_t* f, int n) {
  char key[64];
  int i;
  for (i = 0; i < n; ++i) {
    size_t len = Key(key, "golden-key-", i);
    if (!blockbloom_filter_may_contain(f, key, len)) return 0;
  }
  return 1;
}

static void TestHashAndSimd(void) {
  /* XXH3-64 of "" with seed 0 (the xxHash reference value). */
  CHECK(blockbloom_hash_key("", 0, 0) == UINT64_C(0x2D06800538D394C2));
  CHECK(blockbloom_hash_key(NULL, 0, 0) == blockbloom_hash_key("", 0, 0));
  CHECK(blockbloom_hash_key("a", 1, 0) != blockbloom_hash_key("a", 1, 1));
  CHECK(blockbloom_active_simd_target() != NULL);
  CHECK(strlen(blockbloom_active_simd_target()) > 0);
  /* The override: a target this CPU has (the scalar one always), then
     back to the rule; an unknown name is an error and changes nothing. */
  char* err = NULL;
  char rule[32];
  snprintf(rule, sizeof(rule), "%s", blockbloom_active_simd_target());
  blockbloom_set_simd_target("EMU128", &err);
  if (err != NULL) { /* a build whose fallback is SCALAR */
    blockbloom_free(err);
    err = NULL;
    blockbloom_set_simd_target("SCALAR", &err);
  }
  CHECK(err == NULL);
  CHECK(strcmp(blockbloom_active_simd_target(), "EMU128") == 0 ||
        strcmp(blockbloom_active_simd_target(), "SCALAR") == 0);
  blockbloom_set_simd_target("AVX1024", &err);
  CHECK(err != NULL && strstr(err, "AVX1024") != NULL);
  blockbloom_free(err);
  err = NULL;
  blockbloom_set_simd_target("auto", &err);
  CHECK(err == NULL);
  CHECK(strcmp(blockbloom_active_simd_target(), rule) == 0);
}

/* "major.minor.patch": three numbers and two dots, nothing else (the C++
   version_test checks that it is blockbloom::Version()). */
static void TestVersion(void) {
  const char* v = blockbloom_version();
  int dots = 0;
  CHECK(v != NULL);
  CHECK(v[0] >= '0' && v[0] <= '9');
  for (; *v != '\0'; ++v) {
    if (*v == '.') {
      ++dots;
      CHECK(v[1] >= '0' && v[1] <= '9');
    } else {
      CHECK(*v >= '0' && *v <= '9');
    }
  }
  CHECK(dots == 2);
}

static void TestSizing(void) {
  char* err = NULL;
  blockbloom_shape_t shape, bad;
  double rate;
  int k;

  memset(&shape, 0, sizeof(shape));
  blockbloom_shape_for_bits_per_key(1000000, 10, 1, &shape, &err);
  CHECK_OK(err);
  CHECK(shape.num_blocks == 19532); /* ceil(1e7 / 512) */
  CHECK(shape.lane_bits == 32);
  CHECK(shape.num_probes >= 6 && shape.num_probes <= 8);
  CHECK(blockbloom_shape_size_bytes(&shape) == shape.num_blocks * 64);
  CHECK(blockbloom_shape_validate(&shape, &err) == 1);
  CHECK_OK(err);
  rate = blockbloom_estimated_fp_rate(&shape, 1000000, &err);
  CHECK_OK(err);
  CHECK(rate > 0.009 && rate < 0.0101);
  k = blockbloom_optimal_num_probes(1000000, shape.num_blocks, 32, &err);
  CHECK_OK(err);
  CHECK(k == shape.num_probes);

  /* A small filter: one block of narrower lanes, or 32-bit lanes. */
  blockbloom_shape_for_bits_per_key(37, 10, 1, &shape, &err);
  CHECK_OK(err);
  CHECK(shape.num_blocks == 1 && shape.lane_bits == 24);
  blockbloom_shape_for_bits_per_key(37, 10, 0, &shape, &err);
  CHECK_OK(err);
  CHECK(shape.num_blocks == 1 && shape.lane_bits == 32);

  blockbloom_shape_for_fp_rate(1000000, 0.01, 1, &shape, &err);
  CHECK_OK(err);
  rate = blockbloom_estimated_fp_rate(&shape, 1000000, &err);
  CHECK_OK(err);
  CHECK(rate <= 0.01);
  CHECK(blockbloom_estimated_fp_rate(&shape, 0, &err) == 0);
  CHECK_OK(err);

  /* Errors: *shape unchanged, errptr set; a previous message is freed. */
  bad = shape;
  blockbloom_shape_for_bits_per_key(0, 10, 1, &shape, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_bits_per_key(100, -1, 1, &shape, &err);
  CHECK(err != NULL);
  blockbloom_shape_for_bits_per_key(100, NAN, 1, &shape, &err); /* replaces */
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_bits_per_key(100, INFINITY, 1, &shape, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_bits_per_key(UINT64_MAX, 1000, 1, &shape, &err);
  CHECK_ERROR(err, "OUT_OF_RANGE");
  blockbloom_shape_for_fp_rate(100, 0, 1, &shape, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_fp_rate(100, 1, 1, &shape, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_fp_rate(0, 0.01, 1, &shape, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_shape_for_fp_rate(UINT64_MAX, 1e-9, 1, &shape, &err);
  CHECK_ERROR(err, "OUT_OF_RANGE");
  CHECK(memcmp(&bad, &shape, sizeof(shape)) == 0);

  CHECK(blockbloom_optimal_num_probes(10, 0, 32, &err) == 0);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(blockbloom_optimal_num_probes(10, 1, 513, &err) == 0);
  CHECK_ERROR(err, "INVALID_ARGUMENT");

  bad.num_blocks = 0;
  CHECK(blockbloom_shape_validate(&bad, &err) == 0);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(blockbloom_estimated_fp_rate(&bad, 10, &err) == 1);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  bad = shape;
  bad.num_probes = 17;
  CHECK(blockbloom_shape_validate(&bad, &err) == 0);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  bad = shape;
  bad.lane_bits = 0;
  CHECK(blockbloom_shape_validate(&bad, &err) == 0);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
}

/* Builds golden-key-0 .. n-1 with the options. */
static blockbloom_filter_t* BuildGolden(const blockbloom_options_t* options,
                                        int n) {
  char* err = NULL;
  char key[64];
  int i;
  blockbloom_filter_t* filter;
  blockbloom_builder_t* builder = blockbloom_builder_create(options, &err);
  CHECK_OK(err);
  if (builder == NULL) return NULL;
  for (i = 0; i < n; ++i) {
    size_t len = Key(key, "golden-key-", i);
    CHECK(blockbloom_builder_add(builder, key, len) == 1);
  }
  CHECK(blockbloom_builder_num_keys(builder) == (uint64_t)n);
  filter = blockbloom_builder_finish(builder, &err);
  CHECK_OK(err);
  CHECK(blockbloom_builder_num_keys(builder) == 0);
  blockbloom_builder_destroy(builder);
  return filter;
}

/* One golden file: what C builds equals the C++ bytes; what C++ wrote opens
   here (copied and wrapped) with every key present and the pinned count of
   absent positives. */
struct Golden {
  const char* file;
  int keys;
  double bits_per_key;
  uint64_t seed;
  int encoding;
  int compression;
  int absent_positives;
  int exact_size; /* 0, 1 in-place, 2 fewer false positives */
};

static void TestGolden(const struct Golden* g) {
  char* err = NULL;
  size_t golden_len = 0, len = 0;
  char* golden = ReadFile(g->file, &golden_len);
  char* bytes;
  blockbloom_options_t* options = blockbloom_options_create();
  blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
  blockbloom_readoptions_t* read = blockbloom_readoptions_create();
  blockbloom_filter_t *built, *opened, *wrapped;
  CHECK(golden != NULL);
  if (golden == NULL) return;
  blockbloom_options_set_bits_per_key(options, g->bits_per_key);
  blockbloom_options_set_seed(options, g->seed);
  blockbloom_options_set_exact_size(options, g->exact_size != 0);
  blockbloom_options_set_fewer_false_positives(options, g->exact_size == 2);
  blockbloom_writeoptions_set_encoding(write, g->encoding);
  blockbloom_writeoptions_set_compression(write, g->compression);
  blockbloom_writeoptions_set_zstd_level(write, 3);
  built = BuildGolden(options, g->keys);
  CHECK(built != NULL);
  if (built != NULL) {
    bytes = blockbloom_filter_serialize(built, write, &len, &err);
    CHECK_OK(err);
    CHECK(bytes != NULL && len == golden_len &&
          memcmp(bytes, golden, len) == 0);
    if (bytes == NULL || len != golden_len || memcmp(bytes, golden, len) != 0) {
      fprintf(stderr, "  %s: C bytes differ from the C++ golden file\n",
              g->file);
    }
    blockbloom_free(bytes);
    CHECK(AllPresent(built, g->keys));
    CHECK(AbsentPositives(built) == g->absent_positives);
    blockbloom_filter_destroy(built);
  }

  blockbloom_readoptions_set_seed(read, g->seed);
  blockbloom_readoptions_set_allow_in_place(read, g->exact_size == 1);
  blockbloom_readoptions_set_verify_checksum(read, 1);
  opened = blockbloom_filter_open(golden, golden_len, read, &err);
  CHECK_OK(err);
  wrapped = blockbloom_filter_open_wrap(golden, golden_len, read, &err);
  CHECK_OK(err);
  CHECK(opened != NULL && wrapped != NULL);
  if (opened != NULL && wrapped != NULL) {
    CHECK(AllPresent(opened, g->keys));
    CHECK(AllPresent(wrapped, g->keys));
    CHECK(AbsentPositives(opened) == g->absent_positives);
    CHECK(AbsentPositives(wrapped) == g->absent_positives);
    CHECK(blockbloom_filter_seed(opened) == g->seed);
  }
  blockbloom_filter_destroy(wrapped);
  /* The copy does not need the caller's bytes any more. */
  memset(golden, 0xa5, golden_len);
  free(golden);
  if (opened != NULL) {
    CHECK(AllPresent(opened, g->keys));
    CHECK(AbsentPositives(opened) == g->absent_positives);
  }
  blockbloom_filter_destroy(opened);
  blockbloom_options_destroy(options);
  blockbloom_writeoptions_destroy(write);
  blockbloom_readoptions_destroy(read);
}

static void TestGoldenFiles(void) {
  static const struct Golden kGolden[] = {
      {"compact_37keys.bbf", 37, 10, 0, blockbloom_encoding_auto,
       blockbloom_compression_none, 72, 0},
      {"compact_100keys_seeded.bbf", 100, 10, UINT64_C(0x0123456789abcdef),
       blockbloom_encoding_auto, blockbloom_compression_none, 63, 0},
      {"compact_empty.bbf", 0, 10, 0, blockbloom_encoding_auto,
       blockbloom_compression_none, 0, 0},
      {"full_10keys_narrow.bbf", 10, 10, 0, blockbloom_encoding_full,
       blockbloom_compression_none, 54, 0},
      {"full_5000keys.bbf", 5000, 10, 0, blockbloom_encoding_full,
       blockbloom_compression_none, 84, 0},
      {"full_5000keys_zstd.bbf", 5000, 10, 0, blockbloom_encoding_full,
       blockbloom_compression_zstd, 84, 0},
      {"inplace_150keys_seeded.bbf", 150, 10, UINT64_C(0x0123456789abcdef),
       blockbloom_encoding_auto, blockbloom_compression_none, 83, 1},
      {"accurate3_set_150keys_seeded.bbf", 150, 10,
       UINT64_C(0x0123456789abcdef), blockbloom_encoding_auto,
       blockbloom_compression_none, 45, 2},
      {"accurate3_spread_37keys.bbf", 37, 5, 0, blockbloom_encoding_auto,
       blockbloom_compression_none, 685, 2},
  };
  size_t i;
  for (i = 0; i < sizeof(kGolden) / sizeof(kGolden[0]); ++i) {
    TestGolden(&kGolden[i]);
  }
}

static void TestBuilderAndFilter(void) {
  enum { kKeys = 20000 };
  char* err = NULL;
  static char storage[kKeys][24];
  static const char* keys[kKeys];
  static size_t lengths[kKeys];
  static uint64_t hashes[kKeys];
  static unsigned char results[kKeys];
  blockbloom_options_t* options = blockbloom_options_create();
  blockbloom_builder_t* builder;
  blockbloom_filter_t *filter, *by_hash, *empty;
  blockbloom_shape_t shape;
  int i, absent = 0;

  CHECK(options != NULL);
  blockbloom_options_set_fp_rate(options, 0.01);
  blockbloom_options_set_seed(options, 42);
  blockbloom_options_set_compact_small_filters(options, 1);
  builder = blockbloom_builder_create(options, &err);
  CHECK_OK(err);
  for (i = 0; i < kKeys; ++i) {
    lengths[i] = Key(storage[i], "key-", i);
    keys[i] = storage[i];
    hashes[i] = blockbloom_hash_key(keys[i], lengths[i], 42);
    CHECK(blockbloom_builder_add(builder, keys[i], lengths[i]) == 1);
  }
  CHECK(blockbloom_builder_add(builder, keys[kKeys - 1], lengths[kKeys - 1]));
  CHECK(blockbloom_builder_num_keys(builder) == kKeys); /* adjacent dup */
  filter = blockbloom_builder_finish(builder, &err);
  CHECK_OK(err);
  /* The builder is reusable: the same keys by hash give the same filter. */
  for (i = 0; i < kKeys; ++i) {
    CHECK(blockbloom_builder_add_hash(builder, hashes[i]) == 1);
  }
  by_hash = blockbloom_builder_finish(builder, &err);
  CHECK_OK(err);
  /* An empty builder: a filter of nothing. */
  empty = blockbloom_builder_finish(builder, &err);
  CHECK_OK(err);
  blockbloom_builder_destroy(builder);
  if (filter == NULL || by_hash == NULL || empty == NULL) {
    ++failures;
    return;
  }

  CHECK(blockbloom_filter_seed(filter) == 42);
  CHECK(blockbloom_filter_num_keys(filter) == kKeys);
  CHECK(blockbloom_filter_kind(filter) == blockbloom_kind_blocked);
  shape = blockbloom_filter_shape(filter);
  CHECK(blockbloom_filter_size_bytes(filter) ==
        blockbloom_shape_size_bytes(&shape));
  CHECK(blockbloom_filter_estimated_fp_rate(filter) <= 0.01);
  CHECK(blockbloom_filter_is_match_all(filter) == 0);
  CHECK(blockbloom_filter_size_bytes(by_hash) ==
        blockbloom_filter_size_bytes(filter));
  CHECK(blockbloom_filter_num_keys(empty) == 0);
  CHECK(blockbloom_filter_may_contain(empty, "key-1", 5) == 0);
  CHECK(blockbloom_filter_may_contain(empty, NULL, 0) == 0);

  for (i = 0; i < kKeys; ++i) {
    CHECK(blockbloom_filter_may_contain(filter, keys[i], lengths[i]) == 1);
    CHECK(blockbloom_filter_may_contain_hash(filter, hashes[i]) == 1);
    CHECK(blockbloom_filter_may_contain(by_hash, keys[i], lengths[i]) == 1);
  }
  memset(results, 7, sizeof(results));
  blockbloom_filter_may_contain_batch(filter, kKeys, keys, lengths, results);
  for (i = 0; i < kKeys; ++i) CHECK(results[i] == 1);
  memset(results, 7, sizeof(results));
  blockbloom_filter_may_contain_hash_batch(filter, kKeys, hashes, results);
  for (i = 0; i < kKeys; ++i) CHECK(results[i] == 1);
  blockbloom_filter_may_contain_batch(filter, 0, keys, lengths, results);

  /* Absent keys: singles and batches agree, about 1%. */
  for (i = 0; i < kKeys; ++i) {
    lengths[i] = Key(storage[i], "absent-", i);
    hashes[i] = blockbloom_hash_key(keys[i], lengths[i], 42);
  }
  blockbloom_filter_may_contain_batch(filter, kKeys, keys, lengths, results);
  for (i = 0; i < kKeys; ++i) {
    CHECK(results[i] ==
          blockbloom_filter_may_contain(filter, keys[i], lengths[i]));
    absent += results[i];
  }
  CHECK(absent > 0 && absent < kKeys / 50);
  blockbloom_filter_may_contain_hash_batch(filter, kKeys, hashes, results);
  for (i = 0; i < kKeys; ++i) {
    CHECK(results[i] == blockbloom_filter_may_contain_hash(filter, hashes[i]));
  }

  /* Wrap caller-owned bits. */
  {
    blockbloom_filter_t* wrapped;
    size_t len = 0;
    char* bytes;
    blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
    blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_full);
    bytes = blockbloom_filter_serialize(filter, write, &len, &err);
    CHECK_OK(err);
    CHECK(len == blockbloom_filter_size_bytes(filter) + 56);
    /* A full block starts with the bits. */
    wrapped =
        blockbloom_filter_wrap_bits(bytes, len - 56, &shape, 42, kKeys, &err);
    CHECK_OK(err);
    CHECK(wrapped != NULL);
    if (wrapped != NULL) {
      Key(storage[0], "key-", 77);
      CHECK(blockbloom_filter_may_contain(wrapped, storage[0],
                                          strlen(storage[0])));
      CHECK(blockbloom_filter_num_keys(wrapped) == kKeys);
    }
    blockbloom_filter_destroy(wrapped);
    CHECK(blockbloom_filter_wrap_bits(bytes, len - 57, &shape, 42, kKeys,
                                      &err) == NULL);
    CHECK_ERROR(err, "INVALID_ARGUMENT");
    shape.num_probes = 0;
    CHECK(blockbloom_filter_wrap_bits(bytes, len - 56, &shape, 42, kKeys,
                                      &err) == NULL);
    CHECK_ERROR(err, "INVALID_ARGUMENT");
    blockbloom_free(bytes);
    blockbloom_writeoptions_destroy(write);
  }

  /* Builder errors. */
  blockbloom_options_set_fp_rate(options, 1.5);
  CHECK(blockbloom_builder_create(options, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_options_set_fp_rate(options, 0);
  blockbloom_options_set_bits_per_key(options, 0);
  CHECK(blockbloom_builder_create(options, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_options_set_bits_per_key(options, 10);
  shape.num_blocks = 100; /* a fixed shape needs num_probes too */
  shape.num_probes = 0;
  shape.lane_bits = 32;
  blockbloom_options_set_shape(options, &shape);
  CHECK(blockbloom_builder_create(options, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  /* A fixed shape. */
  shape.num_probes = 7;
  blockbloom_options_set_shape(options, &shape);
  builder = blockbloom_builder_create(options, &err);
  CHECK_OK(err);
  CHECK(blockbloom_builder_add(builder, "x", 1));
  {
    blockbloom_filter_t* fixed = blockbloom_builder_finish(builder, &err);
    blockbloom_shape_t got;
    CHECK_OK(err);
    got = blockbloom_filter_shape(fixed);
    CHECK(got.num_blocks == 100 && got.num_probes == 7);
    CHECK(blockbloom_filter_may_contain(fixed, "x", 1));
    blockbloom_filter_destroy(fixed);
  }
  blockbloom_builder_destroy(builder);
  blockbloom_options_set_shape(options, NULL); /* unset again */
  builder = blockbloom_builder_create(options, &err);
  CHECK_OK(err);
  blockbloom_builder_destroy(builder);
  builder = blockbloom_builder_create(NULL, &err); /* defaults are valid */
  CHECK_OK(err);
  CHECK(builder != NULL);
  blockbloom_builder_destroy(builder);

  blockbloom_filter_destroy(filter);
  blockbloom_filter_destroy(by_hash);
  blockbloom_filter_destroy(empty);
  blockbloom_options_destroy(options);
  /* NULL is fine for the destroy functions. */
  blockbloom_filter_destroy(NULL);
  blockbloom_builder_destroy(NULL);
  blockbloom_options_destroy(NULL);
  blockbloom_free(NULL);
}

/* Memory that cannot be had (a 170 GiB Bloom filter, a 256 GiB fixed-shape
   builder): RESOURCE_EXHAUSTED through errptr, no crash. Where the system
   grants the mapping (overcommit), the handle is simply destroyed. */
static void TestOutOfMemory(void) {
  char* err = NULL;
  blockbloom_shape_t shape;
  blockbloom_options_t* options = blockbloom_options_create();
  blockbloom_builder_t* builder;
  blockbloom_bloomfilter_t* bloom =
      blockbloom_bloomfilter_create_with_bits_per_key(UINT64_C(1) << 36, 20,
                                                      NULL, &err);
  if (bloom == NULL) {
    CHECK_ERROR(err, "RESOURCE_EXHAUSTED");
  } else {
    CHECK_OK(err);
    blockbloom_bloomfilter_destroy(bloom);
  }
  shape.num_blocks = UINT64_C(1) << 32;
  shape.num_probes = 7;
  shape.lane_bits = 32;
  blockbloom_options_set_shape(options, &shape);
  builder = blockbloom_builder_create(options, &err);
  if (builder == NULL) {
    CHECK_ERROR(err, "RESOURCE_EXHAUSTED");
  } else {
    CHECK_OK(err);
    blockbloom_builder_destroy(builder);
  }
  blockbloom_options_destroy(options);
}

static void TestMatchAllAndSerializeErrors(void) {
  char* err = NULL;
  size_t len = 12345;
  blockbloom_filter_t* all = blockbloom_filter_create_match_all();
  blockbloom_filter_t* small;
  blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
  blockbloom_options_t* options = blockbloom_options_create();
  CHECK(all != NULL);
  CHECK(blockbloom_filter_is_match_all(all) == 1);
  CHECK(blockbloom_filter_may_contain(all, "anything", 8) == 1);
  CHECK(blockbloom_filter_may_contain_hash(all, 99) == 1);
  CHECK(blockbloom_filter_estimated_fp_rate(all) == 1);
  CHECK(blockbloom_filter_serialize(all, NULL, &len, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(len == 12345);
  blockbloom_filter_destroy(all);

  small = BuildGolden(options, 10);
  blockbloom_writeoptions_set_encoding(write, 99);
  CHECK(blockbloom_filter_serialize(small, write, &len, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_writeoptions_set_encoding(write, -1);
  CHECK(blockbloom_filter_serialize(small, write, &len, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_compact);
  blockbloom_writeoptions_set_compression(write, 7);
  CHECK(blockbloom_filter_serialize(small, write, &len, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_writeoptions_set_compression(write, blockbloom_compression_zstd);
  CHECK(blockbloom_filter_serialize(small, write, &len, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT"); /* zstd needs the full encoding */
  blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_in_place);
  blockbloom_writeoptions_set_compression(write, blockbloom_compression_none);
  CHECK(blockbloom_filter_serialize(small, write, &len, &err) == NULL);
  CHECK(err != NULL); /* not an exact-size filter */
  blockbloom_free(err);
  err = NULL;
  blockbloom_filter_destroy(small);
  blockbloom_writeoptions_destroy(write);
  blockbloom_options_destroy(options);
  blockbloom_writeoptions_destroy(NULL);
  blockbloom_readoptions_destroy(NULL);
}

/* Damaged bytes: every truncation and many bit flips of a serialized filter
   either fail with errptr set, or open into a filter that still answers 1
   for every key added (checksums catch flips in the bits). Never a crash. */
static void TestDamagedBytes(void) {
  char* err = NULL;
  size_t len = 0, i;
  int bit, opened = 0, refused = 0;
  blockbloom_options_t* options = blockbloom_options_create();
  blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
  blockbloom_readoptions_t* read = blockbloom_readoptions_create();
  blockbloom_filter_t* filter = BuildGolden(options, 300);
  char* bytes;
  char* copy;
  blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_full);
  bytes = blockbloom_filter_serialize(filter, write, &len, &err);
  CHECK_OK(err);
  blockbloom_filter_destroy(filter);
  copy = (char*)malloc(len);

  CHECK(blockbloom_filter_open(NULL, 0, NULL, &err) == NULL);
  CHECK_ERROR(err, "DATA_LOSS");
  CHECK(blockbloom_filter_open("garbage", 7, NULL, &err) == NULL);
  CHECK_ERROR(err, "DATA_LOSS");
  for (i = 0; i < len; ++i) { /* every truncation */
    filter = blockbloom_filter_open(bytes, i, read, &err);
    CHECK(filter == NULL);
    CHECK(err != NULL);
    blockbloom_free(err);
    err = NULL;
  }
  for (i = 0; i < len; i += 3) { /* bit flips */
    for (bit = 0; bit < 8; bit += 3) {
      memcpy(copy, bytes, len);
      copy[i] = (char)(copy[i] ^ (1 << bit));
      filter = blockbloom_filter_open(copy, len, read, &err);
      if (filter == NULL) {
        CHECK(err != NULL);
        blockbloom_free(err);
        err = NULL;
        ++refused;
      } else {
        CHECK(err == NULL);
        CHECK(AllPresent(filter, 300));
        blockbloom_filter_destroy(filter);
        ++opened;
      }
    }
  }
  CHECK(refused > 0);
  /* A flip in the bits goes unnoticed without the checksum, and may then
     lose keys: that is what verify_checksum is for. */
  blockbloom_readoptions_set_verify_checksum(read, 0);
  memcpy(copy, bytes, len);
  copy[0] = (char)(copy[0] ^ 1);
  filter = blockbloom_filter_open(copy, len, read, &err);
  CHECK_OK(err);
  CHECK(filter != NULL);
  blockbloom_filter_destroy(filter);
  (void)opened;

  /* Decompression limits. */
  blockbloom_writeoptions_set_compression(write, blockbloom_compression_zstd);
  filter = BuildGolden(options, 300);
  blockbloom_free(bytes);
  bytes = blockbloom_filter_serialize(filter, write, &len, &err);
  CHECK_OK(err);
  blockbloom_filter_destroy(filter);
  blockbloom_readoptions_set_verify_checksum(read, 1);
  blockbloom_readoptions_set_max_decompressed_bytes(read, 64);
  CHECK(blockbloom_filter_open(bytes, len, read, &err) == NULL);
  CHECK_ERROR(err, "RESOURCE_EXHAUSTED");
  blockbloom_readoptions_set_max_decompressed_bytes(read, UINT64_C(1) << 30);
  blockbloom_readoptions_set_max_decompression_ratio(read, 0);
  filter = blockbloom_filter_open(bytes, len, read, &err);
  CHECK_OK(err);
  CHECK(filter != NULL && AllPresent(filter, 300));
  blockbloom_filter_destroy(filter);
  /* In-place blocks need allow_in_place. */
  blockbloom_options_set_exact_size(options, 1);
  filter = BuildGolden(options, 50);
  blockbloom_free(bytes);
  bytes = blockbloom_filter_serialize(filter, NULL, &len, &err);
  CHECK_OK(err);
  blockbloom_filter_destroy(filter);
  CHECK(blockbloom_filter_open(bytes, len, NULL, &err) == NULL);
  CHECK_ERROR(err, "DATA_LOSS");
  blockbloom_readoptions_set_allow_in_place(read, 1);
  filter = blockbloom_filter_open(bytes, len, read, &err);
  CHECK_OK(err);
  CHECK(filter != NULL && AllPresent(filter, 50));
  CHECK(blockbloom_filter_kind(filter) == blockbloom_kind_standard);
  blockbloom_filter_destroy(filter);

  blockbloom_free(bytes);
  free(copy);
  blockbloom_options_destroy(options);
  blockbloom_writeoptions_destroy(write);
  blockbloom_readoptions_destroy(read);
}

/* FilterOptions::kind through C: a ribbon filter is built, serialized in
   its own encoding, reopened as a ribbon; other encodings and kinds are
   refused; a few keys give the blocked kind. */
static void TestRibbonKind(void) {
  char* err = NULL;
  size_t len = 0;
  char* bytes;
  blockbloom_filter_t *built, *opened;
  blockbloom_options_t* options = blockbloom_options_create();
  blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
  CHECK(blockbloom_options_kind(options) == blockbloom_kind_blocked);
  blockbloom_options_set_kind(options, blockbloom_kind_ribbon);
  CHECK(blockbloom_options_kind(options) == blockbloom_kind_ribbon);
  blockbloom_options_set_fp_rate(options, 0.01);
  built = BuildGolden(options, 20000);
  CHECK(built != NULL);
  if (built != NULL) {
    CHECK(blockbloom_filter_kind(built) == blockbloom_kind_ribbon);
    CHECK(AllPresent(built, 20000));
    blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_full);
    CHECK(blockbloom_filter_serialize(built, write, &len, &err) == NULL);
    CHECK_ERROR(err, "INVALID_ARGUMENT");
    blockbloom_writeoptions_set_encoding(write, blockbloom_encoding_ribbon);
    bytes = blockbloom_filter_serialize(built, write, &len, &err);
    CHECK_OK(err);
    /* Under 7 bits per key at 1%: a blocked filter needs 9.7. */
    CHECK(bytes != NULL && len < 20000 * 7 / 8);
    opened = blockbloom_filter_open(bytes, len, NULL, &err);
    CHECK_OK(err);
    CHECK(opened != NULL && AllPresent(opened, 20000));
    CHECK(opened != NULL &&
          blockbloom_filter_kind(opened) == blockbloom_kind_ribbon);
    blockbloom_filter_destroy(opened);
    blockbloom_free(bytes);
    blockbloom_filter_destroy(built);
  }
  built = BuildGolden(options, 30);
  CHECK(built != NULL &&
        blockbloom_filter_kind(built) == blockbloom_kind_blocked);
  blockbloom_filter_destroy(built);
  blockbloom_options_set_kind(options, blockbloom_kind_set);
  CHECK(blockbloom_builder_create(options, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_options_set_kind(options, 260); /* not 4 */
  CHECK(blockbloom_options_kind(options) == 255);
  blockbloom_options_destroy(options);
  blockbloom_writeoptions_destroy(write);
}

static void TestBloomFilter(void) {
  char* err = NULL;
  char key[64];
  int i, absent = 0;
  size_t len = 0;
  char* bytes;
  blockbloom_bloomoptions_t* options = blockbloom_bloomoptions_create();
  blockbloom_bloomfilter_t *a, *b, *c, *copy, *random;
  blockbloom_shape_t shape;

  blockbloom_bloomoptions_set_seed(options, 7);
  a = blockbloom_bloomfilter_create(10000, 0.01, options, &err);
  CHECK_OK(err);
  b = blockbloom_bloomfilter_create(10000, 0.01, options, &err);
  CHECK_OK(err);
  if (a == NULL || b == NULL) {
    ++failures;
    return;
  }
  CHECK(blockbloom_bloomfilter_seed(a) == 7);
  shape = blockbloom_bloomfilter_shape(a);
  CHECK(blockbloom_bloomfilter_size_bytes(a) ==
        blockbloom_shape_size_bytes(&shape));
  for (i = 0; i < 5000; ++i) {
    size_t n = Key(key, "a-", i);
    blockbloom_bloomfilter_add(a, key, n); /* 0 only if a false positive */
    CHECK(blockbloom_bloomfilter_add(a, key, n) == 0); /* second time */
    n = Key(key, "b-", i);
    blockbloom_bloomfilter_add_hash(b, blockbloom_hash_key(key, n, 7));
  }
  CHECK(blockbloom_bloomfilter_num_insertions(a) <= 5000);
  CHECK(blockbloom_bloomfilter_num_insertions(a) > 4900);
  CHECK(blockbloom_bloomfilter_approximate_count(a) > 4800 &&
        blockbloom_bloomfilter_approximate_count(a) < 5200);
  CHECK(blockbloom_bloomfilter_estimated_fp_rate(a) < 0.01);
  for (i = 0; i < 5000; ++i) {
    size_t n = Key(key, "b-", i);
    CHECK(blockbloom_bloomfilter_may_contain(b, key, n));
    CHECK(blockbloom_bloomfilter_may_contain_hash(
        b, blockbloom_hash_key(key, n, 7)));
    absent += blockbloom_bloomfilter_may_contain(a, key, n);
  }
  CHECK(absent < 100);

  /* Serialize, deserialize (copied), merge. */
  bytes = blockbloom_bloomfilter_serialize(a, NULL, &len, &err);
  CHECK_OK(err);
  copy = blockbloom_bloomfilter_deserialize(bytes, len, NULL, NULL, &err);
  CHECK_OK(err);
  memset(bytes, 0, len);
  blockbloom_free(bytes);
  blockbloom_bloomfilter_merge(copy, b, &err);
  CHECK_OK(err);
  for (i = 0; i < 5000; ++i) {
    size_t n = Key(key, "a-", i);
    CHECK(blockbloom_bloomfilter_may_contain(copy, key, n));
    n = Key(key, "b-", i);
    CHECK(blockbloom_bloomfilter_may_contain(copy, key, n));
  }
  CHECK(blockbloom_bloomfilter_approximate_count(copy) > 9500);
  /* Intersect: keys of both stay (none here), the count drops. */
  blockbloom_bloomfilter_intersect(copy, a, &err);
  CHECK_OK(err);
  for (i = 0; i < 5000; ++i) {
    size_t n = Key(key, "a-", i);
    CHECK(blockbloom_bloomfilter_may_contain(copy, key, n));
  }

  /* Mismatched filters: errptr set, dst unchanged. */
  c = blockbloom_bloomfilter_create(100, 0.01, options, &err);
  CHECK_OK(err);
  random = blockbloom_bloomfilter_create(10000, 0.01, NULL, &err);
  CHECK_OK(err);
  blockbloom_bloomfilter_merge(a, c, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_bloomfilter_intersect(a, c, &err);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  blockbloom_bloomfilter_merge(a, random, &err); /* another seed */
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(blockbloom_bloomfilter_may_contain(a, "a-1", 3));

  /* Deserialize errors. */
  CHECK(blockbloom_bloomfilter_deserialize("nope", 4, NULL, NULL, &err) ==
        NULL);
  CHECK_ERROR(err, "DATA_LOSS");
  bytes = blockbloom_bloomfilter_serialize(c, NULL, &len, &err);
  CHECK_OK(err);
  {
    blockbloom_bloomoptions_t* other = blockbloom_bloomoptions_create();
    blockbloom_readoptions_t* read = blockbloom_readoptions_create();
    blockbloom_bloomoptions_set_seed(other, 8);
    CHECK(blockbloom_bloomfilter_deserialize(bytes, len, read, other, &err) ==
          NULL);
    CHECK_ERROR(err, "INVALID_ARGUMENT");
    blockbloom_bloomoptions_destroy(other);
    blockbloom_readoptions_destroy(read);
  }
  blockbloom_free(bytes);
  {
    blockbloom_writeoptions_t* write = blockbloom_writeoptions_create();
    blockbloom_writeoptions_set_encoding(write, 42);
    CHECK(blockbloom_bloomfilter_serialize(c, write, &len, &err) == NULL);
    CHECK_ERROR(err, "INVALID_ARGUMENT");
    blockbloom_writeoptions_destroy(write);
  }

  blockbloom_bloomfilter_clear(a);
  CHECK(blockbloom_bloomfilter_num_insertions(a) == 0);
  CHECK(blockbloom_bloomfilter_approximate_count(a) == 0);
  CHECK(blockbloom_bloomfilter_may_contain(a, "a-1", 3) == 0);

  /* Create errors. */
  CHECK(blockbloom_bloomfilter_create(0, 0.01, NULL, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(blockbloom_bloomfilter_create(10, 1.0, NULL, &err) == NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");
  CHECK(blockbloom_bloomfilter_create(UINT64_MAX, 1e-9, NULL, &err) == NULL);
  CHECK_ERROR(err, "OUT_OF_RANGE");
  CHECK(blockbloom_bloomfilter_create_with_bits_per_key(10, -3, NULL, &err) ==
        NULL);
  CHECK_ERROR(err, "INVALID_ARGUMENT");

  /* Concurrent mode, by bits per key. */
  blockbloom_bloomoptions_set_concurrent(options, 1);
  blockbloom_bloomfilter_destroy(c);
  c = blockbloom_bloomfilter_create_with_bits_per_key(1000, 12.5, options,
                                                      &err);
  CHECK_OK(err);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK(blockbloom_bloomfilter_add(c, "k", 1) == 1);
    CHECK(blockbloom_bloomfilter_may_contain(c, "k", 1) == 1);
  }

  blockbloom_bloomfilter_destroy(a);
  blockbloom_bloomfilter_destroy(b);
  blockbloom_bloomfilter_destroy(c);
  blockbloom_bloomfilter_destroy(copy);
  blockbloom_bloomfilter_destroy(random);
  blockbloom_bloomfilter_destroy(NULL);
  blockbloom_bloomoptions_destroy(options);
  blockbloom_bloomoptions_destroy(NULL);
}

int main(int argc, char** argv) {
  if (argc > 1) testdata_dir = argv[1];
  TestHashAndSimd();
  TestVersion();
  TestSizing();
  TestGoldenFiles();
  TestBuilderAndFilter();
  TestMatchAllAndSerializeErrors();
  TestOutOfMemory();
  TestDamagedBytes();
  TestRibbonKind();
  TestBloomFilter();
  if (failures != 0) {
    fprintf(stderr, "c_api_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_test: all checks passed (SIMD target %s)\n",
         blockbloom_active_simd_target());
  return 0;
}
