"""blockbloom: cache-line-blocked Bloom filters (Python binding of the C++
library).

    import blockbloom, numpy as np
    f = blockbloom.Filter.from_keys(["apple", b"pear"], bits_per_key=10)
    "apple" in f                       # True: no false negatives
    f.may_contain_many(["apple", "fig"])          # numpy bool array
    f.may_contain_hashes(blockbloom.hash_keys(["fig"], seed=f.seed))
    f.save("fruit.bbf")                # the `blockbloom` CLI reads it
    g = blockbloom.Filter.load("fruit.bbf")

Classes: Filter (immutable; files of the CLI and of C++ SerializeFilter),
BloomFilter (mutable, Guava-like), CountingFilter (with remove),
ScalableFilter (grows). Keys are str (hashed as UTF-8) or bytes-like;
hash_key(key, seed) equals C++ blockbloom::HashKey. __version__ is the C++
library's blockbloom::Version() ("0.1.0"), the package's version too.

Errors: every non-OK absl::Status of the C++ core raises a subclass of
FilterError carrying the status message:

    InvalidArgument, OutOfRange  InvalidArgumentError (also a ValueError)
    DataLoss                     CorruptFilterError (damaged, truncated bytes)
    Unimplemented                UnsupportedFilterError (newer format version)
    ResourceExhausted            ResourceExhaustedError (also a MemoryError)
    any other code               FilterError

Argument errors found in Python terms raise the built-in exceptions: TypeError
for a wrong type or dtype (a key that is not str/bytes, hashes that are not
uint64), ValueError for a wrong shape or layout (a non-contiguous or 2-D hash
array, a buffer that is not a whole number of keys), OSError for files.
"""

import os as _os
import tempfile as _tempfile

from ._blockbloom import (
    BloomFilter,
    CorruptFilterError,
    CountingFilter,
    Filter,
    FilterError,
    InvalidArgumentError,
    ResourceExhaustedError,
    ScalableFilter,
    UnsupportedFilterError,
    __version__,
    active_simd_target,
    set_simd_target,
    hash_fixed,
    hash_key,
    hash_keys,
)

__all__ = [
    "__version__",
    "BloomFilter",
    "CorruptFilterError",
    "CountingFilter",
    "Filter",
    "FilterError",
    "InvalidArgumentError",
    "ResourceExhaustedError",
    "ScalableFilter",
    "UnsupportedFilterError",
    "active_simd_target",
    "set_simd_target",
    "hash_fixed",
    "hash_key",
    "hash_keys",
]


def _write_atomic(path, data):
    """Writes `data` to `path` through a temporary file in the same folder
    and a rename, so that no partial file is ever left under `path` (as the
    CLI writes its output)."""
    path = _os.fspath(path)
    folder = _os.path.dirname(_os.path.abspath(path))
    fd, temporary = _tempfile.mkstemp(dir=folder, prefix=".blockbloom-")
    try:
        with _os.fdopen(fd, "wb") as f:
            f.write(data)
        _os.chmod(temporary, 0o644)
        _os.replace(temporary, path)
    except BaseException:
        try:
            _os.unlink(temporary)
        except OSError:
            pass
        raise


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _save(self, path, **write_options):
    """Writes the filter to `path` in the blockbloom file format
    (to_bytes(**write_options), written atomically): `blockbloom query` and
    C++ OpenFilter read it."""
    _write_atomic(path, self.to_bytes(**write_options))


def _filter_load(cls, path, **read_options):
    """Reads a filter file (the CLI's `blockbloom build`, save(), C++
    SerializeFilter): from_bytes of the file's contents. OSError if it cannot
    be read."""
    return cls.from_bytes(_read(path), **read_options)


for _cls in (Filter, BloomFilter, ScalableFilter):
    _cls.save = _save
    _cls.load = classmethod(_filter_load)
del _cls
