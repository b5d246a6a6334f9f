// `imagelint facts` / `imagelint ls` end to end: goldens, exit codes, one-line errors.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/image_builder.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// A fresh private layer cache per call: cache hits must not hide what a
// test checks, and tests must not write into the user's cache.
CommandResult Imagelint(const std::vector<std::string>& args) {
  TempDir cache;  // fresh per call
  return RunImagelint(args, "", {"XDG_CACHE_HOME=" + cache.path().string()});
}

TestImage GoldenImage() {
  TestImage image;
  image.ref = "registry.example.com/cuda-app:1.0";
  image.env = {"PATH=/usr/local/cuda/bin:/usr/bin:/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470",
               "LD_LIBRARY_PATH=/usr/local/cuda/lib64"};
  image.labels = {{"com.nvidia.cuda.version", "12.4.1"}, {"maintainer", "NVIDIA CORPORATION"}};
  image.empty_history = {"ENV CUDA_VERSION=12.4.1"};
  TestLayer& base = image.Layer(Compression::kGzip);
  base.created_by = "ADD rootfs.tar /";
  base.Dir("usr").Dir("usr/local").Dir("usr/local/cuda-12.4").Dir("usr/local/cuda-12.4/compat")
      .File("usr/local/cuda-12.4/compat/libcuda.so.550.54.15", std::string("\x7f" "ELF", 4) + std::string(60, '\1'))
      .Symlink("usr/local/cuda-12.4/compat/libcuda.so.1", "libcuda.so.550.54.15")
      .Symlink("usr/local/cuda", "cuda-12.4")
      .Dir("etc").File("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
      .File("etc/tmpfile", "temporary\n");
  TestLayer& top = image.Layer(Compression::kZstd);
  top.created_by = "RUN rm /etc/tmpfile && pip install app # buildkit";
  top.Whiteout("etc/tmpfile").Dir("app").File("app/run.sh", "#!/bin/sh\nexec python -m app\n", 0755)
      .Hardlink("app/run-again.sh", "app/run.sh");
  return image;
}

}  // namespace

TEST_CASE("facts and ls goldens") {
  TempDir dir;
  fs::path image = dir / "image.tar";
  WriteImage(GoldenImage(), ImageKind::kDockerArchiveOci, image);
  auto json = Imagelint({"facts", image.string()});
  CHECK(json.exit_code == 0);
  CHECK(json.err == "");
  // Only the image part: the cuda part has its own goldens.
  nlohmann::json facts = nlohmann::json::parse(json.out);
  CHECK(facts["schema"] == "imagelint.facts/v1");
  CheckGolden("cli_image/golden/facts.json", facts["image"].dump(2) + "\n");
  auto text = Imagelint({"facts", image.string(), "--format", "text"});
  CHECK(text.exit_code == 0);
  CheckGolden("cli_image/golden/facts.txt", text.out.substr(0, text.out.find("\n\n") + 1));
  auto ls = Imagelint({"ls", image.string()});
  CHECK(ls.exit_code == 0);
  CheckGolden("cli_image/golden/ls.txt", ls.out);
  auto compat = Imagelint({"ls", image.string(), "/usr/local/cuda*/compat/*"});
  CHECK(compat.exit_code == 0);
  CHECK(compat.out ==
        "symlink 0777 0 L0 /usr/local/cuda-12.4/compat/libcuda.so.1 -> libcuda.so.550.54.15\n"
        "file 0644 64 L0 /usr/local/cuda-12.4/compat/libcuda.so.550.54.15\n");
  auto none = Imagelint({"ls", image.string(), "nothing/*"});
  CHECK(none.exit_code == 0);
  CHECK(none.out == "");
}

TEST_CASE("facts of a Dockerfile: the facts Dockerfile mode predicts, as the docs say") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile", "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nENV NVIDIA_DRIVER_CAPABILITIES=compute\n");
  auto out = Imagelint({"facts", (dir / "Dockerfile").string()});
  CHECK(out.exit_code == 0);
  CHECK(out.err == "");
  nlohmann::json facts = nlohmann::json::parse(out.out);
  CHECK(facts["schema"] == "imagelint.facts/v1");
  CHECK(facts["image"]["kind"] == "dockerfile");
  CHECK(facts["image"]["platform_source"] == "builder");
  CHECK(facts["gpu"]["workload"] == "nvidia");
  auto pinned = Imagelint({"facts", (dir / "Dockerfile").string(), "--platform", "linux/arm64"});
  CHECK(pinned.exit_code == 0);
  nlohmann::json arm = nlohmann::json::parse(pinned.out);
  CHECK(arm["image"]["architecture"] == "arm64");
  CHECK(arm["image"]["platform_source"] == "--platform");
  WriteFileText(dir / "Broken", "FROM ubuntu:22.04\nLABEL lonely\n");
  auto broken = Imagelint({"facts", (dir / "Broken").string()});
  CHECK(broken.exit_code == 2);
  CHECK(broken.err.find("Broken:2") != std::string::npos);
}

TEST_CASE("bad input: exit 2 and one line naming the file") {
  TempDir dir;
  WriteFileBytes(dir / "empty.tar", {});
  TestImage image = GoldenImage();
  WriteImage(image, ImageKind::kOciArchive, dir / "missing.tar", {.omit_layer_blob = true});
  WriteImage(image, ImageKind::kOciArchive, dir / "mismatch.tar", {.corrupt_layer_blob = true});
  std::vector<uint8_t> whole = ReadFileBytes(dir / "mismatch.tar");
  whole.resize(whole.size() / 2 + 7);
  WriteFileBytes(dir / "cut.tar", whole);
  for (const char* name : {"empty.tar", "missing.tar", "mismatch.tar", "cut.tar", "does-not-exist.tar"}) {
    CAPTURE(name);
    for (const char* command : {"facts", "ls"}) {
      auto result = Imagelint({command, (dir / name).string()});
      CHECK(result.exit_code == 2);
      CHECK(result.out == "");
      CHECK(result.err.rfind("imagelint: " + (dir / name).string(), 0) == 0);
      CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    }
  }
  // A config whose diff ID does not match a gzip'd layer: its blob digest
  // covers the bytes, so only --verify-diff-ids re-proves the claim.
  WriteImage(image, ImageKind::kOciArchive, dir / "diff-id.tar", {.wrong_diff_id = true});
  CHECK(Imagelint({"facts", (dir / "diff-id.tar").string()}).exit_code == 0);
  auto strict = Imagelint({"facts", (dir / "diff-id.tar").string(), "--verify-diff-ids"});
  CHECK(strict.exit_code == 2);
  CHECK(strict.err.find("diff ID mismatch") != std::string::npos);
}

TEST_CASE("--platform, --max-layer-bytes and bad option values") {
  TempDir dir;
  TestImage amd = GoldenImage();
  TestImage arm = amd;
  arm.architecture = "arm64";
  WriteMultiPlatform({arm, amd}, ImageKind::kOciLayout, dir / "layout");
  auto def = Imagelint({"facts", (dir / "layout").string()});
  CHECK(def.exit_code == 0);
  CHECK(def.out.find("\"architecture\": \"amd64\"") != std::string::npos);
  auto arm64 = Imagelint({"facts", (dir / "layout").string(), "--platform", "linux/arm64", "--format", "text"});
  CHECK(arm64.exit_code == 0);
  CHECK(arm64.out.find("platform:  linux/arm64\n") != std::string::npos);
  auto absent = Imagelint({"ls", (dir / "layout").string(), "--platform", "linux/ppc64le"});
  CHECK(absent.exit_code == 2);
  CHECK(absent.err.find("platforms present: linux/amd64, linux/arm64") != std::string::npos);
  auto bomb = Imagelint({"ls", (dir / "layout").string(), "--max-layer-bytes", "1K"});
  CHECK(bomb.exit_code == 2);
  CHECK(bomb.err.find("exceeds the limit of 1024 bytes") != std::string::npos);
  auto bad_size = Imagelint({"ls", (dir / "layout").string(), "--max-layer-bytes", "lots"});
  CHECK(bad_size.exit_code == 2);
  auto bad_platform = Imagelint({"ls", (dir / "layout").string(), "--platform", "a//b"});
  CHECK(bad_platform.exit_code == 2);
  auto bad_format = Imagelint({"facts", (dir / "layout").string(), "--format", "yaml"});
  CHECK(bad_format.exit_code == 2);
}

TEST_CASE("imagelint cache: info and prune, text and JSON, exit codes") {
  TempDir dir;
  WriteImage(GoldenImage(), ImageKind::kOciLayout, dir / "img");
  const std::string cache = (dir / "cache").string();
  auto scanned = RunImagelint({"facts", (dir / "img").string(), "--cache-dir", cache});
  REQUIRE(scanned.exit_code == 0);

  auto info = RunImagelint({"cache", "info", "--cache-dir", cache, "--format", "json"});
  INFO(info.err);
  REQUIRE(info.exit_code == 0);
  auto usage = nlohmann::json::parse(info.out);
  CHECK(usage["directory"] == cache);
  CHECK(usage["layers"] == 2);
  CHECK(usage["total_bytes"].get<uint64_t>() > 0);
  auto text = RunImagelint({"cache", "--cache-dir", cache});
  CHECK(text.exit_code == 0);
  CHECK(text.out.rfind(cache + ": 2 layers (", 0) == 0);

  auto nothing = RunImagelint({"cache", "prune", "--cache-dir", cache});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err == "imagelint: cache prune: give --max-size SIZE and/or --unused-for DURATION\n");
  auto bad_size = RunImagelint({"cache", "prune", "--cache-dir", cache, "--max-size", "10Q"});
  CHECK(bad_size.exit_code == 2);
  CHECK(bad_size.err.find("--max-size") != std::string::npos);
  auto bad_age = RunImagelint({"cache", "prune", "--cache-dir", cache, "--unused-for", "3 weeks"});
  CHECK(bad_age.exit_code == 2);
  CHECK(bad_age.err.find("--unused-for") != std::string::npos);
  auto kept = RunImagelint({"cache", "prune", "--cache-dir", cache, "--unused-for", "30d"});
  CHECK(kept.exit_code == 0);
  CHECK(kept.out.find("removed 0 layers") != std::string::npos);

  auto emptied = RunImagelint({"cache", "prune", "--cache-dir", cache, "--max-size", "0", "--format", "json"});
  REQUIRE(emptied.exit_code == 0);
  auto result = nlohmann::json::parse(emptied.out);
  CHECK(result["removed"]["layers"] == 2);
  CHECK(result["after"]["total_bytes"] == 0);

  auto missing = RunImagelint({"cache", "--cache-dir", (dir / "nowhere").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no such cache directory") != std::string::npos);
}
