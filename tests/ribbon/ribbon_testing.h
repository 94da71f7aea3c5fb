// What the ribbon tests share: keys and their hashes, a ribbon built from
// them, and its payload copied to an odd address (any alignment must work)
// and opened there, as a file's bytes would be.
#ifndef BLOCKBLOOM_TESTS_RIBBON_RIBBON_TESTING_H_
#define BLOCKBLOOM_TESTS_RIBBON_RIBBON_TESTING_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "gtest/gtest.h"
#include "src/core/filter_access.h"
#include "src/core/key_hash.h"
#include "src/ribbon/builder.h"
#include "src/ribbon/ribbon_filter.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon::ribbon_testing {

// Key i of a set: 16 bytes, distinct for distinct i. Absent keys are taken
// from i >= 2^40.
inline std::string Key(uint64_t i) {
  const uint64_t a = i * 0x9E3779B97F4A7C15ull;
  const uint64_t b = ~i;
  std::string key(16, '\0');
  std::memcpy(key.data(), &a, 8);
  std::memcpy(key.data() + 8, &b, 8);
  return key;
}
inline constexpr uint64_t kAbsent = uint64_t{1} << 40;

inline std::vector<uint64_t> Hashes(uint64_t first, size_t n, uint64_t seed) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = Hash64(Key(first + i), seed);
  return hashes;
}

inline const RibbonView& ViewOf(const Filter& filter) {
  return internal::ViewOf<RibbonView>(FilterAccess::Ref(filter));
}

// A built ribbon, and the same payload reopened from a copy at an odd
// address (the payload ends the allocation: ASan sees any read past it).
struct Reopened {
  std::unique_ptr<uint8_t[]> storage;
  Filter filter = Filter::MatchAll();
};

inline Reopened ReopenUnaligned(const Filter& built) {
  Reopened out;
  const absl::Span<const uint8_t> bits = built.bits();
  out.storage.reset(new uint8_t[bits.size() + 1]);
  if (!bits.empty())
    std::memcpy(out.storage.get() + 1, bits.data(), bits.size());
  absl::StatusOr<Filter> opened =
      OpenRibbonFilter(absl::MakeConstSpan(out.storage.get() + 1, bits.size()),
                       LayoutOf(ViewOf(built)), built.seed(), built.num_keys());
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (opened.ok()) out.filter = *std::move(opened);
  return out;
}

// Builds from a copy of `hashes` (the build permutes its input).
inline absl::StatusOr<Filter> Build(std::vector<uint64_t> hashes,
                                    const RibbonTarget& target, uint64_t seed,
                                    const RibbonBuildOptions& options = {}) {
  return BuildRibbon(absl::MakeSpan(hashes), target, seed, options);
}

inline RibbonTarget Rate(double fp_rate) {
  RibbonTarget target;
  target.fp_rate = fp_rate;
  return target;
}
inline RibbonTarget Budget(double bits_per_key) {
  RibbonTarget target;
  target.bits_per_key = bits_per_key;
  return target;
}

}  // namespace blockbloom::internal::ribbon::ribbon_testing

#endif  // BLOCKBLOOM_TESTS_RIBBON_RIBBON_TESTING_H_
