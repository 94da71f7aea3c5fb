// The RDB encoding of a Redis filter value (encoding version 1), through an
// abstract writer and reader: the module implements them over RedisModuleIO
// (RedisModule_SaveUnsigned, ...), tests and fuzz targets over a byte string
// (StringRdbWriter, StringRdbReader). docs/FORMAT.md, "Redis module: RDB
// encoding", lists the values in order.
//
// Every value is also hashed (XXH3-64, streamed) and the digest is the last
// value, so a damaged payload is refused rather than loaded as a filter that
// answers "absent" for keys it holds.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_RDB_CODEC_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_RDB_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module {

// The encoding version SaveStack writes (the data type's encver).
inline constexpr int kRdbEncodingVersion = 1;

class RdbWriter {
 public:
  virtual ~RdbWriter();
  virtual void Unsigned(uint64_t value) = 0;
  virtual void Double(double value) = 0;
  virtual void Bytes(std::string_view bytes) = 0;
};

class RdbReader {
 public:
  // Where a string's bytes go: given its length, a buffer of that many
  // bytes (may be null when the length is 0), or an error that refuses the
  // length.
  using Placer = absl::FunctionRef<absl::StatusOr<uint8_t*>(size_t size)>;

  virtual ~RdbReader();
  // DataLoss when the stream is truncated or the next value is of another
  // type.
  virtual absl::StatusOr<uint64_t> Unsigned() = 0;
  virtual absl::StatusOr<double> Double() = 0;
  // Reads the next string: asks `place` where its bytes go, and copies them
  // there, once (over RedisModuleIO: from the buffer
  // RedisModule_LoadStringBuffer returned, straight into a filter piece).
  // Returns place's error if it refuses.
  virtual absl::Status Bytes(Placer place) = 0;

  // The next string into dst, which must be exactly `size` bytes (DataLoss
  // otherwise).
  absl::Status BytesExactly(uint8_t* dst, size_t size);
};

// Writes the stack. The writer must not fail (Redis's savers do not).
void SaveStack(const FilterStack& stack, RdbWriter& writer);

// Reads a stack SaveStack wrote with encoding version `encver`.
// Unimplemented for an encver this code does not know (a later module
// wrote it); DataLoss for a truncated or damaged stream (bad lengths, values
// out of range, checksum mismatch); ResourceExhausted if the filter has more
// than `max_bytes` bytes of bits (checked before any piece is allocated, so
// no input makes the reader allocate more than that and the piece tables).
absl::StatusOr<FilterStack> LoadStack(RdbReader& reader, int encver,
                                      uint64_t max_bytes);

// The writer and reader over a byte string, with Redis's typed opcodes:
// each value is one type byte (2 unsigned, 4 double, 5 string, as RDB's
// RDB_MODULE_OPCODE_*), then 8 bytes little-endian, or for a string its
// length (8 bytes) and its bytes.
class StringRdbWriter final : public RdbWriter {
 public:
  void Unsigned(uint64_t value) override;
  void Double(double value) override;
  void Bytes(std::string_view bytes) override;
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class StringRdbReader final : public RdbReader {
 public:
  explicit StringRdbReader(std::string_view bytes) : in_(bytes) {}
  absl::StatusOr<uint64_t> Unsigned() override;
  absl::StatusOr<double> Double() override;
  absl::Status Bytes(Placer place) override;
  // Bytes not read yet.
  size_t remaining() const { return in_.size(); }

 private:
  absl::StatusOr<uint64_t> Word(uint8_t type, const char* what);
  std::string_view in_;
};

}  // namespace blockbloom::redis_module

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_RDB_CODEC_H_
