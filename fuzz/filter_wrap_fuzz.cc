// Arbitrary bytes as filter bits: Filter::Wrap must accept exactly the inputs
// whose size matches the shape, never read out of bounds (ASan), and every
// probe path must agree with the scalar reference on whatever bits it gets.
//
// Input: byte 0 = k and lane width (any value: out-of-range ones must be
// rejected), bytes 1-2 = claimed number of blocks, bytes 3-10 = seed, the
// rest = the bits.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "src/core/layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 11) return 0;
  const int k = data[0] % 20;
  // 32 half the time; else 0..63 and a few past the limit of 512.
  const int lane_bits =
      data[0] >= 128 ? 32 : ((data[0] >> 2) & 31) * (data[0] & 2 ? 17 : 1);
  const uint64_t claimed_blocks = data[1] | (data[2] << 8);
  uint64_t seed;
  std::memcpy(&seed, data + 3, 8);
  // Copy to an exactly-sized heap buffer so ASan sees any overread.
  const size_t bits_size = size - 11;
  std::unique_ptr<uint8_t[]> bits(new uint8_t[bits_size ? bits_size : 1]);
  if (bits_size) std::memcpy(bits.get(), data + 11, bits_size);

  auto filter =
      blockbloom::Filter::Wrap(absl::MakeConstSpan(bits.get(), bits_size),
                               {claimed_blocks, k, lane_bits}, seed, 0);
  const bool valid = k >= 1 && k <= 16 && lane_bits >= 1 &&
                     lane_bits <= blockbloom::FilterShape::kMaxLaneBits &&
                     claimed_blocks >= 1 &&
                     claimed_blocks * 2 * lane_bits == bits_size;
  if (filter.ok() != valid) abort();
  if (!filter.ok()) return 0;

  const blockbloom::internal::FilterRef ref = blockbloom::internal::BlockedRef(
      bits.get(),
      blockbloom::FilterShape{claimed_blocks, k, static_cast<int>(lane_bits)},
      seed);
  std::vector<uint64_t> hashes;
  for (size_t i = 0; i + 8 <= size; i += 5) {
    uint64_t h;
    std::memcpy(&h, data + i, 8);
    hashes.push_back(h);
  }
  hashes.push_back(0);
  hashes.push_back(~uint64_t{0});
  std::unique_ptr<bool[]> results(new bool[hashes.size()]);
  filter->MayContainHashBatch(hashes,
                              absl::MakeSpan(results.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    const bool want = blockbloom::internal::ReferenceMayContain(ref, hashes[i]);
    if (results[i] != want || filter->MayContainHash(hashes[i]) != want)
      abort();
  }
  return 0;
}
