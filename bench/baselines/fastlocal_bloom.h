// RocksDB's FastLocalBloom (format_version 5 full filter), reimplemented from
// the published algorithm (RocksDB util/bloom_impl.h, FastLocalBloomImpl) to
// measure it with the AVX2 probe that RocksDB's own Makefile build uses.
// Debian's librocksdb is built without -mavx2 and so runs the scalar probe.
//
// The format, byte for byte what RocksDB 7.8 writes and reads:
//   len bytes of 64-byte cache lines, then a 5-byte trailer
//   {0xff, 0x00, num_probes, 0x00, 0x00}.
//   For a key hashed to h = Hash(key) (RocksDB's XXH3 preview, see Hash):
//     line  = FastRange32(uint32(h), len / 64)        (h1, the LOW half)
//     probe i sets / tests bit ((h2 * 0x9e3779b9^i) >> 23) of the line, with
//     h2 = uint32(h >> 32), bits numbered little-endian within the line.
//   num_probes comes from the configured millibits per key
//   (ChooseNumProbes: 6 at 10 bits/key, 9 at 16).
// tests/baselines/baselines_test.cc checks that filters built here are
// byte-identical to RocksDB's builder output and that every probe below answers
// exactly like RocksDB's own reader on the same bytes.
#ifndef BLOCKBLOOM_BENCH_BASELINES_FASTLOCAL_BLOOM_H_
#define BLOCKBLOOM_BENCH_BASELINES_FASTLOCAL_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace blockbloom::bench::fastlocal {

inline constexpr size_t kMetadataLen = 5;

// The number of probes RocksDB picks for a bits-per-key setting given in
// thousandths of a bit (RocksDB's table of measured optima).
int ChooseNumProbes(int millibits_per_key);

// RocksDB's millibits for a bits/key setting (rounded to thousandths).
int MillibitsPerKey(double bits_per_key);

// Total filter bytes (lines + trailer) RocksDB allocates for `num_keys`
// keys, without optimize_filters_for_memory.
size_t FilterBytes(size_t num_keys, int millibits_per_key);

// Writes the trailer for `len` bytes of lines: data must hold len + 5 bytes.
void WriteTrailer(uint8_t* data, size_t len, int num_probes);

// Sets the bits of the hashes (the builder's inner loop, with RocksDB's
// 8-deep prefetch ring). data holds len bytes of lines, len % 64 == 0.
void AddHashes(uint8_t* data, uint32_t len, int num_probes,
               const uint64_t* hashes, size_t n);

// A reader over filter bytes (lines + trailer), which it does not own.
class Reader {
 public:
  // `data` holds `total` bytes as produced by RocksDB's builder or by
  // AddHashes + WriteTrailer. The probe uses the AVX2 kernel when the CPU
  // has AVX2, else the scalar one (both answer the same).
  Reader(const uint8_t* data, size_t total);

  // As RocksDB's reader: prefetch the line, then probe it.
  bool MayMatchHash(uint64_t h) const;
  bool MayMatchKey(std::string_view key) const;
  // RocksDB's batch shape: hash and prefetch all, then probe all. Any n.
  void MayMatchHashes(const uint64_t* hashes, size_t n, bool* results) const;
  void MayMatchKeys(const std::string_view* keys, size_t n,
                    bool* results) const;

  // The two probe kernels alone (tests compare them).
  bool MayMatchHashScalar(uint64_t h) const;
  bool MayMatchHashAvx2(uint64_t h) const;

  int num_probes() const { return num_probes_; }
  uint32_t len_bytes() const { return len_; }
  bool uses_avx2() const { return avx2_; }

 private:
  const uint8_t* data_;
  uint32_t len_;
  int num_probes_;
  bool avx2_;
};

// RocksDB's GetSliceHash64: rocksdb::Hash64, the XXH3 *preview* (XXPH3)
// RocksDB bundles for format compatibility. It is not the released
// XXH3_64bits (different values for every length), so it is called from
// librocksdb, out of line, as RocksDB itself calls it.
uint64_t Hash(std::string_view key);

}  // namespace blockbloom::bench::fastlocal

#endif  // BLOCKBLOOM_BENCH_BASELINES_FASTLOCAL_BLOOM_H_
