// The release of blockbloom: the one place its version is written.
//
// CMakeLists.txt reads the three numbers below for project(VERSION), so the
// CMake package, the pkg-config files and the shared library's SONAME
// (libblockbloom.so.<major>) follow them; setup.py reads them for the Python
// package; the CLI (`blockbloom --version`), the C API
// (blockbloom_version), the Python module (blockbloom.__version__) and the
// Redis module (MODULE LIST, BB.INFO) report Version(). A release changes
// these three lines and CHANGELOG.md, nothing else. What a major, minor or
// patch release may change: docs/COMPATIBILITY.md.
//
//   if (blockbloom::Version() != "0.1.0") ...          // the linked library
//   static_assert(blockbloom::kVersionMajor == 0);     // the headers
#ifndef BLOCKBLOOM_VERSION_H_
#define BLOCKBLOOM_VERSION_H_

#include <string_view>

namespace blockbloom {

// The version of these headers, major.minor.patch (semantic versioning; see
// docs/COMPATIBILITY.md). Keep each on one line of its own: CMakeLists.txt
// and setup.py read them with a regular expression.
inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;

// The version of the library linked into the program, "major.minor.patch"
// (e.g. "0.1.0"): the numbers above as the library was compiled with them.
// With a shared library it can be a later minor or patch release than the
// headers a program was compiled with (never another major version: the
// SONAME differs). A static string, valid for the program's lifetime.
std::string_view Version();

}  // namespace blockbloom

#endif  // BLOCKBLOOM_VERSION_H_
