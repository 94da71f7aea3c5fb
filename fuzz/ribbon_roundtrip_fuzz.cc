// Keys -> ribbon -> serialize -> open -> every key matches. Two builds of
// the same keys: the ribbon builder itself (a ribbon at any n, even where
// FilterBuilder would choose the blocked kind), and FilterBuilder with
// kind kRibbon (a ribbon, or its blocked fallback). The first byte picks
// a budget or a rate (whole or fractional) and repeats every key or not;
// bytes 1-8 the seed; the rest are keys (1-byte length, then the key).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "fuzz/fuzz_keys.h"
#include "src/core/key_hash.h"
#include "src/ribbon/builder.h"

namespace {

// Serializes, reopens and checks every key; aborts on any failure.
void RoundTrip(const blockbloom::Filter& filter,
               const std::vector<std::string_view>& keys) {
  for (auto k : keys) {
    if (!filter.MayContain(k)) abort();
  }
  std::string block = "untouched";
  if (!blockbloom::AppendFilter(filter, {}, &block).ok()) abort();
  if (block.compare(0, 9, "untouched") != 0) abort();
  auto read = blockbloom::OpenFilter(
      blockbloom::AsBytes(std::string_view(block).substr(9)));
  if (!read.ok()) abort();
  if (read->kind() != filter.kind() || read->seed() != filter.seed()) abort();
  for (auto k : keys) {
    if (!read->MayContain(k)) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const uint8_t mode = data[0];
  uint64_t seed;
  std::memcpy(&seed, data + 1, 8);
  std::vector<std::string_view> keys =
      blockbloom::fuzzing::ParseKeys(data, size, 9);
  if (mode & 2) keys.insert(keys.end(), keys.begin(), keys.end());
  const double bits = 1 + (mode >> 4) + ((mode & 8) ? 0.37 : 0);  // 1 .. 16.37
  blockbloom::internal::ribbon::RibbonTarget target;
  if (mode & 4) {
    target.fp_rate = 1 / (2 * bits);  // 0.03 .. 0.5
  } else {
    target.bits_per_key = bits;
  }

  std::vector<uint64_t> hashes;
  for (auto k : keys) hashes.push_back(blockbloom::internal::Hash64(k, seed));
  auto ribbon = blockbloom::internal::ribbon::BuildRibbon(
      absl::MakeSpan(hashes), target, seed);
  if (!ribbon.ok()) abort();  // 4 salts never all fail on real keys
  if (ribbon->kind() != blockbloom::FilterKind::kRibbon) abort();
  RoundTrip(*ribbon, keys);

  blockbloom::FilterOptions options;
  options.kind = blockbloom::FilterKind::kRibbon;
  options.seed = seed;
  options.bits_per_key = bits;
  options.fp_rate = target.fp_rate;
  auto builder = blockbloom::FilterBuilder::Create(options);
  if (!builder.ok()) abort();
  for (auto k : keys) builder->Add(k);
  auto filter = builder->Finish();
  if (!filter.ok()) abort();
  if (filter->kind() != blockbloom::FilterKind::kRibbon &&
      filter->kind() != blockbloom::FilterKind::kBlocked) {
    abort();
  }
  RoundTrip(*filter, keys);
  return 0;
}
