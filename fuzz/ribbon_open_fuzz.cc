// Arbitrary bytes made into a ribbon block the reader gets past its
// checksum, in either footer: an input ending in 0x7F keeps the short
// footer (version 6) and gets its checksum; any other gets the long one's
// tag, magic, payload size (from the layer count) and checksum. So the
// fuzzer explores the layer table's, the flags' and the thresholds'
// validation and the probe of any payload bits instead of stopping at the
// checksum. OpenFilter must never crash, read
// out of bounds or hit undefined behaviour; a block that opens must probe
// as the scalar reference (src/ribbon/reference.h) does, single and batch
// alike, and InspectFilter must agree with it. Seeded from the golden
// vectors in tests/testdata/ (ribbon_*.bbf, ribbon6_*.bbf).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "src/core/filter_access.h"
#include "src/core/key_hash.h"  // XXH3 (XXH_INLINE_ALL)
#include "src/ribbon/reference.h"

namespace {

constexpr size_t kFooter = 44;  // docs/FORMAT.md, "Ribbon encoding"
constexpr size_t kShortFooter = 11;
constexpr uint8_t kShortTag = 0x7F;

// The short footer's checksum (bytes n-5 .. n-2): every other byte.
void MakeShortConsistent(uint8_t* block, size_t n) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, block, n - 5);
  XXH3_64bits_update(&state, block + n - 1, 1);
  const uint32_t checksum = static_cast<uint32_t>(XXH3_64bits_digest(&state));
  std::memcpy(block + n - 5, &checksum, 4);
}

// The block's payload size (from its layer count), magic, tag and checksum.
void MakeConsistent(uint8_t* block, size_t n) {
  uint8_t* footer = block + n - kFooter;
  const uint64_t table = 8 * uint64_t{footer[29]};
  const uint64_t payload = n - kFooter >= table ? n - kFooter - table : 0;
  std::memcpy(footer + 16, &payload, 8);
  std::memcpy(footer + 40, "bbr\x9f", 4);
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, block, n - kFooter + 32);
  XXH3_64bits_update(&state, footer + 36, kFooter - 36);
  const uint32_t checksum = static_cast<uint32_t>(XXH3_64bits_digest(&state));
  std::memcpy(footer + 32, &checksum, 4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exactly-sized copy, so that any overread is caught.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size ? size : 1]);
  if (size) std::memcpy(copy.get(), data, size);
  if (size >= kShortFooter && data[size - 1] == kShortTag) {
    MakeShortConsistent(copy.get(), size);
  } else if (size >= kFooter) {
    MakeConsistent(copy.get(), size);
  }
  const absl::Span<const uint8_t> bytes(copy.get(), size);

  auto info = blockbloom::InspectFilter(bytes);
  auto filter = blockbloom::OpenFilter(bytes);
  if (!filter.ok()) {
    if (filter.status().message().empty()) abort();
    return 0;
  }
  if (!info.ok() || info->kind != filter->kind()) abort();
  if (filter->kind() != blockbloom::FilterKind::kRibbon) return 0;
  const blockbloom::internal::RibbonView& view =
      blockbloom::internal::ViewOf<blockbloom::internal::RibbonView>(
          blockbloom::internal::FilterAccess::Ref(*filter));
  uint64_t hashes[64];
  for (size_t i = 0; i < 64; ++i) {
    hashes[i] = (i + 1) * 0x9e3779b97f4a7c15ULL ^ (size > i ? data[i] : 0);
  }
  bool results[64];
  filter->MayContainHashBatch(hashes, absl::MakeSpan(results, 64));
  for (size_t i = 0; i < 64; ++i) {
    const bool expected =
        blockbloom::internal::ribbon::ReferenceMayContain(view, hashes[i]);
    if (results[i] != expected) abort();
    if (filter->MayContainHash(hashes[i]) != expected) abort();
  }
  (void)filter->EstimatedFpRate();
  return 0;
}
