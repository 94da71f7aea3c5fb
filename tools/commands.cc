#include "tools/commands.h"

namespace blockbloom::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* commands = new std::vector<Command>{
      {
          "build",
          "[--bits_per_key=B | --fp_rate=P] [--seed=S] "
          "[--nocompact_small_filters] [--compression=none|zstd] "
          "[--input_format=lines|lenprefixed] "
          "INPUT|- -o OUTPUT",
          "Build a filter file from a list of keys.",
          "Reads keys from INPUT (- for standard input), builds a filter and "
          "writes its serialized block (docs/FORMAT.md) to OUTPUT. Keys can "
          "be any length. Empty input gives a valid filter that contains "
          "nothing.\n\n"
          "Prints the keys read, the bytes written, bits per key and the "
          "estimated false-positive rate. Shows a progress bar on stderr "
          "while reading when stderr is a terminal, unless --quiet. On any "
          "error nothing is written (an existing OUTPUT is left as it was).",
          {"bits_per_key", "fp_rate", "seed", "compact_small_filters",
           "compression", "zstd_level", "encoding", "input_format", "o",
           "quiet"},
          &RunBuild,
      },
      {
          "info",
          "[--json] FILTER|-",
          "Describe a filter file.",
          "Prints the format version, encoding, layout, k (probes per key), "
          "seed, blocks, lane bits, keys, compression, size on disk, fill "
          "ratio (the fraction of bits set), the estimated false-positive "
          "rate, and an estimate of the number of distinct keys from the "
          "fill ratio (for a filter of M bits and k probes, n = ln(1 - fill) "
          "/ ln(1 - k/M), with its standard error). The compact encoding "
          "stores no key count: the false-positive rate is then estimated "
          "from the estimated keys.\n\n"
          "--json prints one JSON object instead; its field names are "
          "stable: file, format_version, major_version, minor_version, "
          "encoding, layout, lanes_per_block, lane_bits, block_bytes, "
          "num_probes, seed, num_blocks, num_keys (null if not stored), "
          "num_keys_known, compression, bits_bytes, payload_bytes, "
          "overhead_bytes, size_on_disk_bytes, bits_per_key, set_bits, "
          "total_bits, fill_ratio, expected_fill_ratio, estimated_fp_rate, "
          "fp_rate_basis (num_keys or estimated_keys), estimated_keys, "
          "estimated_keys_stderr (the last two null if every bit is set).",
          {"json"},
          &RunInfo,
      },
      {
          "query",
          "[--count] [--input_format=lines|lenprefixed] FILTER [KEYS|-]",
          "Ask a filter file about keys.",
          "Reads keys from KEYS (standard input if omitted or -) and prints "
          "one line per key: 1 if it may be in the set, 0 if it is "
          "definitely not. With --count, prints one JSON object instead: "
          "{\"queried\": N, \"may_contain\": M}.",
          {"count", "input_format"},
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
