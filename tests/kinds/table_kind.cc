#include "tests/kinds/table_kind.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "src/core/aligned_buffer.h"
#include "src/core/block_bytes.h"
#include "src/core/filter_access.h"
#include "src/core/kind.h"
#include "src/core/probe.h"
#include "src/format/registry.h"

namespace blockbloom::testing {
namespace {

using internal::FilterRef;
using internal::Get;
using internal::Put;

constexpr size_t kTrailerBytes = 4 + 8 + 4 + 1;

// The probe: the hash's high 32 bits, searched for in the table.
uint32_t Fingerprint(uint64_t hash) {
  return static_cast<uint32_t>(hash >> 32);
}

bool ProbeHash(const FilterRef& f, uint64_t hash) {
  const uint32_t want = Fingerprint(hash);
  size_t lo = 0;
  size_t hi = f.num_bits / 32;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const uint32_t at = Get<uint32_t>(f.bits + 4 * mid);
    if (at == want) return true;
    if (at < want) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

bool ProbeKey(const FilterRef& f, std::string_view key) {
  return ProbeHash(f, HashKey(key, f.seed));
}

void ProbeHashes(const FilterRef& f, const uint64_t* hashes, size_t n,
                 bool* results) {
  for (size_t i = 0; i < n; ++i) results[i] = ProbeHash(f, hashes[i]);
}

void ProbeKeys(const FilterRef& f, const std::string_view* keys, size_t n,
               bool* results) {
  for (size_t i = 0; i < n; ++i) results[i] = ProbeKey(f, keys[i]);
}

// Immutable: no insert, no add.
const internal::Kernels kKernels = {&ProbeHash, &ProbeKey, &ProbeHashes,
                                    &ProbeKeys, nullptr,   nullptr,
                                    nullptr,    "scalar"};

double FpRate(const FilterRef& ref, const FilterShape&, uint64_t) {
  return std::min(1.0, (ref.num_bits / 32) / 4294967296.0);
}

const internal::KindOps kOps = {kTableKind, &FpRate, &internal::BitsCopyBytes,
                                &internal::CopyBits, nullptr};

// The filter over `count` fingerprints at `bits` (in `owned` if not null).
Filter MakeTable(std::unique_ptr<internal::AlignedBuffer> owned,
                 const uint8_t* bits, uint64_t count, uint64_t seed,
                 uint64_t num_keys) {
  FilterRef ref{};
  ref.bits = bits;
  ref.num_blocks = 1;
  ref.seed = seed;
  ref.kind = kTableKind;
  ref.num_bits = static_cast<uint32_t>(32 * count);
  // One "block" of no probes, as the ribbon's: not a MatchAll filter.
  return internal::FilterAccess::Make(std::move(owned), kOps, ref,
                                      FilterShape{1, 0, 0}, 4 * count, num_keys,
                                      &kKernels);
}

uint32_t Check(const uint8_t* data, size_t size) {
  return static_cast<uint32_t>(XXH3_64bits_withSeed(data, size, kTableTag));
}

bool OwnsTag(uint8_t tag) { return tag == kTableTag; }

struct Parsed {
  FilterInfo info;
  const uint8_t* table = nullptr;
  uint64_t count = 0;
};

absl::StatusOr<Parsed> Parse(absl::Span<const uint8_t> block,
                             const ReadOptions& options) {
  if (block.size() < kTrailerBytes || (block.size() - kTrailerBytes) % 4) {
    return internal::Corrupt(absl::StrCat(
        "a table block is 17 bytes + 4 per fingerprint, not ", block.size()));
  }
  const uint8_t* trailer = block.end() - kTrailerBytes;
  Parsed parsed;
  parsed.count = Get<uint32_t>(trailer);
  if (parsed.count != (block.size() - kTrailerBytes) / 4) {
    return internal::Corrupt("the table's count disagrees with its size");
  }
  if (options.verify_checksum &&
      Check(block.data(), block.size() - 5) != Get<uint32_t>(trailer + 12)) {
    return internal::Corrupt("table checksum mismatch");
  }
  parsed.table = block.data();
  // Unsorted bytes would make the binary search miss a key: checked even
  // without the checksum (a probe must never say "absent" of a key in it).
  for (uint64_t i = 1; i < parsed.count; ++i) {
    if (Get<uint32_t>(parsed.table + 4 * i) <=
        Get<uint32_t>(parsed.table + 4 * (i - 1))) {
      return internal::Corrupt("the table's fingerprints are not ascending");
    }
  }
  FilterInfo& info = parsed.info;
  info.kind = kTableKind;
  info.shape = FilterShape{1, 0, 0};
  info.seed = Get<uint64_t>(trailer + 4);
  info.num_keys_known = true;
  info.num_keys = parsed.count;
  info.bits_bytes = info.payload_bytes = 4 * parsed.count;
  info.overhead_bytes = kTrailerBytes;
  info.total_bytes = block.size();
  return parsed;
}

absl::StatusOr<Filter> OpenParsed(const Parsed& parsed) {
  return MakeTable(nullptr, parsed.table, parsed.count, parsed.info.seed,
                   parsed.count);
}

absl::Status Append(const Filter& filter, const WriteOptions& options,
                    std::string* dst, WriteStats* stats) {
  if (options.compression != Compression::kNone) {
    return absl::InvalidArgumentError("a table block is never compressed");
  }
  const size_t start = dst->size();
  const absl::Span<const uint8_t> bits = filter.bits();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  uint8_t trailer[kTrailerBytes];
  Put<uint32_t>(trailer, static_cast<uint32_t>(bits.size() / 4));
  Put<uint64_t>(trailer + 4, filter.seed());
  dst->append(reinterpret_cast<const char*>(trailer), 12);
  const uint32_t check =
      Check(reinterpret_cast<const uint8_t*>(dst->data()) + start,
            dst->size() - start);
  Put<uint32_t>(trailer + 12, check);
  trailer[16] = kTableTag;
  dst->append(reinterpret_cast<const char*>(trailer + 12), 5);
  internal::FillWriteStats(Encoding::kAuto, bits.size(), bits.size(), start,
                           *dst, stats);
  return absl::OkStatus();
}

bool Writes(Encoding) { return false; }  // kAuto only

// FilterBuilder refuses exact_size and a fixed shape for every kind but
// kBlocked; a table also has no rate to choose.
absl::Status CheckOptions(const FilterOptions& options) {
  if (options.fp_rate != 0) {
    return absl::InvalidArgumentError(
        "a table's rate is fixed by its 32-bit fingerprints: no fp_rate");
  }
  return absl::OkStatus();
}

uint64_t PlannedBytes(uint64_t num_keys, const FilterOptions&, uint64_t) {
  return 4 * num_keys;
}

absl::StatusOr<Filter> Build(absl::Span<uint64_t> hashes,
                             const FilterOptions& options) {
  std::vector<uint32_t> table(hashes.size());
  std::transform(hashes.begin(), hashes.end(), table.begin(), &Fingerprint);
  std::sort(table.begin(), table.end());
  table.erase(std::unique(table.begin(), table.end()), table.end());
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
      internal::AlignedBuffer::Create(4 * table.size());
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  for (size_t i = 0; i < table.size(); ++i)
    Put<uint32_t>(data + 4 * i, table[i]);
  return MakeTable(*std::move(bits), data, table.size(), options.seed,
                   hashes.size());
}

double FpRateAt(uint64_t num_keys, double) {
  return std::min(1.0, num_keys / 4294967296.0);
}

uint64_t BlockBytes(uint64_t payload_bytes, uint64_t, const FilterOrigin&) {
  return payload_bytes + kTrailerBytes;
}

const internal::KindPlugin kPlugin = {
    .kind = kTableKind,
    .name = "table",
    .owns_tag = &OwnsTag,
    .open = &internal::OpenByParsing<&Parse, &OpenParsed>,
    .inspect = &internal::InspectByParsing<&Parse>,
    .append = &Append,
    .writes = &Writes,
    .records_origin = false,
    .check_options = &CheckOptions,
    .planned_bytes = &PlannedBytes,
    .build = &Build,
    .fp_rate_at = &FpRateAt,
    .block_bytes = &BlockBytes,
};

}  // namespace

void RegisterTableKind() {
  static const bool registered = [] {
    const absl::Status s = internal::RegisterKind(kPlugin);
    if (!s.ok()) {
      std::fprintf(stderr, "RegisterTableKind: %s\n", s.ToString().c_str());
      std::abort();
    }
    return true;
  }();
  (void)registered;
}

}  // namespace blockbloom::testing
