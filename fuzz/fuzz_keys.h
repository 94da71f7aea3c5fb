// The keys at the end of a fuzz input, shared by the targets that build
// filters from them: each key is a 1-byte length then that many bytes (the
// last one cut short at the end of the input).
#ifndef BLOCKBLOOM_FUZZ_FUZZ_KEYS_H_
#define BLOCKBLOOM_FUZZ_FUZZ_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace blockbloom::fuzzing {

// The keys of data[begin, size), viewing into data.
inline std::vector<std::string_view> ParseKeys(const uint8_t* data, size_t size,
                                               size_t begin) {
  std::vector<std::string_view> keys;
  for (size_t i = begin; i < size;) {
    const size_t len = data[i++];
    const size_t n = len < size - i ? len : size - i;
    keys.emplace_back(reinterpret_cast<const char*>(data + i), n);
    i += n;
  }
  return keys;
}

}  // namespace blockbloom::fuzzing

#endif  // BLOCKBLOOM_FUZZ_FUZZ_KEYS_H_
