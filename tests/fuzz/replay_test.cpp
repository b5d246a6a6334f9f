// Replays every saved fuzz finding (tests/fuzz/regressions/<target>/*) and
// every generated seed through the same entry functions the fuzzers call,
// with the normal compiler (and under ASan+UBSan in the sanitizer build).
// Each input must return within 10 seconds; a crash fails the suite.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>

#include "fuzz/seeds.h"
#include "fuzz/targets.h"
#include "support/test_support.h"

using namespace imagelint::fuzz;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& item : fs::directory_iterator(dir)) {
    if (item.is_regular_file() && item.path().filename().string()[0] != '.') files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs one input; returns the seconds it took.
double Replay(const Target& target, const fs::path& input) {
  std::vector<uint8_t> bytes = Read(input);
  auto start = std::chrono::steady_clock::now();
  CHECK_NOTHROW(target.run(bytes.data(), bytes.size()));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// regressions/OPEN: findings whose fix belongs to another module (one per
// line, "<target>/<file>  <module>: <what>"); replayed once fixed.
std::set<std::string> OpenFindings(const fs::path& root) {
  std::set<std::string> open;
  std::ifstream in(root / "OPEN");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    open.insert(line.substr(0, line.find_first_of(" \t")));
  }
  return open;
}

}  // namespace

TEST_CASE("every saved fuzz finding replays without a crash, in under 10 seconds") {
  fs::path root = imagelint::testing::SourceDir() / "tests" / "fuzz" / "regressions";
  const std::set<std::string> open = OpenFindings(root);
  size_t replayed = 0, skipped = 0;
  if (fs::is_directory(root)) {
    for (const auto& item : fs::directory_iterator(root)) {
      if (!item.is_directory()) continue;
      const Target* target = FindTarget(item.path().filename().string());
      CAPTURE(item.path());
      REQUIRE_MESSAGE(target, "regressions/ directory without a fuzz target");
      for (const auto& input : FilesIn(item.path())) {
        if (open.count(std::string(target->name) + "/" + input.filename().string())) {
          ++skipped;
          continue;
        }
        CAPTURE(input);
        CHECK(Replay(*target, input) < 10.0);
        ++replayed;
      }
    }
  }
  for (const auto& name : open) {
    CAPTURE(name);
    CHECK(fs::is_regular_file(root / name));
  }
  MESSAGE(replayed << " regression inputs replayed, " << skipped << " open ones (regressions/OPEN) skipped");
}

TEST_CASE("every target has seeds, and every seed runs through its target") {
  imagelint::testing::TempDir dir;
  size_t written = WriteSeeds(dir.path());
  CHECK(written > 50);
  CHECK(Targets().size() >= 12);
  for (const auto& target : Targets()) {
    CAPTURE(target.name);
    auto seeds = FilesIn(dir.path() / target.name);
    CHECK_FALSE(seeds.empty());
    for (const auto& seed : seeds) {
      CAPTURE(seed);
      CHECK(Replay(target, seed) < 10.0);
    }
  }
}
