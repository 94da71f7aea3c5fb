// The filter kinds the library knows, found by their FilterKind or by a
// block's tag: the built-in ones (the blocked kind, the exact-size ones,
// the ribbon), and kinds registered at run time by code outside the
// library (tests and experiments: docs/ARCHITECTURE.md, "A new filter
// kind"), which the format's entry points, FilterBuilder and the policies
// then read, write, build and plan like the built-in ones.
#ifndef BLOCKBLOOM_SRC_FORMAT_REGISTRY_H_
#define BLOCKBLOOM_SRC_FORMAT_REGISTRY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "blockbloom/filter.h"
#include "src/core/kind.h"

namespace blockbloom::internal {

// The FilterKind values and tags of kinds registered at run time: the
// built-in kinds never take them (blockbloom/filter.h, docs/FORMAT.md "The
// tag"). The tags 0x30-0x3F keep two of bits 4-7 set, so no single flipped
// bit turns one into an unchecked in-place tag (docs/FORMAT.md).
inline constexpr int kFirstRegisteredKind = 128;
inline constexpr uint8_t kFirstRegisteredTag = 0x30;
inline constexpr uint8_t kLastRegisteredTag = 0x3F;

// The plug-in of `kind`, or nullptr if no kind of that value is known.
const KindPlugin* FindKind(FilterKind kind);

// The plug-in whose encodings hold a block ending in `tag`, or nullptr.
const KindPlugin* KindOfTag(uint8_t tag);

// The kinds FilterBuilder builds from FilterOptions::kind (the blocked kind
// and every kind with a build), by name, for the tools and the bindings:
// the plug-in, or nullptr; and their names, "blocked, ribbon", for a
// message.
const KindPlugin* FindBuildKind(std::string_view name);
std::string BuildKindNames();

// Adds a kind defined outside the library, for the rest of the process (a
// kind is never removed: filters of it may be alive). `plugin` must outlive
// every use (a static table). InvalidArgument unless its kind is at least
// kFirstRegisteredKind, it has a name and every format operation (and the
// planning ones if it has a build), and it owns tags, all within
// [kFirstRegisteredTag, kLastRegisteredTag];
// AlreadyExists if its kind or one of its tags is taken. Thread-safe.
absl::Status RegisterKind(const KindPlugin& plugin);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_FORMAT_REGISTRY_H_
