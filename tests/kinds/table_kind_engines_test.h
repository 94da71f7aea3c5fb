// What the engine tests of the table kind share: a block of it, and keys.
#ifndef BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_ENGINES_TEST_H_
#define BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_ENGINES_TEST_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "tests/kinds/table_kind.h"

namespace blockbloom::testing {

inline std::string TableKey(int i) { return absl::StrCat("key", i); }

// The block of a table filter of TableKey(0..n-1), as a table file holds it.
inline std::string TableBlock(int n) {
  RegisterTableKind();
  FilterOptions options;
  options.kind = kTableKind;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (int i = 0; i < n; ++i) builder.Add(TableKey(i));
  return *SerializeFilter(*builder.Finish());
}

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_KINDS_TABLE_KIND_ENGINES_TEST_H_
