// Shared by the rule tests: a CUDA 11.3-style facts document (the seed
// story's image), and running the built-in rules with the real knowledge
// files over facts and a fleet written in the test.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "imagelint/analysis.h"
#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "imagelint/rules.h"
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

// FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04 + a CUDA library built for
// sm_80/sm_86: libcudart 11.3.109, the cuda-compat-11-3 libcuda 465.19.01.
inline json BaseFacts() {
  return json::parse(R"({
    "schema": "imagelint.facts/v1",
    "image": {
      "ref": "seed:11.3", "digest": "sha256:5eed", "os": "linux", "architecture": "amd64",
      "env": {
        "PATH": "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin",
        "CUDA_VERSION": "11.3.1",
        "NVIDIA_REQUIRE_CUDA": "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450",
        "NVIDIA_VISIBLE_DEVICES": "all",
        "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
        "LD_LIBRARY_PATH": "/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
        "NV_CUDA_COMPAT_PACKAGE": "cuda-compat-11-3"
      },
      "layers": [
        {"digest": "sha256:l0", "created_by": "/bin/sh -c #(nop) ADD file:ubuntu in / "},
        {"digest": "sha256:l1", "created_by": "/bin/sh -c apt-get install -y cuda-cudart-11-3 cuda-compat-11-3"},
        {"digest": "sha256:l2", "created_by": "/bin/sh -c pip install torch==1.12.1+cu113"}
      ]
    },
    "cuda": {
      "runtimes": [
        {"path": "/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.3.109", "layer": 1,
         "soname": "libcudart.so.11.0", "version": "11.3.109", "source": "filename",
         "aliases": ["/usr/local/cuda-11.3/targets/x86_64-linux/lib/libcudart.so.11.0"]}
      ],
      "drivers": [
        {"path": "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01", "layer": 1, "kind": "compat",
         "version": "465.19.01", "source": "filename", "toolkit_dir": "11.3", "note": {},
         "aliases": ["/usr/local/cuda-11.3/compat/libcuda.so.1"]}
      ],
      "requirements": {
        "CUDA_VERSION": "11.3.1",
        "NVIDIA_REQUIRE_CUDA": "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450",
        "disabled": false, "legacy": false, "legacy_cuda_version": null
      },
      "loader": {
        "ld_library_path": ["/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"],
        "ld_so_conf": [{"dir": "/usr/local/cuda-11.3/targets/x86_64-linux/lib",
                        "file": "/etc/ld.so.conf.d/000_cuda.conf", "layer": 1}],
        "libcuda_candidates": []
      }
    },
    "binaries": [
      {"path": "/opt/app/libkernels.so", "layer": 2, "needed": ["libcudart.so.11.0", "libc.so.6"],
       "sass": ["sm_60", "sm_70", "sm_75", "sm_80", "sm_86"], "ptx": [{"arch": "compute_86", "isa": "7.3"}]}
    ],
    "frameworks": []
  })");
}

// facts with image.env entries set (and cuda.requirements kept in step).
inline json Env(json facts, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    facts["image"]["env"][key] = value;
    if (key.rfind("NVIDIA_REQUIRE_", 0) == 0 || key == "CUDA_VERSION") facts["cuda"]["requirements"][key] = value;
    if (key == "NVIDIA_DISABLE_REQUIRE")
      facts["cuda"]["requirements"]["disabled"] = value == "1" || value == "t" || value == "T" || value == "true" ||
                                                  value == "TRUE" || value == "True";
  }
  return facts;
}

inline const Knowledge& TestKnowledge() {
  static Knowledge knowledge = [] {
    auto loaded = Knowledge::LoadDefault(imagelint::testing::SourceDir());
    REQUIRE_MESSAGE(loaded.ok(), loaded.error().ToString());
    return std::move(*loaded);
  }();
  return knowledge;
}

// Built-in rules + real knowledge over `facts` and a fleet YAML.
inline json Run(const std::vector<json>& facts, const std::string& fleet_yaml) {
  const Knowledge& knowledge = TestKnowledge();
  auto fleet = ParseFleet(fleet_yaml, "fleet.yaml", knowledge);
  REQUIRE_MESSAGE(fleet.ok(), fleet.error().ToString());
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE_MESSAGE(rule_set.ok(), rule_set.error().ToString());
  rules::FunctionRegistry functions = analysis::DefaultFunctions(knowledge);
  auto checked = rule_set->CheckFunctions(functions);
  REQUIRE_MESSAGE(checked.ok(), checked.error().ToString());
  auto report = analysis::Analyze(facts, *fleet, *rule_set, functions);
  REQUIRE_MESSAGE(report.ok(), report.error().ToString());
  return *report;
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
