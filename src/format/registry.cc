// One table of every kind, indexed by its FilterKind value: lookups read it
// without a lock (a kind, once in, stays), RegisterKind writes it under
// one.
#include "src/format/registry.h"

#include <array>
#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/exact_size/kind.h"
#include "src/format/blocked_kind.h"
#include "src/ribbon/kind.h"

namespace blockbloom {
namespace internal {
namespace {

// The built-in kinds, in the order a block's tag is looked up.
constexpr std::array<const KindPlugin*, 5> kBuiltinKinds = {
    &format::kBlockedKind, &kSpreadKind, &kSetKind, &kStandardKind,
    &ribbon::kRibbonKind};

struct Registry {
  std::array<std::atomic<const KindPlugin*>, 256> by_kind{};
  std::mutex mutex;  // RegisterKind's
  Registry() {
    for (const KindPlugin* plugin : kBuiltinKinds) {
      by_kind[static_cast<uint8_t>(plugin->kind)].store(
          plugin, std::memory_order_relaxed);
    }
  }
};

Registry& TheRegistry() {
  static Registry* const registry = new Registry;
  return *registry;
}

bool IsRegisteredTag(int tag) {
  return tag >= kFirstRegisteredTag && tag <= kLastRegisteredTag;
}

}  // namespace

const KindPlugin* FindKind(FilterKind kind) {
  return TheRegistry().by_kind[static_cast<uint8_t>(kind)].load(
      std::memory_order_acquire);
}

const KindPlugin* KindOfTag(uint8_t tag) {
  if (!IsRegisteredTag(tag)) {
    for (const KindPlugin* plugin : kBuiltinKinds) {
      if (plugin->owns_tag(tag)) return plugin;
    }
    return nullptr;
  }
  Registry& registry = TheRegistry();
  for (int k = kFirstRegisteredKind; k < 256; ++k) {
    const KindPlugin* plugin =
        registry.by_kind[k].load(std::memory_order_acquire);
    if (plugin != nullptr && plugin->owns_tag(tag)) return plugin;
  }
  return nullptr;
}

namespace {

bool IsBuildKind(const KindPlugin* plugin) {
  return plugin != nullptr &&
         (plugin->kind == FilterKind::kBlocked || plugin->build != nullptr);
}

}  // namespace

const KindPlugin* FindBuildKind(std::string_view name) {
  for (int k = 0; k < 256; ++k) {
    const KindPlugin* plugin = FindKind(static_cast<FilterKind>(k));
    if (IsBuildKind(plugin) && plugin->name == name) return plugin;
  }
  return nullptr;
}

std::string BuildKindNames() {
  std::string names;
  for (int k = 0; k < 256; ++k) {
    const KindPlugin* plugin = FindKind(static_cast<FilterKind>(k));
    if (!IsBuildKind(plugin)) continue;
    if (!names.empty()) names += ", ";
    names += plugin->name;
  }
  return names;
}

absl::Status RegisterKind(const KindPlugin& plugin) {
  const int kind = static_cast<uint8_t>(plugin.kind);
  if (kind < kFirstRegisteredKind) {
    return absl::InvalidArgumentError(
        absl::StrCat("a kind registered at run time takes a FilterKind value "
                     "from ",
                     kFirstRegisteredKind,
                     " on (the built-in kinds' are "
                     "below), not ",
                     kind));
  }
  if (plugin.name == nullptr || plugin.owns_tag == nullptr ||
      plugin.open == nullptr || plugin.inspect == nullptr ||
      plugin.append == nullptr || plugin.writes == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kind ", kind,
        ": a kind needs a name and every format operation (owns_tag, open, "
        "inspect, append, writes)"));
  }
  if (plugin.build != nullptr &&
      (plugin.planned_bytes == nullptr || plugin.fp_rate_at == nullptr ||
       plugin.block_bytes == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kind ", kind, " (", plugin.name,
        "): a kind FilterBuilder builds is planned too (planned_bytes, "
        "fp_rate_at, block_bytes)"));
  }
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.by_kind[kind].load(std::memory_order_relaxed) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("kind ", kind, " is registered already"));
  }
  bool owns_any = false;
  for (int tag = 0; tag < 256; ++tag) {
    if (!plugin.owns_tag(static_cast<uint8_t>(tag))) continue;
    owns_any = true;
    if (!IsRegisteredTag(tag)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "kind %d (%s) claims tag 0x%02x: a kind registered at run time "
          "owns tags in 0x%02x-0x%02x only",
          kind, plugin.name, tag, kFirstRegisteredTag, kLastRegisteredTag));
    }
    if (const KindPlugin* other = KindOfTag(static_cast<uint8_t>(tag))) {
      return absl::AlreadyExistsError(
          absl::StrFormat("kind %d (%s) claims tag 0x%02x, which kind %s owns",
                          kind, plugin.name, tag, other->name));
    }
  }
  if (!owns_any) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "kind %d (%s) owns no tag: its blocks could not be read", kind,
        plugin.name));
  }
  registry.by_kind[kind].store(&plugin, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace internal

const char* FilterKindName(FilterKind kind) {
  const internal::KindPlugin* plugin = internal::FindKind(kind);
  return plugin != nullptr ? plugin->name : "unknown";
}

}  // namespace blockbloom
