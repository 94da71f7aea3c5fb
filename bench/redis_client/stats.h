// The figures of repeated runs: median, spread and percentiles, and this
// process's CPU time.
#ifndef BLOCKBLOOM_BENCH_REDIS_CLIENT_STATS_H_
#define BLOCKBLOOM_BENCH_REDIS_CLIENT_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace blockbloom::redis_client_bench {

struct ClientCpu {
  double user, sys;  // seconds
};
ClientCpu GetClientCpu();

struct Runs {
  std::vector<double> queries_per_s, adds_per_s, server_us_query, server_us_add;
  // This process's CPU per query (user: hashing, RESP, probing; sys: the
  // socket calls): where the client's time goes.
  std::vector<double> client_user_us_query, client_sys_us_query;
  double fpr = 0;
  uint64_t bytes = 0;
  std::string params;
  double latency_p50_us = 0, latency_p99_us = 0;
};

double Median(std::vector<double> v);
double Min(const std::vector<double>& v);
double Max(const std::vector<double>& v);
// The value below which a fraction p of v lies.
double Percentile(std::vector<double> v, double p);

// "123k" for 123456 per second.
std::string Thousands(double per_s);
// "median [min-max]", in thousands or with two decimals.
std::string Spread(const std::vector<double>& v, bool thousands);

}  // namespace blockbloom::redis_client_bench

#endif  // BLOCKBLOOM_BENCH_REDIS_CLIENT_STATS_H_
