"""Compiler flags and the system-library prefix shared by every BUILD.bazel."""

# The warnings of CMake's BLOCKBLOOM_WARNINGS, on our own code only.
WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wshadow",
]

# The Debian libraries (third_party/bazel/system.BUILD, declared in WORKSPACE).
SYSTEM = "@blockbloom_system//:"
