// Builds a filter, serializes it, opens the bytes again and probes them: the
// installed headers and library work from outside the source tree. Also
// checks that they are one release: the library's Version() is the headers'
// numbers and, when the build passes it, the package's version
// (BLOCKBLOOM_PACKAGE_VERSION: CMake's blockbloom_VERSION, pkg-config's
// --modversion).
#include <cstdint>
#include <cstdio>
#include <string>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/version.h"

int main() {
  const std::string headers = std::to_string(blockbloom::kVersionMajor) + "." +
                              std::to_string(blockbloom::kVersionMinor) + "." +
                              std::to_string(blockbloom::kVersionPatch);
  const std::string library(blockbloom::Version());
  if (library != headers) {
    std::fprintf(stderr, "library %s, headers %s\n", library.c_str(),
                 headers.c_str());
    return 1;
  }
#ifdef BLOCKBLOOM_PACKAGE_VERSION
  if (library != BLOCKBLOOM_PACKAGE_VERSION) {
    std::fprintf(stderr, "library %s, package %s\n", library.c_str(),
                 BLOCKBLOOM_PACKAGE_VERSION);
    return 1;
  }
#endif
  blockbloom::FilterOptions options;
  options.bits_per_key = 10;
  auto builder = blockbloom::FilterBuilder::Create(options);
  if (!builder.ok()) {
    std::fprintf(stderr, "%s\n", builder.status().ToString().c_str());
    return 1;
  }
  for (int i = 0; i < 1000; ++i) builder->Add("key:" + std::to_string(i));
  auto filter = builder->Finish();
  if (!filter.ok()) {
    std::fprintf(stderr, "%s\n", filter.status().ToString().c_str());
    return 1;
  }
  auto bytes = blockbloom::SerializeFilter(*filter);
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", bytes.status().ToString().c_str());
    return 1;
  }
  auto opened = blockbloom::OpenFilter(absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  for (int i = 0; i < 1000; ++i) {
    if (!opened->MayContain("key:" + std::to_string(i))) {
      std::fprintf(stderr, "false negative for key:%d\n", i);
      return 1;
    }
  }
  int false_positives = 0;
  for (int i = 0; i < 10000; ++i) {
    false_positives += opened->MayContain("absent:" + std::to_string(i));
  }
  std::printf(
      "consumer: blockbloom %s, 1000 keys, %zu bytes serialized, %d of 10000 "
      "absent keys may match\n",
      library.c_str(), bytes->size(), false_positives);
  // 10 bits/key: about 1%; 3% would mean a broken filter.
  return false_positives < 300 ? 0 : 1;
}
