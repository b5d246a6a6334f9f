// The knowledge is current: the rows added for 2025-2026 releases
// load, answer lookups, and say what is unconfirmed instead of guessing.
#include <doctest/doctest.h>

#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge.h"
#include "support/checkout_knowledge.h"

using imagelint::Knowledge;
using nlohmann::json;

namespace {
const Knowledge& LoadedForCurrency() { return imagelint::testing::CheckoutKnowledge(); }
}  // namespace

TEST_CASE("driver branches: R620 LTSB, end of life as of the v620 edition, R580 dispute recorded") {
  const Knowledge& k = LoadedForCurrency();
  const json* r620 = k.FindBranch(620);
  REQUIRE(r620 != nullptr);
  CHECK(r620->at("designation") == "LTSB");
  CHECK(r620->at("eol") == "2029-09");
  CHECK(r620->at("end_of_life") == false);
  CHECK(r620->contains("unconfirmed"));  // native CUDA 13.5 is inferred
  for (auto [branch, eol] : {std::pair{535, "2026-06"}, {570, "2026-02"}, {610, "2026-08"}}) {
    CAPTURE(branch);
    REQUIRE(k.FindBranch(branch) != nullptr);
    CHECK(k.FindBranch(branch)->at("eol") == eol);
    CHECK(k.FindBranch(branch)->at("end_of_life") == true);
  }
  const json* r580 = k.FindBranch(580);
  CHECK(r580->at("eol") == "2028-06");
  CHECK(r580->at("end_of_life") == false);
  CHECK(r580->at("eol_disputed").get<std::string>().find("2028-08") != std::string::npos);
}

TEST_CASE("toolkits: CUDA 13.5.0 as its release notes give it, the toolkit driver still open") {
  const Knowledge& k = LoadedForCurrency();
  const json* cuda135 = k.FindToolkit("13.5");
  REQUIRE(cuda135 != nullptr);
  CHECK(cuda135->at("version") == "13.5.0");
  CHECK(cuda135->at("cudart") == "13.5.37");
  CHECK(cuda135->at("released") == "2026-11");
  CHECK_FALSE(cuda135->contains("toolkit_driver"));  // Table 3 of the 13.5 notes was not read
  CHECK(cuda135->contains("unconfirmed"));
  CHECK(k.FindToolkit("13.5.0") == cuda135);
  CHECK(k.FindToolkit("13.0.2")->at("cudart") == "13.0.96");
  CHECK(k.FindArchitecture("10.7")->at("name") == "Rubin");
  CHECK(k.FindArchitecture("10.7")->at("first_toolkit") == "13.4");
}

TEST_CASE("container toolkit patch releases 1.17.9, 1.18.2, 1.19.1 keep their minor's behaviour") {
  const Knowledge& k = LoadedForCurrency();
  for (auto [patch, previous] : {std::pair{"1.17.9", "1.17.8"}, {"1.18.2", "1.18.1"}, {"1.19.1", "1.19.0"}}) {
    CAPTURE(patch);
    const json* row = k.ToolkitBehaviour(patch);
    const json* before = k.ToolkitBehaviour(previous);
    REQUIRE(row != nullptr);
    CHECK(row->at("version") == patch);
    for (const char* column : {"docker_gpus_compat", "nvidia_runtime_mode", "nvidia_runtime_compat", "cdi_compat",
                               "default_compat_mode", "hook_needs_ld_so_cache"})
      CHECK(row->at(column) == before->at(column));
  }
  CHECK(k.ToolkitBehaviour("1.19.5")->at("version") == "1.19.1");
}

TEST_CASE("GPUs: RTX PRO Blackwell, GeForce RTX 50 and 40 desktop parts are known") {
  const Knowledge& k = LoadedForCurrency();
  for (const char* name : {"NVIDIA RTX PRO 5000 Blackwell", "NVIDIA RTX PRO 4000 Blackwell SFF Edition",
                           "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA GeForce RTX 5070 Ti",
                           "GeForce RTX 5060", "NVIDIA GeForce RTX 5050"}) {
    CAPTURE(name);
    REQUIRE(k.FindGpu(name) != nullptr);
    CHECK(k.FindGpu(name)->at("compute_capability") == "12.0");
  }
  CHECK(k.FindGpu("NVIDIA GeForce RTX 4060 Ti")->at("compute_capability") == "8.9");
  CHECK(k.FindGpu("NVIDIA GeForce RTX 4070 SUPER")->at("forward_compat") == false);
  CHECK(k.FindGpu("NVIDIA RTX 2000 Ada Generation")->at("forward_compat").is_null());  // tri-state unknown
}

TEST_CASE("nvidia/cuda 13.0.1 and later: cudart, requirement and compat library per release") {
  const imagelint::BaseImageKnowledge& images = LoadedForCurrency().base_images();
  const imagelint::CudaImageRelease* r1301 = images.FindCudaRelease("13.0.1");
  REQUIRE(r1301 != nullptr);
  CHECK(r1301->cudart == "13.0.88");
  CHECK(r1301->compat_libcuda == "580.82.07");
  CHECK(r1301->require.rfind("cuda>=13.0 brand=unknown,driver>=535,driver<536", 0) == 0);
  CHECK(images.FindCudaRelease("13.0.2")->compat_libcuda == "580.95.05");
  // Unpinned compat installs of later patch images: the version is marked unconfirmed.
  CHECK(images.FindCudaRelease("13.3.1")->compat_unconfirmed);
  CHECK(images.FindCudaRelease("13.1.2")->require_unconfirmed);
  CHECK(images.FindCudaRelease("13.3")->cuda == "13.3.1");  // minor-only tags: the newest known release
  // Tags recorded in public projects, definitions unread: the requirement is
  // an unknown fact, the compat version marked unconfirmed.
  const imagelint::CudaImageRelease* r1342 = images.FindCudaRelease("13.4.2");
  REQUIRE(r1342 != nullptr);
  CHECK(r1342->cudart == "13.4.92");
  CHECK_FALSE(r1342->require_unread.empty());
  CHECK(r1342->compat_unconfirmed);
  CHECK(images.FindCudaRelease("13.5.0") == nullptr);  // no public record of the tags: unknown, not guessed
}
