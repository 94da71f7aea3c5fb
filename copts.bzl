"""What every BUILD.bazel shares: compiler flags, the system-library prefix,
and the description of a src/ folder."""

# The warnings of CMake's BLOCKBLOOM_WARNINGS, on our own code only.
WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wshadow",
]

# The Debian libraries (third_party/bazel/system.BUILD, declared in WORKSPACE).
SYSTEM = "@blockbloom_system//:"

def source_folder():
    """A src/ folder's files for the root libraries: every *.cc as :srcs and
    every *.h as :hdrs (the src/ folders include each other's headers, so they
    are compiled into one library, //:blockbloom, rather than one each)."""
    native.filegroup(name = "srcs", srcs = native.glob(["*.cc"]))
    native.filegroup(name = "hdrs", srcs = native.glob(["*.h"]))
