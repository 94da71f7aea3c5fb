// Golden vectors: filters built from fixed keys and seeds, in every encoding,
// stored in tests/testdata/. The test rebuilds each and compares it byte for
// byte, then opens the stored file and checks its answers, so that any change
// to the hash, the layout, the sizing or the format fails here.
//
// After an intended format change (a new version), regenerate with
//   BLOCKBLOOM_UPDATE_GOLDEN=1 build/release/tests/golden_test
// and update the pinned false-positive counts below and docs/FORMAT.md.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/format.h"
#include "gtest/gtest.h"

#ifndef BLOCKBLOOM_TESTDATA_DIR
#error "BLOCKBLOOM_TESTDATA_DIR must name tests/testdata"
#endif

namespace blockbloom {
namespace {

// How a golden filter is built (FilterOptions::exact_size and
// fewer_false_positives; the encoding is then kAuto).
enum ExactSize { kNotExactSize, kInPlace, kFewerFalsePositives };

struct Golden {
  const char* file;
  int keys;
  double bits_per_key;
  uint64_t seed;
  Encoding encoding;
  Compression compression;
  // Of the 10,000 absent keys "absent-0" .. "absent-9999", how many the
  // filter answers "may contain" for: pins the bits, not just the bytes.
  int absent_positives;
  ExactSize exact_size = kNotExactSize;
  // A block of an earlier format version, which this one still reads but
  // no longer writes: opened and checked, not rebuilt.
  bool read_only = false;
  // Built with FilterOptions::kind = kRibbon (the ribbon encoding).
  bool ribbon = false;
  // Written with this origin (format 4.1, full encoding): checked when read.
  FilterOrigin origin = {};
};

// The cases, documented in tests/testdata/README.md.
const Golden kGolden[] = {
    {"compact_37keys.bbf", 37, 10, 0, Encoding::kAuto, Compression::kNone, 72},
    {"compact_100keys_seeded.bbf", 100, 10, 0x0123456789abcdef, Encoding::kAuto,
     Compression::kNone, 63},
    {"compact_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0},
    // Format version 7: the compact encoding with an origin and the key
    // count (what the RocksDB adapter writes for small tables' filters).
    {"compact7_37keys_origin.bbf",
     37,
     10,
     0,
     Encoding::kAuto,
     Compression::kNone,
     72,
     kNotExactSize,
     false,
     false,
     {.level = 3, .bottommost = true, .group = 517}},
    {"compact7_100keys_seeded_origin.bbf",
     100,
     10,
     0x0123456789abcdef,
     Encoding::kAuto,
     Compression::kNone,
     63,
     kNotExactSize,
     false,
     false,
     {.level = 0, .bottommost = false, .group = 1}},
    {"full_10keys_narrow.bbf", 10, 10, 0, Encoding::kFull, Compression::kNone,
     54},
    {"full_5000keys.bbf", 5000, 10, 0, Encoding::kFull, Compression::kNone, 84},
    {"full_5000keys_zstd.bbf", 5000, 10, 0, Encoding::kFull, Compression::kZstd,
     84},
    {"full_2000keys_sparse_zstd.bbf", 2000, 100, 99, Encoding::kFull,
     Compression::kZstd, 0},
    // Format 4.1: the full encoding with the origin its writer recorded (the
    // RocksDB adapter's learned plan): the bits of full_5000keys.bbf, minor
    // version 1, bytes 46-47 of the footer.
    {"full_5000keys_origin.bbf",
     5000,
     10,
     0,
     Encoding::kAuto,
     Compression::kNone,
     84,
     kNotExactSize,
     false,
     false,
     {.level = 3, .bottommost = true, .group = 517}},
    // The in-place encoding (what the LevelDB adapter writes by default):
    // a one-block Bloom filter and a one-byte tag.
    {"inplace_37keys.bbf", 37, 10, 0, Encoding::kAuto, Compression::kNone, 53,
     kInPlace},
    {"inplace_150keys_seeded.bbf", 150, 10, 0x0123456789abcdef, Encoding::kAuto,
     Compression::kNone, 83, kInPlace},
    {"inplace_1000keys_5bits.bbf", 1000, 5, 0, Encoding::kAuto,
     Compression::kNone, 941, kInPlace},
    {"inplace_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0,
     kInPlace},
    // Format version 3: the accurate encoding (what the LevelDB adapter
    // writes with fewer_false_positives), both layouts, first 8 bytes
    // whitened.
    {"accurate3_set_37keys.bbf", 37, 10, 0, Encoding::kAuto, Compression::kNone,
     56, kFewerFalsePositives},
    {"accurate3_set_150keys_seeded.bbf", 150, 10, 0x0123456789abcdef,
     Encoding::kAuto, Compression::kNone, 45, kFewerFalsePositives},
    {"accurate3_spread_37keys.bbf", 37, 5, 0, Encoding::kAuto,
     Compression::kNone, 685, kFewerFalsePositives},
    {"accurate3_spread_1000keys.bbf", 1000, 4, 0, Encoding::kAuto,
     Compression::kNone, 1450, kFewerFalsePositives},
    {"accurate3_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0,
     kFewerFalsePositives},
    // Format version 2's exact-size blocks, as LevelDB tables written before
    // hold them: still read, with the same answers.
    {"accurate_set_37keys.bbf", 37, 10, 0, Encoding::kAuto, Compression::kNone,
     56, kFewerFalsePositives, true},
    {"accurate_set_150keys_seeded.bbf", 150, 10, 0x0123456789abcdef,
     Encoding::kAuto, Compression::kNone, 45, kFewerFalsePositives, true},
    {"accurate_spread_37keys.bbf", 37, 5, 0, Encoding::kAuto,
     Compression::kNone, 685, kFewerFalsePositives, true},
    {"accurate_spread_1000keys.bbf", 1000, 4, 0, Encoding::kAuto,
     Compression::kNone, 1450, kFewerFalsePositives, true},
    {"accurate_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0,
     kFewerFalsePositives, true},
    // Format version 6: ribbon filters (FilterOptions::kind = kRibbon) in
    // the short footer, a whole and a fractional budget, a seed, no keys, an
    // origin.
    {"ribbon6_5000keys.bbf", 5000, 7, 0, Encoding::kAuto, Compression::kNone,
     98, kNotExactSize, false, true},
    {"ribbon6_3000keys_seeded.bbf", 3000, 9.5, 0x0123456789abcdef,
     Encoding::kAuto, Compression::kNone, 23, kNotExactSize, false, true},
    {"ribbon6_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0,
     kNotExactSize, false, true},
    {"ribbon6_5000keys_origin.bbf",
     5000,
     7,
     0,
     Encoding::kAuto,
     Compression::kNone,
     98,
     kNotExactSize,
     false,
     true,
     {.level = 3, .bottommost = true, .group = 517}},
    // Format version 5's long footer, which version 6 still reads but no
    // longer writes: the same payloads and layer tables.
    {"ribbon_5000keys.bbf", 5000, 7, 0, Encoding::kAuto, Compression::kNone, 98,
     kNotExactSize, true, true},
    {"ribbon_3000keys_seeded.bbf", 3000, 9.5, 0x0123456789abcdef,
     Encoding::kAuto, Compression::kNone, 23, kNotExactSize, true, true},
    {"ribbon_empty.bbf", 0, 10, 0, Encoding::kAuto, Compression::kNone, 0,
     kNotExactSize, true, true},
};

std::string Key(int i) { return absl::StrCat("golden-key-", i); }

std::string BuildBlock(const Golden& g) {
  FilterOptions options;
  options.bits_per_key = g.bits_per_key;
  options.seed = g.seed;
  options.exact_size = g.exact_size != kNotExactSize;
  options.fewer_false_positives = g.exact_size == kFewerFalsePositives;
  if (g.ribbon) options.kind = FilterKind::kRibbon;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (int i = 0; i < g.keys; ++i) builder.Add(Key(i));
  WriteOptions write;
  write.encoding = g.encoding;
  write.compression = g.compression;
  write.zstd_level = 3;
  write.origin = g.origin;
  return *SerializeFilter(*builder.Finish(), write);
}

std::string Path(const Golden& g) {
  return absl::StrCat(BLOCKBLOOM_TESTDATA_DIR, "/", g.file);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class GoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenTest, RebuildsByteForByteAndAnswersAsPinned) {
  const Golden& g = GetParam();
  const std::string built = BuildBlock(g);
  if (std::getenv("BLOCKBLOOM_UPDATE_GOLDEN") != nullptr && !g.read_only) {
    std::ofstream(Path(g), std::ios::binary) << built;
  }
  const std::string stored = ReadFile(Path(g));
  ASSERT_FALSE(stored.empty()) << "missing " << Path(g);
  if (!g.read_only) {
    EXPECT_EQ(built, stored)
        << g.file << " changed: the format or layout moved";
  } else if (g.ribbon) {
    // The long footer (version 5): the same payload and layer table as the
    // short footer written now.
    const FilterInfo old_info = *InspectFilter(AsBytes(stored));
    const FilterInfo new_info = *InspectFilter(AsBytes(built));
    EXPECT_EQ(old_info.major_version, 5);
    EXPECT_EQ(new_info.major_version, 6);
    ASSERT_EQ(old_info.payload_bytes, new_info.payload_bytes) << g.file;
    const size_t table = old_info.overhead_bytes - 44;
    EXPECT_EQ(built.substr(0, new_info.payload_bytes + table),
              stored.substr(0, old_info.payload_bytes + table))
        << g.file;
  } else {
    // Same size and bits; the first 8 bytes and the trailer may differ.
    ASSERT_EQ(built.size(), stored.size()) << g.file;
    if (built.size() > 11) {
      EXPECT_EQ(built.substr(8, built.size() - 11),
                stored.substr(8, stored.size() - 11))
          << g.file;
    }
  }

  ReadOptions read;
  read.seed = g.seed;  // exact-size blocks do not store it
  read.allow_in_place = g.exact_size == kInPlace;
  absl::StatusOr<Filter> filter = OpenFilter(AsBytes(stored), read);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->kind() == FilterKind::kRibbon, g.ribbon);
  for (int i = 0; i < g.keys; ++i) ASSERT_TRUE(filter->MayContain(Key(i)));
  int positives = 0;
  for (int i = 0; i < 10'000; ++i) {
    positives += filter->MayContain(absl::StrCat("absent-", i));
  }
  std::printf(
      "%s: %zu bytes, k=%d, lane_bits=%d, set low bits=%d, %d/10000 absent "
      "positives\n",
      g.file, stored.size(), filter->num_probes(), filter->lane_bits(),
      filter->set_low_bits(), positives);
  EXPECT_EQ(positives, g.absent_positives);
  const FilterInfo info = *InspectFilter(AsBytes(stored), read);
  EXPECT_EQ(info.origin, g.origin) << g.file;
  // Minor version 1 marks an origin in the full and long ribbon footers;
  // the short ribbon footer (version 6) has a flag for it, the compact
  // encoding (version 7) its own tags.
  EXPECT_EQ(info.minor_version, g.origin.recorded() &&
                                        info.major_version != 6 &&
                                        info.major_version != 7
                                    ? 1
                                    : 0)
      << g.file;
  // What an engine's exact-size policy answers for the block, in either mode:
  // the in-place probe of the caller's bytes (src/exact_size/in_place.h) for
  // in-place blocks, the verified, cached copy for every other encoding, as
  // LevelDB tables written by any earlier version hold them. The same answers
  // as the opened filter.
  for (bool fewer_false_positives : {false, true}) {
    FilterPolicy::Options options;
    options.exact_size = true;
    options.fewer_false_positives = fewer_false_positives;
    options.seed = g.seed;
    const FilterPolicy policy = *FilterPolicy::Create(options);
    for (int i = 0; i < g.keys; ++i) {
      ASSERT_TRUE(policy.KeyMayMatch(Key(i), AsBytes(stored)));
    }
    int policy_positives = 0;
    for (int i = 0; i < 10'000; ++i) {
      policy_positives +=
          policy.KeyMayMatch(absl::StrCat("absent-", i), AsBytes(stored));
    }
    EXPECT_EQ(policy_positives, g.absent_positives);
  }
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenTest, ::testing::ValuesIn(kGolden),
                         [](const auto& param_info) {
                           std::string name = param_info.param.file;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace blockbloom
