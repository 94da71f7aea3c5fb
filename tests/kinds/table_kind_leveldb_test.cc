// The table kind (table_kind.cc) answers through the LevelDB adapter's
// policy, which knows nothing of it: the format's registry reads its block.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <memory>
#include <string>

#include "blockbloom/leveldb.h"
#include "gtest/gtest.h"
#include "tests/kinds/table_kind_engines_test.h"

namespace blockbloom::testing {
namespace {

TEST(TableKindLevelDBTest, PolicyAnswers) {
  const std::string block = TableBlock(2000);
  std::unique_ptr<const leveldb::FilterPolicy> policy(
      NewLevelDBFilterPolicy(10));
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(policy->KeyMayMatch(TableKey(i), block)) << i;
  }
  int false_positives = 0;
  for (int i = 2000; i < 12000; ++i) {
    false_positives += policy->KeyMayMatch(TableKey(i), block);
  }
  EXPECT_LE(false_positives, 1);
  // Damaged, it fails open.
  std::string damaged = block;
  damaged[10] ^= 1;
  EXPECT_TRUE(policy->KeyMayMatch("anything", damaged));
}

}  // namespace
}  // namespace blockbloom::testing
