// A pool whose fleet entry names no runtime is judged on every launch path
// its container toolkit offers (analysis/runtime_paths.h): decided where the
// paths agree, undecided with `runtime:` as what decides it where they do not.
#include <doctest/doctest.h>

#include "analysis/rules_fixture.h"
#include "analysis/runtime_paths.h"

using namespace imagelint;
using namespace imagelint::testing::rules_fixture;
using nlohmann::json;

namespace {

// The seed image (CUDA 11.3 runtime, compat libcuda 465) asking for CUDA 11.8:
// a pool on driver 470 (CUDA 11.4) fails the requirement check, and the 11.3
// runtime itself runs there (the compat library is older than the driver).
json RequiresNewerCuda() { return facts::WriteFacts(WithEnv(SeedModel(), {{"NVIDIA_REQUIRE_CUDA", "cuda>=11.8"}})); }

std::string A100On470(const std::string& extra) {
  return "pools:\n  - name: a100-470\n    gpu: NVIDIA A100-SXM4-40GB\n    driver: \"470.256.02\"\n" + extra;
}

}  // namespace

TEST_CASE("a pool without a runtime: a refusal only docker --gpus gives is undecided, and says what decides it") {
  json report = Run({RequiresNewerCuda()}, A100On470(""));
  json verdict = Verdict(report, 0, "a100-470");
  CHECK(verdict["status"] == "undecided");
  CHECK(verdict["undetermined"] == json::array({"IL001"}));
  json il001 = Findings(report, 0, "IL001");
  REQUIRE(il001.size() == 1);
  CHECK(il001[0]["unknown"] == true);
  CHECK(il001[0]["pools"] == json::array({"a100-470"}));
  CHECK(il001[0]["missing_facts"] == json::array({"pool.runtime"}));
  CHECK(il001[0]["missing"][0]["reason"] ==
        "it holds with docker-gpus (requirement-unsatisfied), not with nvidia-runtime or cdi");
  CHECK(il001[0]["fix"] == "To decide it: set `runtime:` for pool `a100-470` in the fleet file.");
  CHECK(il001[0]["message"].get<std::string>().find("With docker-gpus: On a100-470 (docker-gpus") != std::string::npos);

  SUBCASE("named, each launch path decides") {
    json docker = Run({RequiresNewerCuda()}, A100On470("    runtime: docker-gpus\n"));
    CHECK(Verdict(docker, 0, "a100-470")["status"] == "fail");
    CHECK(Verdict(docker, 0, "a100-470")["predicted_error"]["name"] == "requirement-unsatisfied");
    json cdi = Run({RequiresNewerCuda()}, A100On470("    runtime: cdi\n"));
    CHECK(Verdict(cdi, 0, "a100-470")["status"] == "pass");
    CHECK(Findings(cdi, 0, "IL001").empty());
  }
  SUBCASE("the fleet's defaults: name the runtime") {
    json named = Run({RequiresNewerCuda()}, "defaults:\n  runtime: nvidia-runtime\n" + A100On470(""));
    CHECK(Verdict(named, 0, "a100-470")["status"] == "pass");  // toolkit 1.18+: jit-cdi, no requirement check
  }
  SUBCASE("a toolkit before CDI whose nvidia runtime checks requirements too: every path refuses, decided") {
    json old = Run({RequiresNewerCuda()}, A100On470("    container_toolkit: \"1.4.0\"\n"));
    CHECK(Verdict(old, 0, "a100-470")["status"] == "fail");
    CHECK(Verdict(old, 0, "a100-470")["predicted_error"]["name"] == "requirement-unsatisfied");
    json found = Findings(old, 0, "IL001");
    REQUIRE(found.size() == 1);
    CHECK(found[0]["unknown"] == false);
    CHECK(found[0]["message"].get<std::string>().rfind("On a100-470", 0) == 0);  // holds on every path: as it is
  }
}

TEST_CASE("a pool without a runtime that fails on every path fails, each path's own failure marked as its own") {
  // GeForce on R460 (CUDA 11.2): docker --gpus refuses cuda>=11.3; the hook
  // paths use the image's newer compat libcuda, which GeForce refuses (804).
  json facts = facts::WriteFacts(WithEnv(SeedModel(), {{"NVIDIA_REQUIRE_CUDA", "cuda>=11.3"}}));
  json report = Run({facts}, "pools:\n  - name: rtx-460\n    gpu: NVIDIA GeForce RTX 3090\n    driver: \"460.67\"\n");
  json verdict = Verdict(report, 0, "rtx-460");
  CHECK(verdict["status"] == "fail");
  CHECK(verdict["predicted_error"]["name"] == "requirement-unsatisfied");  // the first a docker --gpus user meets
  json il001 = Findings(report, 0, "IL001");
  REQUIRE(il001.size() == 1);
  CHECK(il001[0]["unknown"] == false);
  CHECK(il001[0]["message"].get<std::string>().rfind(
            "With runtime docker-gpus (the fleet names no `runtime:` for this pool; not with nvidia-runtime or cdi): ",
            0) == 0);
  json il003 = Findings(report, 0, "IL003");
  REQUIRE(!il003.empty());
  for (const auto& finding : il003) CHECK(finding["predicted_error"]["code"] == 804);
}

TEST_CASE("pools that name their runtime, or share one path's outcome, are reported as before, merged") {
  json facts = RequiresNewerCuda();
  json report = Run({facts}, A100On470("    runtime: docker-gpus\n") +
                                 "  - name: h100-580\n    gpu: NVIDIA H100 80GB HBM3\n    driver: \"580.95.05\"\n");
  CHECK(Verdict(report, 0, "a100-470")["status"] == "fail");
  CHECK(Verdict(report, 0, "h100-580")["status"] == "pass");
  for (const auto& finding : report["images"][0]["findings"])
    for (const auto& pool : finding["pools"])
      CHECK(pool.get<std::string>().find('\x1f') == std::string::npos);  // no launch-path label leaks out
}

TEST_CASE("only the rules that read the launch path are evaluated again on a pool's other launch paths") {
  auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(imagelint::testing::SourceDir()));
  REQUIRE(rule_set.ok());
  std::map<std::string, bool> depends;
  for (const rules::Rule& rule : rule_set->rules()) depends[rule.id] = analysis::internal::DependsOnLaunchPath(rule);
  CHECK(depends.at("IL001"));  // start_check: the requirement check
  CHECK(depends.at("IL003"));  // libcuda: which compat library is loaded
  CHECK(depends.at("IL007"));  // kernels: PTX is compiled by the libcuda loaded, the compat one or the host's
  CHECK_FALSE(depends.at("IL013"));  // the platform: the same on every path
  std::string listed;
  for (const auto& [id, yes] : depends) listed += id + (yes ? "+ " : "- ");
  MESSAGE("launch-path rules: " << listed);
}

TEST_CASE("folding: every finding of an outcome that holds on some paths only is kept, each marked") {
  Fleet fleet;
  Pool pool;
  pool.name = "p";
  pool.runtime = "docker-gpus";
  pool.runtime_alternatives = {"cdi"};
  fleet.pools = {pool};
  const analysis::internal::RuntimePaths paths = analysis::internal::ExpandRuntimePaths(fleet);
  REQUIRE(paths.labels.size() == 2);
  auto finding = [](const std::string& message, std::vector<std::string> pools) {
    analysis::Finding f;
    f.rule = "IL007";
    f.title = "no kernel image";
    f.severity = rules::Severity::kError;
    f.predicted_error = analysis::PredictedError{};
    f.predicted_error->code = 209;
    f.message = message;
    f.pools = std::move(pools);
    return f;
  };
  // Two binaries without a kernel on the assumed path, none on CDI: undecided, both said.
  std::vector<analysis::Finding> findings = {finding("a.so", {"p"}), finding("b.so", {"p"}),
                                   finding("common", {"p", paths.labels[1]})};
  findings[2].rule = "IL013";
  findings[2].severity = rules::Severity::kWarning;  // CDI does not fail
  analysis::internal::FoldRuntimePaths(findings, paths, json::object());
  REQUIRE(findings.size() == 3);
  CHECK(findings[0].unknown);
  CHECK(findings[0].message.find("With docker-gpus: a.so") != std::string::npos);
  CHECK(findings[1].unknown);
  CHECK(findings[1].message.find("With docker-gpus: b.so") != std::string::npos);
  CHECK_FALSE(findings[2].unknown);  // on every path: as it was
  CHECK(findings[2].pools == std::vector<std::string>{"p"});
}
