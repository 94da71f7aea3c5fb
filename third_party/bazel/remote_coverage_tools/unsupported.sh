#!/bin/sh
echo "blockbloom: bazel coverage is not supported by the offline build" \
  "(third_party/bazel/remote_coverage_tools is a stand-in); use CMake" >&2
exit 1
