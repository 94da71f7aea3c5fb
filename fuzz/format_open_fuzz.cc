// Arbitrary bytes as a serialized filter block. OpenFilter and InspectFilter
// must never crash, read out of bounds (ASan) or hit undefined behaviour
// (UBSan), with or without checksum verification; when a block opens, it
// must probe (single and batch agree), and InspectFilter must agree with it.
// Seeded from the golden vectors in tests/testdata/.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exactly-sized copy, so that any overread is caught.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size ? size : 1]);
  if (size) std::memcpy(copy.get(), data, size);
  const absl::Span<const uint8_t> bytes(copy.get(), size);

  for (bool verify : {true, false}) {
    blockbloom::ReadOptions options;
    options.verify_checksum = verify;
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
    (void)filter->MayContain(std::string_view(
        reinterpret_cast<const char*>(data), size < 16 ? size : 16));
    (void)filter->EstimatedFpRate();
  }
  blockbloom::Filter f = blockbloom::OpenFilterOrMatchAll(bytes);
  (void)f.MayContainHash(size);
  return 0;
}
