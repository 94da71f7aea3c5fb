"""What the pytest files of tests/python share: where the built package, the
`blockbloom` CLI and the golden files are.

ctest runs each test alone (tests/python/CMakeLists.txt) with PYTHONPATH set
to BUILD/python (the built package) and BLOCKBLOOM_CLI to the CLI binary.
By hand, from the repository root:

    PYTHONPATH=build/release/python \
    BLOCKBLOOM_CLI=build/release/tools/blockbloom \
    /usr/bin/python3 -m pytest tests/python

Under AddressSanitizer + UBSan (checked by hand; the sanitizer builds of
scripts/test skip the package, as the interpreter needs the runtimes
preloaded): configure build/asan-python with BLOCKBLOOM_BUILD_TESTS=OFF and
-DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all",
-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined, build the target
blockbloom_python, then run the above with PYTHONPATH=build/asan-python/python,
ASAN_OPTIONS=detect_leaks=0 and LD_PRELOAD="$(gcc -print-file-name=libasan.so)
$(gcc -print-file-name=libubsan.so)".
"""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
TESTDATA = os.path.join(ROOT, "tests", "testdata")


@pytest.fixture
def cli():
    """The `blockbloom` binary under test."""
    path = os.environ.get("BLOCKBLOOM_CLI") or os.path.join(
        ROOT, "build", "release", "tools", "blockbloom")
    if not os.access(path, os.X_OK):
        pytest.fail("no blockbloom CLI at %s (set BLOCKBLOOM_CLI)" % path)
    return path


@pytest.fixture
def testdata():
    """tests/testdata: the golden filter files."""
    return TESTDATA
