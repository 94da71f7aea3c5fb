// What the two encodings of a Redis filter value share (the RDB encoding,
// rdb_codec.h, and the SCANDUMP chunks, chunk_format.h): little-endian
// fields, and the validation of a stack's declared options and layers before
// anything is allocated for them.
#ifndef BLOCKBLOOM_SRC_FILTER_STACK_CODEC_COMMON_H_
#define BLOCKBLOOM_SRC_FILTER_STACK_CODEC_COMMON_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "blockbloom/sizing.h"
#include "src/filter_stack/filter_stack.h"

namespace blockbloom::redis_module::codec {

// A layer as an encoding declares it.
struct LayerRecord {
  FilterShape shape;
  uint64_t capacity = 0;
  double fp_rate = 0;
  uint64_t count = 0;
};

LayerRecord RecordOf(const Layer& layer);

// OK if `options` and `layers` describe a stack the module can hold: valid
// options (FilterStack::ValidateOptions), 1 to FilterStack::kMaxLayers
// layers, each of a valid shape (ValidateShape), capacity >= 1 and rate in
// (0, 1); and at most `max_bytes` bytes of bits in all (ResourceExhausted
// otherwise: the limit protects the server from a value that declares more
// than it may reserve). DataLoss for the others, prefixed with `what`.
absl::Status ValidateStack(const char* what, const StackOptions& options,
                           absl::Span<const LayerRecord> layers,
                           uint64_t max_bytes);

// The layers (no piece allocated); `layers` must be valid.
std::vector<Layer> MakeLayers(absl::Span<const LayerRecord> layers);

inline void PutU16(std::string* out, uint16_t v) {
  char b[2];
  std::memcpy(b, &v, 2);  // little-endian host (src/core/layout.h asserts)
  out->append(b, 2);
}
inline void PutU32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}
inline void PutU64(std::string* out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}
inline uint64_t DoubleBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits;
}
inline double BitsDouble(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}
template <typename T>
T Get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace blockbloom::redis_module::codec

#endif  // BLOCKBLOOM_SRC_FILTER_STACK_CODEC_COMMON_H_
