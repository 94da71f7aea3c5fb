// Runs a fuzz target's LLVMFuzzerTestOneInput on every file it is given
// (files, or folders read one level deep): the replay of its seed corpus and
// the golden files, as a plain test in every build. Any input is a valid one
// for a fuzz target, so a failure (an abort, a sanitizer report) is a bug.
// The fuzz build links the same targets with libFuzzer instead (fuzz/run).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a folder\n",
                   argv[i]);
      return 2;
    }
    for (const std::filesystem::path& file : files) {
      const std::vector<uint8_t> bytes = ReadFile(file);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++inputs;
    }
  }
  // Also the empty input, which every target must take.
  LLVMFuzzerTestOneInput(nullptr, 0);
  std::printf("replay: %zu inputs, no failure\n", inputs + 1);
  return 0;
}
