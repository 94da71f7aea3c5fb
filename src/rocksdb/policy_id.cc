#include "src/rocksdb/policy_id.h"

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <system_error>
#include <vector>

namespace blockbloom::internal {
namespace {

// Shortest decimal that reads back as the same double (to_chars), so the
// OPTIONS file round-trips fractional bits/key exactly.
std::string Number(double x) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  if (s.empty()) return false;
  const std::from_chars_result r =
      std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseBool(std::string_view s, bool* out) {
  if (s == "1" || s == "true") {
    *out = true;
  } else if (s == "0" || s == "false") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

// Abseil 20220623 has its own string_view: plain std::string building here.
std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p.data(), p.size());
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

}  // namespace

std::string RocksDBPolicyId(const FilterPolicy::Options& options) {
  // level_learned only when set: the ids of earlier versions stay the same.
  return Cat(
      {FilterPolicy::kName, ":", Number(options.bits_per_key),
       ":seed:", std::to_string(options.seed),
       ":verify_checksum:", options.verify_checksum ? "1" : "0",
       ":level_aware:", options.levels.level_aware ? "1" : "0",
       ":level_size_multiplier:", Number(options.levels.level_size_multiplier),
       ":level_moved_fraction:", Number(options.levels.level_moved_fraction),
       options.levels.level_learned ? ":level_learned:1" : "",
       // Only when off (on is the default), for the same reason.
       options.levels.level_learned && !options.levels.hot_ranges
           ? ":hot_ranges:0"
           : "",
       // Only when set, so ids (and OPTIONS files) of policies without
       // ribbon levels stay what earlier versions wrote and read.
       options.levels.ribbon_from_level == FilterPolicy::LevelOptions::kNoRibbon
           ? ""
           : ":ribbon_from_level:",
       options.levels.ribbon_from_level == FilterPolicy::LevelOptions::kNoRibbon
           ? ""
           : std::to_string(options.levels.ribbon_from_level),
       options.levels.ribbon_saves ==
               FilterPolicy::LevelOptions::RibbonSaving::kFalseReads
           ? ":ribbon_saves:false_reads"
           : ""});
}

absl::StatusOr<FilterPolicy::Options> ParseRocksDBPolicyId(
    std::string_view id) {
  const std::vector<std::string_view> fields = Split(id, ':');
  FilterPolicy::Options options;
  if (fields[0] != FilterPolicy::kName) {
    return absl::InvalidArgumentError(Cat(
        {"not a ", FilterPolicy::kName, " filter policy id: \"", id, "\""}));
  }
  if (fields.size() == 1) return options;  // written by earlier versions
  if (!ParseNumber(fields[1], &options.bits_per_key)) {
    return absl::InvalidArgumentError(
        Cat({"filter policy \"", id, "\": bits/key \"", fields[1],
             "\" is not a number"}));
  }
  if (fields.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        Cat({"filter policy \"", id,
             "\": expected name:value pairs after the bits/key"}));
  }
  for (size_t i = 2; i < fields.size(); i += 2) {
    const std::string_view name = fields[i], value = fields[i + 1];
    bool ok;
    if (name == "seed") {
      ok = ParseNumber(value, &options.seed);
    } else if (name == "verify_checksum") {
      ok = ParseBool(value, &options.verify_checksum);
    } else if (name == "level_aware") {
      ok = ParseBool(value, &options.levels.level_aware);
    } else if (name == "level_size_multiplier") {
      ok = ParseNumber(value, &options.levels.level_size_multiplier);
    } else if (name == "level_moved_fraction") {
      ok = ParseNumber(value, &options.levels.level_moved_fraction);
    } else if (name == "level_learned") {
      ok = ParseBool(value, &options.levels.level_learned);
    } else if (name == "hot_ranges") {
      ok = ParseBool(value, &options.levels.hot_ranges);
    } else if (name == "ribbon_from_level") {
      ok = ParseNumber(value, &options.levels.ribbon_from_level);
    } else if (name == "ribbon_saves") {
      using Saving = FilterPolicy::LevelOptions::RibbonSaving;
      ok = value == "memory" || value == "false_reads";
      options.levels.ribbon_saves =
          value == "false_reads" ? Saving::kFalseReads : Saving::kMemory;
    } else {
      return absl::InvalidArgumentError(
          Cat({"filter policy \"", id, "\": unknown setting \"", name,
               "\" (known: seed, verify_checksum, level_aware, "
               "level_size_multiplier, level_moved_fraction, level_learned, "
               "hot_ranges, ribbon_from_level, ribbon_saves)"}));
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          Cat({"filter policy \"", id, "\": bad value \"", value, "\" for ",
               name}));
    }
  }
  return options;
}

}  // namespace blockbloom::internal
