// Shared fixtures of the nvidia tests: the real knowledge files and pools.
#pragma once

#include <doctest/doctest.h>

#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "imagelint/nvidia.h"
#include "support/test_support.h"

namespace nvtest {

inline const imagelint::Knowledge& K() {
  static const imagelint::Knowledge knowledge = [] {
    auto k = imagelint::Knowledge::Load(imagelint::testing::SourceDir() / "rules" / "knowledge");
    if (!k.ok()) FAIL(k.error().ToString());
    return *k;
  }();
  return knowledge;
}

// A pool as the fleet loader would build it from `gpu` + `driver` (+ toolkit, runtime).
inline imagelint::Pool MakePool(const std::string& gpu, const std::string& driver, const std::string& toolkit = "",
                                const std::string& runtime = "docker-gpus") {
  std::string yaml = "pools:\n  - name: p\n    gpu: \"" + gpu + "\"\n    driver: \"" + driver + "\"\n    runtime: " + runtime + "\n";
  if (!toolkit.empty()) yaml += "    container_toolkit: \"" + toolkit + "\"\n";
  auto fleet = imagelint::ParseFleet(yaml, "test-fleet.yaml", K());
  if (!fleet.ok()) FAIL(fleet.error().ToString());
  return fleet->pools.at(0);
}

}  // namespace nvtest
