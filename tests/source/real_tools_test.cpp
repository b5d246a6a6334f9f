// Images written by the real tools (tests/support/real_images.h): Docker's
// engine (docker build, docker save), the Docker >= 25 save layout (also with
// "manifests": null), skopeo's OCI archives with gzip, zstd and uncompressed
// layers, umoci and buildah. Each must read, and the same image must give the
// same tree whatever wrote it.
#include <doctest/doctest.h>

#include <sstream>

#include "imagelint/read_image.h"
#include "support/checkout_knowledge.h"
#include "support/docker_engine.h"
#include "support/real_images.h"
#include "support/test_support.h"

using namespace imagelint;
using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

Result<ScannedImage> ReadRealTool(const fs::path& path) { return ReadImage(path.string(), ReadImageOptions{}, imagelint::testing::CheckoutKnowledge()); }

// "file 0644 41 L3 /somefile.txt" -> "file 0644 41 /somefile.txt": writers
// split the same changes into different layers.
std::string WithoutLayers(const std::string& listing) {
  std::istringstream in(listing);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    size_t layer = line.find(" L");
    size_t after = line.find(' ', layer + 1);
    out += line.substr(0, layer) + line.substr(after) + "\n";
  }
  return out;
}

// Shared by the test cases of this file: made once per test process.
RealImages* Fixtures(std::string* why) {
  static TempDir dir;
  static RealImages images;
  static bool made = false;
  static std::string failure;
  static bool tried = false;
  if (!tried) {
    tried = true;
    made = images.Make(dir.path(), &failure);
    std::ostringstream times;
    for (const auto& [step, time] : images.timings) times << "\n  " << step << ": " << time.count() << " ms";
    const std::string summary = std::string(made ? "real-tool fixtures:" : "real-tool fixtures (failed):") + times.str();
    MESSAGE(summary);
  }
  if (!made) *why = failure;
  return made ? &images : nullptr;
}

}  // namespace

TEST_CASE("docker engine: started once per process, answers on its own socket, never the host's") {
  std::string why;
  DockerEngine* engine = DockerEngine::Shared(&why);
  if (!NeedExternal("docker engine", engine != nullptr, why)) return;
  CHECK(DockerEngine::Shared(nullptr) == engine);
  CHECK(engine->Host().rfind("unix://", 0) == 0);
  CHECK(engine->Host().find("/var/run/docker.sock") == std::string::npos);
  auto info = engine->Docker({"info", "--format", "{{.Driver}} {{.DockerRootDir}}"});
  REQUIRE_MESSAGE(info.exit_code == 0, (info.err + engine->Log()));
  CHECK(info.out.rfind("vfs ", 0) == 0);
  CHECK(info.out.find(BinaryDir().string()) != std::string::npos);
  MESSAGE("dockerd start: " << engine->StartTime().count() << " ms");
}

TEST_CASE("docker save (Docker 20.10, legacy layout): layers, whiteouts, modes, environment, CUDA libraries") {
  std::string why;
  RealImages* images = Fixtures(&why);
  if (!NeedExternal("real-tool fixtures", images != nullptr, why)) return;
  auto docker = ReadRealTool(images->docker_save);
  REQUIRE_MESSAGE(docker.ok(), imagelint::testing::ErrorText(docker));
  CHECK(docker->metadata.kind == "docker-archive");
  CHECK(docker->metadata.ref == images->tag);
  CHECK(docker->metadata.platform.architecture == "amd64");
  REQUIRE(docker->layers.size() == 9);  // the imported base + ADD, 6 RUN, ADD (ENV and LABEL add none)
  const ImageTree& tree = docker->tree;
  for (const char* path : {"somefile.txt", "root/saved.txt", "root/.saved.txt", "root/.data/saved.again2.txt",
                           "root/.data/run.sh", "tmp/saved.again1.txt", "bin/busybox", "etc/os-release"}) {
    CAPTURE(path);
    CHECK(tree.Lookup(path));
  }
  CHECK_FALSE(tree.Lookup("root/example"));       // RUN rm -rf /root/example/: a whiteout in layer 5
  CHECK(tree.List("root/example").empty());
  CHECK(tree.Lookup("root/saved.txt")->entry->info.mode == 0755);  // RUN chmod +x in the last layer
  CHECK(tree.Lookup("root/saved.txt")->layer == 8);
  CHECK(docker->layers[5].entries.size() > 0);
  nlohmann::json facts = BuildFacts(*docker, CheckoutKnowledge());
  CHECK(facts["image"]["env"]["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.4 brand=tesla,driver>=470,driver<471");
  CHECK(facts["image"]["labels"]["com.example.fixture"] == "real tools");
  if (images->with_nvidia) {
    CHECK(facts["cuda"]["runtimes"][0]["version"] == "12.4.127");
    CHECK(facts["cuda"]["drivers"][0]["version"] == "550.163.01");
    CHECK(facts["cuda"]["drivers"][0]["kind"] == "compat");
  } else {
    CHECK_FALSE(ExternalRequired());  // CI has the NVIDIA packages (scripts/fetch-nvidia-debs.sh)
  }
}

TEST_CASE("the same image from every writer reads the same: Docker 25 saves, skopeo OCI archives, buildah") {
  std::string why;
  RealImages* images = Fixtures(&why);
  if (!NeedExternal("real-tool fixtures", images != nullptr, why)) return;
  auto reference = ReadRealTool(images->docker_save);
  REQUIRE(reference.ok());
  const std::string listing = ListTree(*reference, "");
  struct Case {
    fs::path path;
    const char* kind;
    bool same_layers;
  };
  for (const Case& c : {Case{images->docker25_save, "docker-archive", true},
                        Case{images->docker25_null, "docker-archive", true},
                        Case{images->oci_gzip, "oci-archive", true}, Case{images->oci_zstd, "oci-archive", true},
                        Case{images->buildah_archive, "oci-archive", false}}) {
    CAPTURE(c.path);
    auto read = ReadRealTool(c.path);
    REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
    CHECK(read->metadata.kind == c.kind);
    if (c.same_layers) {
      CHECK(ListTree(*read, "") == listing);
      CHECK(read->layers.size() == reference->layers.size());
      for (size_t i = 0; i < read->layers.size() && i < reference->layers.size(); ++i)
        CHECK(read->layers[i].diff_id == reference->layers[i].diff_id);
    } else {
      // buildah keeps the mount points of RUN (/dev, /proc, /sys, /run,
      // /etc/hosts, ...) and splits layers its own way; everything else is equal.
      std::string theirs = WithoutLayers(ListTree(*read, ""));
      std::istringstream ours(WithoutLayers(listing));
      for (std::string line; std::getline(ours, line);) CHECK_MESSAGE(theirs.find(line + "\n") != std::string::npos, line);
      for (const char* extra : {"dir 0755 0 /proc\n", "dir 0755 0 /sys\n"}) CHECK(theirs.find(extra) != std::string::npos);
    }
    nlohmann::json facts = BuildFacts(*read, CheckoutKnowledge());
    CHECK(facts["image"]["env"]["NVIDIA_REQUIRE_CUDA"] == "cuda>=12.4 brand=tesla,driver>=470,driver<471");
  }
  // skopeo really wrote the compressions named.
  auto media_types = [](const fs::path& archive) {
    auto listed = RunCommand({"tar", "-xOf", archive.string(), "--wildcards", "blobs/sha256/*"});
    return listed.out;
  };
  CHECK(media_types(images->oci_zstd).find("application/vnd.oci.image.layer.v1.tar+zstd") != std::string::npos);
  CHECK(media_types(images->oci_gzip).find("application/vnd.oci.image.layer.v1.tar+gzip") != std::string::npos);
  CHECK(media_types(images->docker25_save).find("\"application/vnd.oci.image.layer.v1.tar\"") != std::string::npos);
}

TEST_CASE("umoci repack of the image: one more layer, a whiteout umoci wrote") {
  std::string why;
  RealImages* images = Fixtures(&why);
  if (!NeedExternal("real-tool fixtures", images != nullptr, why)) return;
  auto read = ReadRealTool(images->oci_layout_umoci);
  REQUIRE_MESSAGE(read.ok(), imagelint::testing::ErrorText(read));
  CHECK(read->metadata.kind == "oci-layout");
  CHECK(read->layers.size() == 10);
  CHECK(read->tree.Lookup("opt/umoci.txt"));
  CHECK_FALSE(read->tree.Lookup("tmp/saved.again1.txt"));
  CHECK(read->tree.Lookup("root/saved.txt"));
}
