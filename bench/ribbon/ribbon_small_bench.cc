// Does the ribbon kind help LevelDB's per-data-block filters (~36 keys each
// with 100-byte values, ~140 with 16-byte ones)? Builds, per filter, the
// exact-size default (what the LevelDB adapter writes: FilterOptions::
// exact_size, in-place encoding) and a ribbon (src/ribbon, forced: the
// builder itself falls back to the blocked kind below ~1000 keys) at the
// blocked kind's rate for the same bits/key, then reports serialized bytes
// and the measured rate (5000 absent probes per filter). docs/BENCHMARKS.md,
// "Ribbon kind", has a run.
//
//   ribbon_small_bench [n=36] [filters=2000]
//   ribbon_small_bench smoke
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/sizing.h"
#include "src/ribbon/builder.h"

namespace blockbloom {
namespace {

int Run(int n, int filters) {
  constexpr int probes = 5000;
  for (double bits : {10.0, 16.0}) {
    double bytes_exact = 0, bytes_ribbon = 0, bytes_ribbon_payload = 0;
    long fp_exact = 0, fp_ribbon = 0, fn = 0;
    for (int f = 0; f < filters; ++f) {
      std::vector<uint64_t> h;
      FilterOptions eo;
      eo.bits_per_key = bits;
      eo.exact_size = true;
      FilterBuilder eb = *FilterBuilder::Create(eo);
      for (int i = 0; i < n; ++i) {
        const std::string k = absl::StrCat("k", f, "_", i);
        eb.Add(k);
        h.push_back(HashKey(k, 0));
      }
      Filter e = *eb.Finish();
      std::string eblock;
      if (!AppendFilter(e, {}, &eblock).ok()) return 1;
      bytes_exact += eblock.size();
      // A ribbon at the rate the blocked (non-exact) kind has at `bits`.
      const double rate =
          *EstimatedFpRate(*ShapeForBitsPerKey(1 << 20, bits), 1 << 20);
      internal::ribbon::RibbonTarget t;
      t.fp_rate = rate;
      std::vector<uint64_t> hh = h;
      Filter r = *internal::ribbon::BuildRibbon(absl::MakeSpan(hh), t, 0);
      std::string rblock;
      if (!AppendFilter(r, {}, &rblock).ok()) return 1;
      bytes_ribbon += rblock.size();
      bytes_ribbon_payload += r.bits().size();
      for (uint64_t x : h) fn += !r.MayContainHash(x) + !e.MayContainHash(x);
      for (int p = 0; p < probes; ++p) {
        const std::string k = absl::StrCat("a", f, "_", p);
        fp_exact += e.MayContain(k);
        fp_ribbon += r.MayContain(k);
      }
    }
    const double total = double(filters) * probes, keys = double(filters) * n;
    std::printf(
        "n=%d %.0f bits/key: exact-size default %.1f bytes/filter (%.2f "
        "bits/key) FPR %.3f%%; "
        "ribbon %.1f bytes/filter (%.2f bits/key; payload %.1f) FPR %.3f%%; "
        "false negatives %ld\n",
        n, bits, bytes_exact / filters, 8 * bytes_exact / keys,
        100 * fp_exact / total, bytes_ribbon / filters, 8 * bytes_ribbon / keys,
        bytes_ribbon_payload / filters, 100 * fp_ribbon / total, fn);
    if (fn != 0) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace blockbloom

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "smoke") {
    return blockbloom::Run(36, 20);
  }
  return blockbloom::Run(argc > 1 ? std::atoi(argv[1]) : 36,
                         argc > 2 ? std::atoi(argv[2]) : 2000);
}
