// Deep nesting: JSON that nests far deeper than any document imagelint reads
// (100,000 levels in an ELF note, 200,000 in a Docker engine's answer, in a
// facts file, a node list, a baseline report, an exec-form instruction). The
// readers cap the depth (128), so nothing recursive ever meets such a value:
// no stack overflow, no quadratic pretty-printing, and the cache's CBOR
// encoder sees only bounded values.
#include <doctest/doctest.h>

#include "cuda/fixtures.h"
#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

std::string Deep(size_t depth, const std::string& open = "[", const std::string& close = "]") {
  std::string out;
  out.reserve(depth * (open.size() + close.size()));
  for (size_t i = 0; i < depth; ++i) out += open;
  for (size_t i = 0; i < depth; ++i) out += close;
  return out;
}

}  // namespace

TEST_CASE("an ELF note nesting JSON 100,000 deep: the note is a problem, the scan and the cache go on") {
  TempDir dir;
  std::string note = "{\"CUDA Version\":" + Deep(100000) + "}";
  imagelint::cuda::testing::ElfSpec spec;
  spec.soname = "libcuda.so.1";
  spec.notes.push_back({.owner = "NVIDIA Corporation", .type = 1, .desc = imagelint::cuda::testing::Bytes(note.begin(), note.end()),
                        .allocated = false, .section = ".note.cuda.fwd_compatibility"});
  auto elf = imagelint::cuda::testing::MakeElf(spec);
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n")
      .File("usr/local/cuda/compat/libcuda.so.1", std::string(elf.begin(), elf.end()));
  WriteImage(image, ImageKind::kDockerArchive, dir / "deep-note.tar");
  CHECK(fs::file_size(dir / "deep-note.tar") < 64 * 1024);  // a few KB of input
  // Twice through a cache directory: written (CBOR) on the first run, read on the second.
  for (int pass = 0; pass < 2; ++pass) {
    CAPTURE(pass);
    auto facts = RunBounded({"facts", (dir / "deep-note.tar").string(), "--cache-dir", (dir / "cache").string()});
    CheckBounded(facts, {0});
    CHECK(facts.result.out.find("nested deeper than 128 levels") != std::string::npos);
    auto scan = RunBounded({"scan", (dir / "deep-note.tar").string(), "--cache-dir", (dir / "cache").string(),
                            "--format", "json"});
    CheckBounded(scan, {0, 1});
  }
}

TEST_CASE("a Docker engine whose inspect answer nests 200,000 deep: exit 2 naming the engine and the limit") {
  TempDir dir;
  FakeEngine engine(dir / "docker.sock", "{\"Id\":" + Deep(200000) + "}");
  auto run = RunBounded({"facts", "team/app:dev", "--image-src", "docker", "--no-cache"},
                        {"DOCKER_HOST=" + engine.Host()});
  CheckBounded(run, {2});
  CHECK(engine.requests() > 0);
  CHECK(run.result.err.find("docker engine") != std::string::npos);
  CHECK(run.result.err.find("nested deeper than 128 levels") != std::string::npos);
}

TEST_CASE("facts files and node lists nesting 100,000 deep: exit 2 naming the file") {
  TempDir dir;
  WriteFileText(dir / "facts.json", "{\"schema\":\"imagelint.facts/v1\",\"image\":" + Deep(100000, "{\"a\":", "}") + "}");
  auto facts = RunBounded({"scan", (dir / "facts.json").string(), "--no-cache"});
  CheckBounded(facts, {2});
  CHECK(facts.result.err.find((dir / "facts.json").string()) != std::string::npos);

  WriteFileText(dir / "nodes.json", "{\"kind\":\"List\",\"items\":[" + Deep(100000) + "]}");
  auto nodes = RunBounded({"fleet", "import", "--from-k8s", (dir / "nodes.json").string()});
  CheckBounded(nodes, {2});
  CHECK(nodes.result.err.find("nodes.json") != std::string::npos);

  // An exec form nesting deeper than a flat array is the shell form (as BuildKit
  // falls back on JSON it cannot take), never a crash.
  WriteFileText(dir / "Dockerfile", "FROM ubuntu:22.04\nCMD " + Deep(100000) + "\n");
  auto dockerfile = RunBounded({"scan", (dir / "Dockerfile").string(), "--no-cache"});
  CheckBounded(dockerfile, {0, 1, 2});
}
