// Fuzz targets over text a user or repository controls: requirement strings,
// Dockerfiles, fleet files, rule files and expressions, .imagelint.yaml,
// fleet imports.
#include "fuzz/support.h"
#include "fuzz/targets.h"
#include "imagelint/config.h"
#include "imagelint/dockerfile.h"
#include "imagelint/fleet.h"
#include "imagelint/fleet_import.h"
#include "imagelint/image_env.h"
#include "imagelint/nvidia.h"
#include "imagelint/rules.h"

namespace imagelint::fuzz {

int FuzzRequirementLnc(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  nvidia::RequirementHost host;
  host.cuda = "12.2";
  host.driver = "535.54.03";
  host.devices = {{"8.0", "tesla"}, {"8.6", "geforce"}};
  (void)nvidia::EvaluateRequirement(text, host);
  (void)nvidia::EvaluateRequirement(text, nvidia::RequirementHost{}, "legacy");
  (void)nvidia::DisableRequireIsTrue(text);
  (void)nvidia::LegacyCudaRequirementVersion(text);
  (void)nvidia::DriverBranch(text);
  (void)nvidia::CompareVersions(text, "12.2");
  return 0;
}

int FuzzRequirementGo(const uint8_t* data, size_t size) {
  std::string_view text = AsText(data, size);
  (void)nvidia::ParseRequirementGo(text);
  (void)nvidia::EvaluateRequirementGo(text, {"12.2", "8.6"});
  (void)nvidia::EvaluateRequirementGo(text, {"", ""});
  return 0;
}

int FuzzDockerfileParse(const uint8_t* data, size_t size) {
  auto dockerfile = dockerfile::ParseDockerfile(AsText(data, size), "Dockerfile");
  if (!dockerfile.ok()) return 0;
  std::map<std::string, std::string> vars = {{"A", "1"}, {"CUDA", "12.2.0"}, {"EMPTY", ""}};
  for (const auto& instruction : dockerfile->instructions) {
    (void)dockerfile::ExpandWord(instruction.arguments, vars);
  }
  return 0;
}

int FuzzDockerfileFacts(const uint8_t* data, size_t size) {
  dockerfile::DockerfileOptions options;
  options.knowledge = &FuzzKnowledge();
  options.build_args = {{"CUDA_VERSION", "12.2.0"}};
  (void)dockerfile::AnalyzeDockerfileText(AsText(data, size), "Dockerfile", options);
  return 0;
}

int FuzzFleetYaml(const uint8_t* data, size_t size) {
  (void)ParseFleet(AsText(data, size), "fleet.yaml", FuzzKnowledge());
  return 0;
}

int FuzzRuleFile(const uint8_t* data, size_t size) {
  (void)rules::ParseRuleFile(AsText(data, size), "rules.yaml");
  return 0;
}

int FuzzRuleExpression(const uint8_t* data, size_t size) {
  static const rules::FunctionRegistry functions = rules::BuiltinFunctions();
  static const rules::Environment env = [] {
    rules::Environment e;
    e["facts"] = rules::Value::Of(nlohmann::json::parse(R"({
      "image": {"env": {"CUDA_VERSION": "12.2.0", "NVIDIA_REQUIRE_CUDA": "cuda>=12.2 brand=tesla"},
                "architecture": "amd64", "labels": {"a": "b"}},
      "cuda": {"runtimes": [{"path": "/usr/local/cuda/lib64/libcudart.so.12", "version": "12.2.140"}],
               "drivers": [{"path": "/usr/local/cuda/compat/libcuda.so.1", "version": "535.54.03", "kind": "compat"}]},
      "binaries": [{"path": "/app/a.so", "sass": ["sm_80", "sm_90a"], "ptx": [{"arch": "compute_90", "isa": "8.2"}]}],
      "frameworks": [{"name": "torch", "version": "2.1.0", "cuda": "12.1"}]
    })"));
    e["pool"] = rules::Value::Of(nlohmann::json::parse(
        R"({"name": "p", "driver": "535.54.03", "compute_capability": "8.6", "brand": "geforce", "count": 8})"));
    e["missing"] = rules::Value::Unknown();
    return e;
  }();
  auto parts = SplitParts(data, size, 2);
  auto expression = rules::Expression::Parse(parts[0], {"rules.yaml", 3, 16, 1});
  if (expression.ok()) {
    rules::EvalLimits limits;
    limits.max_steps = 100000;
    (void)expression->Evaluate(env, functions, nullptr, limits);
  }
  if (parts.size() > 1) {
    auto message = rules::Template::Parse(parts[1], {"rules.yaml", 4, 14, 1});
    if (message.ok()) (void)message->Render(env, functions);
  }
  return 0;
}

int FuzzConfigYaml(const uint8_t* data, size_t size) {
  (void)config::ParseConfig(AsText(data, size), "/work/.imagelint.yaml");
  return 0;
}

namespace {
const fleet_import::GpuResolver& Gpus() {
  static const fleet_import::GpuResolver gpus = fleet_import::ResolverFromKnowledge(FuzzKnowledge());
  return gpus;
}
void Render(const Result<fleet_import::ImportResult>& result) {
  if (!result.ok()) return;
  (void)fleet_import::RenderFleetYaml(*result);
  (void)fleet_import::ToFleet(*result);
}
}  // namespace

int FuzzImportNodes(const uint8_t* data, size_t size) {
  Render(fleet_import::ImportKubernetesNodes(AsText(data, size), "nodes.json", Gpus()));
  return 0;
}

int FuzzImportSmiXml(const uint8_t* data, size_t size) {
  Render(fleet_import::ImportNvidiaSmiXml(AsText(data, size), "smi.xml", Gpus()));
  return 0;
}

int FuzzImportCliCsv(const uint8_t* data, size_t size) {
  Render(fleet_import::ImportContainerCliCsv(AsText(data, size), "info.csv", Gpus()));
  return 0;
}

}  // namespace imagelint::fuzz
