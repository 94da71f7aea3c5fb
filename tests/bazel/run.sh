#!/bin/sh
# Runs a program as a Bazel test (BUILD.bazel's smoke tests): its exit status
# is the test's.
exec "$@"
