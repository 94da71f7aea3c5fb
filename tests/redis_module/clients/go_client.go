// The blockbloom Redis module through a real Go client: Debian's redigo
// (golang-github-gomodule-redigo-dev), built offline in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run go_client.go PORT
//
// (run_client_test go does this, with the port of a server that loaded the
// module). BLOCKBLOOM_CLI is the `blockbloom` binary, for the BB.DUMP /
// BB.LOAD checks.
//
// It checks the reply shapes of shapes.json (the list python_client.py and
// node_client.mjs check) as a Go service sees them, through a redis.Pool:
// integers, arrays, nil, errors as Go errors (redis.Error, also as an
// element of an array reply). Then what a Go service does beyond single
// commands: pipelining (Send/Flush/Receive), many goroutines on pooled
// connections at once, and the cache-penetration guard of
// examples/redis_module_go (absent ids stopped by the filter before the
// "database"). Prints "ok <check>" per check and "N passed, 0 failed" at
// the end; exits 1 on the first failure.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

var (
	pool   *redis.Pool
	cli    = os.Getenv("BLOCKBLOOM_CLI")
	passed = 0
	ran    = map[string]bool{}
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

// do runs one command on a pooled connection.
func do(cmd string, args ...interface{}) (interface{}, error) {
	c := pool.Get()
	defer c.Close()
	return c.Do(cmd, args...)
}

func must(reply interface{}, err error) interface{} {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		fail("%s:%d: %v", filepath.Base(file), line, err)
	}
	return reply
}

func check(ok bool, format string, args ...interface{}) {
	if !ok {
		_, file, line, _ := runtime.Caller(1)
		fail("%s:%d: "+format, append([]interface{}{filepath.Base(file), line}, args...)...)
	}
}

// expectError: the command fails with a redis.Error (a Go error value)
// whose text, without the "ERR " code, is `want` (or contains it).
func expectError(want string, exact bool, cmd string, args ...interface{}) {
	_, err := do(cmd, args...)
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		_, file, line, _ := runtime.Caller(1)
		fail("%s:%d: %s %v: want a redis.Error %q, got %v", filepath.Base(file), line, cmd, args, want, err)
	}
	got := strings.TrimSpace(strings.TrimPrefix(rerr.Error(), "ERR "))
	if (exact && got != strings.TrimSpace(want)) || (!exact && !strings.Contains(got, want)) {
		_, file, line, _ := runtime.Caller(1)
		fail("%s:%d: %s %v: error %q, want %q", filepath.Base(file), line, cmd, args, got, want)
	}
}

func ints(reply interface{}, err error) []int {
	v, err := redis.Ints(reply, err)
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		fail("%s:%d: %v", filepath.Base(file), line, err)
	}
	return v
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func items(prefix string, n int) []interface{} {
	out := make([]interface{}, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func keyAnd(key string, rest []interface{}) []interface{} {
	return append([]interface{}{key}, rest...)
}

// info returns BF.INFO as a map (the full reply: 5 name/value pairs).
func info(key string) map[string]interface{} {
	values := must(redis.Values(do("BF.INFO", key))).([]interface{})
	check(len(values) == 10, "BF.INFO %s: %d elements, want 10", key, len(values))
	out := map[string]interface{}{}
	for i := 0; i < len(values); i += 2 {
		name, err := redis.String(values[i], nil)
		check(err == nil, "BF.INFO field name %v", values[i])
		out[name] = values[i+1]
	}
	return out
}

func infoInt(key, name string) int64 {
	v, ok := info(key)[name].(int64)
	check(ok, "BF.INFO %s %q is not an integer: %v", key, name, info(key)[name])
	return v
}

// neverAnswersZero: after a refused load the key is absent, refuses
// queries, or holds every item: never a false negative.
func neverAnswersZero(key string, its []interface{}) {
	kind := must(redis.String(do("TYPE", key))).(string)
	if kind == "none" {
		return
	}
	reply, err := redis.Ints(do("BF.MEXISTS", keyAnd(key, its)...))
	if err != nil {
		return
	}
	check(equalInts(reply, repeat(1, len(its))), "a half-loaded key answered 0")
}

type chunk struct {
	iter int64
	data []byte
}

func scandump(key string) []chunk {
	var out []chunk
	var it int64
	for {
		v := must(redis.Values(do("BF.SCANDUMP", key, it))).([]interface{})
		check(len(v) == 2, "SCANDUMP reply of %d elements", len(v))
		next, err := redis.Int64(v[0], nil)
		check(err == nil, "SCANDUMP iterator %v", v[0])
		data, _ := redis.Bytes(v[1], nil)
		if next == 0 {
			check(len(data) == 0, "the last SCANDUMP reply carries %d bytes", len(data))
			return out
		}
		out = append(out, chunk{next, data})
		it = next
	}
}

func bbDump(key string) []byte {
	var out []byte
	cursor := int64(0)
	for n := 0; ; n++ {
		check(n < 100000, "BB.DUMP does not end")
		v := must(redis.Values(do("BB.DUMP", key, cursor))).([]interface{})
		next, err := redis.Int64(v[0], nil)
		check(err == nil, "BB.DUMP cursor %v", v[0])
		data, _ := redis.Bytes(v[1], nil)
		out = append(out, data...)
		if next == 0 {
			return out
		}
		cursor = next
	}
}

func buildFile(dir string, its []interface{}, flags ...string) []byte {
	keys := filepath.Join(dir, "keys")
	var lines bytes.Buffer
	for _, it := range its {
		lines.WriteString(it.(string) + "\n")
	}
	must(nil, os.WriteFile(keys, lines.Bytes(), 0o644))
	out := filepath.Join(dir, "built.bbf")
	args := append([]string{"build", "--quiet"}, flags...)
	args = append(args, keys, "-o", out)
	if msg, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		fail("blockbloom build: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	must(nil, err)
	return data
}

// bbLoad sends a file in `parts` chunks; the last reply (+OK) or the error.
func bbLoad(key string, data []byte, parts int, first ...interface{}) (interface{}, error) {
	step := (len(data) + parts - 1) / parts
	var reply interface{}
	var err error
	for offset := 0; offset < len(data); offset += step {
		end := offset + step
		if end > len(data) {
			end = len(data)
		}
		args := []interface{}{key, offset, len(data), data[offset:end]}
		if offset == 0 {
			args = append(args, first...)
		}
		reply, err = do("BB.LOAD", args...)
		if err != nil {
			return nil, err
		}
		if end < len(data) {
			got, _ := redis.Int(reply, nil)
			check(got == end, "BB.LOAD: %v bytes received, want %d", reply, end)
		}
	}
	return reply, nil
}

func needCLI() bool {
	if cli == "" {
		fmt.Println("skip (BLOCKBLOOM_CLI is not set)")
		return false
	}
	return true
}

// The checks of shapes.json, by id.
var shapes = map[string]func(){
	"reserve_ok": func() {
		check(must(redis.String(do("BF.RESERVE", "r:ok", 0.01, 1000))) == "OK", "BF.RESERVE")
		check(must(redis.String(do("BF.RESERVE", "r:exp", 0.01, 1000, "EXPANSION", 4))) == "OK", "EXPANSION")
		check(must(redis.String(do("BF.RESERVE", "r:ns", 0.01, 1000, "NONSCALING"))) == "OK", "NONSCALING")
		check(must(redis.String(do("TYPE", "r:ok"))) == "bb-filter", "TYPE")
	},
	"reserve_errors": func() {
		must(do("BF.RESERVE", "r:dup", 0.01, 100))
		expectError("item exists", true, "BF.RESERVE", "r:dup", 0.01, 100)
		expectError("bad error rate", true, "BF.RESERVE", "r:e1", "abc", 100)
		for _, rate := range []string{"0", "1", "-0.5", "1.5"} {
			expectError("(0 < error rate range < 1)", true, "BF.RESERVE", "r:e2", rate, 100)
		}
		expectError("bad capacity", true, "BF.RESERVE", "r:e3", 0.01, "abc")
		expectError("(capacity should be larger than 0)", true, "BF.RESERVE", "r:e4", 0.01, 0)
		expectError("cannot expand", false, "BF.RESERVE", "r:e5", 0.01, 100, "EXPANSION", 2, "NONSCALING")
		for _, k := range []string{"r:e1", "r:e2", "r:e3", "r:e4", "r:e5"} {
			check(must(redis.Int(do("EXISTS", k))) == 0, "%s was created", k)
		}
	},
	"add_shapes": func() {
		must(do("BF.RESERVE", "a:1", 0.01, 1000))
		check(must(redis.Int(do("BF.ADD", "a:1", "apple"))) == 1, "new item")
		check(must(redis.Int(do("BF.ADD", "a:1", "apple"))) == 0, "repeat")
		check(must(redis.Int(do("BF.ADD", "a:1", []byte{0, 0xff, 'b'}))) == 1, "binary item")
		check(must(redis.Bool(do("BF.EXISTS", "a:1", []byte{0, 0xff, 'b'}))) == true, "binary item")
		check(must(redis.Int(do("BF.ADD", "a:1", ""))) == 1, "the empty item")
	},
	"add_autocreate": func() {
		check(must(redis.Int(do("BF.ADD", "a:auto", "x"))) == 1, "BF.ADD")
		check(infoInt("a:auto", "Capacity") == 100, "capacity")
		check(infoInt("a:auto", "Expansion rate") == 2, "expansion")
		check(infoInt("a:auto", "Number of filters") == 1, "filters")
		check(infoInt("a:auto", "Number of items inserted") == 1, "items")
	},
	"madd_shapes": func() {
		check(equalInts(ints(do("BF.MADD", "m:1", "a", "b", "c")), []int{1, 1, 1}), "first MADD")
		check(equalInts(ints(do("BF.MADD", "m:1", "a", "d", "a")), []int{0, 1, 0}), "second MADD")
		check(must(redis.Int(do("BF.CARD", "m:1"))) == 4, "BF.CARD")
	},
	"exists_shapes": func() {
		must(do("BF.MADD", "e:1", "a", "b"))
		check(must(redis.Int(do("BF.EXISTS", "e:1", "a"))) == 1, "held item")
		check(must(redis.Int(do("BF.EXISTS", "e:missing", "a"))) == 0, "missing key")
	},
	"mexists_shapes": func() {
		its := items("item-", 200)
		must(do("BF.MADD", keyAnd("me:1", its)...))
		check(equalInts(ints(do("BF.MEXISTS", keyAnd("me:1", its)...)), repeat(1, 200)), "held items")
		check(equalInts(ints(do("BF.MEXISTS", "me:missing", "a", "b")), []int{0, 0}), "missing key")
		others := ints(do("BF.MEXISTS", keyAnd("me:1", items("other-", 200))...))
		sum := 0
		for _, v := range others {
			sum += v
		}
		check(sum < 20, "%d of 200 absent items answered 1", sum)
	},
	"wrongtype": func() {
		must(do("SET", "w:str", "hello"))
		for _, args := range [][]interface{}{
			{"BF.EXISTS", "w:str", "a"}, {"BF.MEXISTS", "w:str", "a", "b"},
			{"BF.ADD", "w:str", "a"}, {"BF.MADD", "w:str", "a"},
			{"BF.INSERT", "w:str", "ITEMS", "a"}, {"BF.INFO", "w:str"},
			{"BF.CARD", "w:str"}, {"BF.SCANDUMP", "w:str", 0},
		} {
			_, err := do(args[0].(string), args[1:]...)
			var rerr redis.Error
			check(errors.As(err, &rerr) && strings.HasPrefix(string(rerr), "WRONGTYPE"), "%v: %v", args, err)
		}
		check(must(redis.String(do("GET", "w:str"))) == "hello", "the string changed")
	},
	"insert_shapes": func() {
		got := ints(do("BF.INSERT", "i:1", "CAPACITY", 500, "ERROR", 0.001, "EXPANSION", 4, "ITEMS", "a", "b", "a"))
		check(equalInts(got, []int{1, 1, 0}), "BF.INSERT %v", got)
		check(infoInt("i:1", "Capacity") == 500, "capacity")
		check(infoInt("i:1", "Expansion rate") == 4, "expansion")
		check(infoInt("i:1", "Number of items inserted") == 2, "items")
		check(equalInts(ints(do("BF.INSERT", "i:1", "CAPACITY", 7, "ITEMS", "c")), []int{1}), "existing key")
		check(infoInt("i:1", "Capacity") == 500, "options ignored once the key exists")
		must(do("BF.INSERT", "i:ns", "NONSCALING", "ITEMS", "a"))
		check(info("i:ns")["Expansion rate"] == nil, "NONSCALING expansion is nil")
	},
	"insert_nocreate": func() {
		expectError("not found", true, "BF.INSERT", "i:none", "NOCREATE", "ITEMS", "a")
		check(must(redis.Int(do("EXISTS", "i:none"))) == 0, "created")
	},
	"nonscaling_full": func() {
		must(do("BF.RESERVE", "f:1", 0.01, 2, "NONSCALING"))
		check(must(redis.Int(do("BF.ADD", "f:1", "x1"))) == 1, "x1")
		check(must(redis.Int(do("BF.ADD", "f:1", "x2"))) == 1, "x2")
		expectError("non scaling filter is full", true, "BF.ADD", "f:1", "x3")
		check(must(redis.Int(do("BF.ADD", "f:1", "x1"))) == 0, "a held item is 0")
		must(do("BF.RESERVE", "f:2", 0.01, 2, "NONSCALING"))
		// The error is an element of the array: a redis.Error value, not
		// the command's error.
		v := must(redis.Values(do("BF.MADD", "f:2", "p", "q", "r", "s"))).([]interface{})
		check(len(v) == 3, "BF.MADD stops at the refused item: %v", v)
		check(v[0] == int64(1) && v[1] == int64(1), "%v", v)
		rerr, ok := v[2].(redis.Error)
		check(ok && strings.TrimPrefix(string(rerr), "ERR ") == "non scaling filter is full", "element %v", v[2])
		check(equalInts(ints(do("BF.MEXISTS", "f:2", "p", "q")), []int{1, 1}), "held items")
		check(must(redis.Int(do("BF.CARD", "f:2"))) == 2, "BF.CARD")
	},
	"info_shapes": func() {
		must(do("BF.RESERVE", "n:1", 0.01, 1000))
		must(do("BF.MADD", "n:1", "a", "b", "c"))
		raw := must(redis.Values(do("BF.INFO", "n:1"))).([]interface{})
		check(len(raw) == 10, "BF.INFO of %d elements", len(raw))
		names := []string{"Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"}
		for i, name := range names {
			got, _ := redis.String(raw[2*i], nil)
			check(got == name, "field %d is %q, want %q", i, got, name)
			_, isInt := raw[2*i+1].(int64)
			check(isInt, "%s is %T", name, raw[2*i+1])
		}
		check(raw[1] == int64(1000) && raw[5] == int64(1) && raw[7] == int64(3) && raw[9] == int64(2), "%v", raw)
		must(do("BF.RESERVE", "n:ns", 0.01, 10, "NONSCALING"))
		check(info("n:ns")["Expansion rate"] == nil, "nil expansion")
	},
	"info_field_shapes": func() {
		must(do("BF.RESERVE", "nf:1", 0.01, 1000, "EXPANSION", 3))
		must(do("BF.MADD", "nf:1", "a", "b"))
		size := infoInt("nf:1", "Size")
		for field, want := range map[string]int64{"CAPACITY": 1000, "SIZE": size, "FILTERS": 1, "ITEMS": 2, "EXPANSION": 3, "capacity": 1000} {
			got := must(redis.Values(do("BF.INFO", "nf:1", field))).([]interface{})
			check(len(got) == 1 && got[0] == want, "BF.INFO %s: %v, want [%d]", field, got, want)
		}
		must(do("BF.RESERVE", "nf:ns", 0.01, 10, "NONSCALING"))
		got := must(redis.Values(do("BF.INFO", "nf:ns", "EXPANSION"))).([]interface{})
		check(len(got) == 1 && got[0] == nil, "NONSCALING EXPANSION %v", got)
		_, err := do("BF.INFO", "nf:1", "BOGUS")
		check(err != nil, "unknown field accepted")
	},
	"info_missing": func() {
		expectError("not found", true, "BF.INFO", "n:missing")
	},
	"card_shapes": func() {
		must(do("BF.MADD", "c:1", "a", "b", "c", "a"))
		check(must(redis.Int(do("BF.CARD", "c:1"))) == 3, "BF.CARD")
		check(must(redis.Int(do("BF.CARD", "c:missing"))) == 0, "missing key")
	},
	"arity_errors": func() {
		for _, args := range [][]interface{}{
			{"BF.ADD", "k"}, {"BF.EXISTS", "k"}, {"BF.EXISTS", "k", "a", "b"},
			{"BF.RESERVE", "k", "0.01"}, {"BF.MADD", "k"}, {"BF.CARD"},
			{"BF.SCANDUMP", "k"}, {"BF.LOADCHUNK", "k", "1"}, {"BF.INSERT", "k", "ITEMS"},
		} {
			_, err := do(args[0].(string), args[1:]...)
			check(err != nil && strings.Contains(err.Error(), "wrong number of arguments"), "%v: %v", args, err)
		}
	},
	"scaling_layers": func() {
		must(do("BF.RESERVE", "s:1", 0.01, 100, "EXPANSION", 2))
		its := items("s-", 1000)
		added := 0
		for i := 0; i < 1000; i += 100 {
			for _, v := range ints(do("BF.MADD", keyAnd("s:1", its[i:i+100])...)) {
				added += v
			}
		}
		filters := infoInt("s:1", "Number of filters")
		check(filters >= 3, "%d filters", filters)
		check(infoInt("s:1", "Capacity") == 100*((1<<filters)-1), "capacity")
		check(infoInt("s:1", "Number of items inserted") == int64(added), "items")
		check(added > 980, "%d added", added)
		check(equalInts(ints(do("BF.MEXISTS", keyAnd("s:1", its)...)), repeat(1, 1000)), "held items")
	},
	"scandump_roundtrip": func() {
		its := items("d-", 3000)
		must(do("BF.RESERVE", "d:src", 0.01, 1000))
		for i := 0; i < 3000; i += 500 {
			must(do("BF.MADD", keyAnd("d:src", its[i:i+500])...))
		}
		chunks := scandump("d:src")
		check(len(chunks) >= 1, "no chunks")
		for _, c := range chunks {
			check(must(redis.String(do("BF.LOADCHUNK", "d:dst", c.iter, c.data))) == "OK", "LOADCHUNK")
		}
		check(equalInts(ints(do("BF.MEXISTS", keyAnd("d:dst", its)...)), repeat(1, 3000)), "held items")
		a, b := info("d:src"), info("d:dst")
		for _, f := range []string{"Capacity", "Number of filters", "Number of items inserted", "Expansion rate"} {
			check(a[f] == b[f], "%s: %v vs %v", f, a[f], b[f])
		}
		probe := items("other-", 500)
		check(equalInts(ints(do("BF.MEXISTS", keyAnd("d:src", probe)...)), ints(do("BF.MEXISTS", keyAnd("d:dst", probe)...))), "answers differ")
	},
	"loadchunk_damaged": func() {
		its := items("z-", 2000)
		must(do("BF.RESERVE", "z:src", 0.01, 500))
		for i := 0; i < 2000; i += 500 {
			must(do("BF.MADD", keyAnd("z:src", its[i:i+500])...))
		}
		chunks := scandump("z:src")
		rng := rand.New(rand.NewSource(7))
		for victim := range chunks {
			key := fmt.Sprintf("z:dst%d", victim)
			resumed := true
			for n, c := range chunks {
				if n == victim {
					bad := append([]byte(nil), c.data...)
					for i := 0; i < 3; i++ {
						bad[rng.Intn(len(bad))] ^= 1 << uint(rng.Intn(8))
					}
					_, err := do("BF.LOADCHUNK", key, c.iter, bad)
					check(err != nil, "a damaged chunk was accepted")
					neverAnswersZero(key, its)
				}
				if _, err := do("BF.LOADCHUNK", key, c.iter, c.data); err != nil {
					resumed = false
					neverAnswersZero(key, its)
					break
				}
			}
			if !resumed {
				must(do("DEL", key))
				for _, c := range chunks {
					must(do("BF.LOADCHUNK", key, c.iter, c.data))
				}
			}
			check(equalInts(ints(do("BF.MEXISTS", keyAnd(key, its)...)), repeat(1, 2000)), "held items after a refused chunk")
		}
	},
	"bb_reserve_seed": func() {
		for _, key := range []string{"bs:1", "bs:2"} {
			check(must(redis.String(do("BB.RESERVE", key, 0.01, 1000, "SEED", 42))) == "OK", "BB.RESERVE")
			must(do("BF.MADD", key, "a", "b", "c"))
		}
		check(bytes.Equal(bbDump("bs:1"), bbDump("bs:2")), "same seed, different bytes")
	},
	"bb_mexists": func() {
		must(do("BF.MADD", "bm:1", "a", "b"))
		got := must(redis.Bytes(do("BB.MEXISTS", "bm:1", "a", "zzz-not-there", "b"))).([]byte)
		check(len(got) == 3 && got[0] == '1' && got[2] == '1' && (got[1] == '0' || got[1] == '1'), "%q", got)
		check(must(redis.String(do("BB.MEXISTS", "bm:missing", "a", "b"))) == "00", "missing key")
	},
	"bb_info": func() {
		must(do("BF.MADD", "bi:1", "a", "b"))
		v := must(redis.Values(do("BB.INFO", "bi:1"))).([]interface{})
		check(len(v)%2 == 0, "odd BB.INFO")
		fields := map[string]interface{}{}
		for i := 0; i < len(v); i += 2 {
			name, err := redis.String(v[i], nil)
			check(err == nil, "field name %v", v[i])
			fields[name] = v[i+1]
		}
		state, _ := redis.String(fields["State"], nil)
		check(state == "ready", "State %v", fields["State"])
		rate, err := redis.Float64(fields["Expected false-positive rate"], nil)
		check(err == nil && rate > 0 && rate < 0.01, "expected rate %v", fields["Expected false-positive rate"])
	},
	"bb_dump_cli": func() {
		if !needCLI() {
			return
		}
		its := items("q-", 5000)
		must(do("BB.RESERVE", "bd:1", 0.01, 10000))
		for i := 0; i < 5000; i += 1000 {
			must(do("BF.MADD", keyAnd("bd:1", its[i:i+1000])...))
		}
		dir, err := os.MkdirTemp("", "go_client")
		must(nil, err)
		defer os.RemoveAll(dir)
		path, keys := filepath.Join(dir, "f.bbf"), filepath.Join(dir, "keys")
		must(nil, os.WriteFile(path, bbDump("bd:1"), 0o644))
		var lines bytes.Buffer
		for _, it := range its {
			lines.WriteString(it.(string) + "\n")
		}
		must(nil, os.WriteFile(keys, lines.Bytes(), 0o644))
		out, err := exec.Command(cli, "query", path, keys).Output()
		must(nil, err)
		fields := strings.Fields(string(out))
		check(len(fields) == 5000, "%d answers", len(fields))
		for _, f := range fields {
			check(f == "1", "blockbloom query answered %q", f)
		}
	},
	"bb_load_chunks": func() {
		if !needCLI() {
			return
		}
		its := items("b-", 20000)
		dir, err := os.MkdirTemp("", "go_client")
		must(nil, err)
		defer os.RemoveAll(dir)
		data := buildFile(dir, its, "--fp_rate=0.01")
		reply := must(bbLoad("bl:1", data, 4, "ERROR", "0.01"))
		check(reply == "OK", "BB.LOAD ended with %v", reply)
		for i := 0; i < 20000; i += 5000 {
			check(equalInts(ints(do("BF.MEXISTS", keyAnd("bl:1", its[i:i+5000])...)), repeat(1, 5000)), "held items")
		}
		added := must(redis.Int(do("BF.ADD", "bl:1", "brand-new-item"))).(int)
		check(added == 0 || added == 1, "BF.ADD %d", added)
		check(must(redis.Int(do("BF.EXISTS", "bl:1", "brand-new-item"))) == 1, "BF.EXISTS")
	},
	"bb_load_damaged": func() {
		if !needCLI() {
			return
		}
		its := items("x-", 20000)
		dir, err := os.MkdirTemp("", "go_client")
		must(nil, err)
		defer os.RemoveAll(dir)
		data := buildFile(dir, its)
		data[len(data)/3] ^= 0x10
		_, err = bbLoad("bx:1", data, 4)
		var rerr redis.Error
		check(errors.As(err, &rerr), "a damaged file loaded: %v", err)
		neverAnswersZero("bx:1", its[:2000])
	},
}

// What a Go service does beyond single commands.
var extras = []struct {
	name string
	fn   func()
}{
	{"pipelining", func() {
		// Send/Flush/Receive on one connection: 1000 commands, one round
		// trip; replies in order, an error reply as that command's error.
		c := pool.Get()
		defer c.Close()
		must(nil, c.Send("BF.RESERVE", "p:1", 0.01, 10000))
		for i := 0; i < 1000; i++ {
			must(nil, c.Send("BF.ADD", "p:1", fmt.Sprintf("p-%d", i)))
		}
		must(nil, c.Send("BF.ADD", "p:missing-arg"))
		for i := 0; i < 1000; i++ {
			must(nil, c.Send("BF.EXISTS", "p:1", fmt.Sprintf("p-%d", i)))
		}
		must(nil, c.Flush())
		check(must(redis.String(c.Receive())) == "OK", "BF.RESERVE")
		for i := 0; i < 1000; i++ {
			v := must(redis.Int(c.Receive())).(int)
			check(v == 0 || v == 1, "BF.ADD %d", v)
		}
		_, err := c.Receive()
		var rerr redis.Error
		check(errors.As(err, &rerr) && strings.Contains(err.Error(), "wrong number of arguments"), "arity error: %v", err)
		for i := 0; i < 1000; i++ {
			check(must(redis.Int(c.Receive())) == 1, "BF.EXISTS %d", i)
		}
		// MULTI/EXEC: the replies of BF.* commands inside a transaction.
		must(nil, c.Send("MULTI"))
		must(nil, c.Send("BF.ADD", "p:1", "in-tx"))
		must(nil, c.Send("BF.EXISTS", "p:1", "in-tx"))
		v := must(redis.Values(c.Do("EXEC"))).([]interface{})
		check(len(v) == 2 && v[1] == int64(1), "EXEC %v", v)
	}},
	{"concurrent_pool", func() {
		// 16 goroutines on pooled connections (at most 8 open), each adding
		// its own items and checking them and everyone's earlier ones.
		must(do("BF.RESERVE", "cc:1", 0.001, 100000))
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for batch := 0; batch < 20; batch++ {
					its := make([]interface{}, 0, 51)
					its = append(its, "cc:1")
					for i := 0; i < 50; i++ {
						its = append(its, fmt.Sprintf("g%d-%d-%d", g, batch, i))
					}
					c := pool.Get()
					if _, err := redis.Ints(c.Do("BF.MADD", its...)); err != nil {
						errs <- err
						c.Close()
						return
					}
					got, err := redis.Ints(c.Do("BF.MEXISTS", its...))
					c.Close()
					if err != nil {
						errs <- err
						return
					}
					for i, v := range got {
						if v != 1 {
							errs <- fmt.Errorf("goroutine %d: %v answered 0", g, its[i+1])
							return
						}
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			fail("concurrent: %v", err)
		}
		card := must(redis.Int(do("BF.CARD", "cc:1"))).(int)
		check(card > 16000-20 && card <= 16000, "BF.CARD %d", card)
		// Every connection went back to the pool (ActiveCount counts the
		// idle ones too), and no more than MaxActive were opened.
		stats := pool.Stats()
		check(stats.ActiveCount == stats.IdleCount && stats.ActiveCount <= 8, "pool %+v", stats)
	}},
	{"errors_are_go_errors", func() {
		// A command error is a redis.Error; a transport error is not.
		_, err := do("BF.RESERVE", "ge:1", "x", 10)
		var rerr redis.Error
		check(errors.As(err, &rerr), "%T %v", err, err)
		check(strings.HasPrefix(err.Error(), "ERR bad error rate"), "%v", err)
		_, err = redis.Int(do("BF.INFO", "ge:none"))
		check(errors.As(err, &rerr) && strings.Contains(err.Error(), "not found"), "%v", err)
		// A reply of the wrong shape for the helper is an error too.
		must(do("BF.ADD", "ge:2", "a"))
		_, err = redis.Int(do("BF.MADD", "ge:2", "a"))
		check(err != nil && !errors.As(err, &rerr), "redis.Int of an array: %v", err)
		bad, dialErr := redis.Dial("tcp", "127.0.0.1:1", redis.DialConnectTimeout(time.Second))
		if dialErr == nil {
			bad.Close()
		}
		check(dialErr != nil && !errors.As(dialErr, &rerr), "dial of a closed port: %v", dialErr)
	}},
	{"cache_penetration", func() {
		// examples/redis_module_go: the filter holds every id the database
		// holds; lookups of absent ids stop at the filter.
		db := map[string]string{}
		ids := make([]interface{}, 0, 10001)
		ids = append(ids, "cp:users")
		for i := 0; i < 10000; i++ {
			id := fmt.Sprintf("user:%d", i)
			db[id] = fmt.Sprintf("name %d", i)
			ids = append(ids, id)
		}
		must(do("BF.RESERVE", "cp:users", 0.01, 10000))
		must(do("BF.MADD", ids...))
		reads := 0
		lookup := func(id string) (string, bool) {
			if must(redis.Int(do("BF.EXISTS", "cp:users", id))) == 0 {
				return "", false // definitely absent: no database read
			}
			reads++
			v, ok := db[id]
			return v, ok
		}
		for i := 0; i < 10000; i += 97 {
			v, ok := lookup(fmt.Sprintf("user:%d", i))
			check(ok && v == fmt.Sprintf("name %d", i), "user:%d", i)
		}
		before := reads
		for i := 0; i < 20000; i++ {
			_, ok := lookup(fmt.Sprintf("attacker:%d", i))
			check(!ok, "an absent id was found")
		}
		leaked := reads - before
		check(leaked < 20000*2/100, "%d of 20000 absent ids reached the database", leaked)
		fmt.Printf("   %d of 20000 absent ids reached the database (asked rate 1%%)\n", leaked)
	}},
}

func main() {
	port := os.Getenv("REDIS_PORT")
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	if port == "" {
		port = "6379"
	}
	pool = &redis.Pool{
		MaxIdle:   8,
		MaxActive: 8,
		Wait:      true,
		Dial: func() (redis.Conn, error) {
			return redis.Dial("tcp", "127.0.0.1:"+port, redis.DialConnectTimeout(5*time.Second))
		},
	}
	defer pool.Close()
	must(do("FLUSHALL"))

	shapesPath := os.Getenv("SHAPES_JSON")
	if shapesPath == "" {
		_, self, _, _ := runtime.Caller(0)
		shapesPath = filepath.Join(filepath.Dir(self), "shapes.json")
	}
	data, err := os.ReadFile(shapesPath)
	must(nil, err)
	var list struct {
		Shapes []struct{ ID string } `json:"shapes"`
	}
	must(nil, json.Unmarshal(data, &list))
	var ids []string
	for _, s := range list.Shapes {
		ids = append(ids, s.ID)
	}
	for _, id := range ids {
		fn, ok := shapes[id]
		check(ok, "no Go check for shapes.json's %q", id)
		fn()
		ran[id] = true
		passed++
		fmt.Println("ok", id)
	}
	var extra []string
	for id := range shapes {
		if !ran[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	check(len(extra) == 0, "Go checks not in shapes.json: %v", extra)
	for _, e := range extras {
		e.fn()
		passed++
		fmt.Println("ok", e.name)
	}
	fmt.Printf("%d passed, 0 failed\n", passed)
}
