/* blockbloom's LevelDB policy for LevelDB's C API writing the accurate
   encoding (fewer_false_positives) as a drop-in for
   leveldb_filterpolicy_create_bloom(N): swap_policy.cmake puts calls to
   this where db/c_test.c creates the built-in policy (run --mode=accurate).
   Plain C, as the test is. */
#ifndef BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_C_POLICY_H_
#define BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_C_POLICY_H_

#include <stdio.h>
#include <stdlib.h>

#include "blockbloom/c.h"

static struct leveldb_filterpolicy_t* lu_accurate_c_filterpolicy_create(
    int bits) {
  char* err = NULL;
  struct leveldb_filterpolicy_t* policy =
      blockbloom_leveldb_filterpolicy_create_with_options(bits, 0, 1, &err);
  /* Not a test outcome to carry on from: without the policy the test would
     pass without testing it. */
  if (policy == NULL) {
    fprintf(stderr, "lu_accurate_c_filterpolicy_create(%d): %s\n", bits,
            err != NULL ? err : "out of memory");
    abort();
  }
  return policy;
}

#endif /* BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_C_POLICY_H_ */
