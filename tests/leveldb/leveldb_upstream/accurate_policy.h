// blockbloom's LevelDB policy writing the accurate encoding
// (FilterPolicy::Options::fewer_false_positives) as a drop-in for
// leveldb::NewBloomFilterPolicy(N): swap_policy.cmake puts calls to this
// where LevelDB's tests create the built-in policy (run --mode=accurate), and
// suite_default_policy.cc makes it the suite's default. The Options overload
// of blockbloom::NewLevelDBFilterPolicy returns a StatusOr of a unique_ptr;
// the tests hold and delete a raw pointer, as NewBloomFilterPolicy's.
#ifndef BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_POLICY_H_
#define BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_POLICY_H_

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "blockbloom/leveldb.h"

namespace leveldb_upstream {

inline const leveldb::FilterPolicy* NewAccurateLevelDBFilterPolicy(int bits) {
  blockbloom::FilterPolicy::Options options;
  options.bits_per_key = bits;
  options.fewer_false_positives = true;
  absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>> policy =
      blockbloom::NewLevelDBFilterPolicy(options);
  // Not a test outcome to carry on from: a test given no policy (or the
  // default mode's) would pass without testing the accurate encoding.
  if (!policy.ok()) {
    std::fprintf(stderr, "NewAccurateLevelDBFilterPolicy(%d): %s\n", bits,
                 std::string(policy.status().message()).c_str());
    std::abort();
  }
  return policy->release();
}

}  // namespace leveldb_upstream

#endif  // BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_UPSTREAM_ACCURATE_POLICY_H_
