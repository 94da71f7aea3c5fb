// The installed LevelDB adapter: the filter policy builds a filter block and
// answers for its keys, linked through blockbloom::leveldb (or
// blockbloom-leveldb.pc) alone.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "blockbloom/leveldb.h"

int main() {
  std::unique_ptr<const leveldb::FilterPolicy> policy(
      blockbloom::NewLevelDBFilterPolicy(10));
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("user:" + std::to_string(i));
  std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
  std::string block;
  policy->CreateFilter(slices.data(), static_cast<int>(slices.size()), &block);
  for (const leveldb::Slice& key : slices) {
    if (!policy->KeyMayMatch(key, block)) {
      std::fprintf(stderr, "false negative for %s\n", key.ToString().c_str());
      return 1;
    }
  }
  std::printf("leveldb_consumer: policy %s, %zu-byte filter for 100 keys\n",
              policy->Name(), block.size());
  return 0;
}
