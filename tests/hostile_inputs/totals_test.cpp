// What the files of one image can make imagelint keep in total: each file's
// facts are capped, so the hostile shape is many files, or one file of many
// small records. Each ends within the campaign's bounds with a result or a
// message naming the input and the limit.
#include <doctest/doctest.h>

#include "cuda/fixtures.h"
#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

TEST_CASE("300 ld.so.conf.d files of 256 KiB: the facts kept per image stop at their budget, naming it") {
  TempDir dir;
  // Each file stays under the text analyzer's 256 KiB per file, so each is
  // read and kept; together they hold 75 MiB of directory names.
  std::string conf;
  for (int i = 0; conf.size() < 250 * 1024; ++i) conf += "/opt/vendor/lib/directory-" + std::to_string(i) + "\n";
  TestImage image;
  TestLayer& layer = image.Layer();
  layer.File("etc/os-release", "ID=ubuntu\n");
  for (int i = 0; i < 300; ++i) layer.File("etc/ld.so.conf.d/vendor-" + std::to_string(i) + ".conf", conf);
  WriteImage(image, ImageKind::kOciArchive, dir / "confs.tar");
  auto run = RunBounded({"facts", (dir / "confs.tar").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("confs.tar") != std::string::npos);
  CHECK(run.result.err.find("max_fact_bytes_per_layer") != std::string::npos);
}

TEST_CASE("the same files spread over layers: the image's total is what counts") {
  TempDir dir;
  std::string conf;
  for (int i = 0; conf.size() < 250 * 1024; ++i) conf += "/opt/vendor/lib/directory-" + std::to_string(i) + "\n";
  TestImage image;
  image.Layer().File("etc/os-release", "ID=ubuntu\n");
  for (int l = 0; l < 3; ++l) {
    TestLayer& layer = image.Layer();
    for (int i = 0; i < 100; ++i)  // 25 MiB a layer: under the layer's budget
      layer.File("etc/ld.so.conf.d/vendor-" + std::to_string(l) + "-" + std::to_string(i) + ".conf", conf);
  }
  WriteImage(image, ImageKind::kOciArchive, dir / "layers.tar");
  auto run = RunBounded({"facts", (dir / "layers.tar").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("max_fact_bytes_per_image") != std::string::npos);
}

TEST_CASE("a fatbin of 1.1 million empty entries (70 MB, 200 KB compressed): stops at max_entries, within 512 MiB") {
  TempDir dir;
  imagelint::cuda::testing::EntrySpec spec;
  spec.kind = 2;
  spec.arch = 80;
  const auto one = imagelint::cuda::testing::MakeEntry(spec);
  imagelint::cuda::testing::Bytes body;
  body.reserve(one.size() * 1'100'000);
  for (int i = 0; i < 1'100'000; ++i) body.insert(body.end(), one.begin(), one.end());
  imagelint::cuda::testing::Bytes container(16, 0);
  imagelint::cuda::testing::Put32(container, 0, 0xBA55ED50);
  imagelint::cuda::testing::Put16(container, 4, 1);
  imagelint::cuda::testing::Put16(container, 6, 16);
  imagelint::cuda::testing::Put64(container, 8, body.size());
  container.insert(container.end(), body.begin(), body.end());
  body = {};
  imagelint::cuda::testing::ElfSpec elf;
  elf.soname = "libkernels.so.1";
  elf.fatbin = std::move(container);
  const auto bytes = imagelint::cuda::testing::MakeElf(elf);
  TestImage image;
  image.Layer()
      .File("etc/os-release", "ID=ubuntu\n")
      .File("usr/lib/x86_64-linux-gnu/libkernels.so.1", std::string(bytes.begin(), bytes.end()));
  WriteImage(image, ImageKind::kOciArchive, dir / "entries.tar");
  CHECK(fs::file_size(dir / "entries.tar") < 4'000'000);
  auto run = RunBounded({"facts", (dir / "entries.tar").string(), "--no-cache"});
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 0);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.out.find("more than 1000000") != std::string::npos);
}

// A facts document or a `kubectl get nodes -o json` list of millions of
// empty objects: the parser's estimate or the run's memory budget stops it,
// with exit 2 naming the file, whichever comes first.
TEST_CASE("a facts file and a node list of 20 million empty objects: exit 2 naming the file, within 512 MiB") {
  TempDir dir;
  std::string objects;
  objects.reserve(60'000'010);
  for (int i = 0; i < 20'000'000; ++i) objects += "{},";
  objects += "{}";
  WriteFileText(dir / "facts.json", "{\"schema\": \"imagelint.facts/v1\", \"images\": [" + objects + "]}");
  WriteFileText(dir / "nodes.json", "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [" + objects + "]}");
  objects = {};
  auto facts = RunBounded({"scan", (dir / "facts.json").string()});
  CAPTURE(facts.result.err.substr(0, 2000));
  CHECK(facts.result.exit_code == 2);
  CHECK(facts.cpu_seconds < kHostileSeconds);
  CHECK(facts.result.err.find("facts.json") != std::string::npos);
  // `fleet import` reads no image and takes no --max-memory: the node list's
  // 64 MiB input limit and the parser's estimate bound it (about 400 MB here).
  auto nodes = RunBounded({"fleet", "import", "--from-k8s", (dir / "nodes.json").string()});
  CAPTURE(nodes.result.err.substr(0, 2000));
  CHECK(nodes.result.exit_code == 2);
  CHECK(nodes.cpu_seconds < kHostileSeconds);
  CHECK(nodes.result.err.find("nodes.json") != std::string::npos);
}
