#include "src/ribbon/builder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/core/aligned_buffer.h"
#include "src/ribbon/back_substitution.h"
#include "src/ribbon/banding.h"
#include "src/ribbon/layout.h"
#include "src/ribbon/ribbon_filter.h"
#include "src/ribbon/sizing.h"
#include "src/ribbon/sort.h"
#include "src/ribbon/test_hooks.h"

namespace blockbloom::internal::ribbon {
namespace {

std::atomic<int> g_max_layers{kMaxLayers};
std::atomic<int> g_failing_salts{0};

// A banded layer, until back substitution.
template <typename Row>
struct Layer {
  uint32_t num_blocks = 0;
  uint64_t* coeff = nullptr;
  Row* result = nullptr;
  // Layers after the first (about 5% of the keys) own their rows; layer 0
  // uses the build's big buffers.
  std::vector<uint64_t> own_coeff;
  std::vector<Row> own_result;
  std::vector<uint8_t> codes;
};

template <typename T>
absl::StatusOr<std::unique_ptr<AlignedBuffer>> Scratch(uint64_t count) {
  return AlignedBuffer::Create(sizeof(T) * count);
}

// The upper start of a layer for a rate: at least a share `frac` of the
// layer's non-bumped starts must fall in r + 1-column blocks; then its rate,
// and so the filter's, is at most the target's exactly.
template <typename Row>
uint32_t UpperForRate(const Layer<Row>& layer, bool last, double frac) {
  const uint32_t blocks = layer.num_blocks;
  auto live = [&](uint32_t block) {
    const uint32_t code = BucketCode(layer.codes.data(), block >> 1);
    return LiveStarts(block, blocks, BumpThreshold(code, kBumpLo, kBumpHi),
                      last);
  };
  double total = 0;
  for (uint32_t block = 0; block < blocks; ++block) total += live(block);
  double upper_share = 0;
  uint32_t upper = blocks;
  while (upper > 0 && upper_share < frac * total - 1e-9) {
    upper_share += live(--upper);
  }
  return upper;
}

// A filter of fewer than kSmallLayerKeys keys is first tried as ONE layer of
// the fewest blocks that band every key, from one slot per key up, before
// the default: layer 0 at load kSmallLoad plus a 63-slot tail, then tail
// layers of a block or more each. 400 keys took 8 blocks in 3 layers (1.28
// slots per key), one layer takes 7. Measured over 40 key sets at 10
// bits/key, the exact rate fell from 0.50% to 0.23% at 400 keys, 0.37% to
// 0.14% at 1,000 and 0.27% to 0.135% at 2,000 (the 1M-key rate is 0.10%),
// in 1.0 to 2.3 attempts on average (7 of 7 blocks tried at 400 keys: 1
// attempt; 32 to 34 at 2,047: 2.3). From 2,048 keys on, layer 0 is
// overloaded (kLoad) and bumps ~5% of its keys by design; one layer there
// took 3.9 attempts at 3,000 keys for 0.141% against 0.146%, and was worse
// at 5,000 (0.134% against 0.132%): not tried.
// Returns the first block count to try, or 0 for none.
uint32_t SingleLayerBlocksFrom(uint64_t n) {
  if (n == 0 || n >= kSmallLayerKeys) return 0;
  return static_cast<uint32_t>((n + 63) / 64);
}

template <typename Row>
absl::StatusOr<Filter> Build(absl::Span<uint64_t> hashes,
                             const RibbonTarget& target, uint64_t seed,
                             const RibbonBuildOptions& options) {
  const size_t n = hashes.size();
  const bool by_rate = target.fp_rate > 0;
  const ColumnPlan plan =
      by_rate ? ColumnsForFpRate(target.fp_rate) : ColumnPlan{};
  // The columns banded: r_max + 1. With a budget, r is chosen after banding
  // from the slots it took, and slots can be fewer than keys (load > 1).
  const int r_max = std::clamp(
      by_rate ? plan.r
              : static_cast<int>(std::floor(target.bits_per_key * 1.12)),
      1, static_cast<int>(8 * sizeof(Row)) - 1);
  const int columns = r_max + 1;
  const uint32_t result_mask =
      static_cast<uint32_t>((uint64_t{1} << columns) - 1);
  const bool pre_bump =
      options.pre_bump < 0 ? PreBumps(n) : options.pre_bump > 0;
  const int max_layers = g_max_layers.load(std::memory_order_relaxed);
  const int failing_salts = g_failing_salts.load(std::memory_order_relaxed);

  // Layer 0's rows, the coefficient rows doubling as the radix sort's
  // buffer. The other layers' are small and their own.
  const uint32_t blocks0 = n > 0 ? BlocksForKeys(n, LoadForKeys(n)) : 0;
  const uint32_t single_from = SingleLayerBlocksFrom(n);
  const uint64_t slots0 = uint64_t{blocks0} * 64;
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> coeff_buffer =
      Scratch<uint64_t>(std::max<uint64_t>(slots0, n) + 1);
  if (!coeff_buffer.ok()) return coeff_buffer.status();
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> result_buffer =
      Scratch<Row>(slots0 + 1);
  if (!result_buffer.ok()) return result_buffer.status();
  uint64_t* const coeff0 = reinterpret_cast<uint64_t*>((*coeff_buffer)->data());
  Row* const result0 = reinterpret_cast<Row*>((*result_buffer)->data());
  std::vector<uint64_t> sort_buffer;

  for (uint32_t salt = 0; salt < kMaxAttempts; ++salt) {
    std::vector<Layer<Row>> layers;
    uint64_t* keys = hashes.data();
    size_t remaining = n;
    bool fits = true;
    // Sorts and bands the keys left into `layer` as layer `index` of
    // `blocks` blocks; returns how many it bumped (now keys[0, bumped)).
    auto band = [&](Layer<Row>& layer, int index, uint32_t blocks) {
      const uint64_t slots = uint64_t{blocks} * 64;
      layer.num_blocks = blocks;
      if (index == 0) {
        SortForBanding(keys, coeff0, remaining, NumStarts(blocks), salt, 0);
        std::memset(coeff0, 0, sizeof(uint64_t) * slots);
        layer.coeff = coeff0;
        layer.result = result0;
      } else {
        sort_buffer.resize(remaining);
        SortForBanding(keys, sort_buffer.data(), remaining, NumStarts(blocks),
                       salt, index);
        layer.own_coeff.assign(slots + 1, 0);
        layer.own_result.resize(slots + 1);
        layer.coeff = layer.own_coeff.data();
        layer.result = layer.own_result.data();
      }
      layer.codes.assign(CodeBytes(blocks), 0xFF);  // code 3: none bumped
      BandingOptions banding;
      banding.salt = salt;
      banding.layer = index;
      banding.result_mask = result_mask;
      if (pre_bump) banding.pre_bump_spill = PreBumpSpill(n);
      banding.streams = index == 0 && options.streams > 0
                            ? options.streams
                            : StreamsFor(remaining, index);
      return BandLayer(LayerSystem<Row>{layer.coeff, layer.result,
                                        layer.codes.data(), blocks},
                       banding, keys, remaining);
    };
    for (int index = 0; remaining > 0; ++index) {
      if (index == max_layers) {
        fits = false;
        break;
      }
      Layer<Row>& layer = layers.emplace_back();
      if (index == 0 && single_from > 0) {
        // A small filter: the fewest blocks that hold every key in one
        // layer, if fewer than the default's layer 0 (SingleLayerBlocksFrom).
        uint32_t blocks = single_from;
        while (blocks < blocks0 && band(layer, 0, blocks) > 0) ++blocks;
        if (blocks < blocks0) {
          remaining = 0;
          break;
        }
      }
      remaining =
          band(layer, index,
               index == 0 ? blocks0
                          : BlocksForKeys(remaining, LoadForKeys(remaining)));
    }
    if (static_cast<int>(salt) < failing_salts) fits = false;
    if (!fits) continue;  // `hashes` is still a permutation: the next salt

    // r and each layer's share of r + 1-column blocks.
    RibbonLayout layout;
    layout.salt = salt;
    layout.num_layers = static_cast<int>(layers.size());
    ColumnPlan chosen = plan;
    if (!by_rate) {
      uint64_t slots = 0;
      uint64_t code_bytes = 0;
      for (const Layer<Row>& layer : layers) {
        slots += uint64_t{layer.num_blocks} * 64;
        code_bytes += CodeBytes(layer.num_blocks);
      }
      const double bits = target.bits_per_key * static_cast<double>(n) -
                          8.0 * static_cast<double>(code_bytes);
      const double cols = slots > 0 ? bits / static_cast<double>(slots) : 1;
      chosen.r = std::clamp(static_cast<int>(std::floor(cols)), 1, r_max);
      chosen.frac = std::clamp(cols - chosen.r, 0.0, 1.0);
    }
    layout.result_bits = chosen.r;
    for (size_t i = 0; i < layers.size(); ++i) {
      const uint32_t blocks = layers[i].num_blocks;
      // With a budget, at most a share frac of the blocks get r + 1
      // columns: the size stays within it.
      layout.num_blocks[i] = blocks;
      layout.upper_start[i] =
          by_rate ? UpperForRate(layers[i], i + 1 == layers.size(), chosen.frac)
                  : blocks -
                        static_cast<uint32_t>(std::floor(chosen.frac * blocks));
    }

    const uint64_t payload_bytes = PayloadBytes(layout);
    absl::StatusOr<std::unique_ptr<AlignedBuffer>> storage =
        AlignedBuffer::Create(kViewBytes + payload_bytes);
    if (!storage.ok()) return storage.status();
    uint8_t* const payload = (*storage)->data() + kViewBytes;
    uint8_t* out = payload;
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer<Row>& layer = layers[i];
      const uint32_t blocks = layer.num_blocks;
      const uint32_t upper = layout.upper_start[i];
      BackSubstitute(layer.coeff, layer.result, blocks, upper, chosen.r,
                     chosen.r + 1, options.isa, out);
      std::memcpy(out + 8 * WordsBefore(blocks, upper, chosen.r),
                  layer.codes.data(), layer.codes.size());
      out += LayerBytes(blocks, upper, chosen.r);
    }
    return MakeRibbonFilter(*std::move(storage), payload, layout, seed, n,
                            /*owns_payload=*/true);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no ribbon filter of ", n, " keys in ", max_layers,
                   " layers with any of ", kMaxAttempts,
                   " salts (duplicate hashes cannot cause this: a ",
                   "pathological key set); build another kind of filter"));
}

}  // namespace

absl::StatusOr<Filter> BuildRibbon(absl::Span<uint64_t> hashes,
                                   const RibbonTarget& target, uint64_t seed,
                                   const RibbonBuildOptions& options) {
  if (hashes.size() >= (uint64_t{1} << 31)) {
    return absl::OutOfRangeError(absl::StrCat(
        "a ribbon filter holds fewer than 2^31 keys, not ", hashes.size()));
  }
  const int r_max =
      target.fp_rate > 0
          ? ColumnsForFpRate(target.fp_rate).r
          : static_cast<int>(std::floor(target.bits_per_key * 1.12));
  // 16-bit result rows while r_max + 1 <= 16 columns: less scratch memory.
  if (r_max + 1 <= 16) return Build<uint16_t>(hashes, target, seed, options);
  return Build<uint32_t>(hashes, target, seed, options);
}

ScopedMaxLayersForTest::ScopedMaxLayersForTest(int max_layers)
    : saved_(g_max_layers.exchange(max_layers)) {}

ScopedMaxLayersForTest::~ScopedMaxLayersForTest() {
  g_max_layers.store(saved_);
}

ScopedFailingSaltsForTest::ScopedFailingSaltsForTest(int count)
    : saved_(g_failing_salts.exchange(count)) {}

ScopedFailingSaltsForTest::~ScopedFailingSaltsForTest() {
  g_failing_salts.store(saved_);
}

}  // namespace blockbloom::internal::ribbon
