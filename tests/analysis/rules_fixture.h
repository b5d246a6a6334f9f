// Shared by the rule tests: a CUDA 11.3-style facts model (the seed story's
// image) built through the facts types, and running the built-in rules with
// the real knowledge files over facts and a fleet written in the test.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "imagelint/analysis.h"
#include "imagelint/facts.h"
#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "imagelint/rules.h"
#include "imagelint/image_env.h"
#include "support/checkout_knowledge.h"
#include "support/test_support.h"

namespace imagelint::testing::rules_fixture {

using nlohmann::json;

// Two pools on driver 460 (CUDA 11.2): a GeForce, where forward compatibility
// is refused, and a data-centre A100, where it works.
inline constexpr const char* kSeedFleet = R"(pools:
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
  - name: a100-460
    gpu: NVIDIA A100-SXM4-40GB
    driver: "460.32.03"
    container_toolkit: "1.4.0"
    runtime: docker-gpus
)";

// Rows the rule tests add, with the fields the image producer fills.
inline facts::Driver Driver(const std::string& path, uint64_t layer, const std::string& kind,
                            std::optional<std::string> version, std::vector<std::string> aliases) {
  facts::Driver row;
  row.provenance.layer = layer;
  row.path = path;
  row.kind = kind;
  row.version = version;
  row.aliases = std::move(aliases);
  return row;
}

inline facts::Binary Binary(const std::string& path, uint64_t layer, std::vector<std::string> needed,
                            std::vector<std::string> sass, std::vector<facts::Ptx> ptx) {
  facts::Binary row;
  row.provenance.layer = layer;
  row.path = path;
  row.needed = std::move(needed);
  row.sass = std::move(sass);
  row.ptx = std::move(ptx);
  return row;
}

// FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04 + a CUDA library built for
// sm_80/sm_86: libcudart 11.3.109, the cuda-compat-11-3 libcuda 465.19.01.
// Built through the facts types (include/imagelint/facts.h), so a rule test
// can only use fields the producers emit.
inline facts::Facts SeedModel() {
  facts::Facts f;
  f.image.ref = "seed:11.3";
  f.image.digest = "sha256:5eed";
  f.image.kind = "docker-archive";
  f.image.os = "linux";
  f.image.architecture = "amd64";
  f.image.env = {
      {"PATH", "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin"},
      {"CUDA_VERSION", "11.3.1"},
      {"NVIDIA_REQUIRE_CUDA",
       "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450"},
      {"NVIDIA_VISIBLE_DEVICES", "all"},
      {"NVIDIA_DRIVER_CAPABILITIES", "compute,utility"},
      {"LD_LIBRARY_PATH", "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"},
      {"NV_CUDA_COMPAT_PACKAGE", "cuda-compat-11-3"}};
  for (const auto& [digest, created_by] :
       std::vector<std::pair<std::string, std::string>>{
           {"sha256:l0", "/bin/sh -c #(nop) ADD file:ubuntu in / "},
           {"sha256:l1", "/bin/sh -c apt-get install -y cuda-cudart-11-3 cuda-compat-11-3"},
           {"sha256:l2", "/bin/sh -c pip install torch==1.12.1+cu113"}}) {
    facts::Layer layer;
    layer.digest = digest;
    layer.created_by = created_by;
    f.image.layers.push_back(layer);
  }
  facts::Cuda cuda;
  facts::Runtime runtime;
  runtime.provenance.layer = 1;
  runtime.path = "/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.3.109";
  runtime.soname = "libcudart.so.11.0";
  runtime.version = "11.3.109";
  runtime.source = "filename";
  runtime.aliases = std::vector<std::string>{"/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.0"};
  cuda.runtimes = std::vector<facts::Runtime>{runtime};
  cuda.drivers = std::vector<facts::Driver>{Driver("/usr/local/cuda-11.3/compat/libcuda.so.465.19.01", 1, "compat",
                                                   "465.19.01", {"/usr/local/cuda-11.3/compat/libcuda.so.1"})};
  cuda.drivers->back().source = "filename";
  cuda.drivers->back().toolkit_dir = "11.3";
  cuda.drivers->back().note = json::object();
  cuda.requirements = nvidia::RequirementsFromEnv(f.image.env);
  facts::Loader loader;
  loader.ld_library_path = std::vector<std::string>{"/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"};
  facts::LdSoConfEntry conf;
  conf.provenance.layer = 1;
  conf.dir = "/usr/local/cuda-11.3/targets/x86_64-linux/lib";
  conf.file = "/etc/ld.so.conf.d/000_cuda.conf";
  loader.ld_so_conf = std::vector<facts::LdSoConfEntry>{conf};
  loader.libcuda_candidates = std::vector<facts::LibcudaCandidate>{};
  cuda.loader = loader;
  f.cuda = cuda;
  f.binaries = std::vector<facts::Binary>{Binary("/opt/app/libkernels.so", 2, {"libcudart.so.11.0", "libc.so.6"},
                                                 {"sm_60", "sm_70", "sm_75", "sm_80", "sm_86"},
                                                 {{"compute_86", "7.3"}})};
  f.frameworks = std::vector<facts::Framework>{};
  return f;
}

// The seed facts as the rules read them.
inline json BaseFacts() { return facts::WriteFacts(SeedModel()); }

// facts with image.env entries set and cuda.requirements derived from the
// env as both producers derive it (nvidia::RequirementsFromEnv).
inline facts::Facts WithEnv(facts::Facts f, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) f.image.env[key] = value;
  if (!f.cuda) f.cuda.emplace();
  f.cuda->requirements = nvidia::RequirementsFromEnv(f.image.env);
  return f;
}

inline const Knowledge& TestKnowledge() { return imagelint::testing::CheckoutKnowledge(); }

// Built-in rules + real knowledge over `facts` and a fleet YAML.
inline json Run(const std::vector<json>& facts, const std::string& fleet_yaml) {
  const Knowledge& knowledge = TestKnowledge();
  auto fleet = ParseFleet(fleet_yaml, "fleet.yaml", knowledge);
  REQUIRE_MESSAGE(fleet.ok(), imagelint::testing::ErrorText(fleet));
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE_MESSAGE(rule_set.ok(), imagelint::testing::ErrorText(rule_set));
  rules::FunctionRegistry functions = analysis::DefaultFunctions(knowledge);
  auto checked = rule_set->CheckFunctions(functions);
  REQUIRE_MESSAGE(checked.ok(), imagelint::testing::ErrorText(checked));
  auto report = analysis::Analyze(facts, *fleet, *rule_set, functions);
  REQUIRE_MESSAGE(report.ok(), imagelint::testing::ErrorText(report));
  return *report;
}

// The same over facts models, written as the producers write them.
inline json RunFacts(const std::vector<facts::Facts>& models, const std::string& fleet_yaml) {
  std::vector<json> written;
  for (const auto& model : models) written.push_back(facts::WriteFacts(model));
  return Run(written, fleet_yaml);
}

inline json Verdict(const json& report, size_t image, const std::string& pool) {
  for (const auto& verdict : report["images"][image]["verdicts"]) {
    if (verdict["pool"] == pool) return verdict;
  }
  FAIL("no verdict for pool " << pool);
  return nullptr;
}

inline json Findings(const json& report, size_t image, const std::string& rule) {
  json out = json::array();
  for (const auto& finding : report["images"][image]["findings"]) {
    if (finding["rule"] == rule) out.push_back(finding);
  }
  return out;
}

}  // namespace imagelint::testing::rules_fixture
