// The serialized filter block: one per SSTable (or per data block), the
// on-disk contract that storage engines keep. docs/FORMAT.md has the byte
// layout, the versioning rules and the golden vectors.
//
//   std::string block;
//   absl::Status s = blockbloom::AppendFilter(filter, {}, &block);
//   ...
//   absl::StatusOr<blockbloom::Filter> read = blockbloom::OpenFilter(bytes);
//   if (!read.ok()) { /* DataLoss, Unimplemented, ...: the message says why */
//   }
//
// Five encodings share one reader:
// - in-place: a block of exactly the size a LevelDB filter of the same keys
//   and bits/key takes: a standard Bloom filter and a one-byte tag, no
//   checksum (FilterOptions::exact_size, the default). For the filters LevelDB
//   builds per data block, probed where they lie; the engine's block
//   checksum protects them. The hash seed is not stored.
// - accurate (format version 3; version 2 still read): the same size, 3-byte
//   trailer with a CRC-16 included, holding a one-block Bloom filter or a
//   compressed fingerprint set, whichever is more accurate
//   (FilterOptions::fewer_false_positives). The hash seed is not stored but
//   mixed into the checksum.
// - compact (version 1): the bits, then a 3-byte trailer (11 with a seed;
//   version 7: +6 with the key count and an origin). Written for small
//   filters that are not exact-size.
// - full: the bits (optionally zstd-compressed), then a 56-byte footer with
//   every parameter, the key count and a checksum. For per-SSTable filters.
// - ribbon (version 5): a ribbon filter's layers, a table of their sizes and
//   a 44-byte footer with its parameters, the key count and a checksum.
//   Probed where it lies, as the full encoding.
#ifndef BLOCKBLOOM_FORMAT_H_
#define BLOCKBLOOM_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"

namespace blockbloom {

enum class Encoding : uint8_t {
  kAuto,      // an exact-size filter's own (accurate or in-place); else
              // compact for uncompressed filters under 1 KiB, full otherwise
  kCompact,   // bits + 3-byte trailer (+8 with a non-zero seed; +6 with
              // the key count and an origin, format version 7); the key
              // count only with an origin; no compression; only the shapes
              // the sizing functions give
  kFull,      // bits or zstd frame + 56-byte footer
  kAccurate,  // bits + 3-byte trailer, seed in the checksum only: exact-size
              // filters built with fewer_false_positives only
  kInPlace,   // bits + 1-byte tag, no checksum, no seed: the other
              // exact-size filters only
  kRibbon,    // layers + 8 bytes per layer + an 11-byte footer (+8 with
              // a non-zero seed, +2 with an origin; format version 6; the
              // 44-byte footer of version 5 is still read): ribbon filters
              // only, the encoding kAuto picks for them
};

enum class Compression : uint8_t {
  kNone,
  kZstd,  // full encoding only
};

// Where a storage engine built a filter, recorded in the block (the full
// encoding's footer since format 4.1, the ribbon encoding's since 5.1 and
// 6; docs/FORMAT.md) so that whoever reads the
// block later knows how it was built: the RocksDB adapter records the LSM
// level a table was written at and its column family, and its readers count
// probes by them (docs/LEVELS.md, "The learned plan"). Changes no answer.
struct FilterOrigin {
  // The level the filter's table was written to, 0 .. kMaxLevel; -1: none
  // recorded (nothing else is then stored).
  int level = -1;
  // Nothing below the table is probed for its keys (RocksDB's is_bottommost).
  bool bottommost = false;
  // The writer's group of tables (the RocksDB adapter: a hash of the column
  // family's name), 0 .. kMaxGroup.
  int group = 0;
  static constexpr int kMaxLevel = 30;
  static constexpr int kMaxGroup = 1023;
  bool recorded() const { return level >= 0; }
  friend bool operator==(const FilterOrigin&, const FilterOrigin&) = default;
};

struct WriteOptions {
  Encoding encoding = Encoding::kAuto;
  // A caller's choice for cold storage or shipping filters: a well-sized
  // filter's bits are random and do not compress (5000 keys at 10 bits/key:
  // 6272 bytes of bits, 6282 as zstd), a sparse one does (2000 keys at 100
  // bits/key: 25024 -> 15768 bytes). Compressed filters are decompressed
  // into memory on open instead of probed in place.
  Compression compression = Compression::kNone;
  int zstd_level = 3;  // 1 (fast) .. 19 (small)
  // Recorded in the block if origin.recorded(): only the full, compact
  // (format 7) and ribbon encodings have room for it (kAuto picks among them
  // as without one; the accurate and in-place encodings refuse an origin
  // with InvalidArgument). A level or group out of range is InvalidArgument.
  FilterOrigin origin;
};

// What AppendFilter wrote.
struct WriteStats {
  Encoding encoding = Encoding::kAuto;  // the encoding chosen
  uint64_t bits_bytes = 0;              // the filter's bits, uncompressed
  uint64_t payload_bytes = 0;           // the bits as stored
  uint64_t overhead_bytes = 0;          // trailer or footer
  uint64_t total_bytes = 0;             // payload + overhead
};

// Appends the serialized `filter` to `*dst`, leaving what is already there
// untouched (as LevelDB's FilterPolicy::CreateFilter requires).
// InvalidArgument for a MatchAll() filter or for compression with the
// compact encoding; Internal if zstd fails. On error *dst is unchanged.
absl::Status AppendFilter(const Filter& filter, const WriteOptions& options,
                          std::string* dst, WriteStats* stats = nullptr);

// The same, into a new string.
absl::StatusOr<std::string> SerializeFilter(const Filter& filter,
                                            const WriteOptions& options = {});

struct ReadOptions {
  // Verify the checksum (CRC-16 of the compact and accurate encodings, 32-bit
  // XXH3 of the full one; the in-place encoding has none). Skip it only for
  // bytes the storage engine has verified itself (a block checksum): a
  // flipped bit in unverified bits can turn a stored key into a false
  // negative.
  bool verify_checksum = true;
  // The hash seed of accurate and in-place filters, which do not store it
  // (accurate blocks mix it into their checksum, so a wrong seed reads as a
  // checksum mismatch; in-place blocks cannot tell, and a wrong seed gives
  // false negatives). The other encodings store theirs and ignore this.
  uint64_t seed = 0;
  // Also read in-place blocks (FilterOptions::exact_size without
  // fewer_false_positives), which have no checksum: only for bytes whose
  // integrity the storage engine guarantees (a block checksum), as the
  // exact-size FilterPolicy does. Otherwise an in-place tag reads as DataLoss,
  // so that a damaged block of another encoding (truncated to a byte that
  // looks like an in-place tag) is never taken for an unchecked filter.
  bool allow_in_place = false;
  // A compressed filter claiming more than this many bytes of bits is
  // refused (ResourceExhausted) before anything is allocated.
  uint64_t max_decompressed_bytes = uint64_t{4} << 30;
  // So is one whose bits would be more than this many times its compressed
  // size, once they pass kRatioFreeBytes: zstd expands up to ~32000x (a
  // 131 KB block can claim 4 GiB of bits), while a filter's bits compress
  // 1024x only when fewer than about 1 in 10^4 of them are set, i.e. a
  // filter holding almost nothing. 0: no ratio cap (max_decompressed_bytes
  // still applies). The cap bounds what a small block can make the reader
  // allocate to max(kRatioFreeBytes, ratio x its size).
  uint64_t max_decompression_ratio = 1024;
  static constexpr uint64_t kRatioFreeBytes = uint64_t{64} << 20;
};

struct FilterInfo;  // below

// Opens a serialized filter. Uncompressed bits are probed where they are,
// without copying and with no alignment requirement: `bytes` must then
// outlive the Filter. Compressed bits are decompressed into an owned,
// 64-byte-aligned buffer. Errors name the problem:
//   DataLoss       truncated, not a blockbloom filter, inconsistent sizes,
//                  parameters out of range, checksum mismatch, bad zstd data
//   Unimplemented  a newer major version, an unknown hash or codec
//   ResourceExhausted  a decompressed size over max_decompressed_bytes, or
//                  over max_decompression_ratio times the compressed size
// Never reads outside `bytes`, never crashes on any input (fuzzed).
absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options = {});
// The same, and an open that succeeds also stores in `*info` what
// InspectFilter returns: a reader that wants both reads the trailer or
// footer once.
absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options, FilterInfo* info);

// For storage engines: like OpenFilter, but a filter that cannot be read
// comes back as Filter::MatchAll() ("may match" for every key), so a damaged
// filter costs extra reads and never a wrong answer. The reason goes to
// `*error` if given.
Filter OpenFilterOrMatchAll(absl::Span<const uint8_t> bytes,
                            const ReadOptions& options = {},
                            absl::Status* error = nullptr);
// The same, with `*info` as OpenFilter's (untouched for a MatchAll()).
Filter OpenFilterOrMatchAll(absl::Span<const uint8_t> bytes,
                            const ReadOptions& options, absl::Status* error,
                            FilterInfo* info);

// What a serialized filter's trailer or footer says, without opening it
// (no allocation, no decompression; the checksum is verified if asked).
struct FilterInfo {
  Encoding encoding = Encoding::kAuto;
  // The encoding version, major.minor, that the block's tag, trailer or
  // footer records (`blockbloom info`'s "encoding version"). It is not the
  // format version of docs/FORMAT.md, which numbers the changes of all the
  // encodings together: a full block with an origin (format version 4.1) is
  // encoding version 1.1, an in-place block (format version 4) 1.0.
  int major_version = 0;
  int minor_version = 0;
  FilterKind kind = FilterKind::kBlocked;
  FilterShape shape;  // see Filter::shape() for exact-size kinds
  int set_low_bits =
      0;  // FilterKind::kSet: bits of each fingerprint's low part
  uint64_t seed = 0;
  bool num_keys_known = false;  // compact, accurate kSpread and in-place
                                // do not store it
  uint64_t num_keys = 0;
  Compression compression = Compression::kNone;
  uint64_t bits_bytes = 0;      // uncompressed
  uint64_t payload_bytes = 0;   // as stored
  uint64_t overhead_bytes = 0;  // trailer or footer
  uint64_t total_bytes = 0;
  // What the writer recorded (full encoding 4.1 and later, ribbon encoding
  // 5.1 and 6, compact encoding 7); origin.recorded() is false otherwise.
  FilterOrigin origin;
};
absl::StatusOr<FilterInfo> InspectFilter(absl::Span<const uint8_t> bytes,
                                         const ReadOptions& options = {});

// Convenience for string-held blocks.
inline absl::Span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FORMAT_H_
