// Exhaustive corruption: for small filters in every checksummed encoding,
// every single-bit flip and every truncation either is rejected with a
// Status or opens to a filter that still answers "may contain" for every
// stored key. Never a crash, never a false negative.
//
// The in-place encoding has no checksum of its own (the engine's block
// checksum protects it: docs/FORMAT.md, "Integrity"): there a flip or a
// truncation must never crash or read outside the block, and the test
// counts, for the documentation, how many of them lose a stored key.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

struct Case {
  const char* name;
  int keys;
  uint64_t seed;
  Encoding encoding;
  Compression compression;
  // > 0: an exact-size filter at this many bits/key (the LevelDB adapter's),
  // in the accurate encoding (fewer_false_positives) unless `in_place`.
  double exact_size_bits_per_key = 0;
  bool in_place = false;
  bool ribbon = false;       // FilterOptions::kind = kRibbon
  FilterOrigin origin = {};  // WriteOptions::origin
};

class CorruptionTest : public ::testing::TestWithParam<Case> {};

TEST_P(CorruptionTest, EveryBitFlipAndTruncationIsCaughtOrHarmless) {
  const Case& c = GetParam();
  FilterOptions options;
  options.seed = c.seed;
  if (c.exact_size_bits_per_key > 0) {
    options.exact_size = true;
    options.fewer_false_positives = !c.in_place;
    options.bits_per_key = c.exact_size_bits_per_key;
  }
  if (c.ribbon) options.kind = FilterKind::kRibbon;
  FilterBuilder builder = *FilterBuilder::Create(options);
  std::vector<std::string> keys;
  for (int i = 0; i < c.keys; ++i) {
    keys.push_back(absl::StrCat("stored", i));
    builder.Add(keys.back());
  }
  Filter filter = *builder.Finish();
  ASSERT_EQ(filter.kind() == FilterKind::kRibbon, c.ribbon);
  WriteOptions write;
  write.encoding = c.encoding;
  write.compression = c.compression;
  write.origin = c.origin;
  const std::string good = *SerializeFilter(filter, write);
  ReadOptions read;
  read.seed = c.seed;  // exact-size blocks do not store it
  // In-place blocks are read only where asked for; everywhere else a
  // damaged block that ends like one is refused.
  read.allow_in_place = c.in_place;

  int lost = 0;  // damaged blocks that lost a stored key (in-place only)
  auto check = [&](const std::string& bytes, const std::string& what) {
    // Copy to an exactly-sized buffer so that ASan sees any overread.
    std::vector<uint8_t> exact(bytes.begin(), bytes.end());
    absl::StatusOr<Filter> opened =
        OpenFilter(absl::MakeConstSpan(exact.data(), exact.size()), read);
    if (!opened.ok()) {
      EXPECT_FALSE(opened.status().message().empty()) << what;
      return false;
    }
    Filter f = OpenFilterOrMatchAll(
        absl::MakeConstSpan(exact.data(), exact.size()), read);
    if (c.in_place) {
      bool any_lost = false;
      for (const std::string& key : keys) {
        any_lost |= !opened->MayContain(key);
        EXPECT_EQ(f.MayContain(key), opened->MayContain(key)) << what;
      }
      lost += any_lost;
      return true;
    }
    for (const std::string& key : keys) {
      EXPECT_TRUE(opened->MayContain(key)) << what << ": lost " << key;
    }
    // Fail-open path: never a false negative either.
    for (const std::string& key : keys) EXPECT_TRUE(f.MayContain(key)) << what;
    return true;
  };

  int flips = 0, rejected = 0;
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      ++flips;
      rejected += !check(bad, absl::StrCat("flip byte ", byte, " bit ", bit));
    }
  }
  int truncations = 0;
  for (size_t len = 0; len < good.size(); ++len) {
    ++truncations;
    const bool accepted =
        check(good.substr(0, len), absl::StrCat("truncated to ", len));
    if (!c.in_place) {
      EXPECT_FALSE(accepted) << "a truncated filter was accepted";
    }
  }
  const bool extended = check(good + "x", "extended by one byte");
  if (!c.in_place) {
    EXPECT_FALSE(extended);
  }
  std::printf(
      "%s: %zu bytes, %d of %d bit flips rejected, %d truncations "
      "tried, %d damaged blocks lost a stored key\n",
      c.name, good.size(), rejected, flips, truncations, lost);
  if (c.in_place) {
    // Only a flip that clears a set bit, or one that changes the tag's k,
    // can lose a key: setting a clear bit never does.
    EXPECT_LT(lost, flips);
    return;
  }
  // Every flip is caught by the checksums (CRC-16 catches all single-bit
  // errors; 32-bit XXH3 misses one in 2^32).
  EXPECT_EQ(rejected, flips);
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, CorruptionTest,
    ::testing::Values(
        Case{"compact", 37, 0, Encoding::kCompact, Compression::kNone},
        Case{"compact_seeded", 20, 42, Encoding::kCompact, Compression::kNone},
        Case{"compact_32bit_lanes", 100, 0, Encoding::kCompact,
             Compression::kNone},
        // Format 7: the compact encoding with the key count and an origin,
        // without and with a seed.
        Case{"compact_origin",
             37,
             0,
             Encoding::kAuto,
             Compression::kNone,
             0,
             false,
             false,
             {.level = 3, .bottommost = true, .group = 517}},
        Case{"compact_origin_seeded",
             20,
             42,
             Encoding::kCompact,
             Compression::kNone,
             0,
             false,
             false,
             {.level = 0, .bottommost = false, .group = 1}},
        Case{"full", 20, 7, Encoding::kFull, Compression::kNone},
        Case{"full_zstd", 20, 0, Encoding::kFull, Compression::kZstd},
        // Exact-size blocks, as the LevelDB adapter writes them: a Bloom filter
        // (5 bits/key), fingerprint sets (10), a seeded one.
        Case{"accurate_spread", 37, 0, Encoding::kAuto, Compression::kNone, 5},
        Case{"accurate_set", 37, 0, Encoding::kAuto, Compression::kNone, 10},
        Case{"accurate_set_150", 150, 0, Encoding::kAuto, Compression::kNone,
             10},
        Case{"accurate_seeded", 20, 42, Encoding::kAuto, Compression::kNone,
             16},
        Case{"accurate_empty", 0, 0, Encoding::kAuto, Compression::kNone, 10},
        // In-place blocks, as the LevelDB adapter writes them by default.
        Case{"in_place", 37, 0, Encoding::kAuto, Compression::kNone, 10, true},
        Case{"in_place_low_bits", 37, 0, Encoding::kAuto, Compression::kNone, 4,
             true},
        Case{"in_place_seeded", 150, 42, Encoding::kAuto, Compression::kNone,
             10, true},
        Case{"in_place_empty", 0, 0, Encoding::kAuto, Compression::kNone, 10,
             true},
        // Ribbon filters (the short footer): two layers (layer 0 of 2,500
        // keys bumps ~5% to a second) and a seed, one layer without, and
        // none (no keys: the footer alone). The long footer of version 5:
        // ribbon_encoding_test.
        Case{"ribbon", 2500, 3, Encoding::kAuto, Compression::kNone, 0, false,
             true},
        Case{"ribbon_one_layer", 600, 0, Encoding::kAuto, Compression::kNone, 0,
             false, true},
        Case{"ribbon_empty", 0, 0, Encoding::kAuto, Compression::kNone, 0,
             false, true}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace blockbloom
