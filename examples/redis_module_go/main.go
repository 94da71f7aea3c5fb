// Cache penetration, stopped by the blockbloom Redis module: a Go service
// looks users up by id; ids that no user has (typos, scrapers, an attacker
// walking random ids) would all miss the cache and reach the database. A
// Bloom filter in Redis holds every id the database holds, so an absent id
// is answered from the filter, without touching the database; only about
// 1% of them (the filter's error rate) get through.
//
// Debian's Go and redigo, offline (no modules, nothing downloaded):
//
//	apt-get install golang-go golang-github-gomodule-redigo-dev
//	redis-server --loadmodule /usr/local/lib/redis/modules/blockbloom.so &
//	GO111MODULE=off GOPATH=/usr/share/gocode go run examples/redis_module_go/main.go -addr 127.0.0.1:6379
//
// The "database" is a map here; in a service it is the SQL or KV store that
// the cache protects. tests/redis_module/CMakeLists.txt runs this program
// against a server with the module (redis_module_example_go).
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Users is the service: the database, and a pool of connections to the
// Redis that holds the filter of the database's ids.
type Users struct {
	db     map[string]string // the "database": id -> name
	pool   *redis.Pool
	filter string // the key of the filter
	reads  int    // database reads
}

// Load fills the database and the filter: BF.RESERVE with the expected
// number of ids and the error rate, then BF.MADD in batches (pipelined).
func (u *Users) Load(n int) error {
	c := u.pool.Get()
	defer c.Close()
	if _, err := c.Do("DEL", u.filter); err != nil {
		return err
	}
	if _, err := c.Do("BF.RESERVE", u.filter, 0.01, n); err != nil {
		return fmt.Errorf("BF.RESERVE: %w", err)
	}
	const batch = 1000
	for start := 0; start < n; start += batch {
		args := []interface{}{u.filter}
		for i := start; i < start+batch && i < n; i++ {
			id := fmt.Sprintf("user:%d", i)
			u.db[id] = fmt.Sprintf("user number %d", i)
			args = append(args, id)
		}
		if err := c.Send("BF.MADD", args...); err != nil {
			return err
		}
	}
	if err := c.Flush(); err != nil {
		return err
	}
	for start := 0; start < n; start += batch {
		if _, err := redis.Ints(c.Receive()); err != nil {
			return fmt.Errorf("BF.MADD: %w", err)
		}
	}
	return nil
}

// Add stores a new user: the database first, then the filter (an id in the
// filter but not yet in the database costs one read; the other order would
// hide a user).
func (u *Users) Add(id, name string) error {
	u.db[id] = name
	c := u.pool.Get()
	defer c.Close()
	_, err := c.Do("BF.ADD", u.filter, id)
	return err
}

// Get returns a user's name: ("", false, nil) for an id the filter rules
// out, without a database read.
func (u *Users) Get(id string) (string, bool, error) {
	c := u.pool.Get()
	defer c.Close()
	maybe, err := redis.Bool(c.Do("BF.EXISTS", u.filter, id))
	if err != nil {
		// Redis is down or the filter is missing: fall back to the
		// database (slower, never wrong).
		log.Printf("filter unavailable (%v): reading the database", err)
		maybe = true
	}
	if !maybe {
		return "", false, nil
	}
	u.reads++
	name, ok := u.db[id]
	return name, ok, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the Redis server with blockbloom.so loaded")
	users := flag.Int("users", 100000, "ids in the database")
	probes := flag.Int("probes", 100000, "lookups of ids nobody has")
	flag.Parse()

	u := &Users{
		db:     map[string]string{},
		filter: "example:users",
		pool: &redis.Pool{
			MaxIdle: 4,
			Dial: func() (redis.Conn, error) {
				return redis.Dial("tcp", *addr, redis.DialConnectTimeout(5*time.Second))
			},
		},
	}
	defer u.pool.Close()
	if err := u.Load(*users); err != nil {
		log.Fatalf("loading the filter: %v", err)
	}
	if err := u.Add("user:new", "a new user"); err != nil {
		log.Fatalf("BF.ADD: %v", err)
	}
	for _, id := range []string{"user:0", "user:42", "user:new"} {
		name, ok, err := u.Get(id)
		if err != nil || !ok {
			log.Fatalf("%s: not found (%v): a filter never hides an id it holds", id, err)
		}
		fmt.Printf("%s: %s\n", id, name)
	}
	u.reads = 0
	for i := 0; i < *probes; i++ {
		if _, ok, err := u.Get(fmt.Sprintf("nobody:%d", i)); ok || err != nil {
			log.Fatalf("nobody:%d found (%v)", i, err)
		}
	}
	fmt.Printf("%d lookups of absent ids: %d reached the database (%.2f%%), %d were stopped by the filter\n",
		*probes, u.reads, 100*float64(u.reads)/float64(*probes), *probes-u.reads)
	if float64(u.reads) > 0.02*float64(*probes) {
		log.Fatalf("more than 2%% of absent ids got through a filter asked for 1%%")
	}
}
