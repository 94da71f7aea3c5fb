#!/usr/bin/python3
"""The blockbloom Redis module through a real client: Debian's python3-redis.

Run against a redis-server that loaded the module (run_client_test starts one):
    /usr/bin/python3 python_client.py PORT        (or REDIS_PORT=PORT)
BLOCKBLOOM_CLI is the `blockbloom` binary for the BB.DUMP / BB.LOAD checks.

It checks the reply shapes listed in shapes.json (node_client.mjs checks the
same list with node-redis): values, Python types, error messages. redis-py
4.3.4 (Debian bookworm) has r.bf().create (no reserve alias), no card and no
BF.INFO field form; those go through execute_command on a second client, since
r.bf() installs a BF.INFO callback on its client that expects the full reply.
Exit 77 (skipped) when redis-py is missing.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

try:
    import redis
except ImportError:  # not installed: skipped, not failed
    print("SKIP: python3-redis is not installed (apt-get install python3-redis)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("REDIS_PORT", "6379"))
CLI = os.environ.get("BLOCKBLOOM_CLI", "")
SHAPES = [s["id"] for s in json.load(open(os.path.join(HERE, "shapes.json")))["shapes"]]
RAN = []


def shape(name):
    """Marks a test method as the check of one shapes.json id."""
    assert name in SHAPES, name

    def wrap(fn):
        def run(self):
            RAN.append(name)
            fn(self)

        run.__name__ = fn.__name__
        return run

    return wrap


def message(error):
    # redis-py drops the "ERR " code; other codes (WRONGTYPE) stay.
    return str(error)


class BloomClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = redis.Redis(host="127.0.0.1", port=PORT)
        cls.raw = redis.Redis(host="127.0.0.1", port=PORT)  # no bf() callbacks
        cls.bf = cls.r.bf()
        cls.r.flushall()

    def reserve(self, key, rate, capacity, **kw):
        # redis-py >= 4.4 calls it reserve; 4.3.4 only has create.
        fn = getattr(self.bf, "reserve", None) or self.bf.create
        return fn(key, rate, capacity, **kw)

    def card(self, key):
        fn = getattr(self.bf, "card", None)
        return fn(key) if fn else self.raw.execute_command("BF.CARD", key)

    def assertError(self, fn, expected, *args, exact=True):
        with self.assertRaises(redis.ResponseError) as ctx:
            fn(*args)
        got = message(ctx.exception)
        if exact:
            self.assertEqual(got.rstrip(), expected.rstrip(), got)
        else:
            self.assertIn(expected, got)

    def assertIntList(self, reply, expected):
        self.assertIsInstance(reply, list)
        self.assertEqual([type(x) for x in reply], [int] * len(reply), reply)
        self.assertEqual(reply, expected)

    def assertNeverAnswersZero(self, key, items):
        """A key after a refused load: absent, or refusing queries, or all 1."""
        kind = self.raw.type(key)
        if kind == b"none":
            return
        try:
            reply = self.raw.execute_command("BF.MEXISTS", key, *items)
        except redis.ResponseError:
            return
        self.assertEqual(reply, [1] * len(items), "a half-loaded key answered 0")

    # ------------------------------------------------------------ BF.RESERVE
    @shape("reserve_ok")
    def test_reserve_ok(self):
        self.assertIs(self.reserve("r:ok", 0.01, 1000), True)
        self.assertIs(self.reserve("r:exp", 0.01, 1000, expansion=4), True)
        self.assertIs(self.reserve("r:ns", 0.01, 1000, noScale=True), True)
        self.assertEqual(self.raw.execute_command("BF.RESERVE", "r:raw", "0.001", "10"), b"OK")
        self.assertEqual(self.r.type("r:ok"), b"bb-filter")

    @shape("reserve_errors")
    def test_reserve_errors(self):
        self.reserve("r:dup", 0.01, 100)
        self.assertError(self.reserve, "item exists", "r:dup", 0.01, 100)
        self.assertError(self.reserve, "bad error rate", "r:e1", "abc", 100)
        for rate in ("0", "1", "-0.5", "1.5"):
            self.assertError(self.reserve, "(0 < error rate range < 1)", "r:e2", rate, 100)
        self.assertError(self.reserve, "bad capacity", "r:e3", 0.01, "abc")
        self.assertError(self.reserve, "(capacity should be larger than 0)", "r:e4", 0.01, 0)
        with self.assertRaises(redis.ResponseError):  # RedisBloom: Nonscaling filters cannot expand
            self.raw.execute_command("BF.RESERVE", "r:e5", 0.01, 100, "EXPANSION", 2, "NONSCALING")
        with self.assertRaises(redis.ResponseError):  # RedisBloom: ERR bad expansion
            self.raw.execute_command("BF.RESERVE", "r:e6", 0.01, 100, "EXPANSION", "x")
        for k in ("r:e1", "r:e2", "r:e3", "r:e4", "r:e5", "r:e6"):
            self.assertEqual(self.r.exists(k), 0, k)

    # ------------------------------------------------------- BF.ADD / MADD
    @shape("add_shapes")
    def test_add(self):
        self.reserve("a:1", 0.01, 1000)
        first = self.bf.add("a:1", "apple")
        self.assertIs(type(first), int)
        self.assertEqual(first, 1)
        self.assertEqual(self.bf.add("a:1", "apple"), 0)
        self.assertEqual(self.bf.add("a:1", b"\x00\xffbinary"), 1)
        self.assertEqual(self.bf.exists("a:1", b"\x00\xffbinary"), 1)
        self.assertEqual(self.bf.add("a:1", ""), 1)  # the empty item is an item

    @shape("add_autocreate")
    def test_add_autocreate(self):
        self.assertEqual(self.bf.add("a:auto", "x"), 1)
        info = self.bf.info("a:auto")
        self.assertEqual(info.capacity, 100)
        self.assertEqual(info.expansionRate, 2)
        self.assertEqual(info.filterNum, 1)
        self.assertEqual(info.insertedNum, 1)

    @shape("madd_shapes")
    def test_madd(self):
        self.assertIntList(self.bf.madd("m:1", "a", "b", "c"), [1, 1, 1])
        self.assertIntList(self.bf.madd("m:1", "a", "d", "a"), [0, 1, 0])
        self.assertEqual(self.card("m:1"), 4)

    # --------------------------------------------------- BF.EXISTS / MEXISTS
    @shape("exists_shapes")
    def test_exists(self):
        self.bf.madd("e:1", "a", "b")
        got = self.bf.exists("e:1", "a")
        self.assertIs(type(got), int)
        self.assertEqual(got, 1)
        self.assertEqual(self.bf.exists("e:missing", "a"), 0)

    @shape("mexists_shapes")
    def test_mexists(self):
        items = ["item-%d" % i for i in range(200)]
        self.bf.madd("me:1", *items)
        self.assertIntList(self.bf.mexists("me:1", *items), [1] * 200)
        self.assertIntList(self.bf.mexists("me:missing", "a", "b"), [0, 0])
        others = self.bf.mexists("me:1", *["other-%d" % i for i in range(200)])
        self.assertLess(sum(others), 20)  # 1% rate: a handful at most

    @shape("wrongtype")
    def test_wrongtype(self):
        self.r.set("w:str", "hello")
        for call in (lambda: self.bf.exists("w:str", "a"),
                     lambda: self.bf.mexists("w:str", "a", "b"),
                     lambda: self.bf.add("w:str", "a"),
                     lambda: self.bf.madd("w:str", "a"),
                     lambda: self.bf.insert("w:str", ["a"]),
                     lambda: self.bf.info("w:str"),
                     lambda: self.card("w:str"),
                     lambda: self.raw.execute_command("BF.SCANDUMP", "w:str", 0)):
            with self.assertRaises(redis.ResponseError) as ctx:
                call()
            self.assertTrue(str(ctx.exception).startswith("WRONGTYPE"), str(ctx.exception))
        self.assertEqual(self.r.get("w:str"), b"hello")

    # ------------------------------------------------------------ BF.INSERT
    @shape("insert_shapes")
    def test_insert(self):
        got = self.bf.insert("i:1", ["a", "b", "a"], capacity=500, error=0.001, expansion=4)
        self.assertIntList(got, [1, 1, 0])
        info = self.bf.info("i:1")
        self.assertEqual(info.capacity, 500)
        self.assertEqual(info.expansionRate, 4)
        self.assertEqual(info.insertedNum, 2)
        # options are ignored once the key exists
        self.assertIntList(self.bf.insert("i:1", ["c"], capacity=7), [1])
        self.assertEqual(self.bf.info("i:1").capacity, 500)
        self.bf.insert("i:ns", ["a"], noScale=True)
        self.assertIsNone(self.bf.info("i:ns").expansionRate)

    @shape("insert_nocreate")
    def test_insert_nocreate(self):
        self.assertError(self.bf.insert, "not found", "i:none", ["a"], None, None, True)
        self.assertEqual(self.r.exists("i:none"), 0)

    @shape("nonscaling_full")
    def test_nonscaling_full(self):
        self.reserve("f:1", 0.01, 2, noScale=True)
        self.assertEqual(self.bf.add("f:1", "x1"), 1)
        self.assertEqual(self.bf.add("f:1", "x2"), 1)
        self.assertError(self.bf.add, "non scaling filter is full", "f:1", "x3")
        self.assertEqual(self.bf.add("f:1", "x1"), 0)  # a held item is still 0
        self.reserve("f:2", 0.01, 2, noScale=True)
        got = self.bf.madd("f:2", "p", "q", "r", "s")
        self.assertEqual(len(got), 3, got)  # stops at the first refused item
        self.assertEqual(got[:2], [1, 1])
        self.assertIsInstance(got[2], redis.ResponseError)
        self.assertEqual(str(got[2]), "non scaling filter is full")
        self.assertEqual(self.bf.mexists("f:2", "p", "q"), [1, 1])
        self.assertEqual(self.card("f:2"), 2)

    # -------------------------------------------------------------- BF.INFO
    @shape("info_shapes")
    def test_info(self):
        self.reserve("n:1", 0.01, 1000)
        self.bf.madd("n:1", "a", "b", "c")
        raw = self.raw.execute_command("BF.INFO", "n:1")
        self.assertIsInstance(raw, list)
        self.assertEqual(len(raw), 10)
        self.assertEqual(raw[0::2], [b"Capacity", b"Size", b"Number of filters",
                                     b"Number of items inserted", b"Expansion rate"])
        self.assertEqual([type(x) for x in raw[1::2]], [int] * 5)
        self.assertEqual(raw[1::2][0], 1000)
        self.assertGreater(raw[3], 0)
        self.assertEqual(raw[5:10:2], [1, 3, 2])
        info = self.bf.info("n:1")  # the client's own parser
        self.assertEqual((info.capacity, info.filterNum, info.insertedNum, info.expansionRate),
                         (1000, 1, 3, 2))
        self.assertEqual(info.size, raw[3])
        self.reserve("n:ns", 0.01, 10, noScale=True)
        raw = self.raw.execute_command("BF.INFO", "n:ns")
        self.assertEqual(raw[8], b"Expansion rate")
        self.assertIsNone(raw[9])

    @shape("info_field_shapes")
    def test_info_fields(self):
        self.reserve("nf:1", 0.01, 1000, expansion=3)
        self.bf.madd("nf:1", "a", "b")
        full = self.raw.execute_command("BF.INFO", "nf:1")
        for field, value in (("CAPACITY", 1000), ("SIZE", full[3]), ("FILTERS", 1),
                             ("ITEMS", 2), ("EXPANSION", 3), ("capacity", 1000)):
            got = self.raw.execute_command("BF.INFO", "nf:1", field)
            self.assertEqual(got, [value], field)
        self.reserve("nf:ns", 0.01, 10, noScale=True)
        self.assertEqual(self.raw.execute_command("BF.INFO", "nf:ns", "EXPANSION"), [None])
        with self.assertRaises(redis.ResponseError):  # RedisBloom: Invalid information value
            self.raw.execute_command("BF.INFO", "nf:1", "BOGUS")

    @shape("info_missing")
    def test_info_missing(self):
        self.assertError(self.bf.info, "not found", "n:missing")

    @shape("card_shapes")
    def test_card(self):
        self.bf.madd("c:1", "a", "b", "c", "a")
        got = self.card("c:1")
        self.assertIs(type(got), int)
        self.assertEqual(got, 3)
        self.assertEqual(self.card("c:missing"), 0)
        self.assertEqual(self.raw.execute_command("BF.INFO", "c:1", "ITEMS"), [got])

    @shape("arity_errors")
    def test_arity(self):
        for args in (("BF.ADD", "k"), ("BF.EXISTS", "k"), ("BF.EXISTS", "k", "a", "b"),
                     ("BF.RESERVE", "k", "0.01"), ("BF.MADD", "k"), ("BF.CARD",),
                     ("BF.SCANDUMP", "k"), ("BF.LOADCHUNK", "k", "1"),
                     ("BF.INSERT", "k", "ITEMS")):
            with self.assertRaises(redis.ResponseError) as ctx:
                self.raw.execute_command(*args)
            self.assertIn("wrong number of arguments", str(ctx.exception), args)

    # -------------------------------------------------------------- scaling
    @shape("scaling_layers")
    def test_scaling(self):
        self.reserve("s:1", 0.01, 100, expansion=2)
        items = ["s-%d" % i for i in range(1000)]
        added = sum(sum(self.bf.madd("s:1", *items[i:i + 100])) for i in range(0, 1000, 100))
        info = self.bf.info("s:1")
        self.assertGreaterEqual(info.filterNum, 3)
        self.assertEqual(info.capacity, sum(100 * 2 ** i for i in range(info.filterNum)))
        self.assertEqual(info.insertedNum, added)
        self.assertGreater(added, 980)
        self.assertEqual(self.bf.mexists("s:1", *items), [1] * 1000)

    # ---------------------------------------------------- SCANDUMP/LOADCHUNK
    def scandump(self, key):
        chunks, it = [], 0
        while True:  # the loop of redis-py's documentation
            it, data = self.bf.scandump(key, it)
            self.assertIs(type(it), int)
            if it == 0:
                self.assertIn(data, (b"", None))  # the last reply carries no data
                return chunks
            self.assertIsInstance(data, bytes)
            chunks.append((it, data))

    @shape("scandump_roundtrip")
    def test_scandump_roundtrip(self):
        items = ["d-%d" % i for i in range(3000)]
        self.reserve("d:src", 0.01, 1000)
        for i in range(0, len(items), 500):
            self.bf.madd("d:src", *items[i:i + 500])
        chunks = self.scandump("d:src")
        self.assertGreaterEqual(len(chunks), 1)
        for it, data in chunks:
            self.assertIn(self.bf.loadchunk("d:dst", it, data), (b"OK", "OK", True))
        self.assertEqual(self.bf.mexists("d:dst", *items), [1] * len(items))
        a, b = self.bf.info("d:src"), self.bf.info("d:dst")
        self.assertEqual((a.capacity, a.filterNum, a.insertedNum, a.expansionRate),
                         (b.capacity, b.filterNum, b.insertedNum, b.expansionRate))
        probe = ["other-%d" % i for i in range(500)]
        self.assertEqual(self.bf.mexists("d:src", *probe), self.bf.mexists("d:dst", *probe))
        self.assertEqual(self.card("d:dst"), self.card("d:src"))

    @shape("loadchunk_damaged")
    def test_loadchunk_damaged(self):
        items = ["z-%d" % i for i in range(2000)]
        self.reserve("z:src", 0.01, 500)
        for i in range(0, len(items), 500):
            self.bf.madd("z:src", *items[i:i + 500])
        chunks = self.scandump("z:src")
        rng = random.Random(7)
        for victim in range(len(chunks)):  # the header chunk too
            key = "z:dst%d" % victim
            resumed = True
            for n, (it, data) in enumerate(chunks):
                if n == victim:
                    bad = bytearray(data)
                    for _ in range(3):
                        pos = rng.randrange(len(bad))
                        bad[pos] ^= 1 << rng.randrange(8)
                    with self.assertRaises(redis.ResponseError):
                        self.bf.loadchunk(key, it, bytes(bad))
                    self.assertNeverAnswersZero(key, items)
                try:  # the good chunk: the load goes on, or says why not
                    self.bf.loadchunk(key, it, data)
                except redis.ResponseError:
                    resumed = False
                    self.assertNeverAnswersZero(key, items)
                    break
            if not resumed:  # the module dropped the partial key: a clean load works
                self.r.delete(key)
                for it, data in chunks:
                    self.bf.loadchunk(key, it, data)
            self.assertEqual(self.bf.mexists(key, *items), [1] * len(items))

    # ------------------------------------------------------------------ BB.*
    @shape("bb_reserve_seed")
    def test_bb_reserve_seed(self):
        for key in ("bs:1", "bs:2"):
            self.assertEqual(self.raw.execute_command("BB.RESERVE", key, 0.01, 1000, "SEED", 42),
                             b"OK")
            self.bf.madd(key, "a", "b", "c")
        self.assertEqual(self.bb_dump("bs:1"), self.bb_dump("bs:2"))
        self.assertEqual(self.bf.mexists("bs:1", "a", "b", "c"), [1, 1, 1])

    @shape("bb_mexists")
    def test_bb_mexists(self):
        self.bf.madd("bm:1", "a", "b")
        got = self.raw.execute_command("BB.MEXISTS", "bm:1", "a", "zzz-not-there", "b")
        self.assertIsInstance(got, bytes)
        self.assertEqual(len(got), 3)
        self.assertEqual(got[0:1] + got[2:3], b"11")
        self.assertTrue(set(got) <= set(b"01"), got)
        self.assertEqual(self.raw.execute_command("BB.MEXISTS", "bm:missing", "a", "b"), b"00")

    @shape("bb_info")
    def test_bb_info(self):
        self.bf.madd("bi:1", "a", "b")
        got = self.raw.execute_command("BB.INFO", "bi:1")
        self.assertIsInstance(got, list)
        self.assertEqual(len(got) % 2, 0)
        fields = {}
        for i in range(0, len(got), 2):
            self.assertIsInstance(got[i], bytes)
            fields[got[i].decode()] = got[i + 1]
        self.assertIn("State", fields, fields.keys())
        self.assertEqual(fields["State"], b"ready")

    def bb_dump(self, key):
        data, cursor, replies = b"", 0, 0
        while True:
            cursor, chunk = self.raw.execute_command("BB.DUMP", key, cursor)
            self.assertIs(type(cursor), int)
            data += chunk or b""
            replies += 1
            self.assertLess(replies, 100000)
            if cursor == 0:
                return data

    def need_cli(self):
        if not CLI or not os.access(CLI, os.X_OK):
            self.skipTest("BLOCKBLOOM_CLI is not set to the blockbloom binary")

    @shape("bb_dump_cli")
    def test_bb_dump_cli(self):
        self.need_cli()
        items = ["q-%d" % i for i in range(5000)]
        self.raw.execute_command("BB.RESERVE", "bd:1", 0.01, 10000)
        for i in range(0, len(items), 1000):
            self.bf.madd("bd:1", *items[i:i + 1000])
        data = self.bb_dump("bd:1")
        with tempfile.TemporaryDirectory() as tmp:
            path, keys = os.path.join(tmp, "f.bbf"), os.path.join(tmp, "keys")
            with open(path, "wb") as f:
                f.write(data)
            with open(keys, "w") as f:
                f.write("\n".join(items) + "\n")
            out = subprocess.run([CLI, "query", path, keys], capture_output=True, check=True)
        self.assertEqual(out.stdout.decode().split(), ["1"] * len(items))

    def build_file(self, tmp, items, *flags):
        keys, path = os.path.join(tmp, "keys"), os.path.join(tmp, "built.bbf")
        with open(keys, "w") as f:
            f.write("\n".join(items) + "\n")
        subprocess.run([CLI, "build", "--quiet", *flags, keys, "-o", path],
                       capture_output=True, check=True)
        with open(path, "rb") as f:
            return f.read()

    def bb_load(self, key, data, parts=4, first_options=()):
        step = max(1, -(-len(data) // parts))
        offset, reply = 0, None
        while offset < len(data):
            chunk = data[offset:offset + step]
            args = ["BB.LOAD", key, offset, len(data), chunk]
            if offset == 0:
                args += list(first_options)
            reply = self.raw.execute_command(*args)
            offset += len(chunk)
            if offset < len(data):
                self.assertIs(type(reply), int)
                self.assertEqual(reply, offset)
        return reply

    @shape("bb_load_chunks")
    def test_bb_load_chunks(self):
        self.need_cli()
        items = ["b-%d" % i for i in range(20000)]
        with tempfile.TemporaryDirectory() as tmp:
            data = self.build_file(tmp, items, "--fp_rate=0.01")
        self.assertEqual(self.bb_load("bl:1", data, 4, ("ERROR", "0.01")), b"OK")
        for i in range(0, len(items), 5000):
            self.assertEqual(self.bf.mexists("bl:1", *items[i:i + 5000]), [1] * 5000)
        self.assertEqual(self.raw.execute_command("BB.MEXISTS", "bl:1", *items[:100]), b"1" * 100)
        fields = self.raw.execute_command("BB.INFO", "bl:1")
        self.assertEqual(dict(zip(fields[0::2], fields[1::2]))[b"State"], b"ready")
        # a loaded filter keeps taking adds (a new layer when full)
        self.assertIn(self.bf.add("bl:1", "brand-new-item"), (0, 1))
        self.assertEqual(self.bf.exists("bl:1", "brand-new-item"), 1)

    @shape("bb_load_damaged")
    def test_bb_load_damaged(self):
        self.need_cli()
        items = ["x-%d" % i for i in range(20000)]
        with tempfile.TemporaryDirectory() as tmp:
            data = bytearray(self.build_file(tmp, items))
        data[len(data) // 3] ^= 0x10
        with self.assertRaises(redis.ResponseError):
            self.bb_load("bx:1", bytes(data), 4)
        self.assertNeverAnswersZero("bx:1", items[:2000])


def tearDownModule():
    ran = sorted(set(RAN))
    if ran != sorted(SHAPES):
        raise AssertionError("shapes run %s != shapes.json %s" % (ran, sorted(SHAPES)))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
