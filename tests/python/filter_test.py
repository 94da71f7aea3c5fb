"""blockbloom.Filter from Python: building from keys, hashes and fixed-width
buffers, queries one at a time and in batches, hashes equal to C++, and
round trips through bytes and files."""

import os
import re

import numpy as np
import pytest

import blockbloom

KEYS = [b"key-%d" % i for i in range(20000)]
ABSENT = [b"absent-%d" % i for i in range(20000)]


def fixed_keys(n, width=16, start=0):
    """n distinct width-byte keys with no NUL bytes, as a numpy 'S' array."""
    return np.array([b"k%0*d" % (width - 1, i) for i in range(start, start + n)],
                    dtype="S%d" % width)


class TestHash:

    def test_hash_key_is_cxx_hash_key(self):
        # tests/core/filter_test.cc: HashKey("") is XXH3_64bits("").
        assert blockbloom.hash_key(b"") == 0x2D06800538D394C2
        assert blockbloom.hash_key("") == blockbloom.hash_key(b"", seed=0)
        assert blockbloom.hash_key(b"abc", 1) != blockbloom.hash_key(b"abc")
        # str keys are their UTF-8 bytes.
        assert (blockbloom.hash_key("grüße", 7) ==
                blockbloom.hash_key("grüße".encode(), 7))
        assert blockbloom.hash_key(bytearray(b"abc")) == \
            blockbloom.hash_key(b"abc")
        assert blockbloom.hash_key(memoryview(b"abc")) == \
            blockbloom.hash_key(b"abc")

    def test_hash_many_equals_hash_key(self):
        keys = [b"x%d" % i for i in range(1000)] + ["ü", ""]
        hashes = blockbloom.hash_keys(keys, seed=5)
        assert hashes.dtype == np.uint64
        assert list(hashes) == [blockbloom.hash_key(k, 5) for k in keys]
        fixed = fixed_keys(500)
        assert list(blockbloom.hash_fixed(fixed, seed=3)) == [
            blockbloom.hash_key(bytes(k), 3) for k in fixed]


class TestBuild:

    def test_no_false_negatives_and_fpr(self):
        f = blockbloom.Filter.from_keys(KEYS, bits_per_key=10)
        assert f.num_keys == len(KEYS)
        assert all(f.may_contain(k) for k in KEYS)
        assert all(k in f for k in KEYS)
        rate = sum(f.may_contain(k) for k in ABSENT) / len(ABSENT)
        assert 0.003 < rate < 0.02, rate
        assert 0.008 < f.estimated_fpr < 0.011
        assert f.kind == "blocked"

    def test_fpr_option_sizes_the_filter(self):
        loose = blockbloom.Filter.from_keys(KEYS, fpr=0.05)
        tight = blockbloom.Filter.from_keys(KEYS, fpr=0.001)
        assert loose.num_bits < tight.num_bits
        assert tight.estimated_fpr <= 0.001
        assert all(tight.may_contain_many(KEYS))

    def test_str_keys_are_utf8(self):
        words = ["grüße", "日本", "plain"]
        f = blockbloom.Filter.from_keys(words, seed=9)
        g = blockbloom.Filter.from_keys([w.encode() for w in words], seed=9)
        assert f.to_bytes() == g.to_bytes()
        assert all(w.encode() in f for w in words)

    def test_hashes_and_fixed_build_the_same_filter(self):
        fixed = fixed_keys(5000)
        by_keys = blockbloom.Filter.from_keys(list(fixed), seed=11)
        by_hashes = blockbloom.Filter.from_hashes(
            blockbloom.hash_fixed(fixed, seed=11), seed=11)
        by_fixed = blockbloom.Filter.from_fixed(fixed, seed=11)
        by_buffer = blockbloom.Filter.from_fixed(fixed.tobytes(), 16, seed=11)
        by_rows = blockbloom.Filter.from_fixed(
            np.frombuffer(fixed.tobytes(), np.uint8).reshape(-1, 16), seed=11)
        expected = by_keys.to_bytes()
        for f in (by_hashes, by_fixed, by_buffer, by_rows):
            assert f.to_bytes() == expected
            assert f.seed == 11

    def test_seed_is_kept(self):
        f = blockbloom.Filter.from_keys(KEYS[:100], seed=12345)
        assert f.seed == 12345
        g = blockbloom.Filter.from_bytes(f.to_bytes())
        assert g.seed == 12345
        h = blockbloom.hash_keys(KEYS[:100], seed=12345)
        assert all(g.may_contain_hashes(h))

    def test_empty_filter_contains_nothing(self):
        f = blockbloom.Filter.from_keys([])
        assert f.num_keys == 0
        assert not any(f.may_contain_many(ABSENT[:1000]))
        assert f.may_contain_many([]).shape == (0,)
        assert f.may_contain_hashes(np.zeros(0, np.uint64)).shape == (0,)


class TestBatch:

    def test_batches_equal_single_queries(self):
        f = blockbloom.Filter.from_keys(KEYS[::2], bits_per_key=6, seed=3)
        queries = KEYS[:4000] + ABSENT[:4000]
        singles = np.array([f.may_contain(k) for k in queries])
        assert singles.sum() > 2000  # present keys and false positives
        many = f.may_contain_many(queries)
        assert many.dtype == np.bool_
        np.testing.assert_array_equal(many, singles)
        np.testing.assert_array_equal(
            f.may_contain_many(iter(queries)), singles)
        np.testing.assert_array_equal(
            f.may_contain_many(tuple(k.decode() for k in queries)), singles)
        hashes = blockbloom.hash_keys(queries, seed=3)
        np.testing.assert_array_equal(f.may_contain_hashes(hashes), singles)
        np.testing.assert_array_equal(
            [f.may_contain_hash(int(h)) for h in hashes], singles)

    def test_fixed_batches_equal_single_queries(self):
        present = fixed_keys(10000)
        f = blockbloom.Filter.from_fixed(np.ascontiguousarray(present[::2]),
                                        bits_per_key=5)
        singles = np.array([f.may_contain(bytes(k)) for k in present])
        assert singles[::2].all()
        # More keys than one chunk of views (4096), not a multiple of it.
        np.testing.assert_array_equal(f.may_contain_fixed(present), singles)
        np.testing.assert_array_equal(
            f.may_contain_fixed(present.tobytes(), 16), singles)
        np.testing.assert_array_equal(
            f.may_contain_fixed(bytearray(present.tobytes()), width=16),
            singles)
        np.testing.assert_array_equal(
            f.may_contain_fixed(memoryview(present.tobytes()), 16), singles)

    def test_fixed_keys_keep_trailing_nuls(self):
        keys = np.array([b"ab\0\0", b"cd\0\0"], dtype="S4")
        f = blockbloom.Filter.from_fixed(keys)
        assert f.may_contain(b"ab\0\0") and f.may_contain(b"cd\0\0")
        assert list(f.may_contain_fixed(keys)) == [True, True]

    def test_batch_releases_the_gil(self):
        import threading
        f = blockbloom.Filter.from_hashes(
            np.arange(100000, dtype=np.uint64), seed=0)
        hashes = np.arange(100000, dtype=np.uint64)
        results = []

        def work():
            for _ in range(20):
                results.append(bool(f.may_contain_hashes(hashes).all()))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [True] * 80


    def test_list_changed_by_another_thread_during_a_batch(self):
        # The batch probes a tuple copy of the list with the GIL released:
        # another thread emptying the list cannot free keys under it.
        import threading
        f = blockbloom.Filter.from_keys(KEYS)
        shared = list(KEYS) * 5
        stop = threading.Event()

        def mutate():
            while not stop.is_set():
                shared.clear()
                shared.extend(KEYS)

        thread = threading.Thread(target=mutate)
        thread.start()
        try:
            for _ in range(50):
                answers = f.may_contain_many(shared)
                assert answers.all()
        finally:
            stop.set()
            thread.join()


class TestRoundTrip:

    @pytest.mark.parametrize("options", [
        {}, {"encoding": "full"}, {"encoding": "full", "compression": "zstd"},
        {"encoding": "full", "compression": "zstd", "zstd_level": 19}])
    def test_bytes_round_trip(self, options):
        f = blockbloom.Filter.from_keys(KEYS, bits_per_key=12, seed=77)
        data = f.to_bytes(**options)
        g = blockbloom.Filter.from_bytes(data)
        assert (g.num_keys, g.num_bits, g.num_probes, g.seed) == (
            f.num_keys, f.num_bits, f.num_probes, f.seed)
        assert g.to_bytes(encoding="full") == f.to_bytes(encoding="full")
        assert all(g.may_contain_many(KEYS))
        # Any bytes-like input; the bytes are copied.
        buffer = bytearray(data)
        h = blockbloom.Filter.from_bytes(buffer)
        buffer[:] = b"\0" * len(buffer)
        assert all(h.may_contain_many(KEYS))
        assert all(blockbloom.Filter.from_bytes(
            np.frombuffer(data, np.uint8)).may_contain_many(KEYS[:100]))

    def test_small_filter_compact_round_trip(self):
        f = blockbloom.Filter.from_keys(KEYS[:37])
        data = f.to_bytes()
        assert len(data) == 51  # compact: the golden compact_37keys size
        g = blockbloom.Filter.from_bytes(data)
        assert all(g.may_contain_many(KEYS[:37]))

    def test_save_and_load(self, tmp_path):
        f = blockbloom.Filter.from_keys(KEYS[:1000], seed=4)
        path = tmp_path / "f.bbf"
        f.save(path)
        assert path.read_bytes() == f.to_bytes()
        g = blockbloom.Filter.load(str(path))
        assert g.to_bytes() == f.to_bytes()
        f.save(path, compression="zstd", encoding="full")
        assert blockbloom.Filter.load(path).seed == 4
        assert os.listdir(tmp_path) == ["f.bbf"]  # no temporary left
        with pytest.raises(OSError):
            blockbloom.Filter.load(tmp_path / "missing.bbf")

    def test_golden_files(self, testdata):
        # tests/testdata/README.md: keys golden-key-<i>, absent-<i>.
        table = {  # file: (keys, seed, absent positives of 10000)
            "compact_37keys.bbf": (37, 0, 72),
            "compact_100keys_seeded.bbf": (100, 0x0123456789ABCDEF, 63),
            "full_10keys_narrow.bbf": (10, 0, 54),
            "full_5000keys.bbf": (5000, 0, 84),
            "full_5000keys_zstd.bbf": (5000, 0, 84),
            "full_2000keys_sparse_zstd.bbf": (2000, 99, 0),
            "accurate3_set_37keys.bbf": (37, 0, 56),
            "accurate3_spread_1000keys.bbf": (1000, 0, 1450),
        }
        absent = [b"absent-%d" % i for i in range(10000)]
        for name, (n, seed, positives) in table.items():
            f = blockbloom.Filter.load(os.path.join(testdata, name), seed=seed)
            keys = [b"golden-key-%d" % i for i in range(n)]
            assert all(f.may_contain_many(keys)), name
            assert f.may_contain_many(absent).sum() == positives, name
        # In-place blocks have no checksum: read only when asked.
        with pytest.raises(blockbloom.CorruptFilterError):
            blockbloom.Filter.load(os.path.join(testdata, "inplace_37keys.bbf"))
        inplace = blockbloom.Filter.load(
            os.path.join(testdata, "inplace_37keys.bbf"), allow_in_place=True)
        assert inplace.kind == "standard"
        assert inplace.may_contain_many(absent).sum() == 53

    def test_python_builds_golden_bytes(self, testdata):
        keys = [b"golden-key-%d" % i for i in range(5000)]
        f = blockbloom.Filter.from_keys(keys, bits_per_key=10)
        with open(os.path.join(testdata, "full_5000keys.bbf"), "rb") as golden:
            assert f.to_bytes() == golden.read()
        g = blockbloom.Filter.from_keys(keys[:100], seed=0x0123456789ABCDEF)
        with open(os.path.join(testdata, "compact_100keys_seeded.bbf"),
                  "rb") as golden:
            assert g.to_bytes() == golden.read()

    def test_ribbon_kind(self, testdata):
        blocked = blockbloom.Filter.from_keys(KEYS, fpr=0.01)
        ribbon = blockbloom.Filter.from_keys(KEYS, fpr=0.01, kind="ribbon")
        assert (blocked.kind, ribbon.kind) == ("blocked", "ribbon")
        assert all(ribbon.may_contain_many(KEYS))
        # The same rate in under 0.75x the bytes (6.8 bits/key, not 9.7).
        data = ribbon.to_bytes()
        assert len(data) < 0.75 * len(blocked.to_bytes())
        assert data == ribbon.to_bytes(encoding="ribbon")
        g = blockbloom.Filter.from_bytes(data)
        assert g.kind == "ribbon" and g.num_keys == len(KEYS)
        assert all(g.may_contain_many(KEYS))
        absent = [b"absent-%d" % i for i in range(20000)]
        assert (g.may_contain_many(absent) ==
                ribbon.may_contain_many(absent)).all()
        hashes = blockbloom.hash_keys(KEYS)
        assert blockbloom.Filter.from_hashes(
            hashes, fpr=0.01, kind="ribbon").to_bytes() == data
        with pytest.raises(ValueError):
            blockbloom.Filter.from_keys(KEYS, kind="set")
        with pytest.raises(ValueError):
            ribbon.to_bytes(encoding="full")
        # A few keys: blocked, the smaller filter.
        assert blockbloom.Filter.from_keys(KEYS[:40], kind="ribbon").kind == (
            "blocked")
        # Format 6's short footer, and version 5's long one, still read.
        for name in ("ribbon6_5000keys.bbf", "ribbon_5000keys.bbf"):
            golden = blockbloom.Filter.load(os.path.join(testdata, name))
            assert golden.kind == "ribbon"
            assert all(golden.may_contain_many(
                [b"golden-key-%d" % i for i in range(5000)]))

    def test_repr_and_simd_target(self):
        f = blockbloom.Filter.from_keys(KEYS[:10])
        assert "num_keys=10" in repr(f)
        assert blockbloom.active_simd_target()

    def test_set_simd_target(self):
        """The override: the same answers on the scalar target and the
        rule's; a name this CPU lacks raises and changes nothing."""
        rule = blockbloom.active_simd_target()
        keys = KEYS[:2000]
        absent = [b"absent-%d" % i for i in range(5000)]
        built = blockbloom.Filter.from_keys(keys)
        data = built.to_bytes()
        expected = [built.may_contain(k) for k in absent]
        try:
            # The build's scalar fallback: EMU128, or SCALAR in builds
            # without Highway's EMU128 target.
            try:
                blockbloom.set_simd_target("EMU128")
            except blockbloom.InvalidArgumentError:
                blockbloom.set_simd_target("SCALAR")
            scalar = blockbloom.active_simd_target()
            assert scalar in ("EMU128", "SCALAR")
            f = blockbloom.Filter.from_bytes(data)
            assert [f.may_contain(k) for k in absent] == expected
            assert all(f.may_contain(k) for k in keys)
            with pytest.raises(blockbloom.InvalidArgumentError):
                blockbloom.set_simd_target("AVX1024")
            assert blockbloom.active_simd_target() == scalar
        finally:
            blockbloom.set_simd_target("auto")
        assert blockbloom.active_simd_target() == rule

    def test_version_is_version_h(self):
        """__version__ is the C++ library's Version(): the three numbers of
        include/blockbloom/version.h, the one place the version is written
        (setup.py gives pip the same)."""
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        with open(os.path.join(root, "include", "blockbloom",
                               "version.h")) as f:
            text = f.read()
        numbers = [re.search(r"^inline constexpr int kVersion%s = ([0-9]+);$"
                             % part, text, re.MULTILINE).group(1)
                   for part in ("Major", "Minor", "Patch")]
        assert blockbloom.__version__ == ".".join(numbers)
        assert "__version__" in blockbloom.__all__


class TestReadme:

    def test_readme_example_runs(self, tmp_path, monkeypatch):
        """docs/PYTHON.md's "Use" section: its python block runs as written."""
        import re
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                               "PYTHON.md")) as f:
            readme = f.read()
        section = re.search(r"^## Use\n(.*?)(?=^## )", readme,
                            re.S | re.M).group(1)
        code = re.search(r"^```python\n(.*?)^```", section,
                         re.S | re.M).group(1)
        monkeypatch.chdir(tmp_path)
        exec(compile(code, "PYTHON.md", "exec"), {})
        assert (tmp_path / "keys.bbf").exists()
