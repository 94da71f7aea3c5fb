"""The in-memory filters with Guava-like names: BloomFilter, CountingFilter,
ScalableFilter."""

import numpy as np
import pytest

import blockbloom

KEYS = [b"m%d" % i for i in range(10000)]
ABSENT = [b"x%d" % i for i in range(10000)]


class TestBloomFilter:

    def test_put_might_contain(self):
        b = blockbloom.BloomFilter.create(10000, 0.01, seed=8)
        assert b.seed == 8
        assert b.put("first") is True
        assert b.put("first") is False
        assert b.might_contain("first") and "first" in b
        assert b.num_insertions == 1
        assert 9900 < b.put_all(KEYS) <= len(KEYS)  # false positives: not new
        assert all(b.might_contain(k) for k in KEYS)
        assert b.might_contain_many(KEYS).all()
        rate = b.might_contain_many(ABSENT).mean()
        assert rate < 0.02
        assert abs(b.estimated_fpr() - 0.01) < 0.004
        assert abs(b.approximate_element_count() - 10001) < 300

    def test_batches_equal_single_calls(self):
        b = blockbloom.BloomFilter.create_with_bits_per_key(5000, 6, seed=2)
        hashes = blockbloom.hash_keys(KEYS[:5000], seed=2)
        assert b.put_hashes(hashes) > 4900
        queries = KEYS[:3000] + ABSENT[:3000]
        singles = [b.might_contain(k) for k in queries]
        np.testing.assert_array_equal(b.might_contain_many(queries), singles)
        np.testing.assert_array_equal(
            b.might_contain_hashes(blockbloom.hash_keys(queries, seed=2)),
            singles)
        assert b.might_contain_hash(int(hashes[0]))
        fixed = np.array([b"%012d" % i for i in range(3000)], "S12")
        c = blockbloom.BloomFilter.create(3000, 0.01, seed=2)
        assert c.put_fixed(fixed) >= 2990
        assert c.might_contain_fixed(fixed).all()
        assert c.might_contain_fixed(fixed.tobytes(), 12).all()

    def test_merge_put_all_intersect(self):
        a = blockbloom.BloomFilter.create(20000, 0.01, seed=5)
        b = blockbloom.BloomFilter.create(20000, 0.01, seed=5)
        a.put_all(KEYS[:5000])
        b.put_all(KEYS[5000:])
        assert a.is_compatible(b)
        union = a.copy()
        assert union.put_all(b) is None
        assert union.might_contain_many(KEYS).all()
        both = a.copy()
        both.intersect(union)
        assert both.might_contain_many(KEYS[:5000]).all()
        c = a.copy()
        c.merge(b.to_filter())
        assert c.might_contain_many(KEYS).all()
        other = blockbloom.BloomFilter.create(20000, 0.01, seed=6)
        assert not a.is_compatible(other)
        with pytest.raises(blockbloom.InvalidArgumentError, match="seed"):
            a.merge(other)
        with pytest.raises(ValueError):
            a.put_all(blockbloom.BloomFilter.create(10, 0.01, seed=5))
        with pytest.raises(TypeError):
            a.merge("not a filter")

    def test_round_trip_and_random_seed(self, tmp_path):
        b = blockbloom.BloomFilter.create(1000, 0.01)
        c = blockbloom.BloomFilter.create(1000, 0.01)
        assert b.seed != c.seed  # random by default
        b.put_all(KEYS[:1000])
        same = blockbloom.BloomFilter.from_bytes(b.to_bytes())
        assert same.seed == b.seed
        assert same.might_contain_many(KEYS[:1000]).all()
        f = blockbloom.Filter.from_bytes(b.to_bytes(encoding="full"))
        assert f.num_keys == b.num_insertions
        assert f.may_contain_many(KEYS[:1000]).all()
        b.save(tmp_path / "b.bbf")
        assert blockbloom.BloomFilter.load(tmp_path / "b.bbf").might_contain(
            KEYS[0])
        b.clear()
        assert b.num_insertions == 0 and not b.might_contain(KEYS[0])
        assert "BloomFilter" in repr(b)


class TestCountingFilter:

    def test_add_remove(self):
        c = blockbloom.CountingFilter.create(5000, 0.01, seed=4)
        for k in KEYS[:5000]:
            c.add(k)
        assert c.num_items == 5000
        assert all(c.might_contain(k) for k in KEYS[:5000])
        assert c.count_upper_bound(KEYS[0]) >= 1
        for k in KEYS[:2500]:
            assert c.remove(k)
        assert all(k in c for k in KEYS[2500:5000])
        present = sum(c.might_contain(k) for k in KEYS[:2500])
        assert present < 100
        assert abs(c.approximate_element_count() - 2500) < 200
        assert c.estimated_fpr() < 0.01
        assert c.saturated_counters() == 0
        f = blockbloom.Filter.from_bytes(c.to_filter_bytes())
        assert f.may_contain_many(KEYS[2500:5000]).all()
        c.clear()
        assert c.num_items == 0
        with pytest.raises(ValueError):
            blockbloom.CountingFilter.create(0, 0.01)


class TestScalableFilter:

    def test_grows_and_round_trips(self):
        s = blockbloom.ScalableFilter.create(1000, 0.01, seed=3)
        for k in KEYS:
            s.put(k)
        assert s.num_layers > 1
        assert s.capacity >= len(KEYS)
        assert all(k in s for k in KEYS)
        assert sum(s.might_contain(k) for k in ABSENT) / len(ABSENT) < 0.02
        t = blockbloom.ScalableFilter.from_bytes(s.to_bytes())
        assert t.num_layers == s.num_layers and t.seed == 3
        assert all(t.might_contain(k) for k in KEYS)

    def test_memory_cap(self):
        s = blockbloom.ScalableFilter.create(100, 0.01, max_bytes=1024,
                                             seed=1)
        with pytest.raises(blockbloom.ResourceExhaustedError):
            for k in KEYS:
                s.put(k)
        with pytest.raises(MemoryError):  # ResourceExhaustedError is one
            s.put(b"one more new key that does not fit")
        assert s.might_contain(KEYS[0])
