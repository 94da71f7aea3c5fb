"""Files interchange between Python and the `blockbloom` CLI: a filter built
by `blockbloom build` queried from Python, and one saved by Python queried
and inspected by `blockbloom query` / `blockbloom info`."""

import json
import subprocess

import numpy as np

import blockbloom


def run(cli, args, stdin=None):
    return subprocess.run([cli] + [str(a) for a in args], input=stdin,
                          capture_output=True, check=True, timeout=120)


def lines(keys):
    return b"".join(k + b"\n" for k in keys)


def cli_query(cli, path, keys):
    out = run(cli, ["query", path, "-"], stdin=lines(keys)).stdout
    return np.array([a == b"1" for a in out.split(b"\n")[:-1]])


KEYS = [b"user:%d" % i for i in range(30000)]
ABSENT = [b"nobody:%d" % i for i in range(30000)]


class TestCliInterop:

    def test_cli_file_queried_from_python(self, cli, tmp_path):
        (tmp_path / "keys.txt").write_bytes(lines(KEYS))
        out = tmp_path / "cli.bbf"
        run(cli, ["build", "--bits_per_key=8", "--seed=42",
                  tmp_path / "keys.txt", "-o", out])
        f = blockbloom.Filter.load(out)
        assert f.seed == 42
        assert f.num_keys == len(KEYS)
        assert all(f.may_contain_many(KEYS))
        queries = KEYS[:2000] + ABSENT
        np.testing.assert_array_equal(f.may_contain_many(queries),
                                      cli_query(cli, out, queries))
        # The same keys and options in Python give the same bytes.
        same = blockbloom.Filter.from_keys(KEYS, bits_per_key=8, seed=42)
        assert same.to_bytes() == out.read_bytes()

    def test_python_file_queried_by_cli(self, cli, tmp_path):
        f = blockbloom.Filter.from_keys(KEYS, fpr=0.02, seed=7)
        out = tmp_path / "py.bbf"
        f.save(out)
        queries = KEYS[:2000] + ABSENT
        answers = cli_query(cli, out, queries)
        assert answers[:2000].all()
        np.testing.assert_array_equal(answers, f.may_contain_many(queries))
        info = json.loads(run(cli, ["info", "--json", out]).stdout)
        text = json.dumps(info)
        assert str(len(KEYS)) in text and "7" in text

    def test_compressed_and_bloom_filter_files(self, cli, tmp_path):
        f = blockbloom.Filter.from_keys(KEYS[:5000], bits_per_key=40)
        out = tmp_path / "z.bbf"
        f.save(out, encoding="full", compression="zstd")
        assert cli_query(cli, out, KEYS[:5000]).all()
        b = blockbloom.BloomFilter.create(5000, 0.01, seed=3)
        b.put_all(KEYS[:5000])
        b.save(tmp_path / "b.bbf")
        assert cli_query(cli, tmp_path / "b.bbf", KEYS[:5000]).all()
        np.testing.assert_array_equal(
            cli_query(cli, tmp_path / "b.bbf", ABSENT[:5000]),
            b.might_contain_many(ABSENT[:5000]))
