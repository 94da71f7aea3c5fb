// The accurate encoding (format versions 2 and 3): one-block spread filters
// and fingerprint sets of LevelDB's byte budget (src/exact_size/exact_size.h) |
// crc16 | tag. The CRC covers the seed, which the block does not hold.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/block_bytes.h"
#include "src/core/crc16.h"
#include "src/core/key_hash.h"
#include "src/exact_size/encoding.h"
#include "src/exact_size/exact_size.h"

namespace blockbloom::internal {
namespace {

// The accurate encoding's checksum covers the payload, then the 8 bytes of the
// seed (which the block does not hold: a reader with another seed sees a
// mismatch instead of misreading every key), then the tag.
uint16_t AccurateChecksum(absl::Span<const uint8_t> block, uint64_t seed) {
  const size_t n = block.size();
  uint8_t seed_bytes[8];
  Put<uint64_t>(seed_bytes, seed);
  uint16_t crc = Crc16(0xFFFF, block.data(), n - kAccurateTrailerBytes);
  crc = Crc16(crc, seed_bytes, sizeof(seed_bytes));
  return Crc16(crc, block.data() + n - 1, 1);
}

// Version 3 of the accurate encoding stores the payload's first 8 bytes XORed
// with a 64-bit hash of the rest of it (and the seed). Why: LevelDB's probes
// go through a per-thread cache of verified blocks (src/policy/probe_cache.h)
// that recognizes a block by its length and its first and last 8 bytes, the
// last holding the CRC-16. Two filters of nearly the same keys (a data block
// rewritten with one key replaced) often differ only in between, so only
// the CRC-16 told them apart, all but once in 65,536 (docs/FORMAT.md has the
// figures). Whitened, the first 8 bytes change with any byte of the payload,
// so the cache's key covers the whole block at no cost per probe and no byte
// of the budget. Payloads of 8 bytes or less are left as they are: the key's
// 16 bytes cover the whole block already. Its own inverse (whiten a stored
// payload to restore it).
void WhitenAccurate(uint8_t* payload, size_t payload_bytes, uint64_t seed) {
  if (payload_bytes <= 8) return;
  const uint64_t rest =
      XXH3_64bits_withSeed(payload + 8, payload_bytes - 8, seed);
  Put<uint64_t>(payload, Get<uint64_t>(payload) ^ rest);
}

}  // namespace

absl::StatusOr<ExactSizeBlock> ParseAccurate(absl::Span<const uint8_t> block,
                                             const ReadOptions& options) {
  const size_t n = block.size();
  const uint8_t tag = block[n - 1];
  const uint64_t payload_bytes =
      n < kAccurateTrailerBytes ? 0 : n - kAccurateTrailerBytes;
  if (payload_bytes < kAccurateMinPayloadBytes) {
    return Corrupt(absl::StrCat(
        "truncated: ", n, " bytes, an exact-size filter has at least ",
        kAccurateMinPayloadBytes + kAccurateTrailerBytes));
  }
  if (payload_bytes > kAccurateMaxPayloadBytes) {
    return Corrupt(
        absl::StrCat("inconsistent sizes: ", payload_bytes,
                     " bytes of bits, an exact-size filter has at most ",
                     kAccurateMaxPayloadBytes));
  }
  if (options.verify_checksum) {
    const uint16_t stored = Get<uint16_t>(block.data() + n - 3);
    const uint16_t crc = AccurateChecksum(block, options.seed);
    if (crc != stored) {
      return Corrupt(absl::StrFormat(
          "checksum mismatch (accurate encoding): stored 0x%04x, computed "
          "0x%04x with seed %d (damaged, or written with another seed)",
          stored, crc, options.seed));
    }
  }
  const bool v3 = tag < kAccurateSpreadTag;
  ExactSizeBlock p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kAccurate;
  info.major_version = v3 ? kAccurateVersion : kAccurateVersion2;
  info.minor_version = 0;
  info.seed = options.seed;
  info.compression = Compression::kNone;
  info.bits_bytes = info.payload_bytes = payload_bytes;
  info.overhead_bytes = kAccurateTrailerBytes;
  info.total_bytes = n;
  p.payload = block.subspan(0, payload_bytes);
  if (v3 && payload_bytes > 8) {
    p.restored.assign(p.payload.begin(), p.payload.end());
    WhitenAccurate(p.restored.data(), p.restored.size(), options.seed);
    p.payload = absl::MakeConstSpan(p.restored);
  }
  if ((tag & 0xF0) == kAccurateSpreadTag ||
      (tag & 0xF0) == kAccurate3SpreadTag) {
    info.kind = FilterKind::kSpread;
    info.shape = {1, (tag & 0x0F) + 1, 0};
    return p;
  }
  info.kind = FilterKind::kSet;
  info.shape = {1, 0, 0};
  info.set_low_bits = tag & 0x0F;
  SetParams& params = p.set;
  if (!ParseSet(p.payload.data(), 8 * payload_bytes, info.set_low_bits,
                &params)) {
    return Corrupt(absl::StrCat("inconsistent sizes: the fingerprint set's ",
                                payload_bytes, " bytes are not a set of ",
                                info.set_low_bits, "-bit lows"));
  }
  info.num_keys_known = true;
  info.num_keys = params.count;
  return p;
}

void AppendAccurate(const Filter& filter, std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  const size_t start = dst->size();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  const uint8_t tag =
      filter.kind() == FilterKind::kSet
          ? static_cast<uint8_t>(kAccurate3SetTag + filter.set_low_bits())
          : static_cast<uint8_t>(kAccurate3SpreadTag + filter.num_probes() - 1);
  const char trailer[3] = {0, 0, static_cast<char>(tag)};
  dst->append(trailer, sizeof(trailer));
  uint8_t* block = reinterpret_cast<uint8_t*>(dst->data()) + start;
  const size_t n = dst->size() - start;
  WhitenAccurate(block, bits.size(), filter.seed());
  Put<uint16_t>(block + n - 3, AccurateChecksum({block, n}, filter.seed()));
}

}  // namespace blockbloom::internal
