// Keys -> build -> serialize -> open -> every key matches, in every encoding
// and codec (exact-size too), with any seed and size. The first byte picks
// encoding, codec, bits/key and narrow lanes; bytes 1-8 the seed (its top
// bit: an origin recorded, from its other bits, for the blocked kind); the
// rest are keys (1-byte length, then the key).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "fuzz/fuzz_keys.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const uint8_t mode = data[0];
  uint64_t seed;
  std::memcpy(&seed, data + 1, 8);
  const std::vector<std::string_view> keys =
      blockbloom::fuzzing::ParseKeys(data, size, 9);
  blockbloom::FilterOptions options;
  options.seed = seed;
  options.bits_per_key = 1 + (mode >> 4);  // 1 .. 16
  options.compact_small_filters = mode & 8;
  // (mode & 3) == 3: an exact-size filter (the LevelDB adapter's), fractional
  // bits/key too; in the in-place encoding, or (mode & 4) the accurate one.
  const bool exact_size = (mode & 3) == 3;
  const bool in_place = exact_size && (mode & 4) == 0;
  if (exact_size) {
    options.exact_size = true;
    options.fewer_false_positives = !in_place;
    options.bits_per_key += (mode & 8) ? 0.37 : 0;
  }
  auto builder = blockbloom::FilterBuilder::Create(options);
  if (!builder.ok()) abort();
  for (auto k : keys) builder->Add(k);
  auto filter = builder->Finish();
  if (!filter.ok()) abort();

  blockbloom::WriteOptions write;
  const blockbloom::Encoding encodings[] = {blockbloom::Encoding::kAuto,
                                            blockbloom::Encoding::kCompact,
                                            blockbloom::Encoding::kFull};
  write.encoding = encodings[(mode & 3) % 3];
  if ((mode & 4) && !exact_size &&
      write.encoding != blockbloom::Encoding::kCompact) {
    write.compression = blockbloom::Compression::kZstd;
    write.zstd_level = 1;
  }
  if (!exact_size && (seed >> 63) != 0) {
    write.origin.level = static_cast<int>((seed >> 8) % 31);
    write.origin.bottommost = ((seed >> 13) & 1) != 0;
    write.origin.group = static_cast<int>((seed >> 16) % 1024);
  }
  std::string block = "untouched";
  blockbloom::WriteStats stats;
  absl::Status appended =
      blockbloom::AppendFilter(*filter, write, &block, &stats);
  if (!appended.ok()) {
    // Only one refusal is by design: the compact encoding holds only the
    // shapes the sizing functions give (not, e.g., 32-bit lanes in a filter
    // under 1 KiB). The writer must leave *dst alone and kAuto must work.
    if (write.encoding != blockbloom::Encoding::kCompact ||
        appended.code() != absl::StatusCode::kInvalidArgument ||
        block != "untouched") {
      abort();
    }
    write.encoding = blockbloom::Encoding::kAuto;
    if (!blockbloom::AppendFilter(*filter, write, &block, &stats).ok()) abort();
  }
  if (block.compare(0, 9, "untouched") != 0) abort();
  if (stats.total_bytes != block.size() - 9) abort();
  blockbloom::ReadOptions read_options;
  read_options.seed = seed;  // exact-size blocks do not store it
  read_options.allow_in_place = in_place;
  auto read = blockbloom::OpenFilter(
      blockbloom::AsBytes(std::string_view(block).substr(9)), read_options);
  if (!read.ok()) abort();
  if (!(read->shape() == filter->shape()) || read->seed() != seed) abort();
  if (read->kind() != filter->kind()) abort();
  auto info = blockbloom::InspectFilter(
      blockbloom::AsBytes(std::string_view(block).substr(9)), read_options);
  if (!info.ok() || !(info->origin == write.origin)) abort();
  for (auto k : keys) {
    if (!read->MayContain(k)) abort();
  }
  return 0;
}
