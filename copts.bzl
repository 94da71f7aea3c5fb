"""What every BUILD.bazel shares: compiler flags and the system-library
prefix (cmake/BlockbloomRules.cmake is the CMake side)."""

# The warnings of CMake's BLOCKBLOOM_WARNINGS, on our own code only.
WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wshadow",
]

# The Debian libraries (third_party/bazel/system.BUILD, declared in WORKSPACE).
SYSTEM = "@blockbloom_system//:"
