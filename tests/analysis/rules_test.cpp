// The built-in rules (rules/cuda.yaml) with the real knowledge files, on
// facts built here through the facts types (include/imagelint/facts.h) and
// written with facts::WriteFacts, so a field no producer emits cannot appear:
// each rule fires on one image/pool and stays quiet on the fixed variant.
// Image-level tests (facts built from real image tarballs) are in
// tests/cli_scan/image_test.cpp.
#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/knowledge.h"
#include "analysis/rules_fixture.h"
#include "report/sample_report.h"
#include "support/facts_schema.h"

using namespace imagelint;
using imagelint::testing::rules_fixture::Binary;
using imagelint::testing::rules_fixture::Driver;
using imagelint::testing::rules_fixture::Findings;
using imagelint::testing::rules_fixture::kSeedFleet;
using imagelint::testing::rules_fixture::RunFacts;
using imagelint::testing::rules_fixture::SeedModel;
using imagelint::testing::rules_fixture::Verdict;
using imagelint::testing::rules_fixture::WithEnv;
using nlohmann::json;
using Model = imagelint::facts::Facts;

namespace {

Model WithoutCompat(Model facts) {
  facts.cuda->drivers = std::vector<facts::Driver>{};
  return facts;
}

}  // namespace

TEST_CASE("seed story: compat libcuda on a GeForce 460 host gives 804; deleting compat fixes it") {
  json report = RunFacts({SeedModel()}, kSeedFleet);
  json geforce = Verdict(report, 0, "rtx3090-460");
  CHECK(geforce["status"] == "fail");
  REQUIRE(geforce["predicted_error"].is_object());
  CHECK(geforce["predicted_error"]["code"] == 804);
  CHECK(geforce["predicted_error"]["name"] == "cudaErrorCompatNotSupportedOnDevice");
  CHECK(geforce["predicted_error"]["stage"] == "cuInit");
  CHECK(geforce["predicted_error"]["rule"] == "IL003");
  json il003 = Findings(report, 0, "IL003");
  REQUIRE(il003.size() == 1);
  CHECK(il003[0]["evidence"][0]["path"] == "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01");
  CHECK(il003[0]["evidence"][0]["layer"] == 1);
  CHECK(il003[0]["evidence"][0]["created_by"] ==
        "/bin/sh -c apt-get install -y cuda-cudart-11-3 cuda-compat-11-3");
  CHECK(il003[0]["fix"].get<std::string>().find("rm -rf /usr/local/cuda-11.3/compat") != std::string::npos);
  // The A100 supports forward compatibility: the same compat library works there.
  json a100 = Verdict(report, 0, "a100-460");
  CHECK(a100["status"] == "pass");
  CHECK(a100["predicted_error"].is_null());

  // A later layer deleted the compat directory: the host's 460 driver runs the
  // 11.3 runtime through minor-version compatibility (a warning, no failure).
  json fixed = RunFacts({WithoutCompat(SeedModel())}, kSeedFleet);
  json after = Verdict(fixed, 0, "rtx3090-460");
  CHECK(after["status"] == "warn");
  CHECK(after["predicted_error"].is_null());
  CHECK(after["rules"] == json::array({"IL010"}));
  CHECK(!analysis::HasFindingsAtOrAbove(testing::Typed(fixed), rules::Severity::kError));

  // The same image on a newer toolkit (1.17.4+: no compat from images with --gpus) passes too.
  json newer = RunFacts({SeedModel()}, R"(pools:
  - name: rtx3090-460-nct1174
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.17.4"
    runtime: docker-gpus
)");
  CHECK(Verdict(newer, 0, "rtx3090-460-nct1174")["predicted_error"].is_null());
}

TEST_CASE("IL001 requirement-unsatisfied: the runtime's own message, only where checked") {
  Model facts = WithEnv(SeedModel(), {{"NVIDIA_REQUIRE_CUDA", "cuda>=11.3"}});
  facts = WithoutCompat(facts);
  const char* fleet = R"(pools:
  - name: t4-460
    gpu: Tesla T4
    driver: "460.106.00"
    container_toolkit: "1.14.0"
    runtime: docker-gpus
  - name: t4-460-cdi
    gpu: Tesla T4
    driver: "460.106.00"
    container_toolkit: "1.18.0"
    runtime: nvidia-runtime
  - name: t4-470
    gpu: Tesla T4
    driver: "470.256.02"
    container_toolkit: "1.14.0"
)";
  json report = RunFacts({facts}, fleet);
  json refused = Verdict(report, 0, "t4-460");
  CHECK(refused["status"] == "fail");
  CHECK(refused["predicted_error"]["name"] == "requirement-unsatisfied");
  CHECK(refused["predicted_error"]["stage"] == "container-start");
  CHECK(refused["predicted_error"]["message"] ==
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.3, please update your driver to a "
        "newer version, or use an earlier cuda container");
  json il001 = Findings(report, 0, "IL001");
  REQUIRE(il001.size() == 1);
  CHECK(il001[0]["pools"] == json::array({"t4-460"}));
  CHECK(il001[0]["evidence"][0]["detail"] == "ENV NVIDIA_REQUIRE_CUDA=cuda>=11.3");
  // jit-cdi (NCT >= 1.18 --runtime=nvidia) does not evaluate requirements; 11.3 then runs by minor-version compat.
  CHECK(Verdict(report, 0, "t4-460-cdi")["predicted_error"].is_null());
  CHECK(Verdict(report, 0, "t4-470")["status"] == "pass");

  // NVIDIA_DISABLE_REQUIRE=true: no check; "yes" is not true for Go's ParseBool.
  json disabled = RunFacts({WithEnv(facts, {{"NVIDIA_DISABLE_REQUIRE", "true"}})}, fleet);
  CHECK(Findings(disabled, 0, "IL001").empty());
  json yes = RunFacts({WithEnv(facts, {{"NVIDIA_DISABLE_REQUIRE", "yes"}})}, fleet);
  CHECK(Findings(yes, 0, "IL001").size() == 1);
}

TEST_CASE("IL002 driver-too-old: a CUDA 12 wheel on a 470 driver gives 35") {
  Model facts = WithoutCompat(SeedModel());
  facts::Runtime wheel;
  wheel.path = "/usr/local/lib/python3.10/dist-packages/nvidia/cuda_runtime/lib/libcudart.so.12";
  wheel.provenance.layer = 2;
  wheel.soname = "libcudart.so.12";
  wheel.version = "12.1.105";
  wheel.source = "pip";
  facts.cuda->runtimes->push_back(wheel);
  const char* fleet = R"(pools:
  - name: t4-470
    gpu: Tesla T4
    driver: "470.256.02"
    container_toolkit: "1.14.0"
  - name: t4-535
    gpu: Tesla T4
    driver: "535.216.03"
    container_toolkit: "1.14.0"
)";
  json report = RunFacts({facts}, fleet);
  json old = Verdict(report, 0, "t4-470");
  CHECK(old["status"] == "fail");
  CHECK(old["predicted_error"]["code"] == 35);
  CHECK(old["predicted_error"]["name"] == "cudaErrorInsufficientDriver");
  json il002 = Findings(report, 0, "IL002");
  REQUIRE(il002.size() == 1);
  CHECK(il002[0]["pools"] == json::array({"t4-470"}));
  CHECK(il002[0]["evidence"][0]["path"] ==
        "/usr/local/lib/python3.10/dist-packages/nvidia/cuda_runtime/lib/libcudart.so.12");
  CHECK(il002[0]["evidence"][0]["created_by"] == "/bin/sh -c pip install torch==1.12.1+cu113");
  // IL009: the image says cuda>=11.3 but ships 12.1.
  json il009 = Findings(report, 0, "IL009");
  REQUIRE(il009.size() == 1);
  CHECK(il009[0]["message"].get<std::string>().find("declares CUDA 11.3") != std::string::npos);
  CHECK(il009[0]["message"].get<std::string>().find("ships CUDA 12.1") != std::string::npos);
  // 535 runs 12.1 through minor-version compatibility: no failure.
  CHECK(Verdict(report, 0, "t4-535")["predicted_error"].is_null());
  CHECK(Findings(RunFacts({WithoutCompat(SeedModel())}, fleet), 0, "IL002").empty());
}

// A base image only partly in the tables (an NGC release): its libcuda copies
// are unknown. On a data-center GPU a forward-compat copy could lift the
// host's limit, so 35 is not certain there; on a GeForce it is (without a
// compat copy 35, with one 804: it fails either way).
TEST_CASE("IL002 with the image's libcuda copies unknown: undecided where forward compatibility could apply") {
  Model facts = WithoutCompat(SeedModel());
  facts.cuda->drivers.reset();  // not known, as opposed to known to be none
  facts.cuda->runtimes->at(0).version = "12.3.101";
  facts.cuda->runtimes->at(0).provenance.origin = "base-image";  // the base's own CUDA release
  const char* fleet = R"(pools:
  - name: t4-470
    gpu: Tesla T4
    driver: "470.256.02"
    container_toolkit: "1.14.0"
  - name: rtx3090-470
    gpu: NVIDIA GeForce RTX 3090
    driver: "470.256.02"
    container_toolkit: "1.14.0"
)";
  json report = RunFacts({facts}, fleet);
  CHECK(Verdict(report, 0, "rtx3090-470")["predicted_error"]["code"] == 35);
  json t4 = Verdict(report, 0, "t4-470");
  CHECK(t4["status"] == "undecided");
  CHECK(t4["undetermined"].dump().find("IL002") != std::string::npos);  // with IL005/IL006, which need the copies too
  json il002 = Findings(report, 0, "IL002");
  bool unknown_on_t4 = false;
  for (const auto& finding : il002)
    if (finding["pools"] == json::array({"t4-470"})) {
      unknown_on_t4 = finding["unknown"] == true;
      CHECK(finding["missing_facts"].dump().find("cuda.drivers") != std::string::npos);
    }
  CHECK(unknown_on_t4);
  // The same facts with the copies known to be none: 35 on both.
  json known = RunFacts({WithoutCompat(facts)}, fleet);
  CHECK(Verdict(known, 0, "t4-470")["predicted_error"]["code"] == 35);
  // A runtime a later line added (a pip wheel's): the base's compat library,
  // if any, is of the base's release and does not cover it: 35 on both.
  facts.cuda->runtimes->at(0).provenance.origin = "instruction";
  json wheel = RunFacts({facts}, fleet);
  CHECK(Verdict(wheel, 0, "t4-470")["predicted_error"]["code"] == 35);
  // Unless the base is an nvidia/cuda tag of the wheel's release or later,
  // whose compat library (if it ships one) runs that runtime too.
  facts.image.base.emplace();
  facts.image.base->kind = facts::BaseKind::kNvidiaCuda;
  facts.image.base->cuda_tag_version = "12.4.1";
  CHECK(Verdict(RunFacts({facts}, fleet), 0, "t4-470")["status"] == "undecided");
  facts.image.base->cuda_tag_version = "12.2.2";
  CHECK(Verdict(RunFacts({facts}, fleet), 0, "t4-470")["predicted_error"]["code"] == 35);
  // A CUDA 13 runtime on the newer base: every 13.x package shipped after
  // R470's end of life and leaves it out, so no compat library could lift
  // the limit: 35.
  facts.image.base->cuda_tag_version = "13.4.0";
  facts.cuda->runtimes->at(0).version = "13.0.88";
  CHECK(Verdict(RunFacts({facts}, fleet), 0, "t4-470")["predicted_error"]["code"] == 35);
}

TEST_CASE("IL004 system-driver-mismatch: an older compat forced through LD_LIBRARY_PATH gives 803") {
  Model facts = WithEnv(SeedModel(), {{"LD_LIBRARY_PATH", "/usr/local/cuda/compat:/usr/local/nvidia/lib64"}});
  facts.cuda->loader->ld_library_path = std::vector<std::string>{"/usr/local/cuda/compat", "/usr/local/nvidia/lib64"};
  const char* fleet = R"(pools:
  - name: a100-535
    gpu: NVIDIA A100-SXM4-40GB
    driver: "535.216.03"
    container_toolkit: "1.17.8"
)";
  json report = RunFacts({facts}, fleet);
  json verdict = Verdict(report, 0, "a100-535");
  CHECK(verdict["status"] == "fail");
  CHECK(verdict["predicted_error"]["code"] == 803);
  json il004 = Findings(report, 0, "IL004");
  REQUIRE(il004.size() == 1);
  CHECK(il004[0]["message"].get<std::string>().find("via LD_LIBRARY_PATH") != std::string::npos);
  // Without the forced path, the toolkit ignores the older compat library.
  CHECK(Verdict(RunFacts({SeedModel()}, fleet), 0, "a100-535")["predicted_error"].is_null());
}

TEST_CASE("IL005 stub-driver-on-loader-path: 34 when the stub is what a process loads") {
  Model facts = WithoutCompat(SeedModel());
  facts.cuda->drivers->push_back(Driver("/usr/local/cuda-11.3/targets/x86_64-linux/lib/stubs/libcuda.so", 1, "stub",
                                        std::nullopt,
                                        {"/usr/local/cuda-11.3/targets/x86_64-linux/lib/stubs/libcuda.so.1"}));
  facts.cuda->loader->ld_library_path = std::vector<std::string>{"/usr/local/cuda/lib64/stubs"};
  facts = WithEnv(facts, {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64/stubs"}});
  const char* fleet = R"(pools:
  - name: a100-535
    gpu: NVIDIA A100-SXM4-40GB
    driver: "535.216.03"
)";
  json report = RunFacts({facts}, fleet);
  json verdict = Verdict(report, 0, "a100-535");
  CHECK(verdict["predicted_error"]["code"] == 34);
  CHECK(verdict["predicted_error"]["name"] == "cudaErrorStubLibrary");
  json il005 = Findings(report, 0, "IL005");
  REQUIRE(il005.size() == 1);
  CHECK(il005[0]["severity"] == "error");
  // Stubs only on LIBRARY_PATH (link time): quiet.
  Model fixed = WithoutCompat(SeedModel());
  fixed.cuda->drivers = facts.cuda->drivers;
  CHECK(Findings(RunFacts({fixed}, fleet), 0, "IL005").empty());
}

TEST_CASE("IL006 driver-library-baked-in: a warning, and the failure where it wins") {
  Model facts = WithoutCompat(SeedModel());
  facts.cuda->drivers->push_back(Driver("/usr/lib/x86_64-linux-gnu/libcuda.so.535.216.03", 2, "bundled",
                                        "535.216.03", {"/usr/lib/x86_64-linux-gnu/libcuda.so.1"}));
  const char* fleet = R"(pools:
  - name: rtx3090-470
    gpu: NVIDIA GeForce RTX 3090
    driver: "470.256.02"
  - name: a100-550
    gpu: NVIDIA A100-SXM4-40GB
    driver: "550.127.05"
)";
  json report = RunFacts({facts}, fleet);
  json il006 = Findings(report, 0, "IL006");
  REQUIRE(il006.size() == 2);
  // Newer than the GeForce host's driver in the same directory: it wins -> 804.
  json geforce = Verdict(report, 0, "rtx3090-470");
  CHECK(geforce["status"] == "fail");
  CHECK(geforce["predicted_error"]["code"] == 804);
  // Older than 550: the host library wins; still a warning.
  json a100 = Verdict(report, 0, "a100-550");
  CHECK(a100["status"] == "warn");
  CHECK(a100["rules"] == json::array({"IL006"}));
  CHECK(Findings(RunFacts({WithoutCompat(SeedModel())}, fleet), 0, "IL006").empty());
}

TEST_CASE("IL007 no-kernel-image and IL008 ptx-too-new") {
  Model facts = WithoutCompat(SeedModel());
  facts.binaries = std::vector<facts::Binary>{
      Binary("/opt/torch/lib/libtorch_cuda.so", 2, {"libcudart.so.11.0"}, {"sm_37", "sm_50", "sm_60", "sm_70"}, {}),
      Binary("/opt/app/jit.so", 2, {}, {}, {{"compute_80", "8.4"}})};
  const char* fleet = R"(pools:
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
  - name: v100-460
    gpu: Tesla V100-SXM2-16GB
    driver: "460.32.03"
)";
  json report = RunFacts({facts}, fleet);
  json il007 = Findings(report, 0, "IL007");
  REQUIRE(il007.size() == 2);  // libtorch_cuda on the A100; jit.so (PTX 8.0 only) on the V100
  CHECK(il007[0]["evidence"][0]["path"] == "/opt/torch/lib/libtorch_cuda.so");
  CHECK(il007[0]["pools"] == json::array({"a100-460"}));
  CHECK(il007[1]["evidence"][0]["path"] == "/opt/app/jit.so");
  CHECK(il007[1]["pools"] == json::array({"v100-460"}));
  json il008 = Findings(report, 0, "IL008");
  REQUIRE(il008.size() == 1);  // PTX ISA 8.4 (CUDA 12.4) cannot be JIT-compiled by 460 on the A100
  CHECK(il008[0]["pools"] == json::array({"a100-460"}));
  json a100 = Verdict(report, 0, "a100-460");
  CHECK(a100["predicted_error"]["stage"] == "kernel-load");
  CHECK(a100["predicted_error"]["code"] == 209);
  // SASS for both GPUs: quiet.
  Model fixed = WithoutCompat(SeedModel());
  fixed.binaries = std::vector<facts::Binary>{Binary("/opt/app/k.so", 2, {}, {"sm_70", "sm_80"}, {{"compute_80", "8.4"}})};
  json quiet = RunFacts({fixed}, fleet);
  CHECK(Findings(quiet, 0, "IL007").empty());
  CHECK(Findings(quiet, 0, "IL008").empty());
}

TEST_CASE("IL009 requirement-below-contents stays quiet when the requirement matches") {
  json report = RunFacts({WithoutCompat(SeedModel())}, kSeedFleet);
  CHECK(Findings(report, 0, "IL009").empty());
  // Legacy image (CUDA_VERSION only) with a newer torch.
  Model legacy = WithoutCompat(SeedModel());
  legacy.image.env.erase("NVIDIA_REQUIRE_CUDA");
  legacy = WithEnv(legacy, {{"CUDA_VERSION", "10.2"}});  // requirements: legacy, cuda>=10.2
  REQUIRE(legacy.cuda->requirements->legacy == true);
  REQUIRE(legacy.cuda->requirements->legacy_cuda_version == "10.2");
  facts::Framework torch;
  torch.name = "torch";
  torch.version = "1.12.1+cu113";
  torch.cuda = "11.3";
  torch.path = "/usr/lib/python3/dist-packages/torch/version.py";
  torch.provenance.layer = 2;
  legacy.frameworks = std::vector<facts::Framework>{torch};
  json fired = RunFacts({legacy}, kSeedFleet);
  json il009 = Findings(fired, 0, "IL009");
  REQUIRE(il009.size() == 1);
  CHECK(il009[0]["message"].get<std::string>().find("declares CUDA 10.2 (CUDA_VERSION)") != std::string::npos);
}

TEST_CASE("IL011 gpu-unsupported-by-driver and IL013 platform-mismatch") {
  const char* fleet = R"(pools:
  - name: p100-590
    gpu: Tesla P100-PCIE-16GB
    driver: "590.44.01"
  - name: p100-580
    gpu: Tesla P100-PCIE-16GB
    driver: "580.95.05"
  - name: gh200
    compute_capability: "9.0"
    brand: nvidia
    datacenter: true
    driver: "570.124.06"
    platform: linux/arm64
)";
  json report = RunFacts({WithoutCompat(SeedModel())}, fleet);
  json p590 = Verdict(report, 0, "p100-590");
  CHECK(p590["status"] == "fail");
  CHECK(p590["predicted_error"]["code"] == 100);
  CHECK(Verdict(report, 0, "p100-580")["predicted_error"].is_null());
  json gh200 = Verdict(report, 0, "gh200");
  CHECK(gh200["predicted_error"]["name"] == "exec-format-error");
  CHECK(gh200["predicted_error"]["stage"] == "container-start");
  json il013 = Findings(report, 0, "IL013");
  REQUIRE(il013.size() == 1);
  CHECK(il013[0]["message"].get<std::string>().find("linux/amd64 but the hosts of gh200 are linux/arm64") !=
        std::string::npos);
  Model arm = WithoutCompat(SeedModel());
  arm.image.architecture = "arm64";
  CHECK(Verdict(RunFacts({arm}, fleet), 0, "gh200")["predicted_error"].is_null());
}

TEST_CASE("IL012 missing-cuda-runtime") {
  Model facts = WithoutCompat(SeedModel());
  facts.cuda->runtimes = std::vector<facts::Runtime>{};
  json report = RunFacts({facts}, kSeedFleet);
  json il012 = Findings(report, 0, "IL012");
  REQUIRE(il012.size() == 1);
  CHECK(il012[0]["scope"] == "image");
  CHECK(il012[0]["evidence"][0]["path"] == "/opt/app/libkernels.so");
  CHECK(il012[0]["predicted_error"]["name"] == "library-not-found");
  CHECK(Verdict(report, 0, "rtx3090-460")["predicted_error"]["stage"] == "process-start");
  CHECK(Findings(RunFacts({WithoutCompat(SeedModel())}, kSeedFleet), 0, "IL012").empty());
}

TEST_CASE("IL014 cuda-runtime-off-loader-path") {
  Model facts = WithoutCompat(SeedModel());
  facts::Binary program = Binary("/opt/app/bin/train", 2, {"libcudart.so.11.0", "libc.so.6"}, {"sm_80"}, {});
  program.type = "exec";
  program.cudart_lookup = facts::CudartLookup{
      "libcudart.so.11.0", {}, {}, {"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64", "/usr/lib"}, std::nullopt};
  facts.binaries->push_back(program);
  json report = RunFacts({facts}, kSeedFleet);
  json il014 = Findings(report, 0, "IL014");
  REQUIRE(il014.size() == 1);
  CHECK(il014[0]["evidence"][0]["path"] == "/opt/app/bin/train");
  std::string message = il014[0]["message"].get<std::string>();
  CHECK(message.find("/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.0") != std::string::npos);
  CHECK(message.find("searches only /usr/local/nvidia/lib, /usr/local/nvidia/lib64, /usr/lib") != std::string::npos);
  CHECK(il014[0]["predicted_error"]["name"] == "library-not-found");
  CHECK(il014[0]["fix"].get<std::string>().find("/usr/local/cuda-11.3/targets/x86_64-linux/lib") != std::string::npos);
  CHECK(Findings(report, 0, "IL012").empty());  // the file exists: IL012 stays quiet

  // Found by the loader, undecidable search path, or no libcudart in the image at all: not IL014.
  Model found = facts;
  (*found.binaries)[1].cudart_lookup->found = "/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.0";
  (*found.binaries)[1].cudart_lookup->via = "ld.so.conf";
  CHECK(Findings(RunFacts({found}, kSeedFleet), 0, "IL014").empty());
  Model incomplete = facts;
  (*incomplete.binaries)[1].cudart_lookup->incomplete = true;
  CHECK(Findings(RunFacts({incomplete}, kSeedFleet), 0, "IL014").empty());
  Model absent = facts;
  absent.cuda->runtimes = std::vector<facts::Runtime>{};
  json absent_report = RunFacts({absent}, kSeedFleet);
  CHECK(Findings(absent_report, 0, "IL014").empty());
  CHECK(Findings(absent_report, 0, "IL012").size() == 2);  // that is IL012's case, for both binaries
  CHECK(Findings(RunFacts({WithoutCompat(SeedModel())}, kSeedFleet), 0, "IL014").empty());
}

TEST_CASE("unknown GPU class: cannot tell, never a silent pass") {
  json report = RunFacts({SeedModel()}, R"(pools:
  - name: mystery-460
    compute_capability: "8.6"
    driver: "460.67"
    container_toolkit: "1.4.0"
)");
  json verdict = Verdict(report, 0, "mystery-460");
  CHECK(verdict["status"] == "undecided");  // not a warning in disguise
  CHECK(verdict["undetermined"] == json::array({"IL003"}));
  json il003 = Findings(report, 0, "IL003");
  REQUIRE(il003.size() == 1);
  CHECK(il003[0]["unknown"] == true);
}

TEST_CASE("facts without a cuda part: every pool rule says cannot tell or passes, nothing crashes") {
  Model bare;
  bare.image.ref = "bare";
  bare.image.kind = "rootfs";
  bare.image.os = "linux";
  bare.image.architecture = "amd64";
  json report = RunFacts({bare}, kSeedFleet);
  json verdict = Verdict(report, 0, "rtx3090-460");
  CHECK(verdict["status"] == "undecided");  // not a warning in disguise
  CHECK(verdict["predicted_error"].is_null());
  CHECK(!verdict["undetermined"].empty());
  for (const auto& finding : report["images"][0]["findings"]) CHECK(finding["unknown"] == true);
}

TEST_CASE("malformed facts are tool errors naming the rule, not crashes") {
  // Malformed on purpose: no producer writes this, so it is made from the written facts.
  json facts = imagelint::testing::rules_fixture::BaseFacts();
  facts["binaries"] = "not a list";
  const Knowledge& knowledge = imagelint::testing::rules_fixture::TestKnowledge();
  auto fleet = ParseFleet(kSeedFleet, "fleet.yaml", knowledge);
  REQUIRE(fleet.ok());
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE(rule_set.ok());
  auto report = analysis::Analyze({facts}, *fleet, *rule_set, analysis::DefaultFunctions(knowledge));
  REQUIRE(!report.ok());
  CHECK(report.error().message.find("'foreach' needs a list") != std::string::npos);
}

TEST_CASE("the rule tests' facts are what the producers write: they follow docs/facts-schema.json") {
  Model legacy = WithEnv(WithoutCompat(SeedModel()), {{"CUDA_VERSION", "10.2"}, {"NVIDIA_DISABLE_REQUIRE", "yes"}});
  legacy.image.env.erase("NVIDIA_REQUIRE_CUDA");
  imagelint::testing::CheckFactsSchema({{"seed", facts::WriteFacts(SeedModel())},
                                        {"legacy", facts::WriteFacts(WithEnv(legacy, {}))}});
}

TEST_CASE("IL007/IL008 on code nothing loads are notes; modules without kernels never fail") {
  Model facts = WithoutCompat(SeedModel());
  facts::Binary cupti =
      Binary("/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/libcupti.so.11.0", 2, {}, {"sm_75"}, {});
  cupti.reachable = false;
  cupti.unreachable_reason = "not on any load path of this image";
  facts::Binary cufftw = Binary("/usr/local/cuda-12.4/lib64/libcufftw.so.11", 2, {}, {"sm_52"}, {});
  cufftw.reachable = true;
  facts::Fatbin fatbin;
  fatbin.containers = 1;
  fatbin.entries = 1;
  fatbin.sass = {facts::ArchCount{.arch = "sm_52", .count = 1, .kernels = 0}};
  cufftw.fatbin = fatbin;
  facts.binaries = std::vector<facts::Binary>{cupti, cufftw};
  const char* fleet = R"(pools:
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
)";
  json report = RunFacts({facts}, fleet);
  json il007 = Findings(report, 0, "IL007");
  REQUIRE(il007.size() == 1);  // the CUPTI copy, as a note; the kernel-less cuFFTW not at all
  CHECK(il007[0]["severity"] == "note");
  CHECK(il007[0]["message"].get<std::string>().find("Not on any load path of this image") != std::string::npos);
  json a100 = Verdict(report, 0, "a100-460");
  CHECK(a100["predicted_error"].is_null());
  CHECK(a100["status"] != "fail");

  // The same CUPTI copy loaded by something: an error again.
  facts.binaries->at(0).reachable = true;
  json loaded = RunFacts({facts}, fleet);
  REQUIRE(Findings(loaded, 0, "IL007").size() == 1);
  CHECK(Findings(loaded, 0, "IL007")[0]["severity"] == "error");
  CHECK(Verdict(loaded, 0, "a100-460")["predicted_error"]["code"] == 209);

  // cuFFTW without kernel counts (facts of an older imagelint): known kernel-less shape.
  facts.binaries->at(0).reachable = false;
  facts.binaries->at(1).fatbin->sass[0].kernels.reset();
  CHECK(Findings(RunFacts({facts}, fleet), 0, "IL007").size() == 1);
  // Two containers: not the known shape, so the counts are needed.
  facts.binaries->at(1).fatbin->containers = 2;
  CHECK(Findings(RunFacts({facts}, fleet), 0, "IL007").size() == 2);
}

// Pools that differ only by name share their libcuda/driver_compat results
// within an image (analysis/pool_memo.h): each still gets its own finding,
// naming it, and a pool with other hardware is worked out on its own.
TEST_CASE("pools alike but for their names: the same verdict, each finding names its pool") {
  json report = RunFacts({SeedModel(), WithoutCompat(SeedModel())}, R"(pools:
  - name: geforce-a
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
  - name: geforce-b
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
  - name: a100
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.67"
)");
  for (const char* pool : {"geforce-a", "geforce-b"}) {
    json verdict = Verdict(report, 0, pool);
    REQUIRE(verdict["predicted_error"].is_object());
    CHECK(verdict["predicted_error"]["code"] == 804);
  }
  CHECK(Verdict(report, 0, "a100")["predicted_error"].is_null());
  json il003 = Findings(report, 0, "IL003");
  size_t named_a = 0, named_b = 0;
  for (const auto& finding : il003) {
    const std::string message = finding["message"];
    named_a += message.find("geforce-a") != std::string::npos;
    named_b += message.find("geforce-b") != std::string::npos;
  }
  CHECK(named_a == 1);
  CHECK(named_b == 1);
  // The second image (no compat library) is not answered from the first's results.
  CHECK(Verdict(report, 1, "geforce-a")["predicted_error"].is_null());
  CHECK(Findings(report, 1, "IL003").empty());
}

// Images are analysed side by side (AnalyzeOptions::jobs): the report is the
// same for any number of threads, and of several broken images the error is
// the first in input order, as one thread would find it.
TEST_CASE("images analysed side by side: one report for any number of threads, the first error in input order") {
  const Knowledge& knowledge = imagelint::testing::rules_fixture::TestKnowledge();
  auto fleet = ParseFleet(kSeedFleet, "fleet.yaml", knowledge);
  REQUIRE(fleet.ok());
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE(rule_set.ok());
  const rules::FunctionRegistry functions = analysis::DefaultFunctions(knowledge);
  auto analyse = [&](const std::vector<json>& facts, int jobs) {
    analysis::AnalyzeOptions options;
    options.jobs = jobs;
    return analysis::Analyze(facts, *fleet, *rule_set, functions, options);
  };
  std::vector<json> estate;
  for (int i = 0; i < 24; ++i)
    estate.push_back(facts::WriteFacts(i % 3 == 0 ? SeedModel() : WithoutCompat(SeedModel())));
  auto one = analyse(estate, 1);
  REQUIRE(one.ok());
  for (int jobs : {2, 5, 64}) {
    auto many = analyse(estate, jobs);
    REQUIRE(many.ok());
    CHECK(many->dump() == one->dump());
  }
  CHECK(Verdict(*one, 0, "rtx3090-460")["predicted_error"]["code"] == 804);
  CHECK(Verdict(*one, 1, "rtx3090-460")["predicted_error"].is_null());

  // Two broken images, each failing with its own message: the earlier one is reported.
  estate[17]["binaries"] = "not a list";
  estate[5]["cuda"]["runtimes"] = "not a list";
  auto first = analyse(estate, 1);
  REQUIRE(!first.ok());
  for (int jobs : {2, 5, 64}) {
    auto many = analyse(estate, jobs);
    REQUIRE(!many.ok());
    CHECK(many.error().ToString() == first.error().ToString());
  }
  estate[5] = facts::WriteFacts(SeedModel());
  auto later = analyse(estate, 4);
  REQUIRE(!later.ok());
  CHECK(later.error().ToString() != first.error().ToString());
  CHECK(later.error().message.find("'foreach' needs a list") != std::string::npos);
}
