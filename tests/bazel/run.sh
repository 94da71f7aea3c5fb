#!/bin/sh
# Runs a program as a Bazel test (the smoke tests of the BUILD.bazel files):
# its exit status is the test's.
exec "$@"
