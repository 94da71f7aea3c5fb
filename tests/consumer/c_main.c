/* A C99 program against the installed C API (blockbloom/c.h) and its
   LevelDB policy through LevelDB's own C API, built by tests/consumer/run
   with CMake, pkg-config and Bazel as main.cc is. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <leveldb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom/c.h"

int main(void) {
  char* err = NULL;
  blockbloom_builder_t* builder = blockbloom_builder_create(NULL, &err);
  blockbloom_filter_t* filter;
  leveldb_filterpolicy_t* policy;
  leveldb_options_t* options;
  leveldb_t* db;
  char dir[] = "/tmp/blockbloom_c_consumer.XXXXXX";
  char* value;
  size_t len = 0;
  if (builder == NULL) {
    fprintf(stderr, "builder: %s\n", err);
    return 1;
  }
  blockbloom_builder_add(builder, "user:42", 7);
  filter = blockbloom_builder_finish(builder, &err);
  if (filter == NULL || !blockbloom_filter_may_contain(filter, "user:42", 7)) {
    fprintf(stderr, "filter: %s\n", err != NULL ? err : "false negative");
    return 1;
  }
  blockbloom_filter_destroy(filter);
  blockbloom_builder_destroy(builder);

  if (mkdtemp(dir) == NULL) return 1;
  policy = blockbloom_leveldb_filterpolicy_create(10);
  options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_options_set_filter_policy(options, policy);
  db = leveldb_open(options, dir, &err);
  if (db == NULL) {
    fprintf(stderr, "leveldb_open: %s\n", err);
    return 1;
  }
  {
    leveldb_writeoptions_t* w = leveldb_writeoptions_create();
    leveldb_readoptions_t* r = leveldb_readoptions_create();
    leveldb_put(db, w, "k", 1, "v", 1, &err);
    leveldb_compact_range(db, NULL, 0, NULL, 0);
    value = leveldb_get(db, r, "k", 1, &len, &err);
    if (err != NULL || value == NULL || len != 1 || value[0] != 'v') {
      fprintf(stderr, "leveldb_get failed\n");
      return 1;
    }
    leveldb_free(value);
    leveldb_writeoptions_destroy(w);
    leveldb_readoptions_destroy(r);
  }
  leveldb_close(db);
  leveldb_destroy_db(options, dir, &err);
  leveldb_options_destroy(options);
  leveldb_filterpolicy_destroy(policy);
  printf("c_consumer: OK (%s)\n", blockbloom_active_simd_target());
  return 0;
}
