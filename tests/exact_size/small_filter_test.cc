// One-block filters with spread lanes (the small-filter layout of format v1
// and the accurate kSpread layout) and compressed fingerprint sets (kSet).
//  - The SIMD gather kernels answer exactly what the scalar reference
//    answers, on every Highway target, for every size from 4 bytes, both
//    hash mixes, any alignment.
//  - A set decodes back to exactly its fingerprints; its probe index agrees
//    with that decoding; its false-positive rate is n / U.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe_small.h"
#include "src/core/sizing_internal.h"
#include "src/exact_size/exact_size.h"
#include "src/exact_size/fingerprint_set.h"
#include "tests/hwy_targets.h"

namespace blockbloom::internal {
namespace {

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> h = {0, ~uint64_t{0}, 0xffffffff, 0xffffffff00000000,
                             0x8000000080000000};
  std::mt19937_64 rng(seed);
  while (h.size() < n) h.push_back(rng());
  return h;
}

std::vector<uint8_t> RandomBytes(size_t n, double density, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(density);
  std::vector<uint8_t> bytes(n);
  for (auto& byte : bytes) {
    for (int b = 0; b < 8; ++b) byte |= static_cast<uint8_t>(bit(rng) << b);
  }
  return bytes;
}

TEST(SpreadLanesTest, LanesCoverEveryBitOnce) {
  for (uint32_t m : {16u, 17u, 24u, 100u, 8192u, 999999u, (1u << 31) - 8}) {
    EXPECT_EQ(SpreadLaneStart(m, 0), 0u);
    EXPECT_EQ(SpreadLaneStart(m, kLanes), m);
    for (uint32_t lane = 0; lane < static_cast<uint32_t>(kLanes); ++lane) {
      const uint32_t width =
          SpreadLaneStart(m, lane + 1) - SpreadLaneStart(m, lane);
      EXPECT_GE(width, m / 16) << m << " lane " << lane;
      EXPECT_LE(width, (m + 15) / 16) << m << " lane " << lane;
      EXPECT_EQ(SpreadLaneStart(m, lane),
                static_cast<uint32_t>(uint64_t{m} * lane / 16));
    }
  }
}

// With 16 dividing m, spread lanes are the small-filter layout of format v1.
TEST(SpreadLanesTest, SameBitsAsEqualLanesWhenSixteenDividesTheSize) {
  const std::vector<uint64_t> hashes = Hashes(3000, 1);
  for (int w : {1, 3, 22, 32, 511, 512}) {
    const FilterRef blocked =
        BlockedRef(nullptr, FilterShape{1, 7, w}, /*seed=*/0);
    const FilterRef spread =
        SpreadRef(nullptr, 16 * static_cast<uint32_t>(w), 7, /*seed=*/0,
                  /*mix_high=*/false);
    for (uint64_t h : hashes) {
      std::vector<uint64_t> a, b;
      ForEachBit(blocked, h, [&](uint64_t bit) { a.push_back(bit); });
      ForEachBit(spread, h, [&](uint64_t bit) { b.push_back(bit); });
      ASSERT_EQ(a, b) << "w " << w;
    }
  }
}

struct SpreadCase {
  uint32_t bytes;
  int k;
  double density;
  bool mix_high;
};

TEST(SpreadKernelsTest, EveryTargetMatchesTheReference) {
  std::vector<SpreadCase> cases;
  for (uint32_t bytes : {4u, 5u, 6u, 7u, 9u, 13u, 47u, 64u, 190u, 1024u, 1025u,
                         12501u, 125001u, 1u << 20}) {
    for (int k : {1, 2, 5, 7, 11, 16}) {
      for (double density : {0.5, 0.85}) {
        for (bool mix_high : {false, true}) {
          cases.push_back({bytes, k, density, mix_high});
        }
      }
    }
  }
  const std::vector<uint64_t> hashes = Hashes(700, 2);
  struct Prepared {
    std::vector<uint8_t> storage;
    FilterRef ref;
    std::vector<bool> expected;
  };
  std::vector<Prepared> prepared;
  std::map<std::pair<uint32_t, double>, std::vector<uint8_t>> random_bits;
  size_t positives = 0, total = 0;
  for (const SpreadCase& c : cases) {
    Prepared p;
    // One byte in: the gathers must not assume alignment. Nothing after the
    // filter's last byte: ASan catches a gather that reads past it.
    // The same bits for every k and mixing of a size and density: random
    // megabytes drawn per case were most of this test's time (25 s under
    // ASan).
    std::vector<uint8_t>& bits = random_bits[{c.bytes, c.density}];
    if (bits.empty()) {
      bits = RandomBytes(c.bytes + 1, c.density, c.bytes * 31 + c.k);
    }
    p.storage = bits;
    p.ref = SpreadRef(p.storage.data() + 1, 8 * c.bytes, c.k, /*seed=*/9,
                      c.mix_high);
    for (uint64_t h : hashes) {
      p.expected.push_back(ReferenceMayContain(p.ref, h));
      positives += p.expected.back();
      ++total;
    }
    prepared.push_back(std::move(p));
  }
  ASSERT_GT(positives, total / 20);
  ASSERT_LT(positives, total - total / 20);
  testing::ForEachHwyTarget(
      [](const char* name) {
        ASSERT_STREQ(SpreadKernels(64)->target_name, name);
      },
      [&] {
        for (const Prepared& p : prepared) {
          const Kernels* kernels = SpreadKernels(p.ref.num_bits / 8);
          for (size_t i = 0; i < hashes.size(); ++i) {
            ASSERT_EQ(kernels->probe_hash(p.ref, hashes[i]), p.expected[i])
                << "bytes " << p.ref.num_bits / 8 << " hash " << hashes[i];
          }
          std::unique_ptr<bool[]> results(new bool[hashes.size()]);
          kernels->probe_hashes(p.ref, hashes.data(), hashes.size(),
                                results.get());
          for (size_t i = 0; i < hashes.size(); ++i) {
            ASSERT_EQ(results[i], p.expected[i]);
          }
        }
      });
}

TEST(SpreadKernelsTest, KeyProbesHashWithTheSeed) {
  std::vector<uint8_t> storage = RandomBytes(300, 0.6, 3);
  const FilterRef ref =
      SpreadRef(storage.data(), 8 * 300, 6, /*seed=*/777, /*mix_high=*/true);
  std::vector<std::string> keys;
  for (int i = 0; i < 500; ++i) keys.push_back(absl::StrCat("key", i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  testing::ForEachHwyTarget(
      [](const char*) {},
      [&] {
        const Kernels* kernels = SpreadKernels(300);
        std::unique_ptr<bool[]> results(new bool[views.size()]);
        kernels->probe_keys(ref, views.data(), views.size(), results.get());
        for (size_t i = 0; i < views.size(); ++i) {
          const bool want = ReferenceMayContain(ref, Hash64(views[i], 777));
          ASSERT_EQ(kernels->probe_key(ref, views[i]), want) << i;
          ASSERT_EQ(results[i], want) << i;
        }
      });
}

// Below 4 bytes the gathers cannot clamp inside the filter: the scalar
// reference probes it.
TEST(SpreadKernelsTest, TinyFiltersUseTheReference) {
  EXPECT_STREQ(SpreadKernels(2)->target_name, "scalar-lanes");
  EXPECT_STREQ(SpreadKernels(3)->target_name, "scalar-lanes");
  EXPECT_STRNE(SpreadKernels(4)->target_name, "scalar-lanes");
}

// ------------------------------------------------------------------ sets

struct SetCase {
  uint64_t n;
  uint64_t bytes;
  int low_bits;
};

// Builds a set of n random hashes in `bytes` bytes; returns its payload.
std::vector<uint8_t> BuildSet(const SetCase& c, std::vector<uint64_t>* hashes,
                              uint64_t seed) {
  *hashes = Hashes(c.n, seed);
  hashes->resize(c.n);
  std::vector<uint8_t> payload(c.bytes, 0);
  std::vector<uint64_t> sorted = *hashes;
  EncodeSet(&sorted, 8 * c.bytes, c.low_bits, payload.data());
  return payload;
}

std::vector<SetCase> SetCases() {
  std::vector<SetCase> cases;
  for (uint64_t n : {0, 1, 2, 7, 37, 150, 1000, 20000}) {
    for (double bits_per_key : {7.0, 10.0, 16.0, 30.0}) {
      const uint64_t bytes =
          std::max<uint64_t>(2, static_cast<uint64_t>(n * bits_per_key / 8));
      int l;
      BestSetLowBits(n, 8 * bytes, &l);
      for (int low_bits : {l, std::max(0, l - 3)}) {
        if (n * static_cast<uint64_t>(low_bits + 1) < 8 * bytes) {
          cases.push_back({n, bytes, low_bits});
        }
      }
    }
  }
  return cases;
}

TEST(FingerprintSetTest, DecodesToExactlyItsFingerprints) {
  for (const SetCase& c : SetCases()) {
    SCOPED_TRACE(
        absl::StrCat("n ", c.n, " bytes ", c.bytes, " l ", c.low_bits));
    std::vector<uint64_t> hashes;
    const std::vector<uint8_t> payload = BuildSet(c, &hashes, c.n + c.bytes);
    SetParams params;
    ASSERT_TRUE(ParseSet(payload.data(), 8 * c.bytes, c.low_bits, &params));
    EXPECT_EQ(params.count, c.n);
    EXPECT_EQ(params.buckets, 8 * c.bytes - c.n * (c.low_bits + 1));
    std::vector<uint64_t> want;
    for (uint64_t h : hashes) {
      want.push_back(SetFingerprint(h, params.universe()));
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(DecodeSet(payload.data(), params), want);
  }
}

TEST(FingerprintSetTest, ProbeAgreesWithTheDecodedSet) {
  for (const SetCase& c : SetCases()) {
    SCOPED_TRACE(
        absl::StrCat("n ", c.n, " bytes ", c.bytes, " l ", c.low_bits));
    std::vector<uint64_t> hashes;
    const std::vector<uint8_t> payload = BuildSet(c, &hashes, c.n * 7 + 1);
    SetParams params;
    ASSERT_TRUE(ParseSet(payload.data(), 8 * c.bytes, c.low_bits, &params));
    std::vector<uint64_t> storage(
        (sizeof(SetIndex) + SetIndexStorageBytes(payload.data(), params)) / 8 +
        1);
    const SetIndex* index =
        BuildSetIndex(payload.data(), params, storage.data());
    // The probe cache's copy (src/policy/probe_cache.cc) answers the same.
    ASSERT_EQ(SetIndexBytes(*index),
              sizeof(SetIndex) + SetIndexStorageBytes(payload.data(), params));
    std::vector<uint64_t> copy_storage(SetIndexBytes(*index) / 8 + 1);
    const SetIndex* copy = CopySetIndex(*index, copy_storage.data());
    std::fill(storage.begin(), storage.end(), 0);  // the copy stands alone
    index = BuildSetIndex(payload.data(), params, storage.data());
    const std::vector<uint64_t> decoded = DecodeSet(payload.data(), params);
    const std::set<uint64_t> members(decoded.begin(), decoded.end());
    for (uint64_t h : hashes) ASSERT_TRUE(SetContains(*index, h));
    for (uint64_t h : hashes) ASSERT_TRUE(SetContains(*copy, h));
    std::mt19937_64 rng(c.n);
    for (int i = 0; i < 20000; ++i) {
      // Half the probes aimed next to members: same bucket, other lows.
      uint64_t h = rng();
      if (i % 2 == 0 && !decoded.empty()) {
        const uint64_t x = decoded[rng() % decoded.size()] ^ (rng() & 3);
        h = static_cast<uint64_t>(
            ((static_cast<Uint128>(x) << 64) + params.universe() - 1) /
            params.universe());
      }
      const bool member =
          members.count(SetFingerprint(h, params.universe())) > 0;
      ASSERT_EQ(SetContains(*index, h), member) << h;
      ASSERT_EQ(SetContains(*copy, h), member) << h;
    }
  }
}

TEST(FingerprintSetTest, FalsePositiveRateIsCountOverUniverse) {
  const SetCase c = {5000, 5000 * 10 / 8, 0};
  int l;
  const double expected = BestSetLowBits(c.n, 8 * c.bytes, &l);
  std::vector<uint64_t> hashes;
  const std::vector<uint8_t> payload = BuildSet({c.n, c.bytes, l}, &hashes, 5);
  SetParams params;
  ASSERT_TRUE(ParseSet(payload.data(), 8 * c.bytes, l, &params));
  EXPECT_NEAR(expected, static_cast<double>(c.n) / params.universe(), 1e-12);
  std::vector<uint64_t> storage(
      (sizeof(SetIndex) + SetIndexStorageBytes(payload.data(), params)) / 8 +
      1);
  const SetIndex* index = BuildSetIndex(payload.data(), params, storage.data());
  std::mt19937_64 rng(99);
  const int probes = 2'000'000;
  int hits = 0;
  for (int i = 0; i < probes; ++i) hits += SetContains(*index, rng());
  const double rate = static_cast<double>(hits) / probes;
  const double sigma = std::sqrt(expected * (1 - expected) / probes);
  EXPECT_NEAR(rate, expected, 4 * sigma) << "l " << l;
  // 10 bits/key: about 0.4%, half of the best Bloom filter's 0.82%.
  EXPECT_LT(expected, 0.0045);
}

TEST(FingerprintSetTest, ParseRefusesPayloadsThatAreNoSet) {
  // The last bit is the last bucket's 0.
  std::vector<uint8_t> payload(10, 0);
  payload[9] = 0x80;
  SetParams params;
  EXPECT_FALSE(ParseSet(payload.data(), 80, 3, &params));
  // All ones: no count j has exactly j ones after its lows.
  std::vector<uint8_t> ones(10, 0xFF);
  EXPECT_FALSE(ParseSet(ones.data(), 80, 5, &params));
  // All zeros: the empty set.
  std::vector<uint8_t> zeros(10, 0);
  ASSERT_TRUE(ParseSet(zeros.data(), 80, 5, &params));
  EXPECT_EQ(params.count, 0u);
  EXPECT_EQ(params.buckets, 80u);
  EXPECT_FALSE(ParseSet(zeros.data(), 80, kMaxSetLowBits + 1, &params));
}

// The format's rule: at most kMaxGroupEntries (255) entries in 64
// consecutive buckets. A set that breaks it is refused by the reader and
// never written.
TEST(FingerprintSetTest, GroupsBeyondTheEntryLimitAreRefused) {
  // 300 entries in one bucket: l = 0, all hashes tiny.
  const uint64_t n = 300;
  const uint64_t bytes = (n + 1 + 7) / 8 + 1;
  std::vector<uint64_t> hashes(n, 1);
  EXPECT_FALSE(SetFits(&hashes, 8 * bytes, 0));
  std::vector<uint8_t> payload(bytes, 0);
  EncodeSet(&hashes, 8 * bytes, 0, payload.data());
  SetParams params;
  EXPECT_FALSE(ParseSet(payload.data(), 8 * bytes, 0, &params));
  // The accurate writer falls back to a Bloom filter for such hashes.
  std::vector<uint64_t> again(n, 1);
  absl::StatusOr<Filter> filter =
      BuildAccurateFilter(&again, (n * 2 + 7) / 8, 0, 1);
  ASSERT_TRUE(filter.ok());
  EXPECT_EQ(filter->kind(), FilterKind::kSpread);
}

// --------------------------------------------------------- exact-size filters

TEST(ExactSizeTest, BlockSizeIsLevelDBs) {
  // util/bloom.cc: bits = max(64, n * bits_per_key); bytes = ceil(bits/8);
  // plus one byte of k.
  for (uint64_t n = 0; n <= 100000; ++n) {
    for (int bits_per_key = 1; bits_per_key <= 30; ++bits_per_key) {
      const uint64_t bits = std::max<uint64_t>(64, n * bits_per_key);
      ASSERT_EQ(ExactSizeBytes(n, bits_per_key), (bits + 7) / 8 + 1)
          << n << " keys at " << bits_per_key;
    }
  }
}

TEST(ExactSizeTest, ChoosesTheMoreAccurateLayout) {
  for (uint64_t n : {1, 10, 37, 150, 1000, 100000}) {
    for (double bits_per_key : {1.0, 4.0, 6.0, 7.0, 10.0, 20.0, 30.0}) {
      const uint64_t bits =
          8 * (ExactSizeBytes(n, bits_per_key) - kAccurateTrailerBytes);
      const AccurateChoice choice = ChooseAccurateKind(n, bits, 6);
      double spread;
      OneBlockBestK(n, bits, &spread);
      int l;
      const double set = BestSetLowBits(n, bits, &l);
      EXPECT_DOUBLE_EQ(choice.rate, std::min(spread, set));
      EXPECT_EQ(choice.kind == FilterKind::kSet, set < spread);
    }
  }
  // The set wins from ~7 bits/key; a Bloom filter below.
  EXPECT_EQ(ChooseAccurateKind(150, 1500, 6).kind, FilterKind::kSet);
  EXPECT_EQ(ChooseAccurateKind(150, 600, 6).kind, FilterKind::kSpread);
}

TEST(ExactSizeTest, NoFalseNegativesAtAnySizeAndDensity) {
  for (uint64_t n : {0, 1, 2, 3, 9, 37, 140, 1000, 20000}) {
    for (double bits_per_key : {1.0, 2.5, 5.0, 8.0, 10.0, 16.0, 30.0}) {
      std::vector<uint64_t> hashes = Hashes(n, n + 17);
      hashes.resize(n);
      std::vector<uint64_t> scratch = hashes;
      const uint64_t payload =
          ExactSizeBytes(n, bits_per_key) - kAccurateTrailerBytes;
      absl::StatusOr<Filter> filter =
          BuildAccurateFilter(&scratch, payload, 5, 4);
      ASSERT_TRUE(filter.ok()) << filter.status();
      ASSERT_EQ(filter->bits().size(), payload);
      for (uint64_t h : hashes) {
        ASSERT_TRUE(filter->MayContainHash(h))
            << n << " keys at " << bits_per_key;
      }
      if (n == 0) {
        std::mt19937_64 rng(1);
        for (int i = 0; i < 1000; ++i) {
          ASSERT_FALSE(filter->MayContainHash(rng()));
        }
      }
    }
  }
}

}  // namespace
}  // namespace blockbloom::internal
