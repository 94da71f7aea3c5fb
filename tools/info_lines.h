// The text form of the commands that describe a filter (info, redis info):
// one "name: value" line each, in the same columns.
#ifndef BLOCKBLOOM_TOOLS_INFO_LINES_H_
#define BLOCKBLOOM_TOOLS_INFO_LINES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "blockbloom/format.h"
#include "blockbloom/sizing.h"

namespace blockbloom::cli {

// The encoding's name, as --encoding and the reports spell it ("compact",
// "full", "accurate", "in-place", "ribbon"; "auto" for kAuto).
const char* EncodingName(Encoding encoding);

// Appends "NAME:", padded to 24 columns, a space, `value` and a newline.
void AppendInfoLine(std::string* out, std::string_view name,
                    std::string_view value);

// Appends the block, probes (k), seed and blocks lines of a blocked filter.
void AppendShapeLines(std::string* out, const FilterShape& shape,
                      uint64_t seed);

// Appends the "SIMD target" line: the target this process probes with and
// where the choice came from (the rule, BLOCKBLOOM_SIMD_TARGET or
// SetSimdTarget). Every target gives the same answers; only speed differs.
void AppendSimdTargetLine(std::string* out);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_INFO_LINES_H_
