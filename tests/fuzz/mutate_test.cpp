// Drives every fuzz target over mutated seeds for a bounded time, in the
// normal suite: with any compiler, and under ASan+UBSan in the sanitizer
// build that CI runs (the libFuzzer campaign needs clang and a build of its
// own; scripts/fuzz.sh). Deterministic: the same build and
// IMAGELINT_FUZZ_MUTATE_SEED give the same inputs in the same order. Each
// input is written to mutate-<target>-current in the working directory before
// it runs, so a crash or a hang leaves it behind, to be saved under
// tests/fuzz/regressions/<target>/.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "fuzz/mutate.h"
#include "fuzz/seeds.h"
#include "fuzz/targets.h"
#include "support/test_support.h"

using namespace imagelint::fuzz;
namespace fs = std::filesystem;

namespace {

double EnvSeconds(const char* name, double fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atof(value) : fallback;
}

std::vector<std::vector<uint8_t>> ReadAll(const fs::path& dir) {
  std::vector<std::vector<uint8_t>> all;
  if (!fs::is_directory(dir)) return all;
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(dir))
    if (item.is_regular_file()) files.push_back(item.path());
  std::sort(files.begin(), files.end());  // directory order is not stable
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    all.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

}  // namespace

TEST_CASE("every target survives mutated seeds for a bounded time") {
  const double seconds = EnvSeconds("IMAGELINT_FUZZ_MUTATE_SECONDS", 2.0);
  const uint64_t base_seed = static_cast<uint64_t>(EnvSeconds("IMAGELINT_FUZZ_MUTATE_SEED", 20261124));
  imagelint::testing::TempDir dir;
  WriteSeeds(dir.path() / "seeds");
  const fs::path dictionaries = imagelint::testing::SourceDir() / "tests" / "fuzz" / "dict";
  size_t total = 0;
  for (const Target& target : Targets()) {
    const std::string name = target.name;
    CAPTURE(name);
    auto seeds = ReadAll(dir.path() / "seeds" / target.name);
    REQUIRE_FALSE(seeds.empty());
    Mutator mutator(base_seed ^ std::hash<std::string>()(target.name), std::move(seeds),
                    ReadDictionary(dictionaries / (std::string(target.name) + ".dict")));
    const auto start = std::chrono::steady_clock::now();
    size_t runs = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds || runs < 20) {
      const std::vector<uint8_t> input = mutator.Next(1 << 20);
      // Written before the run: a hang or a crash leaves it behind.
      const fs::path current = fs::current_path() / ("mutate-" + std::string(target.name) + "-current");
      std::ofstream(current, std::ios::binary).write(reinterpret_cast<const char*>(input.data()), input.size());
      const auto one = std::chrono::steady_clock::now();
      bool threw = false;
      try {
        target.run(input.data(), input.size());
      } catch (...) {
        threw = true;
      }
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - one).count();
      ++runs;
      if (threw || took >= 10.0) {
        const fs::path saved = fs::current_path() / ("mutate-" + std::string(target.name) + "-" + std::to_string(runs));
        std::ofstream(saved, std::ios::binary).write(reinterpret_cast<const char*>(input.data()), input.size());
        FAIL_CHECK((threw ? "an exception escaped" : "took 10 s or more") << " on input " << runs << ", saved as "
                                                                          << saved.string());
      }
    }
    fs::remove(fs::current_path() / ("mutate-" + std::string(target.name) + "-current"));
    total += runs;
    MESSAGE(name << ": " << runs << " mutated inputs");
  }
  MESSAGE(total << " mutated inputs over " << Targets().size() << " targets");
}
