#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: build, info, query and
bench round trips, and the golden files.

    roundtrip_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

Shared helpers: cli_support.py.
"""

import json
import math
import os

import cli_support
from cli_support import (EXIT_OK, CliTestCase, lines, numbered, run)


class RoundTripTest(CliTestCase):

    def test_build_info_query(self):
        n = 20000
        keys = numbered(b"key-", n)
        keys_file = self.write("keys.txt", lines(keys))
        out = self.check_run(["build", "--bits_per_key=10", keys_file, "-o",
                              self.path("f.bbf")]).stdout.decode()
        self.assertIn("keys read:      20000", out)
        size = os.path.getsize(self.path("f.bbf"))
        self.assertIn("bytes written:  %d " % size, out)
        self.assertIn("bits per key:   10.0", out)
        self.assertIn("estimated FPR:  0.9", out)

        info = self.info(self.path("f.bbf"))
        self.assertEqual(info["encoding_version"], "1.0")
        self.assertEqual(info["encoding"], "full")
        self.assertEqual(info["num_keys"], n)
        self.assertEqual(info["num_probes"], 6)
        self.assertEqual(info["lane_bits"], 32)
        self.assertEqual(info["size_on_disk_bytes"], size)
        self.assertEqual(info["bits_bytes"], info["num_blocks"] * 64)
        self.assertEqual(info["fp_rate_basis"], "num_keys")
        # The fill ratio is what 20000 keys give, and says so.
        self.assertAlmostEqual(info["fill_ratio"], info["expected_fill_ratio"],
                               delta=0.005)
        self.assertLess(abs(info["estimated_keys"] - n),
                        4 * info["estimated_keys_stderr"])
        self.assertLess(info["estimated_keys_stderr"], 0.01 * n)

        # Every key added answers 1.
        self.assertEqual(self.query(self.path("f.bbf"), keys), [1] * n)
        self.assertEqual(self.count(self.path("f.bbf"), keys),
                         {"queried": n, "may_contain": n})

        # Absent keys answer 1 at the estimated rate: within 5 standard
        # deviations of a binomial (deterministic: fixed keys, fixed hash).
        probes = 200000
        absent = numbered(b"absent-", probes)
        counted = self.count(self.path("f.bbf"), absent)
        self.assertEqual(counted["queried"], probes)
        p = info["estimated_fp_rate"]
        expected = probes * p
        sigma = math.sqrt(probes * p * (1 - p))
        self.assertLess(abs(counted["may_contain"] - expected), 5 * sigma,
                        "%d of %d absent keys, %.1f expected" %
                        (counted["may_contain"], probes, expected))
        # The per-key answers agree with the count.
        self.assertEqual(sum(self.query(self.path("f.bbf"), absent)),
                         counted["may_contain"])

    def test_simd_target_from_the_environment(self):
        """BLOCKBLOOM_SIMD_TARGET chooses the probes' target (info reports
        it and where it came from); every target answers alike; a bad value
        is reported and the rule kept."""
        keys = numbered(b"key-", 3000)
        f = self.build(keys)
        absent = numbered(b"absent-", 20000)
        rule = self.info(f)
        self.assertIn("rule", rule["simd_target_source"])
        expected = self.query(f, absent)
        env = dict(os.environ)
        for target in ("SCALAR", "EMU128", "SSSE3", "SSE4", "AVX2", "AVX3",
                       "best"):
            env["BLOCKBLOOM_SIMD_TARGET"] = target
            info = run(["info", "--json", f], env=env)
            self.assertEqual(info.returncode, EXIT_OK, info.stderr)
            got = json.loads(info.stdout)
            if b"ignored" in info.stderr:  # not a target of this CPU
                self.assertIn("rule", got["simd_target_source"])
                continue
            self.assertEqual(got["simd_target_source"],
                             "BLOCKBLOOM_SIMD_TARGET")
            if target != "best":
                self.assertEqual(got["simd_target"], target)
            answers = run(["query", f, "-"], stdin=lines(absent), env=env)
            self.assertEqual(answers.returncode, EXIT_OK)
            self.assertEqual(
                [int(a) for a in answers.stdout.split(b"\n")[:-1]], expected)
        env["BLOCKBLOOM_SIMD_TARGET"] = "AVX1024"
        bad = run(["info", "--json", f], env=env)
        self.assertEqual(bad.returncode, EXIT_OK)
        self.assertIn(b"BLOCKBLOOM_SIMD_TARGET ignored", bad.stderr)
        self.assertEqual(json.loads(bad.stdout)["simd_target"],
                         rule["simd_target"])

    def test_ribbon_build_info_query(self):
        n = 20000
        keys = numbered(b"key-", n)
        ribbon = self.build(keys, "r.bbf", ["--kind=ribbon", "--fp_rate=0.01"])
        blocked = self.build(keys, "b.bbf", ["--fp_rate=0.01"])
        info = self.info(ribbon)
        self.assertEqual(info["encoding_version"], "6.0")
        self.assertEqual(info["encoding"], "ribbon")
        self.assertEqual(info["kind"], "ribbon")
        self.assertIsNone(info["num_probes"])
        self.assertEqual(info["num_keys"], n)
        self.assertLessEqual(info["estimated_fp_rate"], 0.01)
        self.assertIsNone(info["estimated_keys"])
        self.assertEqual(self.info(blocked)["kind"], "blocked")
        # The same rate in about 30% less: 6.8 bits/key against 9.7.
        self.assertLess(os.path.getsize(ribbon),
                        0.75 * os.path.getsize(blocked))
        self.assertEqual(self.count(ribbon, keys),
                         {"queried": n, "may_contain": n})
        probes = 200000
        counted = self.count(ribbon, numbered(b"absent-", probes))
        p = info["estimated_fp_rate"]
        sigma = math.sqrt(probes * p * (1 - p))
        self.assertLess(abs(counted["may_contain"] - probes * p), 5 * sigma)
        out = self.check_run(["info", ribbon]).stdout.decode()
        self.assertIn("\nkind:                    ribbon\n", out)

    def test_ribbon_flags(self):
        keys_file = self.write("k.txt", lines(numbered(b"k", 5000)))
        for flags in (["--kind=bloom"], ["--kind=ribbon", "--encoding=full"],
                      ["--kind=ribbon", "--compression=zstd"]):
            with self.subTest(flags):
                self.check_run(["build", *flags, keys_file, "-o",
                                self.path("x.bbf")], code=cli_support.EXIT_USAGE)
                self.assertFalse(os.path.exists(self.path("x.bbf")))
        # A few keys: the blocked kind is the smaller filter, and is built.
        small = self.build(numbered(b"k", 50), "s.bbf", ["--kind=ribbon"])
        self.assertEqual(self.info(small)["kind"], "blocked")

    def test_text_info_has_every_field(self):
        f = self.build(numbered(b"k", 3000))
        out = self.check_run(["info", f]).stdout.decode()
        for label in ("encoding version:", "encoding:", "kind:", "block:",
                      "probes (k):", "seed:", "blocks:", "lane bits:",
                      "keys:", "compression:", "size on disk:",
                      "fill ratio:", "estimated FPR:",
                      "estimated distinct keys:"):
            self.assertIn("\n" + label, "\n" + out)

    def test_flags_reach_the_filter(self):
        keys = numbered(b"user:", 5000)
        # --seed is stored; keys still match.
        f = self.build(keys, "seeded.bbf", ["--seed=18446744073709551615"])
        self.assertEqual(self.info(f)["seed"], 2**64 - 1)
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --fp_rate sizes the filter for that rate.
        f = self.build(keys, "rate.bbf", ["--fp_rate=0.001"])
        info = self.info(f)
        self.assertLessEqual(info["estimated_fp_rate"], 0.001)
        self.assertGreater(info["estimated_fp_rate"], 0.0007)
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --compression=zstd on a sparse filter compresses it.
        f = self.build(keys, "zstd.bbf",
                       ["--bits_per_key=100", "--compression=zstd"])
        info = self.info(f)
        self.assertEqual(info["compression"], "zstd")
        self.assertLess(info["payload_bytes"], info["bits_bytes"])
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --encoding=compact stores no key count: the FPR then comes from
        # the estimated keys.
        f = self.build(keys[:60], "compact.bbf", ["--encoding=compact"])
        info = self.info(f)
        self.assertEqual(info["encoding"], "compact")
        self.assertIsNone(info["num_keys"])
        self.assertFalse(info["num_keys_known"])
        self.assertEqual(info["fp_rate_basis"], "estimated_keys")
        self.assertLess(abs(info["estimated_keys"] - 60),
                        4 * info["estimated_keys_stderr"])
        self.assertEqual(self.query(f, keys[:60]), [1] * 60)
        self.assertNotEqual(info["lane_bits"], 32)  # 600 bits / 16 lanes
        # --nocompact_small_filters: 64-byte blocks even for a tiny filter
        # (what a shared filter in Redis needs).
        f = self.build(keys[:60], "blocks.bbf", ["--nocompact_small_filters"])
        self.assertEqual(self.info(f)["lane_bits"], 32)
        self.assertEqual(self.query(f, keys[:60]), [1] * 60)

    def test_length_prefixed_keys(self):
        # Any bytes: newlines, NULs, empty keys.
        keys = [b"", b"a\nb", b"\0", b"\r\n", b"\xff" * 3] + numbered(b"k", 500)
        f = self.build(keys, flags=["--encoding=full"],
                       input_format="lenprefixed")
        self.assertEqual(self.info(f)["num_keys"], len(keys))
        self.assertEqual(self.query(f, keys, input_format="lenprefixed"),
                         [1] * len(keys))

    def test_keys_from_standard_input(self):
        keys = numbered(b"stdin-", 1000)
        self.check_run(["build", "-", "-o", self.path("f.bbf")],
                       stdin=lines(keys))
        self.assertEqual(self.query(self.path("f.bbf"), keys), [1] * 1000)
        # The filter from standard input, the keys from a file.
        keys_file = self.write("q.txt", lines(keys[:10]))
        out = self.check_run(["query", "--count", "-", keys_file],
                             stdin=self.read("f.bbf")).stdout
        self.assertEqual(json.loads(out), {"queried": 10, "may_contain": 10})

    def test_rebuild_replaces_the_file(self):
        f = self.build(numbered(b"a", 100))
        first = self.read("f.bbf")
        self.build(numbered(b"b", 5000))
        self.assertNotEqual(self.read("f.bbf"), first)
        self.assertEqual(self.info(f)["num_keys"], 5000)
        # A normal file's mode (mkstemp's 0600 is not kept).
        umask = os.umask(0)
        os.umask(umask)
        self.assertEqual(os.stat(f).st_mode & 0o777, 0o666 & ~umask)
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["f.bbf", "f.bbf.keys"])

    def test_json_quotes_file_names(self):
        name = 'we"ird\\name\t.bbf'
        f = self.build(numbered(b"k", 10), name)
        self.assertEqual(self.info(f)["file"], f)


def golden_files():
    """The golden filters, from the table in tests/testdata/README.md:
    (file, number of keys, build flags, absent keys answering 1)."""
    rows = []
    with open(os.path.join(cli_support.TESTDATA, "README.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 10 or not cells[0].endswith(".bbf"):
                continue
            name, keys, bits_per_key, seed, encoding, codec = cells[:6]
            flags = ["--bits_per_key=" + bits_per_key,
                     "--seed=%d" % int(seed, 0),
                     "--encoding=" + encoding.split()[0]]
            if codec != "none":
                algorithm, level = codec.split()
                flags += ["--compression=" + algorithm,
                          "--zstd_level=" + level]
            rows.append((name, int(keys), flags, int(cells[-1])))
    return rows


class GoldenTest(CliTestCase):
    """The tool writes exactly what the library's golden vectors hold, and
    answers as they pin (tests/testdata/README.md)."""

    def setUp(self):
        super().setUp()
        self.golden = golden_files()
        self.assertGreaterEqual(len(self.golden), 7)

    def test_build_matches_golden_files(self):
        for name, n, flags, _ in self.golden:
            with self.subTest(name):
                self.build(numbered(b"golden-key-", n), name, flags)
                golden_path = os.path.join(cli_support.TESTDATA, name)
                with open(golden_path, "rb") as golden:
                    self.assertEqual(self.read(name), golden.read())

    def test_info_and_query_on_golden_files(self):
        absent = numbered(b"absent-", 10000)
        for name, n, _, absent_positives in self.golden:
            with self.subTest(name):
                f = os.path.join(cli_support.TESTDATA, name)
                info = self.info(f)
                self.assertEqual(info["size_on_disk_bytes"],
                                 os.path.getsize(f))
                self.assertEqual(info["encoding"], name.split("_")[0])
                self.assertEqual(info["num_keys"],
                                 None if name.startswith("compact") else n)
                if n:
                    self.assertLess(abs(info["estimated_keys"] - n),
                                    4 * info["estimated_keys_stderr"] + 1)
                else:
                    self.assertEqual(info["estimated_keys"], 0)
                self.assertEqual(self.count(f, numbered(b"golden-key-", n)),
                                 {"queried": n, "may_contain": n})
                self.assertEqual(self.count(f, absent)["may_contain"],
                                 absent_positives)
        # Format 4.1: the origin an engine recorded (the RocksDB adapter's
        # level of creation and column family group), in JSON and text.
        f = os.path.join(cli_support.TESTDATA, "full_5000keys_origin.bbf")
        info = self.info(f)
        self.assertEqual((info["minor_version"], info["origin_level"],
                          info["origin_bottommost"], info["origin_group"]),
                         (1, 3, True, 517))
        self.assertIn("origin:", self.check_run(["info", f]).stdout.decode())
        self.assertIsNone(self.info(os.path.join(
            cli_support.TESTDATA, "full_5000keys.bbf"))["origin_level"])
        # docs/FORMAT.md's example: 1 block of 7-bit lanes, k = 7.
        info = self.info(os.path.join(cli_support.TESTDATA,
                                      "full_10keys_narrow.bbf"))
        self.assertEqual((info["num_blocks"], info["lane_bits"],
                          info["num_probes"], info["bits_bytes"]),
                         (1, 7, 7, 14))


class BenchTest(CliTestCase):

    def test_bench_runs(self):
        out = self.check_run(["bench", "--keys=20000"]).stdout.decode()
        self.assertIn("SIMD target", out)
        self.assertIn("probe, single:", out)
        self.assertIn("probe, batch:", out)
        self.assertIn("M keys/s", out)
        self.assertRegex(out, r"FPR: +[0-9.]+% measured \(\d+ of 20000")
        out = self.check_run(["bench", "--keys=5000", "--fp_rate=0.001",
                              "--seed=3"]).stdout.decode()
        self.assertIn("5000 keys", out)


if __name__ == "__main__":
    cli_support.main()
