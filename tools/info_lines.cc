#include "tools/info_lines.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "blockbloom/filter.h"
#include "src/core/simd_target.h"

namespace blockbloom::cli {

const char* EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kCompact:
      return "compact";
    case Encoding::kFull:
      return "full";
    case Encoding::kAccurate:
      return "accurate";
    case Encoding::kInPlace:
      return "in-place";
    case Encoding::kRibbon:
      return "ribbon";
    case Encoding::kAuto:
      break;
  }
  return "auto";
}

void AppendInfoLine(std::string* out, std::string_view name,
                    std::string_view value) {
  absl::StrAppendFormat(
      out, "%-24s %s\n",
      absl::StrCat(absl::string_view(name.data(), name.size()), ":"),
      absl::string_view(value.data(), value.size()));
}

void AppendShapeLines(std::string* out, const FilterShape& shape,
                      uint64_t seed) {
  AppendInfoLine(out, "block",
                 absl::StrFormat("16 lanes x %d bits (%d bytes)",
                                 shape.lane_bits, 2 * shape.lane_bits));
  AppendInfoLine(out, "probes (k)", absl::StrCat(shape.num_probes));
  AppendInfoLine(out, "seed", absl::StrFormat("%d (0x%016x)", seed, seed));
  AppendInfoLine(out, "blocks", absl::StrCat(shape.num_blocks));
}

void AppendSimdTargetLine(std::string* out) {
  AppendInfoLine(out, "SIMD target",
                 absl::StrCat(ActiveSimdTarget(), " (",
                              internal::SimdTargetSource(), ")"));
}

}  // namespace blockbloom::cli
