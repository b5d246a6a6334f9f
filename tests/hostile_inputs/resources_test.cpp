// Work and memory an input can make imagelint spend: thousands of library
// aliases, a Dockerfile that doubles its libraries with COPY --from, one
// whose variables grow past their budget, a cache value of empty maps. Each
// ends within the campaign's bounds with a result or a message naming the
// input and the limit.
#include <doctest/doctest.h>

#include "common/json.h"
#include "cuda/fixtures.h"
#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

TEST_CASE("20,000 symlink aliases of 10,000 libraries: resolved once each, within the bound") {
  TempDir dir;
  auto elf = LibcudaElf();
  const std::string content(elf.begin(), elf.end());
  TestImage image;
  TestLayer& layer = image.Layer();
  layer.File("etc/os-release", "ID=debian\n");
  for (int i = 0; i < 10000; ++i) {
    const std::string version = "535.104." + std::to_string(i);
    layer.File("usr/lib/x86_64-linux-gnu/libcuda.so." + version, content);
    layer.Symlink("usr/lib/x86_64-linux-gnu/libcuda-a" + std::to_string(i) + ".so", "libcuda.so." + version);
    layer.Symlink("usr/lib/libcuda-b" + std::to_string(i) + ".so", "/usr/lib/x86_64-linux-gnu/libcuda.so." + version);
  }
  WriteImage(image, ImageKind::kOciArchive, dir / "aliases.tar");
  auto run = RunBounded({"facts", (dir / "aliases.tar").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 0);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.out.find("/usr/lib/libcuda-b9999.so") != std::string::npos);
}

TEST_CASE("a Dockerfile doubling its libraries through COPY --from: exit 2 at the limit, naming the line") {
  TempDir dir;
  std::string text = "FROM ubuntu:22.04 AS s0\nCOPY libcuda.so.535.104.05 /usr/lib/x86_64-linux-gnu/\n";
  for (int stage = 1; stage <= 20; ++stage) {  // 2^20 rows unbounded
    const std::string previous = "s" + std::to_string(stage - 1);
    text += "FROM ubuntu:22.04 AS s" + std::to_string(stage) + "\nCOPY --from=" + previous + " / /a/\nCOPY --from=" +
            previous + " / /b/\n";
  }
  WriteFileText(dir / "Dockerfile", text);
  CHECK(text.size() < 1500);
  auto run = RunBounded({"scan", (dir / "Dockerfile").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("Dockerfile:") != std::string::npos);
  CHECK(run.result.err.find("max_library_rows") != std::string::npos);
}

TEST_CASE("Dockerfile variables of a megabyte each: exit 2 at the stage's variable budget, naming the line") {
  TempDir dir;
  std::string text = "FROM ubuntu:22.04\nENV A=" + std::string(60000, 'x') + "\nENV B=";
  for (int i = 0; i < 16; ++i) text += "$A";
  text += "\n";
  for (int i = 0; i < 200; ++i) text += "ENV C" + std::to_string(i) + "=$B\n";
  WriteFileText(dir / "Dockerfile", text);
  auto run = RunBounded({"scan", (dir / "Dockerfile").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("max_variable_bytes") != std::string::npos);
  CHECK(run.result.err.find("Dockerfile:") != std::string::npos);
}

TEST_CASE("a CBOR document of 28 million empty maps: refused by its memory estimate, not built") {
  std::vector<uint8_t> cbor = {0x9f};  // an array of indefinite length
  cbor.insert(cbor.end(), 28'000'000, 0xa0);
  cbor.push_back(0xff);
  auto parsed = imagelint::ParseCbor(cbor, "hostile.cbor");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().ToString().find("holds more values than imagelint keeps") != std::string::npos);
  // The same shape in JSON.
  std::string json = "[";
  for (int i = 0; i < 4'000'000; ++i) json += "{},";
  json += "{}]";
  auto text = imagelint::ParseJson(json, "hostile.json");
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().ToString().find("holds more values") != std::string::npos);
  // What imagelint writes stays far below: a layer's five-field entries.
  nlohmann::json entries = nlohmann::json::array();
  for (int i = 0; i < 300'000; ++i)
    entries.push_back({"usr/lib/x86_64-linux-gnu/libfile" + std::to_string(i) + ".so", 0, 1234, 420, ""});
  auto bytes = nlohmann::json::to_cbor(entries);
  CHECK(imagelint::ParseCbor(bytes, "entries.cbor").ok());
}

namespace {

// A fleet of `pools` GeForce pools on old drivers, and an image whose
// bundled libcuda fails on each: one finding per pool.
TimedResult ScanFleet(const TempDir& dir, int pools) {
  std::string fleet = "pools:\n";
  for (int i = 0; i < pools; ++i)
    fleet += "  - name: rtx-" + std::to_string(i) + "\n    gpu: NVIDIA GeForce RTX 3090\n    driver: \"460." +
             std::to_string(i % 100) + "\"\n    container_toolkit: \"1.4.0\"\n";
  const fs::path fleet_file = dir / ("fleet-" + std::to_string(pools) + ".yaml");
  WriteFileText(fleet_file, fleet);
  if (!fs::exists(dir / "image.tar")) {
    auto elf = LibcudaElf();
    TestImage image;
    image.env = {"PATH=/usr/bin", "LD_LIBRARY_PATH=/opt/lib", "NVIDIA_VISIBLE_DEVICES=all",
                 "NVIDIA_DRIVER_CAPABILITIES=compute,utility"};
    image.Layer()
        .File("etc/os-release", "ID=ubuntu\nVERSION_ID=\"22.04\"\n")
        .File("opt/lib/libcuda.so.550.54.15", std::string(elf.begin(), elf.end()))
        .Symlink("opt/lib/libcuda.so.1", "libcuda.so.550.54.15");
    WriteImage(image, ImageKind::kOciArchive, dir / "image.tar");
  }
  return RunBounded({"scan", (dir / "image.tar").string(), "--fleet", fleet_file.string(), "--format", "text",
                     "--no-cache"});
}

}  // namespace

// Every pool is judged on its own (about a millisecond of rules each), but
// nothing may compare every finding or verdict with every other: four times
// the pools must cost about four times the work, not sixteen.
TEST_CASE("a fleet of thousands of pools with a finding on each: work linear in the pools") {
  TempDir dir;
  auto small = ScanFleet(dir, 1000);
  auto big = ScanFleet(dir, 4000);
  CAPTURE(small.result.err.substr(0, 2000));
  CAPTURE(big.result.err.substr(0, 2000));
  CHECK(small.result.exit_code == 1);
  CHECK(big.result.exit_code == 1);
  CHECK(big.result.out.find("rtx-3999") != std::string::npos);
  // A process's CPU seconds on a shared VM include what other processes cost
  // it (caches, stolen time): one slow run is noise, a slow best of three is
  // not. Each size keeps its fastest run.
  double small_cpu = small.cpu_seconds, big_cpu = big.cpu_seconds;
  for (int again = 0; again < 2 && big_cpu >= 6 * std::max(small_cpu, 0.2); ++again) {
    small_cpu = std::min(small_cpu, ScanFleet(dir, 1000).cpu_seconds);
    big_cpu = std::min(big_cpu, ScanFleet(dir, 4000).cpu_seconds);
  }
  MESSAGE("1,000 pools: " << small_cpu << " s of CPU; 4,000 pools: " << big_cpu << " s (fastest runs)");
  CHECK(big_cpu < 6 * std::max(small_cpu, 0.2));
  CHECK(big_cpu < kHostileSeconds);
}
