#include "src/filter_stack/filter_stack.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "src/core/key_hash.h"

namespace blockbloom::redis_module {
namespace {

// Keys probed together by MayContainBatch: their blocks are prefetched
// before any is tested, so up to this many cache misses overlap (the same
// group size as the core's batch probes, src/core/probe.h).
constexpr size_t kGroup = 32;

uint64_t g_max_bytes = UINT64_MAX;

}  // namespace

void FilterStack::SetMaxBytes(uint64_t max_bytes) { g_max_bytes = max_bytes; }
uint64_t FilterStack::max_bytes() { return g_max_bytes; }

absl::Status FilterStack::ValidateOptions(const StackOptions& options) {
  if (!(options.fp_rate > 0 && options.fp_rate < 1)) {
    return absl::InvalidArgumentError("error rate must be in (0, 1)");
  }
  if (options.fp_rate < kMinFpRate) {
    return absl::InvalidArgumentError(
        absl::StrCat("error rate must be at least ", kMinFpRate));
  }
  if (options.capacity < 1) {
    return absl::InvalidArgumentError("capacity must be at least 1");
  }
  if (options.expansion < 1 || options.expansion > kMaxExpansion) {
    return absl::InvalidArgumentError(
        absl::StrCat("expansion must be in [1, ", kMaxExpansion, "]"));
  }
  return absl::OkStatus();
}

double FilterStack::FirstLayerRate(const StackOptions& options) {
  return options.nonscaling ? options.fp_rate : options.fp_rate * kFirstShare;
}

double FilterStack::GrowthLayerRate(double fp_rate, double first_rate,
                                    double previous_rate, uint32_t expansion,
                                    size_t index) {
  const double budget = fp_rate - first_rate;
  if (!(budget >= fp_rate * kMinGrowthShare) || index == 0) {
    return previous_rate * kLegacyTightening;
  }
  const double t = Tightening(expansion);
  return budget * (1 - t) * std::pow(t, static_cast<double>(index - 1));
}

absl::StatusOr<FilterStack> FilterStack::Create(const StackOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  absl::StatusOr<Layer> first =
      Layer::Create(options.capacity, FirstLayerRate(options));
  if (!first.ok()) return first.status();
  if (first->table().size_bytes() > g_max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a filter of ", first->table().size_bytes(),
                     " bytes is over the module's limit of ", g_max_bytes,
                     " bytes (MAX_BYTES; by default the machine's memory)"));
  }
  std::vector<Layer> layers;
  layers.push_back(*std::move(first));
  return FilterStack(options, std::move(layers));
}

FilterStack::FilterStack(const StackOptions& options, std::vector<Layer> layers)
    : options_(options), layers_(std::move(layers)) {}

uint64_t FilterStack::Hash(std::string_view item) const {
  return internal::Hash64(item, options_.seed);  // == HashKey, inlined
}

void FilterStack::PrefetchBlocks(uint64_t hash, const uint8_t** blocks) const {
  for (size_t i = 0; i < layers_.size(); ++i) {
    blocks[i] = layers_[i].FindBlock(hash);
    if (blocks[i] != nullptr) __builtin_prefetch(blocks[i]);
  }
}

bool FilterStack::MayContainInBlocks(uint64_t hash,
                                     const uint8_t* const* blocks) const {
  // Newest first: with expansion >= 2 it holds at least half of the keys.
  for (size_t i = layers_.size(); i-- > 0;) {
    if (blocks[i] != nullptr && layers_[i].MayContainInBlock(blocks[i], hash)) {
      return true;
    }
  }
  return false;
}

bool FilterStack::MayContainHash(uint64_t hash) const {
  if (layers_.size() == 1) return layers_[0].MayContain(hash);
  // Every layer's block is found and prefetched before any is tested: the
  // misses overlap (one line per layer, all in flight at once).
  const uint8_t* blocks[kMaxLayers];
  PrefetchBlocks(hash, blocks);
  return MayContainInBlocks(hash, blocks);
}

void FilterStack::MayContainBatch(absl::Span<const std::string_view> keys,
                                  bool* results) const {
  // Layer by layer for a group of keys: the group's blocks in one layer are
  // found and prefetched, then tested, so kGroup misses are in flight
  // together (a key found in a newer layer skips the older ones). Measured
  // against prefetching every layer's block of every key of a smaller group
  // first (as MayContainHash does for one key): less time per key with one
  // layer and with 16 (the misses of one layer's group already fill the
  // memory system; more lines in flight only evict).
  uint64_t hashes[kGroup];
  const uint8_t* blocks[kGroup];
  for (size_t begin = 0; begin < keys.size(); begin += kGroup) {
    const size_t n = std::min(kGroup, keys.size() - begin);
    for (size_t j = 0; j < n; ++j) {
      hashes[j] = Hash(keys[begin + j]);
      results[begin + j] = false;
    }
    for (size_t i = layers_.size(); i-- > 0;) {
      const Layer& layer = layers_[i];
      for (size_t j = 0; j < n; ++j) {
        blocks[j] = results[begin + j] ? nullptr : layer.FindBlock(hashes[j]);
        if (blocks[j] != nullptr) __builtin_prefetch(blocks[j]);
      }
      for (size_t j = 0; j < n; ++j) {
        if (blocks[j] != nullptr &&
            layer.MayContainInBlock(blocks[j], hashes[j])) {
          results[begin + j] = true;
        }
      }
    }
  }
}

absl::Status FilterStack::Grow() {
  const Layer& last = layers_.back();
  if (options_.nonscaling) {
    return absl::ResourceExhaustedError("non scaling filter is full");
  }
  if (layers_.size() >= kMaxLayers) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "filter is full: it has the most layers a filter may have (",
        kMaxLayers, ")"));
  }
  const uint64_t capacity = last.capacity();
  if (capacity > UINT64_MAX / options_.expansion) {
    return absl::ResourceExhaustedError(
        "filter is full: the next layer's capacity overflows");
  }
  absl::StatusOr<Layer> next = Layer::Create(
      capacity * options_.expansion,
      GrowthLayerRate(options_.fp_rate, layers_.front().fp_rate(),
                      last.fp_rate(), options_.expansion, layers_.size()));
  if (!next.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "filter is full and cannot grow: ", next.status().message()));
  }
  if (next->table().size_bytes() >
      g_max_bytes - std::min(g_max_bytes, reserved_bytes())) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "filter is full: its next layer of ", next->table().size_bytes(),
        " bytes would take it over the module's limit of ", g_max_bytes,
        " bytes (MAX_BYTES)"));
  }
  layers_.push_back(*std::move(next));
  return absl::OkStatus();
}

absl::StatusOr<bool> FilterStack::AddHash(uint64_t hash) {
  if (MayContainHash(hash)) return false;
  if (layers_.back().full()) {
    if (absl::Status s = Grow(); !s.ok()) return s;
  }
  layers_.back().Add(hash);
  return true;
}

void FilterStack::AddBatch(absl::Span<const std::string_view> keys,
                           std::vector<absl::StatusOr<bool>>* added) {
  // Each key is hashed once, kAhead keys before it is added, and the blocks
  // its existence check reads (one per layer; the newest layer's is the one
  // it writes) prefetched then: the misses overlap the adds in between.
  // Adds stay in order (a repeated key answers 0 the second time, and a
  // layer may fill up mid-batch: the new layer's block is not prefetched).
  constexpr size_t kAhead = 8;
  uint64_t ahead[kAhead];
  auto hash_ahead = [&](size_t j) {
    const uint64_t hash = Hash(keys[j]);
    ahead[j % kAhead] = hash;
    for (const Layer& layer : layers_) {
      const uint8_t* block = layer.FindBlock(hash);
      if (block != nullptr) __builtin_prefetch(block);
    }
  };
  added->clear();
  added->reserve(keys.size());
  for (size_t j = 0; j < std::min(kAhead, keys.size()); ++j) hash_ahead(j);
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t hash = ahead[i % kAhead];
    if (i + kAhead < keys.size()) hash_ahead(i + kAhead);
    absl::StatusOr<bool> result = AddHash(hash);
    const bool failed = !result.ok();
    added->push_back(std::move(result));
    if (failed) break;
  }
}

uint64_t FilterStack::num_insertions() const {
  uint64_t total = 0;
  for (const Layer& layer : layers_) total += layer.count();
  return total;
}

double FilterStack::EstimatedFpRate() const {
  double pass = 1;
  for (const Layer& layer : layers_) {
    if (layer.count() == 0) continue;
    absl::StatusOr<double> rate =
        blockbloom::EstimatedFpRate(layer.shape(), layer.count());
    pass *= 1 - (rate.ok() ? std::clamp(*rate, 0.0, 1.0) : 1.0);
  }
  return 1 - pass;
}

uint64_t FilterStack::capacity() const {
  uint64_t total = 0;
  for (const Layer& layer : layers_) total += layer.capacity();
  return total;
}

uint64_t FilterStack::reserved_bytes() const {
  uint64_t total = 0;
  for (const Layer& layer : layers_) total += layer.table().size_bytes();
  return total;
}

uint64_t FilterStack::allocated_bytes() const {
  uint64_t total = 0;
  for (const Layer& layer : layers_) {
    const PieceTable& table = layer.table();
    for (size_t i = 0; i < table.num_pieces(); ++i) {
      if (table.Piece(i) != nullptr) total += table.PieceSize(i);
    }
  }
  return total;
}

size_t FilterStack::allocated_pieces() const {
  size_t total = 0;
  for (const Layer& layer : layers_) total += layer.table().allocated_pieces();
  return total;
}

}  // namespace blockbloom::redis_module
