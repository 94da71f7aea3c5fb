// The table kind (table_kind.cc) answers through the RocksDB adapter's
// reader, single keys and MultiGet's batches, which knows nothing of it:
// the format's registry reads its block.
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>

#include <memory>
#include <string>
#include <vector>

#include "blockbloom/rocksdb.h"
#include "gtest/gtest.h"
#include "src/rocksdb/filter_bits.h"
#include "tests/kinds/table_kind_engines_test.h"

namespace blockbloom::testing {
namespace {

TEST(TableKindRocksDBTest, ReaderAnswers) {
  const std::string block = TableBlock(2000);
  auto policy = NewRocksDBFilterPolicy(10);
  std::unique_ptr<rocksdb::FilterBitsReader> reader(
      policy->GetFilterBitsReader(rocksdb::Slice(block)));
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(reader->MayMatch(TableKey(i))) << i;
  }
  int false_positives = 0;
  for (int i = 2000; i < 12000; ++i) {
    false_positives += reader->MayMatch(TableKey(i));
  }
  EXPECT_LE(false_positives, 1);
  // Batches of every size the reader splits differently (under and over
  // its batch threshold), present keys only.
  for (int n : {1, 3, 8, 32, 100}) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back(TableKey(i * 7));
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rocksdb::Slice*> pointers;
    for (rocksdb::Slice& s : slices) pointers.push_back(&s);
    std::unique_ptr<bool[]> may_match(new bool[n]);
    reader->MayMatch(n, pointers.data(), may_match.get());
    for (int i = 0; i < n; ++i) EXPECT_TRUE(may_match[i]) << n << " " << i;
  }
  // Damaged, it fails open.
  std::string damaged = block;
  damaged[10] ^= 1;
  std::unique_ptr<rocksdb::FilterBitsReader> fails_open(
      policy->GetFilterBitsReader(rocksdb::Slice(damaged)));
  EXPECT_TRUE(fails_open->MayMatch("anything"));
}

}  // namespace
}  // namespace blockbloom::testing
