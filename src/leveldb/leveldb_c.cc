// The LevelDB policy for LevelDB's C API (blockbloom/c.h): the C++ adapter's
// leveldb::FilterPolicy behind leveldb_filterpolicy_create's callbacks, so
// that C and C++ programs write and read the same filters under the same
// name.
#include <leveldb/c.h>
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "blockbloom/c.h"
#include "blockbloom/leveldb.h"

namespace {

const leveldb::FilterPolicy* Policy(void* state) {
  return static_cast<const leveldb::FilterPolicy*>(state);
}

void Destroy(void* state) { delete Policy(state); }

const char* Name(void* state) { return Policy(state)->Name(); }

// LevelDB's C wrapper (a C++ leveldb::FilterPolicy calling this from C++)
// appends the returned bytes to the table's filter block and free()s them.
// Out of memory throws std::bad_alloc into LevelDB, as the C++ policy's own
// std::string would: never an empty filter, which would read as "no keys".
char* CreateFilter(void* state, const char* const* key_array,
                   const size_t* key_length_array, int num_keys,
                   size_t* filter_length) {
  std::vector<leveldb::Slice> keys;
  keys.reserve(num_keys);
  for (int i = 0; i < num_keys; ++i) {
    keys.emplace_back(key_array[i], key_length_array[i]);
  }
  std::string filter;
  Policy(state)->CreateFilter(keys.data(), num_keys, &filter);
  char* copy =
      static_cast<char*>(std::malloc(filter.empty() ? 1 : filter.size()));
  if (copy == nullptr) throw std::bad_alloc();
  if (!filter.empty()) std::memcpy(copy, filter.data(), filter.size());
  *filter_length = filter.size();
  return copy;
}

uint8_t KeyMayMatch(void* state, const char* key, size_t length,
                    const char* filter, size_t filter_length) {
  return Policy(state)->KeyMayMatch(leveldb::Slice(key, length),
                                    leveldb::Slice(filter, filter_length));
}

leveldb_filterpolicy_t* Wrap(const leveldb::FilterPolicy* policy) {
  return leveldb_filterpolicy_create(const_cast<leveldb::FilterPolicy*>(policy),
                                     &Destroy, &CreateFilter, &KeyMayMatch,
                                     &Name);
}

void SaveError(char** errptr, const absl::Status& status) {
  std::free(*errptr);
  const std::string text = status.ToString();
  *errptr = static_cast<char*>(std::malloc(text.size() + 1));
  if (*errptr != nullptr) std::memcpy(*errptr, text.c_str(), text.size() + 1);
}

}  // namespace

extern "C" {

leveldb_filterpolicy_t* blockbloom_leveldb_filterpolicy_create(
    double bits_per_key) {
  try {
    std::unique_ptr<const leveldb::FilterPolicy> policy(
        blockbloom::NewLevelDBFilterPolicy(bits_per_key));
    leveldb_filterpolicy_t* wrapped = Wrap(policy.get());
    policy.release();
    return wrapped;
  } catch (...) {
    return nullptr;
  }
}

leveldb_filterpolicy_t* blockbloom_leveldb_filterpolicy_create_with_options(
    double bits_per_key, uint64_t seed, unsigned char fewer_false_positives,
    char** errptr) {
  try {
    blockbloom::FilterPolicy::Options options;
    options.bits_per_key = bits_per_key;
    options.seed = seed;
    options.fewer_false_positives = fewer_false_positives != 0;
    absl::StatusOr<std::unique_ptr<const leveldb::FilterPolicy>> policy =
        blockbloom::NewLevelDBFilterPolicy(options);
    if (!policy.ok()) {
      SaveError(errptr, policy.status());
      return nullptr;
    }
    leveldb_filterpolicy_t* wrapped = Wrap(policy->get());
    policy->release();
    return wrapped;
  } catch (const std::bad_alloc&) {
    SaveError(errptr, absl::ResourceExhaustedError("out of memory"));
  } catch (...) {
    SaveError(errptr, absl::InternalError("unknown C++ exception"));
  }
  return nullptr;
}

}  // extern "C"
