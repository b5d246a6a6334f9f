// IL015 forward-compat-disputed: where NVIDIA's forward-compat matrix and an
// official image's NVIDIA_REQUIRE_CUDA disagree about the host branch and no
// ELF note of the compat library settles it, a warning naming both sources;
// where the note is known it decides (quiet, or IL004 when it excludes the branch).
#include <doctest/doctest.h>

#include "imagelint/image_knowledge.h"
#include "rules_fixture.h"

using namespace imagelint;
using namespace imagelint::testing::rules_fixture;

namespace {

// The facts of an official nvidia/cuda runtime image, from its base-images.yaml
// row: environment, libcudart and the compat libcuda where the images put them.
facts::Facts OfficialImage(const std::string& cuda) {
  const CudaImageRelease* release = TestKnowledge().base_images().FindCudaRelease(cuda);
  REQUIRE(release != nullptr);
  std::string mm = cuda.substr(0, cuda.rfind('.'));
  std::string home = "/usr/local/cuda-" + mm;
  facts::Facts f = SeedModel();
  f.image.ref = "nvidia/cuda:" + cuda + "-runtime-ubuntu22.04";
  f.image.env.erase("NV_CUDA_COMPAT_PACKAGE");
  f.image.env["CUDA_VERSION"] = cuda;
  f = WithEnv(f, {{"NVIDIA_REQUIRE_CUDA", release->require}});
  facts::Runtime& runtime = f.cuda->runtimes->front();
  runtime.path = home + "/targets/x86_64-linux/lib/libcudart.so." + release->cudart;
  runtime.soname = "libcudart.so.12";
  runtime.version = release->cudart;
  runtime.aliases = std::vector<std::string>{home + "/targets/x86_64-linux/lib/libcudart.so.12"};
  f.cuda->drivers = std::vector<facts::Driver>{Driver(home + "/compat/libcuda.so." + release->compat_libcuda, 1,
                                                      "compat", release->compat_libcuda,
                                                      {home + "/compat/libcuda.so.1"})};
  f.cuda->drivers->back().source = "filename";
  f.cuda->drivers->back().toolkit_dir = mm;
  f.binaries = std::vector<facts::Binary>{};
  return f;
}

constexpr const char* kFleet = R"(pools:
  - name: t4-470
    gpu: Tesla T4
    driver: "470.256.02"
    container_toolkit: "1.17.8"
    runtime: docker-gpus
  - name: h100-550
    gpu: NVIDIA H100 80GB HBM3
    driver: "550.127.05"
    container_toolkit: "1.17.8"
    runtime: docker-gpus
)";

json PoolFindings(const json& report, const std::string& rule, const std::string& pool) {
  json out = json::array();
  for (const auto& finding : Findings(report, 0, rule))
    for (const auto& name : finding.value("pools", json::array()))
      if (name == pool) out.push_back(finding);
  return out;
}

json Il015(const json& report, const std::string& pool) { return PoolFindings(report, "IL015", pool); }

}  // namespace

TEST_CASE("IL015 fires where the matrix and the image's requirement disagree: 12.x images on R470 and R550") {
  // 12.4.1: requirement lists R470 (and R535), the 12.4 matrix only R535.
  json report = Run({facts::WriteFacts(OfficialImage("12.4.1"))}, kFleet);
  json t4 = Il015(report, "t4-470");
  REQUIRE(t4.size() == 1);
  CHECK(t4[0]["severity"] == "warning");
  std::string message = t4[0]["message"];
  CAPTURE(message);
  CHECK(message.find("forward-compatibility matrix (S2") != std::string::npos);
  CHECK(message.find("NVIDIA_REQUIRE_CUDA admits it (brand=") != std::string::npos);
  CHECK(message.find("driver>=470,driver<471") != std::string::npos);
  CHECK(Findings(report, 0, "IL004").empty());  // a disputed fact is never the 803 error
  CHECK(Verdict(report, 0, "t4-470")["predicted_error"].is_null());

  // 12.6.3: requirement lists R550, the 12.6 matrix only R535.
  json h100 = Run({facts::WriteFacts(OfficialImage("12.6.3"))}, kFleet);
  REQUIRE(Il015(h100, "h100-550").size() == 1);
  CHECK(Il015(h100, "h100-550")[0]["message"].get<std::string>().find("R550") != std::string::npos);
  CHECK(Findings(h100, 0, "IL004").empty());
  CHECK(Il015(h100, "t4-470").size() == 1);  // 12.6.3 lists R470 too
}

TEST_CASE("IL015 is quiet where the compat library's ELF note decides") {
  // 12.9.1: compat libcuda 575.57.08, whose note lists 535, 550, 560, 565, 570, 575.
  json report = Run({facts::WriteFacts(OfficialImage("12.9.1"))}, kFleet);
  CHECK(Il015(report, "h100-550").empty());  // listed: runs, nothing to report
  CHECK(PoolFindings(report, "IL004", "h100-550").empty());
  CHECK(Verdict(report, 0, "h100-550")["predicted_error"].is_null());
  CHECK(Il015(report, "t4-470").empty());  // not listed: the note decides (below)

  // The note carried by the image itself decides the same way, and wins over the requirement.
  facts::Facts with_note = OfficialImage("12.4.1");
  with_note.cuda->drivers->back().note = json{{"CUDA Version", "12.4"}, {"Driver", {470, 535, 550}}};
  CHECK(Il015(Run({facts::WriteFacts(with_note)}, kFleet), "t4-470").empty());
  with_note.cuda->drivers->back().note = json{{"CUDA Version", "12.4"}, {"Driver", {535, 550}}};
  json excluded = Run({facts::WriteFacts(with_note)}, kFleet);
  CHECK(Il015(excluded, "t4-470").empty());
  json il004 = Findings(excluded, 0, "IL004");
  REQUIRE_FALSE(il004.empty());
  CHECK(il004[0]["message"].get<std::string>().find(".note.cuda.fwd_compatibility") != std::string::npos);
}

TEST_CASE("the ELF note recorded in compat-libraries.yaml excludes R470 for 575.57.08: IL004, not IL015") {
  const char* fleet = R"(pools:
  - name: t4-470
    gpu: Tesla T4
    driver: "470.256.02"
    container_toolkit: "1.18.1"
    runtime: nvidia-runtime
)";
  // Requirements are not checked on this launch path (jit-cdi), so the compat decision is what counts.
  json report = Run({facts::WriteFacts(OfficialImage("12.9.1"))}, fleet);
  CHECK(Findings(report, 0, "IL015").empty());
  json il004 = Findings(report, 0, "IL004");
  REQUIRE(il004.size() == 1);
  CHECK(il004[0]["message"].get<std::string>().find("compat-libraries.yaml") != std::string::npos);
}
