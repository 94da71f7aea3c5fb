// Keys -> build -> probe. Every key added must be found, by every probe path
// (single key, single hash, batch of keys, batch of hashes, a Wrap()ped copy
// at an odd address), and every answer must equal the scalar reference's.
//
// Input: byte 0 picks k (0 = sized by the builder) and whether narrow lanes
// are allowed, bytes 1-2 the number of blocks (0 = sized from bits/key) and
// the lane width, bytes 3-10 the seed; the rest is keys, each a 1-byte length
// then that many bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "fuzz/fuzz_keys.h"
#include "src/core/layout.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "check failed: %s\n", what);
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 11) return 0;
  const int k = data[0] % 17;
  const uint64_t blocks = (data[1] | (data[2] << 8)) % 2048;
  uint64_t seed;
  std::memcpy(&seed, data + 3, 8);
  const std::vector<std::string_view> keys =
      blockbloom::fuzzing::ParseKeys(data, size, 11);

  blockbloom::FilterOptions options;
  options.seed = seed;
  options.bits_per_key = 1 + (data[1] % 32);
  options.compact_small_filters = data[0] & 0x80;
  if (blocks != 0 && k != 0) options.shape = {blocks, k, 1 + data[2] % 32};
  auto builder = blockbloom::FilterBuilder::Create(options);
  Check(builder.ok(), "Create");
  for (std::string_view key : keys) builder->Add(key);
  auto filter = builder->Finish();
  Check(filter.ok(), "Finish");

  const size_t n = keys.size();
  std::unique_ptr<bool[]> results(new bool[n + 1]);
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = blockbloom::HashKey(keys[i], seed);
  filter->MayContainBatch(keys, absl::MakeSpan(results.get(), n));
  for (size_t i = 0; i < n; ++i) {
    Check(results[i], "batch key false negative");
    Check(filter->MayContain(keys[i]), "key false negative");
    Check(filter->MayContainHash(hashes[i]), "hash false negative");
  }
  filter->MayContainHashBatch(hashes, absl::MakeSpan(results.get(), n));
  for (size_t i = 0; i < n; ++i) Check(results[i], "batch hash false negative");

  // A misaligned copy answers like the original, and like the reference.
  std::vector<uint8_t> copy(filter->bits().size() + 1);
  std::memcpy(copy.data() + 1, filter->bits().data(), filter->bits().size());
  auto wrapped = blockbloom::Filter::Wrap(
      absl::MakeConstSpan(copy.data() + 1, filter->bits().size()),
      filter->shape(), seed, filter->num_keys());
  Check(wrapped.ok(), "Wrap");
  const blockbloom::internal::FilterRef ref =
      blockbloom::internal::BlockedRef(copy.data() + 1, filter->shape(), seed);
  for (size_t i = 0; i + 8 <= size; i += 3) {
    uint64_t h;
    std::memcpy(&h, data + i, 8);
    const bool want = blockbloom::internal::ReferenceMayContain(ref, h);
    Check(wrapped->MayContainHash(h) == want, "wrapped != reference");
    Check(filter->MayContainHash(h) == want, "filter != reference");
  }
  return 0;
}
