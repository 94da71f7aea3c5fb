#include "tools/commands.h"

#include "tools/redis/command.h"
#include "tools/rocksdb/command.h"

namespace blockbloom::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* commands = new std::vector<Command>{
      {
          "build",
          "[--bits_per_key=B | --fp_rate=P] [--kind=blocked|ribbon] "
          "[--seed=S] [--nocompact_small_filters] [--compression=none|zstd] "
          "[--input_format=lines|lenprefixed] "
          "INPUT|- -o OUTPUT",
          "Build a filter file from a list of keys.",
          "Reads keys from INPUT (- for standard input), builds a filter and "
          "writes its serialized block (docs/FORMAT.md) to OUTPUT. Keys can "
          "be any length. Empty input gives a valid filter that contains "
          "nothing.\n\n"
          "Prints the keys read and added (the filter is sized for the keys "
          "added: adjacent duplicates count once, other repeats again), the "
          "distinct keys estimated from the bits set (a note on stderr says "
          "when the input repeats keys, and how to deduplicate), the bytes "
          "written, bits per key and the estimated false-positive rate. A "
          "sizing whose false-positive rate would be 50% or more is refused "
          "(exit 1). Shows a progress bar on stderr "
          "while reading when stderr is a terminal, unless --quiet. On any "
          "error nothing is written (an existing OUTPUT is left as it "
          "was).\n\n"
          "OUTPUT is never the INPUT (the same file by any name is refused "
          "before reading). A file is replaced atomically and keeps its mode "
          "and owner; a character device or a FIFO is written into; a "
          "directory, a block device or a socket is refused (see -o).",
          {"bits_per_key", "fp_rate", "kind", "seed", "compact_small_filters",
           "compression", "zstd_level", "encoding", "input_format", "o",
           "quiet", "max_memory"},
          &RunBuild,
      },
      {
          "info",
          "[--json] FILTER|-",
          "Describe a filter file.",
          "Prints the encoding version (the major.minor its trailer or "
          "footer records, docs/FORMAT.md), encoding, kind, block geometry, "
          "k (probes per key), seed, blocks, lane bits, keys, compression, "
          "size on disk, fill "
          "ratio (the fraction of bits set), the estimated false-positive "
          "rate, and an estimate of the number of distinct keys from the "
          "fill ratio (for a filter of M bits and k probes, n = ln(1 - fill) "
          "/ ln(1 - k/M), with its standard error). The compact encoding "
          "stores no key count: the false-positive rate is then estimated "
          "from the estimated keys.\n\n"
          "--json prints one JSON object instead; its field names are "
          "stable: file, encoding_version, major_version, minor_version, "
          "encoding, kind (blocked or ribbon; a ribbon has no lanes, blocks or "
          "probes: null), lanes_per_block, lane_bits, block_bytes, "
          "num_probes, seed, num_blocks, num_keys (null if not stored), "
          "num_keys_known, compression, bits_bytes, payload_bytes, "
          "overhead_bytes, size_on_disk_bytes, bits_per_key, set_bits, "
          "total_bits, fill_ratio, expected_fill_ratio, estimated_fp_rate, "
          "fp_rate_basis (num_keys or estimated_keys), estimated_keys, "
          "estimated_keys_stderr (the last two null if every bit is set), "
          "origin_level, origin_bottommost, origin_group (where an engine "
          "built the filter, format 4.1: the RocksDB adapter records the "
          "level its table was written at and its column family's group; "
          "origin_level null if none is recorded; the text output has an "
          "origin line then).",
          {"json", "max_memory"},
          &RunInfo,
      },
      {
          "query",
          "[--count] [--input_format=lines|lenprefixed] FILTER [KEYS|-]",
          "Ask a filter file about keys.",
          "Reads keys from KEYS (standard input if omitted or -) and prints "
          "one line per key: 1 if it may be in the set, 0 if it is "
          "definitely not. Keys typed at a terminal are answered line by "
          "line. With --count, prints one JSON object instead: "
          "{\"queried\": N, \"may_contain\": M}.\n\n"
          "FILTER is mapped, not read into memory; a zstd filter, or one "
          "from a pipe, is held in memory up to --max_memory.",
          {"count", "input_format", "max_memory"},
          &RunQuery,
      },
      {
          "bench",
          "[--keys=N] [--bits_per_key=B | --fp_rate=P] [--seed=S]",
          "Quick in-process build and probe benchmark.",
          "Builds a filter from N generated keys (about 16 bytes each) and "
          "probes N keys that are not in it, one at a time and in batches. "
          "Prints ns per probe (single and batch; keys are hashed in the "
          "probe), the build rate, the measured and expected false-positive "
          "rates and the SIMD target the probes use. Medians of 3 runs, on "
          "an unpinned machine: for careful figures see docs/BENCHMARKS.md.",
          {"keys", "bits_per_key", "fp_rate", "seed"},
          &RunBench,
      },
      {
          "redis",
          "publish FILTER | download -o FILTER [--seed=S] | query [--seed=S] "
          "[KEYS|-] | info [--seed=S] | delete --name=NAME "
          "[--url=redis://HOST:PORT]",
          "Share a filter through Redis: publish, download, query, info, "
          "delete.",
          "A shared filter lives in Redis (blockbloom/redis_client.h, "
          "docs/REDIS.md) so that many processes probe and add to one "
          "filter: a query reads one 64-byte block (GETRANGE), an add sets "
          "its bits in one atomic BITFIELD. Every subcommand takes --name "
          "(required) and --url (a standalone server or any node of a "
          "cluster). The password goes in --url, or better (ps shows "
          "command lines) in --password_file or the environment variable "
          "BLOCKBLOOM_REDIS_PASSWORD. A --name with '{' or '}' is a usage "
          "error.\n\n"
          "redis publish FILTER [--shard_bytes=SIZE] [--expire=DURATION] "
          "[--replace]: uploads a filter file as the shared filter NAME. The "
          "file needs 64-byte blocks (build small filters with "
          "--nocompact_small_filters). The shards go up first and the "
          "metadata switches last, so with --replace readers see the old "
          "filter or the new one, never a mix. Redis stores only a "
          "fingerprint of the seed: the other subcommands need the filter's "
          "--seed. Until the filter is published its shards expire after 10 "
          "minutes, so a killed publish leaves nothing for long; Ctrl-C "
          "deletes them at once. Every shard is checked after publishing: a "
          "server that evicted some (maxmemory with an allkeys-* policy) "
          "fails the publish (exit 4) and the filter is removed; such a "
          "server is warned about first (use maxmemory-policy "
          "noeviction).\n\n"
          "redis download -o FILTER [--seed=S]: downloads the shared filter "
          "into a filter file (full encoding; the key count in its footer is "
          "estimated from the bits), written as by build -o (a file "
          "atomically; a device or pipe into).\n\n"
          "redis query [--count] [--input_format=lines|lenprefixed] [--seed=S] "
          "[KEYS|-]: like query, one line per key (1: may be in the set, 0: "
          "definitely not) or, with --count, {\"queried\": N, "
          "\"may_contain\": M}; keys go to Redis in pipelined batches.\n\n"
          "redis info [--json] [--seed=S]: the shared filter's shape (k, "
          "blocks, shards, placement), its time to live and the distinct "
          "keys estimated from the bits set, with the bits per key and "
          "false-positive rate that follow. --json field names are stable: "
          "server, name, metadata_key, placement, lane_bits, block_bytes, "
          "num_probes, seed, num_blocks, bits_bytes, num_shards, "
          "blocks_per_shard, ttl_seconds (null if none), estimated_keys, "
          "bits_per_key, estimated_fp_rate.\n\n"
          "redis delete: removes the metadata and every shard (nothing to do "
          "if there is no such filter), and the orphaned shards of NAME "
          "that no published filter uses (left by an interrupted publish; "
          "found with SCAN).\n\n"
          "Redis errors (connection refused, a timeout, no such filter, a "
          "wrong seed) exit with status 4.",
          {"url", "password_file", "name", "seed", "shard_bytes", "expire",
           "replace", "o", "count", "input_format", "json", "max_memory"},
          &RunRedis,
      },
      {
          "rocksdb",
          "DB_DIR",
          "Show the level plan of a RocksDB database's filters.",
          "Opens the RocksDB database in DB_DIR read-only with the options "
          "of its latest OPTIONS file (every table open) and prints, for "
          "each blockbloom filter policy and for each column family and "
          "level a table was WRITTEN at (recorded in its filter block, "
          "format 4.1; docs/LEVELS.md, \"The learned plan\"), one line: "
          "the plan (learned, prior, model or uniform; a learned policy shows "
          "its prior here, the model plan, since the plan is learned by the "
          "process serving the database), the kind and bits/key new "
          "tables get, the planned false-positive rate, and the live "
          "tables, their keys, filter bytes and filter bits/key. Tables "
          "written before format 4.1 are one line with level -1. Probes and "
          "probes per Get are counted by the process that serves the "
          "database: RocksDBFilterReportText (blockbloom/rocksdb.h) prints "
          "them there.",
          {},
          &RunRocksDB,
      },
  };
  return *commands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& command : AllCommands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

}  // namespace blockbloom::cli
