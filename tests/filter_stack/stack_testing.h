// Helpers shared by the tests of the Redis module's encodings: stacks built
// from fixed keys, bit-for-bit comparison, golden files.
#ifndef BLOCKBLOOM_TESTS_FILTER_STACK_STACK_TESTING_H_
#define BLOCKBLOOM_TESTS_FILTER_STACK_STACK_TESTING_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module::testing {

// A max_bytes that limits nothing the tests build.
inline constexpr uint64_t kNoLimit = uint64_t{1} << 40;

inline StackOptions Options(uint64_t capacity, double fp_rate, uint64_t seed,
                            uint32_t expansion = 2, bool nonscaling = false) {
  StackOptions o;
  o.capacity = capacity;
  o.fp_rate = fp_rate;
  o.seed = seed;
  o.expansion = expansion;
  o.nonscaling = nonscaling;
  return o;
}

inline std::string Key(const std::string& prefix, uint64_t i) {
  return absl::StrCat(prefix, i);
}

// A stack with `keys` keys `prefix`0, `prefix`1, ... added.
inline FilterStack MakeStack(const StackOptions& options, uint64_t keys,
                             const std::string& prefix = "key-") {
  absl::StatusOr<FilterStack> stack = FilterStack::Create(options);
  EXPECT_TRUE(stack.ok()) << stack.status();
  for (uint64_t i = 0; i < keys; ++i) {
    absl::StatusOr<bool> added = stack->Add(Key(prefix, i));
    EXPECT_TRUE(added.ok()) << added.status();
  }
  return *std::move(stack);
}

// A stack as versions before the split of the rate between layers built it
// (layer 0 at the asked rate, each new layer at half the previous one's):
// what stacks saved by them hold, and how they keep growing once loaded.
inline FilterStack MakeLegacyStack(const StackOptions& options, uint64_t keys,
                                   const std::string& prefix = "key-") {
  absl::StatusOr<Layer> first =
      Layer::Create(options.capacity, options.fp_rate);
  EXPECT_TRUE(first.ok()) << first.status();
  std::vector<Layer> layers;
  layers.push_back(*std::move(first));
  FilterStack stack(options, std::move(layers));
  for (uint64_t i = 0; i < keys; ++i) {
    absl::StatusOr<bool> added = stack.Add(Key(prefix, i));
    EXPECT_TRUE(added.ok()) << added.status();
  }
  return stack;
}

// Options, layers, counts, bits and which pieces are allocated are equal.
inline void ExpectSameStack(const FilterStack& a, const FilterStack& b) {
  EXPECT_EQ(a.options().fp_rate, b.options().fp_rate);
  EXPECT_EQ(a.options().capacity, b.options().capacity);
  EXPECT_EQ(a.options().expansion, b.options().expansion);
  EXPECT_EQ(a.options().nonscaling, b.options().nonscaling);
  EXPECT_EQ(a.options().seed, b.options().seed);
  ASSERT_EQ(a.layers().size(), b.layers().size());
  for (size_t i = 0; i < a.layers().size(); ++i) {
    const Layer& x = a.layers()[i];
    const Layer& y = b.layers()[i];
    EXPECT_EQ(x.shape(), y.shape()) << "layer " << i;
    EXPECT_EQ(x.capacity(), y.capacity()) << "layer " << i;
    EXPECT_EQ(x.fp_rate(), y.fp_rate()) << "layer " << i;
    EXPECT_EQ(x.count(), y.count()) << "layer " << i;
    ASSERT_EQ(x.table().num_pieces(), y.table().num_pieces());
    for (size_t p = 0; p < x.table().num_pieces(); ++p) {
      const uint8_t* u = x.table().Piece(p);
      const uint8_t* v = y.table().Piece(p);
      ASSERT_EQ(u == nullptr, v == nullptr) << "layer " << i << " piece " << p;
      if (u != nullptr) {
        ASSERT_EQ(0, std::memcmp(u, v, x.table().PieceSize(p)))
            << "layer " << i << " piece " << p;
      }
    }
  }
}

// Every key `prefix`0 .. `prefix`(keys-1) may be present.
inline void ExpectKeys(const FilterStack& stack, uint64_t keys,
                       const std::string& prefix = "key-") {
  for (uint64_t i = 0; i < keys; ++i) {
    ASSERT_TRUE(stack.MayContain(Key(prefix, i))) << Key(prefix, i);
  }
}

// How many of "absent-0" .. "absent-9999" the stack answers "may contain"
// for: pins the bits of a golden stack.
inline int AbsentPositives(const FilterStack& stack) {
  int n = 0;
  for (int i = 0; i < 10000; ++i) n += stack.MayContain(Key("absent-", i));
  return n;
}

#ifdef BLOCKBLOOM_TESTDATA_DIR
inline std::string GoldenPath(const std::string& file) {
  return std::string(BLOCKBLOOM_TESTDATA_DIR) + "/" + file;
}

// The golden file's bytes; with BLOCKBLOOM_UPDATE_GOLDEN=1 in the
// environment, first writes `bytes` to it (an intended format change).
inline std::string Golden(const std::string& file, const std::string& bytes) {
  if (const char* update = std::getenv("BLOCKBLOOM_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(GoldenPath(file), std::ios::binary) << bytes;
  }
  std::ifstream in(GoldenPath(file), std::ios::binary);
  EXPECT_TRUE(in.good()) << GoldenPath(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
#endif

}  // namespace blockbloom::redis_module::testing

#endif  // BLOCKBLOOM_TESTS_FILTER_STACK_STACK_TESTING_H_
