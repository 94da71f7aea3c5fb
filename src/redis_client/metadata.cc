#include "src/redis_client/metadata.h"

#include <charconv>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "blockbloom/hash.h"

namespace blockbloom::redis::internal {
namespace {

constexpr std::string_view kMagic = "blockbloom-redis/";

bool ParseU64(std::string_view text, uint64_t* value, int base = 10) {
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), *value, base);
  return !text.empty() && error == std::errc() &&
         end == text.data() + text.size();
}

}  // namespace

uint64_t SeedCheck(uint64_t seed) {
  return HashKey("blockbloom-redis seed check", seed);
}

uint64_t NewGeneration() {
  std::random_device device;
  for (;;) {
    const uint64_t value =
        ((uint64_t{device()} << 32) ^ device()) & ((uint64_t{1} << 63) - 1);
    if (value != 0) return value;
  }
}

std::string EncodeMetadata(const Metadata& m) {
  return absl::StrFormat(
      "%s%d blocks=%d k=%d lane_bits=%d shard_blocks=%d shards=%d "
      "placement=%s generation=%016x seed_check=%016x",
      std::string(kMagic), kMetadataVersion, m.shape.num_blocks,
      m.shape.num_probes, m.shape.lane_bits, m.blocks_per_shard, m.num_shards,
      m.placement == Placement::kSpread ? "spread" : "together", m.generation,
      m.seed_check);
}

absl::StatusOr<Metadata> ParseMetadata(std::string_view text,
                                       std::string_view key) {
  const std::string where(key);
  if (text.substr(0, kMagic.size()) != kMagic) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Redis key \"", where,
        "\" exists but is not a blockbloom filter's metadata; choose another "
        "name or key prefix"));
  }
  std::vector<std::string_view> fields;
  for (absl::string_view field :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ' ',
                      absl::SkipEmpty())) {
    fields.emplace_back(field.data(), field.size());
  }
  uint64_t version = 0;
  if (!ParseU64(fields[0].substr(kMagic.size()), &version)) {
    return absl::DataLossError(
        absl::StrCat("Redis key \"", where, "\": damaged metadata version"));
  }
  if (version != kMetadataVersion) {
    return absl::UnimplementedError(absl::StrCat(
        "Redis key \"", where, "\" holds a blockbloom-redis filter of version ",
        version, "; this library reads version ", kMetadataVersion,
        ": upgrade it"));
  }
  Metadata m;
  int found = 0;
  std::string_view placement;
  for (size_t i = 1; i < fields.size(); ++i) {
    const size_t eq = fields[i].find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = fields[i].substr(0, eq);
    const std::string_view value = fields[i].substr(eq + 1);
    uint64_t number = 0;
    bool ok = true;
    if (name == "blocks") {
      ok = ParseU64(value, &m.shape.num_blocks);
    } else if (name == "k") {
      ok = ParseU64(value, &number) && number <= 64;
      m.shape.num_probes = static_cast<int>(number);
    } else if (name == "lane_bits") {
      ok = ParseU64(value, &number) && number <= 4096;
      m.shape.lane_bits = static_cast<int>(number);
    } else if (name == "shard_blocks") {
      ok = ParseU64(value, &m.blocks_per_shard);
    } else if (name == "shards") {
      ok = ParseU64(value, &m.num_shards);
    } else if (name == "placement") {
      placement = value;
      ok = value == "together" || value == "spread";
      m.placement =
          value == "spread" ? Placement::kSpread : Placement::kTogether;
    } else if (name == "generation") {
      ok = ParseU64(value, &m.generation, 16);
    } else if (name == "seed_check") {
      ok = ParseU64(value, &m.seed_check, 16);
    } else {
      continue;  // a field added by a later minor version
    }
    if (!ok) {
      return absl::DataLossError(absl::StrCat(
          "Redis key \"", where, "\": damaged metadata field \"",
          absl::string_view(fields[i].data(), fields[i].size()), "\""));
    }
    ++found;
  }
  const bool consistent =
      found == 8 && m.shape.lane_bits == 32 && m.blocks_per_shard > 0 &&
      m.generation != 0 && ValidateShape(m.shape).ok() &&
      m.num_shards ==
          (m.shape.num_blocks + m.blocks_per_shard - 1) / m.blocks_per_shard &&
      m.blocks_per_shard * 64 + kTrailerBytes <= kMaxStringBytes;
  if (!consistent) {
    return absl::DataLossError(absl::StrCat(
        "Redis key \"", where,
        "\": blockbloom metadata with missing or inconsistent fields"));
  }
  return m;
}

absl::Status ValidateName(std::string_view name) {
  if (name.empty() || name.size() > 1000 ||
      name.find_first_of("{}") != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shared filter name \"", absl::string_view(name.data(), name.size()),
        "\": must be 1 to 1000 bytes without '{' or '}'"));
  }
  return absl::OkStatus();
}

std::string MetadataKey(std::string_view prefix, std::string_view name) {
  return absl::StrCat(absl::string_view(prefix.data(), prefix.size()), "{",
                      absl::string_view(name.data(), name.size()), "}");
}

std::string ShardKey(std::string_view prefix, std::string_view name,
                     Placement placement, uint64_t generation, uint64_t shard) {
  const absl::string_view p(prefix.data(), prefix.size());
  const absl::string_view n(name.data(), name.size());
  const std::string suffix = absl::StrFormat("%016x:%d", generation, shard);
  if (placement == Placement::kSpread) {
    return absl::StrCat(p, "{", n, ":", suffix, "}");
  }
  return absl::StrCat(p, "{", n, "}:", suffix);
}

}  // namespace blockbloom::redis::internal
