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
  CHECK(run.seconds < kHostileSeconds);
  CHECK(run.result.out.find("/usr/lib/libcuda-b9999.so") != std::string::npos);
}

TEST_CASE("a Dockerfile doubling its libraries through COPY --from: exit 2 at the limit, naming the line") {
  TempDir dir;
  std::string text = "FROM ubuntu:22.04 AS s0\nCOPY libcuda.so.535.104.05 /usr/lib/x86_64-linux-gnu/\n";
  for (int stage = 1; stage <= 40; ++stage) {
    const std::string previous = "s" + std::to_string(stage - 1);
    text += "FROM ubuntu:22.04 AS s" + std::to_string(stage) + "\nCOPY --from=" + previous + " / /a/\nCOPY --from=" +
            previous + " / /b/\n";
  }
  WriteFileText(dir / "Dockerfile", text);
  CHECK(text.size() < 2000);
  auto run = RunBounded({"scan", (dir / "Dockerfile").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.seconds < kHostileSeconds);
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
  CHECK(run.seconds < kHostileSeconds);
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

TEST_CASE("a fleet of 10,000 pools, a finding on each: merged and judged without pairwise work") {
  TempDir dir;
  std::string fleet = "pools:\n";
  for (int i = 0; i < 10000; ++i)
    fleet += "  - name: rtx-" + std::to_string(i) + "\n    gpu: NVIDIA GeForce RTX 3090\n    driver: \"460." +
             std::to_string(i % 100) + "\"\n    container_toolkit: \"1.4.0\"\n";
  WriteFileText(dir / "fleet.yaml", fleet);
  auto elf = LibcudaElf();
  TestImage image;
  image.env = {"PATH=/usr/bin", "LD_LIBRARY_PATH=/opt/lib", "NVIDIA_VISIBLE_DEVICES=all",
               "NVIDIA_DRIVER_CAPABILITIES=compute,utility"};
  image.Layer()
      .File("etc/os-release", "ID=ubuntu\nVERSION_ID=\"22.04\"\n")
      .File("opt/lib/libcuda.so.550.54.15", std::string(elf.begin(), elf.end()))
      .Symlink("opt/lib/libcuda.so.1", "libcuda.so.550.54.15");
  WriteImage(image, ImageKind::kOciArchive, dir / "image.tar");
  for (const char* format : {"json", "text"}) {
    CAPTURE(format);
    auto run = RunBounded({"scan", (dir / "image.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--format",
                           format, "--no-cache"});
    CAPTURE(run.result.err.substr(0, 2000));
    CHECK(run.result.exit_code == 1);
    CHECK(run.seconds < kHostileSeconds);
    CHECK(run.result.out.find("rtx-9999") != std::string::npos);
  }
}
