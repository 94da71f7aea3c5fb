// Instructions per probe, counted by callgrind (bench/filters/instructions.sh
// runs it): one filter of --bytes (10 bits/key), --probes absent pre-hashed
// probes through the filter's public probe, single or batched, with callgrind
// collecting only inside the probe loop (CALLGRIND_TOGGLE_COLLECT). Divide
// callgrind's total by --probes. The loop's own cost (reading the hash,
// the call through a pointer, counting the answer) is in the count, the
// same for every filter; --filter=none measures it alone (a probe that
// returns false).
//
// valgrind has no AVX-512, so Highway picks AVX2 under it; --target forces
// AVX2, SSE4, SSSE3 or the scalar target (EMU128 under clang) for
// blockbloom and Parquet. FastLocalBloom runs its AVX2 probe.
//
//   valgrind --tool=callgrind --collect-atstart=no probe_count
//       --filter=blockbloom --op=single --target=AVX2
#include <hwy/targets.h>
#include <valgrind/callgrind.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/baselines/fastlocal_bloom.h"
#include "bench/baselines/parquet_sbbf.h"
#include "bench/splitmix.h"
#include "blockbloom/filter.h"
#include "blockbloom/sizing.h"

namespace blockbloom::bench {
namespace {

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> h(n);
  for (uint64_t& x : h) x = SplitMix64(seed);
  return h;
}

struct Args {
  std::string filter = "blockbloom";  // blockbloom, parquet, fastlocal, none
  std::string op = "single";          // single, batch32, batch1024
  std::string target;                 // empty: the best one
  size_t probes = 200000;
  size_t bytes = size_t{1} << 20;
};

int64_t TargetByName(const std::string& name) {
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (name == hwy::TargetName(t)) return t;
  }
  std::fprintf(stderr, "probe_count: target %s not available here\n",
               name.c_str());
  std::exit(2);
}

// A stand-in kernel for --filter=none: the loop's own instructions.
__attribute__((noinline)) bool NoProbe(uint64_t) { return false; }
__attribute__((noinline)) void NoProbeBatch(const uint64_t*, size_t n,
                                            bool* out) {
  std::memset(out, 0, n);
}

template <typename Single, typename Batch>
size_t Run(const Args& args, const std::vector<uint64_t>& probes, Single single,
           Batch batch) {
  size_t positives = 0;
  if (args.op == "single") {
    CALLGRIND_TOGGLE_COLLECT;
    for (uint64_t h : probes) positives += single(h);
    CALLGRIND_TOGGLE_COLLECT;
    return positives;
  }
  const size_t n = args.op == "batch32" ? 32 : 1024;
  std::unique_ptr<bool[]> out(new bool[n]);
  CALLGRIND_TOGGLE_COLLECT;
  for (size_t i = 0; i + n <= probes.size(); i += n) {
    batch(probes.data() + i, n, out.get());
    for (size_t j = 0; j < n; ++j) positives += out[j];
  }
  CALLGRIND_TOGGLE_COLLECT;
  return positives;
}

int Main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view flag) -> const char* {
      return a.rfind(flag, 0) == 0 ? argv[i] + flag.size() : nullptr;
    };
    if (const char* v = value("--filter=")) {
      args.filter = v;
    } else if (const char* o = value("--op=")) {
      args.op = o;
    } else if (const char* t = value("--target=")) {
      args.target = t;
    } else if (const char* p = value("--probes=")) {
      args.probes = std::strtoull(p, nullptr, 10);
    } else if (const char* b = value("--bytes=")) {
      args.bytes = std::strtoull(b, nullptr, 10);
    } else {
      std::fprintf(stderr, "probe_count: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (args.op != "single" && args.op != "batch32" && args.op != "batch1024") {
    std::fprintf(stderr,
                 "probe_count: --op must be single, batch32 or batch1024\n");
    return 2;
  }
  if (!args.target.empty()) {
    hwy::SetSupportedTargetsForTest(TargetByName(args.target));
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  }
  constexpr double kBitsPerKey = 10;
  const uint64_t num_keys =
      static_cast<uint64_t>(static_cast<double>(args.bytes) * 8 / kBitsPerKey);
  const std::vector<uint64_t> members = Hashes(num_keys, 1);
  const std::vector<uint64_t> probes = Hashes(args.probes, 2);
  size_t positives = 0;
  const char* target = "-";
  if (args.filter == "blockbloom") {
    FilterOptions options;
    options.shape = *ShapeForBitsPerKey(num_keys, kBitsPerKey);
    FilterBuilder builder = *FilterBuilder::Create(options);
    for (uint64_t h : members) builder.AddHash(h);
    const Filter f = *builder.Finish();
    target = ActiveSimdTarget();
    positives = Run(
        args, probes, [&](uint64_t h) { return f.MayContainHash(h); },
        [&](const uint64_t* h, size_t n, bool* out) {
          f.MayContainHashBatch({h, n}, {out, n});
        });
  } else if (args.filter == "parquet") {
    const uint64_t blocks = args.bytes / parquet::kBlockBytes;
    std::vector<uint8_t> bits(args.bytes);
    const parquet::Kernels* k = parquet::ActiveKernels();
    k->insert_batch(bits.data(), blocks, members.data(), members.size());
    target = k->target_name;
    positives = Run(
        args, probes,
        [&](uint64_t h) { return k->probe(bits.data(), blocks, h); },
        [&](const uint64_t* h, size_t n, bool* out) {
          k->probe_batch(bits.data(), blocks, h, n, out);
        });
  } else if (args.filter == "fastlocal") {
    const int millibits = fastlocal::MillibitsPerKey(kBitsPerKey);
    const int k = fastlocal::ChooseNumProbes(millibits);
    const size_t size = fastlocal::FilterBytes(num_keys, millibits);
    const uint32_t len = static_cast<uint32_t>(size - fastlocal::kMetadataLen);
    std::vector<uint8_t> bytes(size + 64);
    uint8_t* data = bytes.data() +
                    (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
    fastlocal::AddHashes(data, len, k, members.data(), members.size());
    fastlocal::WriteTrailer(data, len, k);
    const fastlocal::Reader reader(data, size);
    target = reader.uses_avx2() ? "AVX2" : "scalar";
    positives = Run(
        args, probes, [&](uint64_t h) { return reader.MayMatchHash(h); },
        [&](const uint64_t* h, size_t n, bool* out) {
          reader.MayMatchHashes(h, n, out);
        });
  } else if (args.filter == "none") {
    bool (*volatile single)(uint64_t) = &NoProbe;
    void (*volatile batch)(const uint64_t*, size_t, bool*) = &NoProbeBatch;
    positives = Run(
        args, probes, [&](uint64_t h) { return single(h); },
        [&](const uint64_t* h, size_t n, bool* out) { batch(h, n, out); });
  } else {
    std::fprintf(stderr, "probe_count: unknown --filter=%s\n",
                 args.filter.c_str());
    return 2;
  }
  std::printf("filter=%s op=%s target=%s probes=%zu positives=%zu\n",
              args.filter.c_str(), args.op.c_str(), target, args.probes,
              positives);
  return 0;
}

}  // namespace
}  // namespace blockbloom::bench

int main(int argc, char** argv) { return blockbloom::bench::Main(argc, argv); }
