// Arbitrary bytes as a serialized filter block. OpenFilter and InspectFilter
// must never crash, read out of bounds (ASan) or hit undefined behaviour
// (UBSan), with or without checksum verification, with or without in-place
// blocks allowed; when a block opens, it must probe (single and batch
// agree), and InspectFilter must agree with it; an in-place block probed
// where it lies (FilterPolicy::KeyMayMatch, src/exact_size/in_place.h) answers
// as the opened filter does. Seeded from the golden vectors in tests/testdata/.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exactly-sized copy, so that any overread is caught.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size ? size : 1]);
  if (size) std::memcpy(copy.get(), data, size);
  const absl::Span<const uint8_t> bytes(copy.get(), size);

  static const blockbloom::FilterPolicy* const policy = [] {
    blockbloom::FilterPolicy::Options options;
    options.exact_size = true;
    return new blockbloom::FilterPolicy(
        *blockbloom::FilterPolicy::Create(options));
  }();
  for (int mode = 0; mode < 4; ++mode) {
    blockbloom::ReadOptions options;
    options.verify_checksum = (mode & 1) == 0;
    options.allow_in_place = (mode & 2) != 0;
    options.max_decompressed_bytes = 64 << 20;  // keep the fuzzer's RSS low
    auto info = blockbloom::InspectFilter(bytes, options);
    auto filter = blockbloom::OpenFilter(bytes, options);
    if (!filter.ok()) {
      if (filter.status().message().empty()) abort();
      continue;
    }
    if (!info.ok() || !(info->shape == filter->shape())) abort();
    uint64_t hashes[40];
    for (size_t i = 0; i < 40; ++i) {
      hashes[i] = i * 0x9e3779b97f4a7c15ULL ^ (size > i ? data[i] : 0);
    }
    bool results[40];
    filter->MayContainHashBatch(hashes, absl::MakeSpan(results, 40));
    for (size_t i = 0; i < 40; ++i) {
      if (results[i] != filter->MayContainHash(hashes[i])) abort();
    }
    const std::string_view key(reinterpret_cast<const char*>(data),
                               size < 16 ? size : 16);
    const bool may = filter->MayContain(key);
    if (info->encoding == blockbloom::Encoding::kInPlace &&
        policy->KeyMayMatch(key, bytes) != may) {
      abort();
    }
    (void)filter->EstimatedFpRate();
  }
  blockbloom::Filter f = blockbloom::OpenFilterOrMatchAll(bytes);
  (void)f.MayContainHash(size);
  return 0;
}
