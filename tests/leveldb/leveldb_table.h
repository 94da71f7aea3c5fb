// Where the filter block of a policy sits in a LevelDB table file: for the
// engine tests (damaging filters on disk) and the demo (measuring their
// size). Not part of the API. Follows LevelDB's table_format.md: a 48-byte
// footer whose first handle is the metaindex block's, a metaindex block whose
// entry "filter.<policy name>" holds the filter block's handle, and a filter
// block of filters, a u32 offset per filter, the u32 start of those offsets
// and a base_lg byte.
#ifndef BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_TABLE_H_
#define BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_TABLE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace blockbloom::internal {

struct LevelDBFilterBlock {
  uint64_t offset = 0;       // of the filter block in the file
  uint64_t size = 0;         // of the whole filter block
  uint64_t filters_end = 0;  // where its filters end and the offsets begin
};

inline bool GetVarint64(std::string_view s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && *pos < s.size(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(s[(*pos)++]);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// False if `table` has no (well-formed) filter block of `policy_name`.
inline bool FindLevelDBFilterBlock(std::string_view table,
                                   std::string_view policy_name,
                                   LevelDBFilterBlock* block) {
  constexpr size_t kFooter = 48;
  if (table.size() < kFooter) return false;
  size_t pos = table.size() - kFooter;
  uint64_t meta_offset, meta_size;
  if (!GetVarint64(table, &pos, &meta_offset) ||
      !GetVarint64(table, &pos, &meta_size) ||
      meta_offset + meta_size > table.size()) {
    return false;
  }
  const std::string_view meta = table.substr(meta_offset, meta_size);
  // The metaindex's first entry: shared (0), non_shared, value_length, key,
  // value (the filter block's handle).
  size_t p = 0;
  uint64_t shared, non_shared, value_len, offset, size;
  if (!GetVarint64(meta, &p, &shared) || !GetVarint64(meta, &p, &non_shared) ||
      !GetVarint64(meta, &p, &value_len) || p + non_shared > meta.size()) {
    return false;
  }
  const std::string key = "filter." + std::string(policy_name);
  if (shared != 0 || meta.substr(p, non_shared) != key) return false;
  p += non_shared;
  if (!GetVarint64(meta, &p, &offset) || !GetVarint64(meta, &p, &size) ||
      size < 5 || offset + size > table.size()) {
    return false;
  }
  uint32_t filters_size;
  std::memcpy(&filters_size, table.data() + offset + size - 5, 4);
  if (filters_size > size - 5) return false;
  *block = {offset, size, offset + filters_size};
  return true;
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_TESTS_LEVELDB_LEVELDB_TABLE_H_
