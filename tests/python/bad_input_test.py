"""Bad input raises Python exceptions, never crashes: wrong types, wrong
dtypes, non-contiguous arrays, damaged and truncated filter bytes, options
out of range."""

import random

import numpy as np
import pytest

import blockbloom

KEYS = [b"k%d" % i for i in range(3000)]


@pytest.fixture(scope="module")
def f():
    return blockbloom.Filter.from_keys(KEYS, seed=1)


class TestWrongTypes:

    def test_keys_of_wrong_type(self, f):
        for bad in (1, 1.5, None, object(), ["a", 3]):
            with pytest.raises(TypeError):
                if isinstance(bad, list):
                    f.may_contain_many(bad)
                else:
                    f.may_contain(bad)
        with pytest.raises(TypeError):
            blockbloom.Filter.from_keys(["a", b"b", 7])
        with pytest.raises(TypeError):
            blockbloom.Filter.from_keys(b"not a list of keys")
        with pytest.raises(TypeError):
            f.may_contain_many("abc")
        with pytest.raises(TypeError):
            f.may_contain_many(5)
        with pytest.raises(TypeError):
            blockbloom.hash_key(42)
        with pytest.raises(UnicodeEncodeError):
            f.may_contain("\ud800")  # a lone surrogate has no UTF-8

    def test_hashes_of_wrong_dtype(self, f):
        for dtype in (np.int64, np.uint32, np.float64, np.uint8):
            with pytest.raises(TypeError, match="uint64"):
                f.may_contain_hashes(np.zeros(10, dtype))
        with pytest.raises(TypeError):
            f.may_contain_hashes([1, 2, 3])
        with pytest.raises(TypeError):
            f.may_contain_hashes(np.zeros(10, ">u8"))
        with pytest.raises(TypeError):
            blockbloom.Filter.from_hashes(np.zeros(10, np.int32))

    def test_non_contiguous_and_wrong_shape(self, f):
        hashes = np.arange(100, dtype=np.uint64)
        with pytest.raises(ValueError, match="contiguous"):
            f.may_contain_hashes(hashes[::2])
        with pytest.raises(ValueError, match="1-D"):
            f.may_contain_hashes(hashes.reshape(10, 10))
        np.testing.assert_array_equal(
            f.may_contain_hashes(np.ascontiguousarray(hashes[::2])),
            [f.may_contain_hash(int(h)) for h in hashes[::2]])
        fixed = np.array([b"%08d" % i for i in range(100)], "S8")
        with pytest.raises(ValueError, match="contiguous"):
            f.may_contain_fixed(fixed[::3])
        with pytest.raises(ValueError, match="contiguous"):
            blockbloom.Filter.from_fixed(fixed[::3])

    def test_fixed_width_errors(self, f):
        with pytest.raises(ValueError, match="width"):
            f.may_contain_fixed(b"abcdefgh")  # flat bytes need a width
        with pytest.raises(ValueError, match="whole number"):
            f.may_contain_fixed(b"abcdefgh", 3)
        with pytest.raises(ValueError, match="positive"):
            f.may_contain_fixed(b"abcdefgh", 0)
        with pytest.raises(TypeError):
            f.may_contain_fixed(np.array(["abc"], dtype="U3"))
        with pytest.raises(TypeError):
            f.may_contain_fixed(np.zeros(4, np.float32))
        with pytest.raises(TypeError):
            f.may_contain_fixed(["abc"])
        with pytest.raises(TypeError):
            f.may_contain_fixed(12)


class TestBadOptions:

    def test_options_out_of_range(self):
        with pytest.raises(ValueError):
            blockbloom.Filter.from_keys(KEYS, bits_per_key=0)
        with pytest.raises(blockbloom.InvalidArgumentError):
            blockbloom.Filter.from_keys(KEYS, bits_per_key=-3)
        # As BloomFilter.create: InvalidArgumentError (a ValueError too),
        # for every way of making a Filter.
        hashes = np.arange(100, dtype=np.uint64)
        fixed = bytes(40)  # ten 4-byte keys
        for fpr in (0, 1, 1.5, -0.1, float("nan"), float("inf")):
            for make in (lambda: blockbloom.Filter.from_keys(KEYS, fpr=fpr),
                         lambda: blockbloom.Filter.from_hashes(hashes,
                                                               fpr=fpr),
                         lambda: blockbloom.Filter.from_fixed(fixed, 4,
                                                              fpr=fpr)):
                with pytest.raises(blockbloom.InvalidArgumentError,
                                   match="fpr"):
                    make()
        with pytest.raises(TypeError):  # seeds are in [0, 2**64)
            blockbloom.Filter.from_keys(KEYS, seed=-1)
        with pytest.raises(TypeError):
            blockbloom.Filter.from_keys(KEYS, seed=2**64)
        with pytest.raises(blockbloom.InvalidArgumentError) as raised:
            blockbloom.BloomFilter.create(0, 0.01)
        assert isinstance(raised.value, blockbloom.FilterError)
        assert str(raised.value)  # the absl::Status message
        with pytest.raises(ValueError):
            blockbloom.BloomFilter.create(100, 1.0)
        with pytest.raises(ValueError):
            blockbloom.Filter.from_keys(KEYS).to_bytes(encoding="bogus")
        with pytest.raises(ValueError):
            blockbloom.Filter.from_keys(KEYS).to_bytes(compression="lz4")
        with pytest.raises(blockbloom.InvalidArgumentError):
            blockbloom.Filter.from_keys(KEYS[:5]).to_bytes(
                encoding="compact", compression="zstd")


class TestDamagedFilters:

    def test_truncated_bytes(self, f):
        data = f.to_bytes()
        for n in range(len(data)):
            # DataLoss mostly; a cut can also end in bytes that read as a
            # newer version (UnsupportedFilterError).
            with pytest.raises(blockbloom.FilterError):
                blockbloom.Filter.from_bytes(data[:n])
        with pytest.raises(blockbloom.CorruptFilterError):
            blockbloom.BloomFilter.from_bytes(data[:-1])

    def test_damaged_bytes(self, f):
        data = f.to_bytes()
        rng = random.Random(5)
        for _ in range(500):
            damaged = bytearray(data)
            damaged[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            with pytest.raises(blockbloom.FilterError):
                blockbloom.Filter.from_bytes(damaged)

    def test_compressed_damage_and_garbage(self, f):
        data = f.to_bytes(encoding="full", compression="zstd")
        rng = random.Random(6)
        for _ in range(300):
            damaged = bytearray(data)
            for _ in range(rng.randrange(1, 4)):
                damaged[rng.randrange(len(data))] = rng.randrange(256)
            try:
                g = blockbloom.Filter.from_bytes(damaged)
            except blockbloom.FilterError:
                continue
            assert g.may_contain_many(KEYS).all()  # unchanged bytes only
        for size in (0, 1, 3, 11, 56, 57, 1000):
            garbage = bytes(rng.randrange(256) for _ in range(size))
            with pytest.raises(blockbloom.FilterError):
                blockbloom.Filter.from_bytes(garbage)
        with pytest.raises(TypeError):
            blockbloom.Filter.from_bytes("a str is not bytes")
        with pytest.raises(TypeError):
            blockbloom.Filter.from_bytes(None)

    def test_damaged_file_and_scalable_bytes(self, f, tmp_path):
        path = tmp_path / "bad.bbf"
        path.write_bytes(f.to_bytes()[:-3])
        with pytest.raises(blockbloom.CorruptFilterError) as raised:
            blockbloom.Filter.load(path)
        assert "" != str(raised.value)
        s = blockbloom.ScalableFilter.create(100, 0.01, seed=1)
        for k in KEYS[:500]:
            s.put(k)
        data = s.to_bytes()
        for n in range(0, len(data), 7):
            with pytest.raises(blockbloom.FilterError):
                blockbloom.ScalableFilter.from_bytes(data[:n])
