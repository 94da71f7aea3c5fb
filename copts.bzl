"""What every BUILD.bazel shares: compiler flags and the system-library
prefix (cmake/BlockbloomRules.cmake is the CMake side)."""

# The warnings of CMake's BLOCKBLOOM_WARNINGS, on our own code only.
WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wshadow",
]

# Tests' own code (cc_test and testonly libraries): -O1, as CMake's
# (cmake/BlockbloomRules.cmake, _blockbloom_test_copts): the library under
# test keeps the build's optimization, and GoogleTest's templates compile
# 2.4x faster than at -O2/-O3.
TEST_COPTS = WARNINGS + ["-O1"]

# The Debian libraries (third_party/bazel/system.BUILD, declared in WORKSPACE).
SYSTEM = "@blockbloom_system//:"
