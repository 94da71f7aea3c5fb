#include "bench/redis_client/stats.h"

#include <sys/resource.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::redis_client_bench {

ClientCpu GetClientCpu() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Min(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}
double Max(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

std::string Thousands(double per_s) {
  return absl::StrFormat("%.0fk", per_s / 1000);
}

std::string Spread(const std::vector<double>& v, bool thousands) {
  auto f = [&](double x) {
    return thousands ? Thousands(x) : absl::StrFormat("%.2f", x);
  };
  if (v.size() < 2) return f(Median(v));
  return absl::StrCat(f(Median(v)), " [", f(Min(v)), "-", f(Max(v)), "]");
}

}  // namespace blockbloom::redis_client_bench
