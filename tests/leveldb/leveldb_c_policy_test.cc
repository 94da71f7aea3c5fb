// The LevelDB policy of the C API (blockbloom_leveldb_filterpolicy_create*,
// blockbloom/c.h) against the C++ one (NewLevelDBFilterPolicy): the same
// keys written through LevelDB's C API with the C policy and through its C++
// API with the C++ policy give the same filter blocks under the same name,
// and a DB written from C is read from C++ with its filters in use (and the
// other way round), so C and C++ programs share databases.
#include <leveldb/c.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "blockbloom/c.h"
#include "blockbloom/leveldb.h"
#include "gtest/gtest.h"
#include "tests/leveldb/leveldb_table.h"
#include "tests/policy/engine_test_util.h"

namespace blockbloom {
namespace {

constexpr int kKeys = 20000;

struct Config {
  const char* name;
  double bits_per_key;
  uint64_t seed;
  bool fewer_false_positives;
};

const Config kConfigs[] = {
    {"default", 10, 0, false},
    {"seeded", 7.5, 0x1234, false},
    {"accurate", 10, 99, true},
};

// Counts the probes a filter answered "no" to, forwarding everything else.
class CountingPolicy final : public leveldb::FilterPolicy {
 public:
  explicit CountingPolicy(const leveldb::FilterPolicy* base) : base_(base) {}
  const char* Name() const override { return base_->Name(); }
  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override {
    base_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    const bool match = base_->KeyMayMatch(key, filter);
    if (!match) ++rejected;
    return match;
  }
  mutable std::atomic<int> rejected{0};

 private:
  const leveldb::FilterPolicy* base_;
};

std::unique_ptr<const leveldb::FilterPolicy> CxxPolicy(const Config& c) {
  FilterPolicy::Options options;
  options.bits_per_key = c.bits_per_key;
  options.seed = c.seed;
  options.fewer_false_positives = c.fewer_false_positives;
  absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>> policy =
      NewLevelDBFilterPolicy(options);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return *std::move(policy);
}

leveldb_filterpolicy_t* CPolicy(const Config& c) {
  char* err = nullptr;
  leveldb_filterpolicy_t* policy =
      blockbloom_leveldb_filterpolicy_create_with_options(
          c.bits_per_key, c.seed, c.fewer_false_positives, &err);
  EXPECT_EQ(err, nullptr) << err;
  blockbloom_free(err);
  return policy;
}

std::string Key(int i) { return testing::PresentKey(i); }

// Writes the keys through LevelDB's C API and compacts to one table.
void WriteWithC(const std::string& path, leveldb_filterpolicy_t* policy) {
  char* err = nullptr;
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_options_set_filter_policy(options, policy);
  leveldb_t* db = leveldb_open(options, path.c_str(), &err);
  ASSERT_EQ(err, nullptr) << err;
  leveldb_writeoptions_t* write = leveldb_writeoptions_create();
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = Key(i);
    leveldb_put(db, write, key.data(), key.size(), "v", 1, &err);
    ASSERT_EQ(err, nullptr) << err;
  }
  leveldb_compact_range(db, nullptr, 0, nullptr, 0);
  leveldb_writeoptions_destroy(write);
  leveldb_close(db);
  leveldb_options_destroy(options);
}

void WriteWithCxx(const std::string& path,
                  const leveldb::FilterPolicy* policy) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy;
  leveldb::DB* raw = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(options, path, &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), "v").ok());
  }
  db->CompactRange(nullptr, nullptr);
}

// Every filter block of the DB's tables stored under `policy_name`, in file
// name order.
std::vector<std::string> FilterBlocks(const std::string& path,
                                      const std::string& policy_name) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() == ".ldb") {
      names.push_back(entry.path().string());
    }
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> blocks;
  for (const std::string& name : names) {
    std::ifstream in(name, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    const std::string table = content.str();
    internal::LevelDBFilterBlock block;
    if (internal::FindLevelDBFilterBlock(table, policy_name, &block)) {
      blocks.push_back(table.substr(block.offset, block.size));
    }
  }
  return blocks;
}

// Reads every key (present and absent) with the C++ API; returns how many
// absent keys the filters rejected.
int ReadWithCxx(const std::string& path, const leveldb::FilterPolicy* policy) {
  CountingPolicy counting(policy);
  leveldb::Options options;
  options.filter_policy = &counting;
  leveldb::DB* raw = nullptr;
  EXPECT_TRUE(leveldb::DB::Open(options, path, &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  std::string value;
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_TRUE(db->Get(leveldb::ReadOptions(), Key(i), &value).ok()) << i;
    EXPECT_TRUE(db->Get(leveldb::ReadOptions(), testing::AbsentKey(i), &value)
                    .IsNotFound());
  }
  return counting.rejected;
}

// Reads every present key with the C API.
void ReadWithC(const std::string& path, leveldb_filterpolicy_t* policy) {
  char* err = nullptr;
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_filter_policy(options, policy);
  leveldb_t* db = leveldb_open(options, path.c_str(), &err);
  ASSERT_EQ(err, nullptr) << err;
  leveldb_readoptions_t* read = leveldb_readoptions_create();
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = Key(i);
    size_t len = 0;
    char* value = leveldb_get(db, read, key.data(), key.size(), &len, &err);
    ASSERT_EQ(err, nullptr) << err;
    ASSERT_NE(value, nullptr) << key;
    EXPECT_EQ(std::string(value, len), "v");
    leveldb_free(value);
    const std::string absent = testing::AbsentKey(i);
    EXPECT_EQ(leveldb_get(db, read, absent.data(), absent.size(), &len, &err),
              nullptr);
    ASSERT_EQ(err, nullptr) << err;
  }
  leveldb_readoptions_destroy(read);
  leveldb_close(db);
  leveldb_options_destroy(options);
}

class LevelDBCPolicyTest : public ::testing::TestWithParam<Config> {};

TEST_P(LevelDBCPolicyTest, SameFiltersAndSharedDatabases) {
  const Config& config = GetParam();
  testing::ScratchDir dir(std::string("leveldb_c_") + config.name);
  const std::string c_path = dir.path() + "/c";
  const std::string cxx_path = dir.path() + "/cxx";
  leveldb_filterpolicy_t* c_policy = CPolicy(config);
  ASSERT_NE(c_policy, nullptr);
  std::unique_ptr<const leveldb::FilterPolicy> cxx_policy = CxxPolicy(config);
  ASSERT_NE(cxx_policy, nullptr);

  WriteWithC(c_path, c_policy);
  WriteWithCxx(cxx_path, cxx_policy.get());
  const std::vector<std::string> c_blocks =
      FilterBlocks(c_path, cxx_policy->Name());
  const std::vector<std::string> cxx_blocks =
      FilterBlocks(cxx_path, cxx_policy->Name());
  ASSERT_FALSE(c_blocks.empty());
  EXPECT_EQ(c_blocks, cxx_blocks);

  // Written from C, read from C++ with the filters in use; and back.
  EXPECT_GT(ReadWithCxx(c_path, cxx_policy.get()), kKeys / 2);
  ReadWithC(cxx_path, c_policy);
  ReadWithC(c_path, c_policy);
  leveldb_filterpolicy_destroy(c_policy);
}

INSTANTIATE_TEST_SUITE_P(Configs, LevelDBCPolicyTest,
                         ::testing::ValuesIn(kConfigs),
                         [](const ::testing::TestParamInfo<Config>& param) {
                           return std::string(param.param.name);
                         });

TEST(LevelDBCPolicy, DefaultIsNewLevelDBFilterPolicy) {
  testing::ScratchDir dir("leveldb_c_default");
  leveldb_filterpolicy_t* c_policy = blockbloom_leveldb_filterpolicy_create(10);
  ASSERT_NE(c_policy, nullptr);
  std::unique_ptr<const leveldb::FilterPolicy> cxx_policy(
      NewLevelDBFilterPolicy(10));
  WriteWithC(dir.path() + "/c", c_policy);
  WriteWithCxx(dir.path() + "/cxx", cxx_policy.get());
  const std::vector<std::string> c_blocks =
      FilterBlocks(dir.path() + "/c", cxx_policy->Name());
  ASSERT_FALSE(c_blocks.empty());
  EXPECT_EQ(c_blocks, FilterBlocks(dir.path() + "/cxx", cxx_policy->Name()));
  leveldb_filterpolicy_destroy(c_policy);
  // Below 1 bit/key (and NaN) is taken as 1, as in C++.
  leveldb_filterpolicy_destroy(blockbloom_leveldb_filterpolicy_create(0));
  leveldb_filterpolicy_destroy(blockbloom_leveldb_filterpolicy_create(NAN));
}

TEST(LevelDBCPolicy, InvalidOptionsSetErrptr) {
  char* err = nullptr;
  EXPECT_EQ(blockbloom_leveldb_filterpolicy_create_with_options(-1, 0, 0, &err),
            nullptr);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(std::string(err).rfind("INVALID_ARGUMENT", 0), 0u) << err;
  // A second error replaces (and frees) the first.
  EXPECT_EQ(
      blockbloom_leveldb_filterpolicy_create_with_options(NAN, 0, 1, &err),
      nullptr);
  ASSERT_NE(err, nullptr);
  blockbloom_free(err);
}

}  // namespace
}  // namespace blockbloom
