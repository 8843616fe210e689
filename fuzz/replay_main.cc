// main() for the fuzz targets in an ordinary (non-libFuzzer) build: runs every file named on the
// command line, or found in a directory named there, through LLVMFuzzerTestOneInput once. This is
// how ctest replays tests/fuzz/regressions/ and the seed corpora with the normal compiler, so a
// fixed crash stays fixed without clang. Arguments starting with '-' (libFuzzer flags such as
// -runs=0) are ignored, so one ctest command line serves both builds.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& arg) {
  if (!std::filesystem::is_directory(arg)) return {arg};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // a stable order makes failures reproducible
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    if (!std::filesystem::exists(argv[i])) continue;  // a target may have no regressions yet
    for (const auto& path : inputs_of(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replay %s (%zu bytes)\n", path.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++ran;
    }
  }
  std::fprintf(stderr, "replayed %zu inputs\n", ran);
  return ran == 0 ? 1 : 0;  // a replay that runs nothing tests nothing
}
