#include "blockbloom/scalable_filter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/key_hash.h"

namespace blockbloom {
namespace {

// The stack format (docs/FORMAT.md, "Scalable filter stack"); little-endian.
constexpr char kMagic[4] = {'b', 'b', 's', 'c'};
constexpr uint8_t kMajorVersion = 1;
constexpr uint8_t kMinorVersion = 0;
constexpr size_t kHeaderBytes = 56;
constexpr size_t kLayerPrefixBytes = 16;
constexpr size_t kTrailerBytes = 8;

void PutU32(std::string* s, uint32_t v) {
  s->append(reinterpret_cast<const char*>(&v), 4);
}
void PutU64(std::string* s, uint64_t v) {
  s->append(reinterpret_cast<const char*>(&v), 8);
}
void PutF64(std::string* s, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  PutU64(s, bits);
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
double GetF64(const uint8_t* p) {
  double v;
  std::memcpy(&v, p, 8);
  return v;
}

uint32_t Checksum(const uint8_t* data, size_t size) {
  return static_cast<uint32_t>(internal::Hash64(
      std::string_view(reinterpret_cast<const char*>(data), size), 0));
}

std::string Bytes(uint64_t n) {
  if (n >= (uint64_t{1} << 20)) {
    return absl::StrFormat("%.1f MiB", static_cast<double>(n) / (1 << 20));
  }
  return absl::StrCat(n, " bytes");
}

}  // namespace

ScalableFilter::ScalableFilter(const ScalableFilterOptions& options)
    : options_(options) {}
ScalableFilter::ScalableFilter(ScalableFilter&&) noexcept = default;
ScalableFilter& ScalableFilter::operator=(ScalableFilter&&) noexcept = default;
ScalableFilter::~ScalableFilter() = default;

absl::Status ScalableFilter::ValidateOptions(const ScalableFilterOptions& o) {
  if (o.initial_capacity == 0) {
    return absl::InvalidArgumentError("initial_capacity must be positive");
  }
  if (!(o.fp_rate > 0 && o.fp_rate < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fp_rate must be in (0, 1), got ", o.fp_rate));
  }
  if (!(o.expansion >= 1 && std::isfinite(o.expansion))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expansion must be a finite number >= 1, got ", o.expansion));
  }
  if (!(o.tightening > 0 && o.tightening < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tightening must be in (0, 1), got ", o.tightening));
  }
  if (o.max_bytes == 0) {
    return absl::InvalidArgumentError("max_bytes must be positive");
  }
  return absl::OkStatus();
}

absl::StatusOr<FilterShape> ScalableFilter::LayerShape(
    size_t i, uint64_t capacity) const {
  const double rate = options_.fp_rate * (1 - options_.tightening) *
                      std::pow(options_.tightening, static_cast<double>(i));
  return ShapeForFpRate(capacity, rate, /*compact_small_filters=*/false);
}

absl::StatusOr<ScalableFilter> ScalableFilter::Create(
    const ScalableFilterOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  ScalableFilterOptions resolved = options;
  if (!resolved.seed.has_value()) resolved.seed = NewRandomSeed();
  ScalableFilter filter(resolved);
  if (absl::Status s = filter.AddLayer(); !s.ok()) return s;
  return filter;
}

absl::Status ScalableFilter::AddLayer() {
  const size_t i = layers_.size();
  uint64_t capacity = options_.initial_capacity;
  if (i > 0) {
    const double next =
        std::ceil(static_cast<double>(capacities_.back()) * options_.expansion);
    if (next >= 0x1p62) {
      return absl::OutOfRangeError(absl::StrCat(
          "scalable filter: layer ", i, " would hold more than 2^62 keys"));
    }
    capacity = static_cast<uint64_t>(next);
  }
  absl::StatusOr<FilterShape> shape = LayerShape(i, capacity);
  if (!shape.ok()) return shape.status();
  if (shape->size_bytes() > options_.max_bytes - size_bytes_ ||
      size_bytes_ > options_.max_bytes) {
    if (i == 0) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "scalable filter: the first layer (capacity ", capacity,
          " keys at a false-positive rate of ",
          options_.fp_rate * (1 - options_.tightening), ") needs ",
          Bytes(shape->size_bytes()),
          ", over max_bytes = ", Bytes(options_.max_bytes),
          "; start with a smaller initial_capacity (layers are added as keys "
          "arrive) or raise max_bytes"));
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "scalable filter is full: ", num_insertions(), " keys in ", i,
        " layers use ", Bytes(size_bytes_), ", and layer ", i + 1,
        " (capacity ", capacity, " keys) needs ", Bytes(shape->size_bytes()),
        " more, over max_bytes = ", Bytes(options_.max_bytes),
        "; raise ScalableFilterOptions::max_bytes, or use a larger "
        "initial_capacity or expansion for fewer, fuller layers"));
  }
  BloomFilterOptions layer_options;
  layer_options.seed = options_.seed;
  absl::StatusOr<BloomFilter> layer =
      BloomFilter::CreateWithShape(*shape, layer_options);
  if (!layer.ok()) return layer.status();
  size_bytes_ += shape->size_bytes();
  layers_.push_back(*std::move(layer));
  capacities_.push_back(capacity);
  return absl::OkStatus();
}

absl::StatusOr<bool> ScalableFilter::Add(std::string_view key) {
  return AddHash(internal::Hash64(key, *options_.seed));
}

absl::StatusOr<bool> ScalableFilter::AddHash(uint64_t hash) {
  if (MayContainHash(hash)) return false;
  if (layers_.back().num_insertions() >= capacities_.back()) {
    if (absl::Status s = AddLayer(); !s.ok()) return s;
  }
  // Not in any layer, so some bit of the newest one is clear: it changes.
  layers_.back().AddHash(hash);
  return true;
}

bool ScalableFilter::MayContain(std::string_view key) const {
  return MayContainHash(internal::Hash64(key, *options_.seed));
}

bool ScalableFilter::MayContainHash(uint64_t hash) const {
  for (size_t i = layers_.size(); i-- > 0;) {
    if (layers_[i].MayContainHash(hash)) return true;
  }
  return false;
}

void ScalableFilter::Clear() {
  layers_.erase(layers_.begin() + 1, layers_.end());
  capacities_.erase(capacities_.begin() + 1, capacities_.end());
  layers_[0].Clear();
  size_bytes_ = layers_[0].size_bytes();
}

uint64_t ScalableFilter::num_insertions() const {
  uint64_t n = 0;
  for (const BloomFilter& layer : layers_) n += layer.num_insertions();
  return n;
}

uint64_t ScalableFilter::capacity() const {
  uint64_t n = 0;
  for (uint64_t c : capacities_) n += c;
  return n;
}

uint64_t ScalableFilter::size_bytes() const { return size_bytes_; }

double ScalableFilter::EstimatedFpRate() const {
  double pass_none = 1;
  for (const BloomFilter& layer : layers_) {
    pass_none *= 1 - layer.EstimatedFpRate();
  }
  return 1 - pass_none;
}

absl::Status ScalableFilter::AppendTo(std::string* dst,
                                      const WriteOptions& write_options) const {
  std::string out;
  out.append(kMagic, 4);
  out.push_back(static_cast<char>(kMajorVersion));
  out.push_back(static_cast<char>(kMinorVersion));
  out.append(2, '\0');
  PutU32(&out, static_cast<uint32_t>(layers_.size()));
  PutU32(&out, 0);
  PutU64(&out, options_.initial_capacity);
  PutF64(&out, options_.fp_rate);
  PutF64(&out, options_.expansion);
  PutF64(&out, options_.tightening);
  PutU64(&out, *options_.seed);
  WriteOptions layer_options = write_options;
  layer_options.encoding = Encoding::kFull;  // keeps each layer's key count
  for (size_t i = 0; i < layers_.size(); ++i) {
    PutU64(&out, capacities_[i]);
    const size_t size_at = out.size();
    PutU64(&out, 0);
    if (absl::Status s = layers_[i].AppendTo(&out, layer_options); !s.ok()) {
      return s;
    }
    const uint64_t block_size = out.size() - size_at - 8;
    std::memcpy(out.data() + size_at, &block_size, 8);
  }
  PutU32(&out,
         Checksum(reinterpret_cast<const uint8_t*>(out.data()), out.size()));
  PutU32(&out, 0);
  dst->append(out);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ScalableFilter::Serialize(
    const WriteOptions& write_options) const {
  std::string out;
  if (absl::Status s = AppendTo(&out, write_options); !s.ok()) return s;
  return out;
}

absl::StatusOr<ScalableFilter> ScalableFilter::Deserialize(
    absl::Span<const uint8_t> bytes, uint64_t max_bytes,
    const ReadOptions& read_options) {
  if (bytes.size() < kHeaderBytes + kTrailerBytes ||
      std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return absl::DataLossError(
        "not a blockbloom scalable filter stack (no \"bbsc\" header)");
  }
  const uint8_t* p = bytes.data();
  if (p[4] != kMajorVersion) {
    return absl::UnimplementedError(
        absl::StrCat("scalable filter stack written in format major version ",
                     p[4], "; this reader knows version ", kMajorVersion));
  }
  const size_t body = bytes.size() - kTrailerBytes;
  if (read_options.verify_checksum && Checksum(p, body) != GetU32(p + body)) {
    return absl::DataLossError(
        "scalable filter stack checksum mismatch: the bytes are damaged or "
        "truncated");
  }
  ScalableFilterOptions options;
  const uint32_t num_layers = GetU32(p + 8);
  options.initial_capacity = GetU64(p + 16);
  options.fp_rate = GetF64(p + 24);
  options.expansion = GetF64(p + 32);
  options.tightening = GetF64(p + 40);
  options.seed = GetU64(p + 48);
  options.max_bytes = max_bytes;
  if (absl::Status s = ValidateOptions(options); !s.ok()) {
    return absl::DataLossError(absl::StrCat(
        "scalable filter stack has invalid parameters: ", s.message()));
  }
  if (num_layers == 0) {
    return absl::DataLossError("scalable filter stack has no layers");
  }
  ScalableFilter filter(options);
  size_t at = kHeaderBytes;
  for (uint32_t i = 0; i < num_layers; ++i) {
    if (body - at < kLayerPrefixBytes) {
      return absl::DataLossError(
          absl::StrCat("scalable filter stack truncated in layer ", i));
    }
    const uint64_t capacity = GetU64(p + at);
    const uint64_t block_size = GetU64(p + at + 8);
    at += kLayerPrefixBytes;
    if (capacity == 0 || block_size > body - at) {
      return absl::DataLossError(absl::StrCat(
          "scalable filter stack: layer ", i, " has a bad capacity or size"));
    }
    absl::StatusOr<Filter> block =
        OpenFilter(bytes.subspan(at, block_size), read_options);
    if (!block.ok()) {
      return absl::Status(block.status().code(),
                          absl::StrCat("scalable filter stack, layer ", i, ": ",
                                       block.status().message()));
    }
    at += block_size;
    if (block->seed() != *options.seed) {
      return absl::DataLossError(absl::StrCat("scalable filter stack: layer ",
                                              i, " has a different seed"));
    }
    if (block->bits().size() > max_bytes - filter.size_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("scalable filter stack needs more than max_bytes = ",
                       Bytes(max_bytes), " (",
                       Bytes(filter.size_bytes_ + block->bits().size()),
                       " by layer ", i, ")"));
    }
    BloomFilterOptions layer_options;
    layer_options.seed = options.seed;
    absl::StatusOr<BloomFilter> layer =
        BloomFilter::FromFilter(*block, layer_options);
    if (!layer.ok()) return layer.status();
    filter.size_bytes_ += layer->size_bytes();
    filter.layers_.push_back(*std::move(layer));
    filter.capacities_.push_back(capacity);
  }
  if (at != body) {
    return absl::DataLossError(
        "scalable filter stack has extra bytes after its last layer");
  }
  return filter;
}

}  // namespace blockbloom
