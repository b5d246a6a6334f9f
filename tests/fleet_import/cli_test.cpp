// `imagelint fleet import ...` end to end: output, -o, stdin, exit codes.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "analysis/rules_fixture.h"  // BaseFacts(): the seed image's facts
#include "support/test_support.h"

using imagelint::testing::ReadFileText;
using imagelint::testing::RunImagelint;
using imagelint::testing::SourceDir;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;

namespace {
std::string CliFixturePath(const std::string& name) { return (SourceDir() / "tests/fleet_import/fixtures" / name).string(); }
}  // namespace

TEST_CASE("fleet import --from-k8s writes a fleet file with one entry per pool") {
  auto r = RunImagelint({"fleet", "import", "--from-k8s", CliFixturePath("nodes-mixed.json")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  YAML::Node doc = YAML::Load(r.out);
  REQUIRE(doc["pools"].IsSequence());
  CHECK(doc["pools"].size() == 6);
  CHECK(doc["pools"][0]["name"].as<std::string>() == "a100-sxm4-80gb-550.107.02");
  CHECK(doc["pools"][0]["count"].as<int>() == 2);
  CHECK(doc["pools"][0]["selector_labels"]["nvidia.com/gpu.product"].as<std::string>() == "NVIDIA-A100-SXM4-80GB");
  CHECK(r.out.find("# from 2 nodes: gpu-a100-1, gpu-a100-2") != std::string::npos);
  CHECK(r.err.find("imported 6 pools from 9 nodes") != std::string::npos);
  CHECK(r.err.find("1 without GPU information skipped") != std::string::npos);
}

TEST_CASE("fleet import -o FILE, and stdin") {
  TempDir dir;
  auto out = (dir / "fleet.yaml").string();
  auto r = RunImagelint({"fleet", "import", "--from-nvidia-smi", CliFixturePath("nvidia-smi-hosts.xml"), "-o", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  std::string yaml = ReadFileText(out);
  CHECK(YAML::Load(yaml)["pools"].size() == 4);
  CHECK(yaml.find("# from 2 hosts: dgx-1, dgx-2") != std::string::npos);

  auto s = RunImagelint({"fleet", "import", "--from-nvidia-container-cli", "-"},
                        ReadFileText(CliFixturePath("container-cli-hosts.csv")));
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  CHECK(YAML::Load(s.out)["pools"].size() == 3);
}

TEST_CASE("fleet import: malformed input and bad usage exit 2 naming the node or line") {
  TempDir dir;
  WriteFileText(dir / "nodes.json",
                R"({"items": [{"metadata": {"name": "gpu-node-17", "labels": {"nvidia.com/gpu.product": "Tesla-T4",
                  "nvidia.com/cuda.driver-version.full": "4.x"}}}]})");
  auto r = RunImagelint({"fleet", "import", "--from-k8s", (dir / "nodes.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("gpu-node-17") != std::string::npos);
  CHECK(r.out.empty());

  WriteFileText(dir / "info.csv", "NVRM version,CUDA version\n470.256.02,11.4\ngarbage here\n");
  auto c = RunImagelint({"fleet", "import", "--from-nvidia-container-cli", (dir / "info.csv").string()});
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("info.csv:3:") != std::string::npos);

  auto none = RunImagelint({"fleet", "import"});
  CHECK(none.exit_code == 2);
  auto two = RunImagelint({"fleet", "import", "--from-k8s", "a", "--from-nvidia-smi", "b"});
  CHECK(two.exit_code == 2);
  auto missing = RunImagelint({"fleet", "import", "--from-k8s", (dir / "nope.json").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("nope.json") != std::string::npos);
}

// The seed story through the whole pipeline: an image carrying a CUDA 11.3
// compat libcuda (465) scanned against a cluster given as `kubectl get nodes
// -o json`: the GeForce nodes fail with 804, the A100 nodes pass, and the
// placement advice keeps pods on the A100 nodes only.
TEST_CASE("scan --fleet nodes.json and --format k8s") {
  TempDir dir;
  WriteFileText(dir / "seed.json", imagelint::testing::rules_fixture::BaseFacts().dump());
  WriteFileText(dir / "nodes.json", R"({"apiVersion": "v1", "kind": "List", "items": [
    {"metadata": {"name": "a100-1", "labels": {"kubernetes.io/arch": "amd64",
      "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "8",
      "nvidia.com/cuda.driver-version.full": "460.32.03", "nvidia.com/cuda.runtime-version.full": "11.2",
      "nvidia.com/gpu.compute.major": "8", "nvidia.com/gpu.compute.minor": "0"}}},
    {"metadata": {"name": "rtx-1", "labels": {"kubernetes.io/arch": "amd64",
      "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090", "nvidia.com/gpu.count": "4",
      "nvidia.com/cuda.driver-version.full": "460.32.03", "nvidia.com/cuda.runtime-version.full": "11.2",
      "nvidia.com/gpu.compute.major": "8", "nvidia.com/gpu.compute.minor": "6"}}},
    {"metadata": {"name": "cpu-1", "labels": {"kubernetes.io/arch": "amd64"}}}]})");
  auto text = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "nodes.json").string()});
  INFO(text.out);
  INFO(text.err);
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("804") != std::string::npos);

  auto k8s = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "nodes.json").string(), "--format", "k8s"});
  INFO(k8s.out);
  INFO(k8s.err);
  CHECK(k8s.exit_code == 1);  // --fail-on still applies
  YAML::Node doc = YAML::Load(k8s.out);
  auto terms = doc["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 1);
  std::map<std::string, std::string> expressions;
  for (const auto& e : terms[0]["matchExpressions"]) expressions[e["key"].as<std::string>()] = e["values"][0].as<std::string>();
  CHECK(expressions.at("nvidia.com/gpu.product") == "NVIDIA-A100-SXM4-40GB");
  CHECK(k8s.out.find("#   geforce-rtx-3090-460.32.03: fail, predicted cudaErrorCompatNotSupportedOnDevice (804)") !=
        std::string::npos);

  // Malformed node list: exit 2 naming the node, before any scanning.
  WriteFileText(dir / "bad.json",
                R"({"items": [{"metadata": {"name": "gpu-x", "labels": {"nvidia.com/gpu.product": "Tesla-T4",
                  "nvidia.com/cuda.driver-version.full": "r470"}}}]})");
  auto bad = RunImagelint({(dir / "seed.json").string(), "--fleet", (dir / "bad.json").string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("gpu-x") != std::string::npos);
}
