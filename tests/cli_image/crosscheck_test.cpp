// One image made by the real tools (umoci builds it, skopeo converts it):
// every input kind must give identical `ls` and facts.
#include <doctest/doctest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// A fresh private layer cache per call: cache hits must not hide what a
// test checks, and tests must not write into the user's cache.
CommandResult CrossImagelint(const std::vector<std::string>& args) {
  TempDir cache;  // fresh per call
  return RunImagelint(args, "", {"XDG_CACHE_HOME=" + cache.path().string()});
}

void RunCross(const std::vector<std::string>& argv) {
  auto result = RunCommand(argv, "", 120);
  std::string line;
  for (const auto& a : argv) line += a + " ";
  REQUIRE_MESSAGE(result.exit_code == 0, line << "\n" << result.err);
}

// Blob digests, sizes and media types legitimately differ between input kinds
// (skopeo's docker-archive stores layers uncompressed); everything else must not.
void Scrub(nlohmann::json& value) {
  if (value.is_object()) {
    for (const char* key : {"digest", "layer_digest", "media_type", "size", "kind", "ref"}) {
      value.erase(std::string(key));
    }
  }
  if (value.is_object() || value.is_array()) {
    for (auto it = value.begin(); it != value.end(); ++it) Scrub(*it);
  }
}

nlohmann::json Comparable(const std::string& facts_text) {
  nlohmann::json facts = nlohmann::json::parse(facts_text);
  Scrub(facts);
  return facts;
}

}  // namespace

TEST_CASE("umoci + skopeo: OCI layout, OCI archive, docker-archive and unpacked rootfs agree") {
  if (!NeedExternal("umoci", HaveProgram("umoci"), "builds the cross-check image")) return;
  if (!NeedExternal("skopeo", HaveProgram("skopeo"), "converts the cross-check image")) return;
  TempDir dir;
  std::string layout = (dir / "oci").string();
  std::string image = "oci:" + layout + ":img";
  RunCross({"umoci", "init", "--layout", layout});
  RunCross({"umoci", "new", "--image", layout + ":img"});
  fs::path b1 = dir / "b1";
  RunCross({"umoci", "unpack", "--rootless", "--image", layout + ":img", b1.string()});
  fs::create_directories(b1 / "rootfs/usr/local/cuda-12.4/lib64");
  fs::create_directories(b1 / "rootfs/opt/old/deep");
  WriteFileText(b1 / "rootfs/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", std::string(100000, 'r'));
  fs::create_symlink("libcudart.so.12.4.127", b1 / "rootfs/usr/local/cuda-12.4/lib64/libcudart.so.12");
  fs::create_symlink("cuda-12.4", b1 / "rootfs/usr/local/cuda");
  fs::create_hard_link(b1 / "rootfs/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", b1 / "rootfs/usr/local/cudart-copy");
  WriteFileText(b1 / "rootfs/opt/old/deep/file", "old");
  WriteFileText(b1 / "rootfs/opt/keep", "keep");
  RunCross({"umoci", "repack", "--image", layout + ":img", b1.string()});
  fs::path b2 = dir / "b2";
  RunCross({"umoci", "unpack", "--rootless", "--image", layout + ":img", b2.string()});
  fs::remove_all(b2 / "rootfs/opt/old");
  WriteFileText(b2 / "rootfs/opt/new", "new");
  RunCross({"umoci", "repack", "--image", layout + ":img", b2.string()});
  RunCross({"umoci", "config", "--image", layout + ":img", "--config.env", "NVIDIA_REQUIRE_CUDA=cuda>=12.4",
       "--config.label", "com.example=yes"});
  std::string docker = (dir / "docker.tar").string();
  std::string oci_archive = (dir / "oci.tar").string();
  RunCross({"skopeo", "--insecure-policy", "copy", "oci:" + layout + ":img", "docker-archive:" + docker + ":test/img:latest"});
  RunCross({"skopeo", "--insecure-policy", "copy", "oci:" + layout + ":img", "oci-archive:" + oci_archive + ":img"});
  fs::path unpacked = dir / "final";
  RunCross({"umoci", "unpack", "--rootless", "--image", layout + ":img", unpacked.string()});

  auto ls_layout = CrossImagelint({"ls", layout});
  REQUIRE_MESSAGE(ls_layout.exit_code == 0, ls_layout.err);
  CHECK(ls_layout.out.find("file 0644 100000 L0 /usr/local/cuda-12.4/lib64/libcudart.so.12.4.127\n") != std::string::npos);
  CHECK(ls_layout.out.find("/opt/old") == std::string::npos);
  CHECK(ls_layout.out.find("file 0644 3 L1 /opt/new\n") != std::string::npos);
  auto facts_layout = CrossImagelint({"facts", layout});
  REQUIRE(facts_layout.exit_code == 0);
  for (const auto& input : {docker, oci_archive}) {
    CAPTURE(input);
    auto ls = CrossImagelint({"ls", input});
    REQUIRE_MESSAGE(ls.exit_code == 0, ls.err);
    CHECK(ls.out == ls_layout.out);
    auto facts = CrossImagelint({"facts", input});
    REQUIRE(facts.exit_code == 0);
    CHECK(Comparable(facts.out) == Comparable(facts_layout.out));
  }
  nlohmann::json facts = nlohmann::json::parse(facts_layout.out);
  CHECK(facts["image"]["env"]["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.4");
  CHECK(facts["image"]["labels"]["com.example"] == "yes");
  CHECK(facts["image"]["layers"].size() == 2);

  // The unpacked root file system: same paths, types, sizes and links (one layer).
  auto ls_rootfs = CrossImagelint({"ls", "--rootfs", (unpacked / "rootfs").string()});  // no os-release: asked for
  REQUIRE_MESSAGE(ls_rootfs.exit_code == 0, ls_rootfs.err);
  std::regex layer(" L[0-9]+ ");
  std::regex mode("^(\\w+) [0-7]{4} ", std::regex::multiline);
  auto normalise = [&](const std::string& text) {
    return std::regex_replace(std::regex_replace(text, layer, " L "), mode, "$1 ");
  };
  CHECK(normalise(ls_rootfs.out) == normalise(ls_layout.out));
}

TEST_CASE("umoci: a layout holding two tagged images needs --image, which picks by name or position") {
  if (!NeedExternal("umoci", HaveProgram("umoci"), "builds the two-image layout")) return;
  TempDir dir;
  const std::string layout = (dir / "layout").string();
  RunCross({"umoci", "init", "--layout", layout});
  for (const std::string tag : {"base", "train"}) {
    RunCross({"umoci", "new", "--image", layout + ":" + tag});
    RunCross({"umoci", "config", "--image", layout + ":" + tag, "--config.env", "WHICH=" + tag});
  }
  auto unpicked = CrossImagelint({"facts", layout});
  CHECK(unpicked.exit_code == 2);
  CHECK(unpicked.err.find(layout) != std::string::npos);
  CHECK(unpicked.err.find("holds 2 images: @0 base, @1 train") != std::string::npos);
  CHECK(unpicked.out.empty());

  for (const std::string pick : {"train", "@1"}) {
    auto picked = CrossImagelint({"facts", layout, "--image", pick});
    INFO(picked.err);
    REQUIRE(picked.exit_code == 0);
    CHECK(nlohmann::json::parse(picked.out)["image"]["env"]["WHICH"] == "train");
  }
  auto missing = CrossImagelint({"ls", layout, "--image", "nope"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no image named nope; images: @0 base, @1 train") != std::string::npos);
}
