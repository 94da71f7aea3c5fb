#include "blockbloom/version.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace blockbloom {

std::string_view Version() {
  // Built once from the header's numbers, so that the string cannot disagree
  // with them; never destroyed, so it stays valid during static destruction.
  static const std::string* const version = new std::string(
      absl::StrCat(kVersionMajor, ".", kVersionMinor, ".", kVersionPatch));
  return *version;
}

}  // namespace blockbloom
