// Arbitrary text as a RocksDB filter policy id (what an OPTIONS file or an
// option string gives the registered factory). The parser must never crash
// or hit undefined behaviour; an id it accepts must round-trip (the id
// written for the parsed options parses to the same options), and a rejected
// one must say why. Seeded from fuzz/corpus/rocksdb_policy_id_fuzz/.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "blockbloom/filter_policy.h"
#include "src/rocksdb/policy_id.h"

namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view id(reinterpret_cast<const char*>(data), size);
  auto options = blockbloom::internal::ParseRocksDBPolicyId(id);
  if (!options.ok()) {
    if (options.status().message().empty()) abort();
    return 0;
  }
  auto again = blockbloom::internal::ParseRocksDBPolicyId(
      blockbloom::internal::RocksDBPolicyId(*options));
  if (!again.ok() || !SameBits(again->bits_per_key, options->bits_per_key) ||
      again->seed != options->seed ||
      again->verify_checksum != options->verify_checksum ||
      again->levels.level_aware != options->levels.level_aware ||
      !SameBits(again->levels.level_size_multiplier,
                options->levels.level_size_multiplier) ||
      !SameBits(again->levels.level_moved_fraction,
                options->levels.level_moved_fraction) ||
      again->levels.ribbon_from_level != options->levels.ribbon_from_level ||
      again->levels.ribbon_saves != options->levels.ribbon_saves) {
    abort();
  }
  // Whatever parsed is either a valid policy or an error with a message.
  auto policy = blockbloom::FilterPolicy::Create(*options);
  if (!policy.ok() && policy.status().message().empty()) abort();
  return 0;
}
