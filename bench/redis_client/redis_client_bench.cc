// Shared Bloom filters in Redis, side by side on ONE server in one run
// (docs/BENCHMARKS.md, "Shared filters in Redis"):
//
//   go-zero      core/bloom: a Lua script of k=14 GETBITs / SETBITs on one
//                string key, one EVALSHA per key;
//   Redisson     RBloomFilter: k=7 GETBIT / SETBIT commands per key;
//   GETRANGE     a hand-rolled prototype of blockbloom's layout over bare
//                hiredis: one 64-byte GETRANGE per query, one BITFIELD per
//                add (what the protocol costs without the library), with
//                one batch in flight and, like the library, with two;
//   blockbloom   blockbloom::redis::SharedFilter (AddBatch, MayContainBatch,
//                MayContain), at pipeline depths 32 and 64;
//   module       blockbloom's Redis module (src/redis_module), only if asked
//                (--contenders=...,module,module_multi) on a server that
//                loaded it: BF.EXISTS/BF.ADD pipelined, or BF.MEXISTS/BF.MADD
//                of --depth keys (bench/redis_module/run.py runs it so).
//
// Every contender gets the same inserted keys and the same absent keys, on a
// server FLUSHALLed per repetition; repetitions are interleaved (contender A,
// B, ... then A, B, ... again) so that drift on the machine hits all alike. For
// each: queries/s and adds/s (pipelined, one client), server CPU per query
// and per add (INFO cpu before and after the phase), the FPR over the absent
// keys, the bytes held in Redis (STRLEN; the module: MEMORY USAGE) and the
// latency of one query alone against a PING. Correctness is checked cheaply:
// every inserted key must answer "may contain" in every contender (first
// repetition); any false negative or error exits non-zero. No timing is
// asserted.
//
// Run it with bench/redis_client/run.sh (starts a pinned server, pins the
// client).
//
// The pieces: client.h (the baselines' RESP client), contender.h and one file
// per contender, stats.h; this file holds the flags and the driver.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "bench/redis_client/client.h"
#include "bench/redis_client/contender.h"
#include "bench/redis_client/stats.h"
#include "blockbloom/redis_client.h"

ABSL_FLAG(std::string, url, "",
          "the server, required (a standalone Redis; it is FLUSHALLed! "
          "bench/redis_client/run.sh starts a private one)");
ABSL_FLAG(uint64_t, keys, 1000000, "keys inserted into each filter");
ABSL_FLAG(uint64_t, queries, 1000000,
          "absent keys queried per repetition (the timed queries and the FPR)");
ABSL_FLAG(int, depth, 32,
          "pipeline depth of the baselines: keys per round trip (Redisson "
          "sends k commands per key)");
ABSL_FLAG(std::string, our_depths, "32,64",
          "pipeline depths (SharedFilter::set_pipeline_depth) of the "
          "blockbloom rows, comma-separated");
ABSL_FLAG(int, repetitions, 5,
          "interleaved repetitions; the table shows median [min-max]");
ABSL_FLAG(int, latency_samples, 20000,
          "single queries (and PINGs) timed one at a time per contender");
ABSL_FLAG(double, bits_per_key, 10,
          "memory of go-zero, GETRANGE and blockbloom (Redisson sizes itself "
          "from --fp_rate)");
ABSL_FLAG(double, fp_rate, 0.01,
          "Redisson's falseProbability, and the module's BF.RESERVE rate");
ABSL_FLAG(double, gozero_bits_per_key, 0,
          "go-zero's bits per key (its docs suggest 20); 0: --bits_per_key");
ABSL_FLAG(
    std::string, contenders, "gozero,redisson,getrange,getrange2,blockbloom",
    "which contenders to run, comma-separated: gozero, redisson, getrange "
    "(one batch in flight), getrange2 (two, as the library), blockbloom "
    "(a row per --our_depths); module (BF.EXISTS/BF.ADD, --depth commands "
    "per round trip) and module_multi (one BF.MEXISTS/BF.MADD of --depth "
    "keys) need a server with blockbloom's module loaded");
ABSL_FLAG(std::string, csv, "", "also write the results as CSV to this file");
ABSL_FLAG(std::string, markdown, "",
          "also write the markdown table to this file");

namespace blockbloom::redis_client_bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

[[noreturn]] void Fail(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "redis_client_bench: %s: %s\n", what.c_str(),
               status.ToString().c_str());
  std::exit(2);
}

template <typename T>
T Check(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Fail(what, value.status());
  return *std::move(value);
}
void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Fail(what, status);
}

}  // namespace

int Main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const uint64_t n = absl::GetFlag(FLAGS_keys);
  const uint64_t q = absl::GetFlag(FLAGS_queries);
  const int depth = std::max(1, absl::GetFlag(FLAGS_depth));
  const int repetitions = std::max(1, absl::GetFlag(FLAGS_repetitions));
  const int latency_samples = std::max(1, absl::GetFlag(FLAGS_latency_samples));
  const double bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
  if (n == 0 || q == 0)
    Fail("flags",
         absl::InvalidArgumentError("--keys and --queries must be positive"));

  if (absl::GetFlag(FLAGS_url).empty()) {
    Fail("flags", absl::InvalidArgumentError(
                      "--url is required: the bench FLUSHALLs that server; "
                      "bench/redis_client/run.sh starts a private one"));
  }
  const blockbloom::redis::ConnectionOptions options =
      Check(blockbloom::redis::ParseUrl(absl::GetFlag(FLAGS_url)), "--url");
  std::unique_ptr<Pipe> pipe =
      Check(Pipe::Connect(options.host, options.port), "connect");
  std::unique_ptr<blockbloom::redis::Connection> connection =
      Check(blockbloom::redis::Connection::Connect(options), "library connect");

  std::vector<std::unique_ptr<Contender>> contenders;
  for (absl::string_view which : absl::StrSplit(absl::GetFlag(FLAGS_contenders),
                                                ',', absl::SkipEmpty())) {
    if (which == "gozero") {
      contenders.push_back(
          NewGoZero(pipe.get(), depth,
                    absl::GetFlag(FLAGS_gozero_bits_per_key) > 0
                        ? absl::GetFlag(FLAGS_gozero_bits_per_key)
                        : bits_per_key));
    } else if (which == "redisson") {
      contenders.push_back(
          NewRedisson(pipe.get(), depth, absl::GetFlag(FLAGS_fp_rate)));
    } else if (which == "getrange" || which == "getrange2") {
      // getrange2: two batches in flight, as the library keeps them.
      const int in_flight = which == "getrange" ? 1 : 2;
      contenders.push_back(
          NewGetRange(pipe.get(), depth, in_flight, bits_per_key));
    } else if (which == "blockbloom") {
      for (absl::string_view d : absl::StrSplit(absl::GetFlag(FLAGS_our_depths),
                                                ',', absl::SkipEmpty())) {
        int our_depth;
        if (!absl::SimpleAtoi(d, &our_depth) || our_depth < 1) {
          Fail("--our_depths", absl::InvalidArgumentError(std::string(d)));
        }
        contenders.push_back(NewBlockbloom(connection.get(), pipe.get(),
                                           our_depth, bits_per_key));
      }
    } else if (which == "module" || which == "module_multi") {
      contenders.push_back(NewModule(pipe.get(), depth, which == "module_multi",
                                     absl::GetFlag(FLAGS_fp_rate)));
    } else {
      Fail("--contenders", absl::InvalidArgumentError(std::string(which)));
    }
  }

  // Inserted keys and absent keys: disjoint by prefix.
  std::vector<std::string> present_storage(n), absent_storage(q);
  for (uint64_t i = 0; i < n; ++i)
    present_storage[i] = absl::StrCat("user:", i);
  for (uint64_t i = 0; i < q; ++i)
    absent_storage[i] = absl::StrCat("absent:", i);
  const std::vector<std::string_view> present(present_storage.begin(),
                                              present_storage.end());
  const std::vector<std::string_view> absent(absent_storage.begin(),
                                             absent_storage.end());
  std::unique_ptr<bool[]> results(new bool[std::max(n, q)]);

  std::vector<Runs> runs(contenders.size());
  for (int rep = 0; rep < repetitions; ++rep) {
    // A clean server per repetition; each contender deletes its own keys
    // before it starts, and all of them stay in the end for the latencies.
    Check(ExpectStatusOk(pipe->Call({"FLUSHALL"})), "FLUSHALL");
    for (size_t c = 0; c < contenders.size(); ++c) {
      Contender& contender = *contenders[c];
      const std::string& name = contender.name();
      Check(contender.Create(n), name + ": create");

      const double cpu0 = Check(ServerCpuSeconds(*pipe), "INFO");
      const Clock::time_point t0 = Clock::now();
      Check(contender.Add(present), name + ": add");
      const Clock::time_point t1 = Clock::now();
      const double cpu1 = Check(ServerCpuSeconds(*pipe), "INFO");

      if (rep == 0) {
        // No false negatives: every inserted key may be contained.
        Check(contender.Query(present, absl::MakeSpan(results.get(), n)),
              name + ": query inserted keys");
        const uint64_t found =
            std::count(results.get(), results.get() + n, true);
        if (found != n) {
          std::fprintf(stderr,
                       "redis_client_bench: %s: FALSE NEGATIVES: %llu of %llu "
                       "inserted keys answered absent\n",
                       name.c_str(), static_cast<unsigned long long>(n - found),
                       static_cast<unsigned long long>(n));
          return 1;
        }
      }

      const double cpu2 = Check(ServerCpuSeconds(*pipe), "INFO");
      const ClientCpu client2 = GetClientCpu();
      const Clock::time_point t2 = Clock::now();
      Check(contender.Query(absent, absl::MakeSpan(results.get(), q)),
            name + ": query absent keys");
      const Clock::time_point t3 = Clock::now();
      const ClientCpu client3 = GetClientCpu();
      const double cpu3 = Check(ServerCpuSeconds(*pipe), "INFO");

      Runs& r = runs[c];
      r.adds_per_s.push_back(n / Seconds(t0, t1));
      r.queries_per_s.push_back(q / Seconds(t2, t3));
      r.server_us_add.push_back((cpu1 - cpu0) / n * 1e6);
      r.server_us_query.push_back((cpu3 - cpu2) / q * 1e6);
      r.client_user_us_query.push_back((client3.user - client2.user) / q * 1e6);
      r.client_sys_us_query.push_back((client3.sys - client2.sys) / q * 1e6);
      r.fpr = double(std::count(results.get(), results.get() + q, true)) / q;
      r.bytes = Check(contender.Bytes(), name + ": bytes");
      r.params = contender.params();

      std::fprintf(stderr, "  rep %d %-46s %9.0f queries/s %9.0f adds/s\n",
                   rep + 1, name.c_str(), r.queries_per_s.back(),
                   r.adds_per_s.back());
    }
  }
  // One query at a time, the latency an application sees: PING and every
  // contender's single query in turn, sample by sample, so that all of them
  // see the same moments of a busy machine.
  std::vector<std::vector<double>> latency_us(contenders.size() + 1);
  for (int i = 0; i < latency_samples; ++i) {
    Clock::time_point start = Clock::now();
    Check(ExpectStatusOk(pipe->Call({"PING"})), "PING");
    latency_us.back().push_back(Seconds(start, Clock::now()) * 1e6);
    for (size_t c = 0; c < contenders.size(); ++c) {
      start = Clock::now();
      Check(contenders[c]->QueryOne(absent[i % q]),
            contenders[c]->name() + ": single query");
      latency_us[c].push_back(Seconds(start, Clock::now()) * 1e6);
    }
  }
  for (size_t c = 0; c < contenders.size(); ++c) {
    runs[c].latency_p50_us = Percentile(latency_us[c], 0.5);
    runs[c].latency_p99_us = Percentile(latency_us[c], 0.99);
  }
  const double ping_p50 = Percentile(latency_us.back(), 0.5);
  const double ping_p99 = Percentile(latency_us.back(), 0.99);

  // The table.
  std::string md = absl::StrFormat(
      "%d keys inserted, %d absent keys queried, baselines at pipeline depth "
      "%d, %d repetitions (median [min-max]), single-query latency over %d "
      "samples\n\n",
      n, q, depth, repetitions, latency_samples);
  absl::StrAppend(
      &md,
      "| contender | k, m bits | queries/s | adds/s | server "
      "µs/query | server µs/add | client µs/query user + sys | FPR | bytes "
      "in Redis | single query µs p50 / p99 |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  std::string csv =
      "contender,params,queries_per_s_median,queries_per_s_min,queries_per_s_"
      "max,adds_per_s_median,adds_per_s_min,adds_per_s_max,server_us_per_"
      "query,server_us_per_add,client_user_us_per_query,client_sys_us_per_"
      "query,"
      "fpr,bytes,latency_p50_us,latency_p99_us\n";
  for (size_t c = 0; c < contenders.size(); ++c) {
    const Runs& r = runs[c];
    absl::StrAppendFormat(
        &md,
        "| %s | %s | %s | %s | %s | %s | %.2f + %.2f | %.3f%% | %d | %.1f / "
        "%.1f |\n",
        contenders[c]->name(), r.params, Spread(r.queries_per_s, true),
        Spread(r.adds_per_s, true), Spread(r.server_us_query, false),
        Spread(r.server_us_add, false), Median(r.client_user_us_query),
        Median(r.client_sys_us_query), r.fpr * 100, r.bytes, r.latency_p50_us,
        r.latency_p99_us);
    absl::StrAppendFormat(
        &csv,
        "\"%s\",\"%s\",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%."
        "3f,%.3f,%.3f,%.6f,%d,%.1f,%.1f\n",
        contenders[c]->name(), r.params, Median(r.queries_per_s),
        Min(r.queries_per_s), Max(r.queries_per_s), Median(r.adds_per_s),
        Min(r.adds_per_s), Max(r.adds_per_s), Median(r.server_us_query),
        Median(r.server_us_add), Median(r.client_user_us_query),
        Median(r.client_sys_us_query), r.fpr, r.bytes, r.latency_p50_us,
        r.latency_p99_us);
  }
  absl::StrAppendFormat(
      &md, "| PING (one round trip) | | | | | | | | | %.1f / %.1f |\n",
      ping_p50, ping_p99);
  absl::StrAppendFormat(&csv, "\"PING\",\"\",,,,,,,,,,,,,%.1f,%.1f\n", ping_p50,
                        ping_p99);
  absl::StrAppend(&md,
                  "\nEvery inserted key answered \"may contain\" in every "
                  "contender (no false negatives).\n");
  std::fputs(md.c_str(), stdout);
  for (const auto& [path, text] :
       {std::pair{absl::GetFlag(FLAGS_csv), csv},
        std::pair{absl::GetFlag(FLAGS_markdown), md}}) {
    if (path.empty()) continue;
    std::ofstream out(path);
    out << text;
    if (!out) Fail(path, absl::InternalError("cannot write"));
  }
  return 0;
}

}  // namespace blockbloom::redis_client_bench

int main(int argc, char** argv) {
  return blockbloom::redis_client_bench::Main(argc, argv);
}
