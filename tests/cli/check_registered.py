#!/usr/bin/env python3
"""Fails if a test in cli_test.py (or redis_cli_test.py) is missing from the
list ctest runs (tests/cli/CMakeLists.txt), or the list names one that does
not exist.

    check_registered.py cli_test.py Class.test_name...
"""
import ast
import sys


def main():
    with open(sys.argv[1]) as f:
        tree = ast.parse(f.read())
    defined = {
        "%s.%s" % (cls.name, fn.name)
        for cls in tree.body if isinstance(cls, ast.ClassDef)
        for fn in cls.body
        if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_")
    }
    registered = set(sys.argv[2:])
    for name in sorted(defined - registered):
        print("not registered in tests/cli/CMakeLists.txt:", name)
    for name in sorted(registered - defined):
        print("registered but not in %s:" % sys.argv[1], name)
    return 0 if defined == registered else 1


if __name__ == "__main__":
    sys.exit(main())
