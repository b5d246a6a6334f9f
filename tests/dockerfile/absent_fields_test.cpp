// Every built-in rule and every reporter over facts that lack one optional
// field, or carry null where the schema allows it: a rule that meets a
// missing value is undecided for that image or pool, never a tool error
// (exit 2), and the report it gives renders in every format. The fields come from
// docs/facts-schema.json, so a field added later is covered without a test edit.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "analysis/rules_fixture.h"
#include "dockerfile_fixture.h"
#include "imagelint/report.h"

using nlohmann::json;

namespace {

// The built-in rules and the fleet, loaded once for the hundreds of runs.
json RunOnAbsentFleet(const std::vector<json>& facts, const char* fleet_yaml) {
  using namespace imagelint;
  const Knowledge& knowledge = testing::rules_fixture::TestKnowledge();
  static const auto fleet = ParseFleet(fleet_yaml, "fleet.yaml", knowledge);
  static const auto rule_set = rules::LoadRuleSet(rules::BuiltinRulesDir(testing::SourceDir()));
  static const rules::FunctionRegistry functions = analysis::DefaultFunctions(knowledge);
  REQUIRE_MESSAGE(fleet.ok(), testing::ErrorText(fleet));
  REQUIRE_MESSAGE(rule_set.ok(), testing::ErrorText(rule_set));
  auto report = analysis::Analyze(facts, *fleet, *rule_set, functions);
  REQUIRE_MESSAGE(report.ok(), testing::ErrorText(report));
  return *report;
}

// Every reporter over the finalised report: each format renders it (k8s
// placement needs the CLI's fleet binding and is left to the CLI tests).
void RenderEveryFormat(const json& document) {
  using namespace imagelint;
  auto read = analysis::ReadReport(document, "report");
  REQUIRE_MESSAGE(read.ok(), testing::ErrorText(read));
  const analysis::Report report = analysis::Finalize(std::move(*read));
  const auto rules = report::RulesFromReport(report);
  report::RenderOptions options;
  options.docs_dir = "/nonexistent";
  for (report::Format format : {report::Format::kText, report::Format::kJson, report::Format::kSarif,
                                report::Format::kJunit, report::Format::kGithub, report::Format::kMarkdown,
                                report::Format::kGitlab, report::Format::kHtml}) {
    CAPTURE(report::FormatName(format));
    CHECK_FALSE(report::Render(report, format, rules, options).empty());
  }
}

const char* kAbsentFieldsFleet = R"(pools:
  - name: rtx3090-r470
    gpu: NVIDIA GeForce RTX 3090
    driver: "470.256.02"
  - name: v100-r450
    gpu: Tesla V100-SXM2-32GB
    driver: "450.248.02"
  - name: a100-r535-k8s
    gpu: NVIDIA A100-SXM4-80GB
    driver: "535.247.01"
    runtime: k8s-device-plugin
  - name: gh200-r570-arm64
    gpu: NVIDIA GH200 480GB
    driver: "570.172.08"
    platform: linux/arm64
  - name: rtx5090-r570
    gpu: NVIDIA GeForce RTX 5090
    driver: "570.172.08"
)";

class Schema {
 public:
  Schema() {
    std::ifstream in(imagelint::testing::SourceDir() / "docs" / "facts-schema.json");
    std::stringstream text;
    text << in.rdbuf();
    root_ = json::parse(text.str());
  }

  // The object schema's properties and required names, through $ref, allOf and anyOf.
  void Members(const json& node, json& properties, std::set<std::string>& required) const {
    const json& schema = Resolve(node);
    if (schema.contains("properties"))
      for (const auto& [key, value] : schema["properties"].items()) properties[key] = value;
    if (schema.contains("required"))
      for (const auto& name : schema["required"]) required.insert(name.get<std::string>());
    for (const char* group : {"allOf", "anyOf"})
      if (schema.contains(group))
        for (const auto& part : schema[group]) Members(part, properties, required);
  }

  const json& Resolve(const json& node) const {
    if (node.is_object() && node.contains("$ref")) {
      std::string ref = node["$ref"].get<std::string>();
      return Resolve(root_.at(json::json_pointer(ref.substr(1))));
    }
    return node;
  }

  bool AllowsNull(const json& node) const {
    const json& schema = Resolve(node);
    if (!schema.contains("type")) return false;
    const json& type = schema["type"];
    if (type.is_string()) return type == "null";
    for (const auto& t : type)
      if (t == "null") return true;
    return false;
  }

  const json& root() const { return root_; }

 private:
  json root_;
};

// A field of the facts by its path through arrays ("frameworks[].version").
struct Variant {
  std::string path;
  bool to_null = false;  // else removed
};

void Collect(const Schema& schema, const json& value, const json& node, const std::string& path,
             std::set<std::pair<std::string, bool>>& out) {
  const json& resolved = schema.Resolve(node);
  if (value.is_array()) {
    if (!resolved.contains("items")) return;
    for (const auto& element : value) Collect(schema, element, resolved["items"], path + "[]", out);
    return;
  }
  if (!value.is_object()) return;
  json properties = json::object();
  std::set<std::string> required;
  schema.Members(resolved, properties, required);
  for (const auto& [key, child] : value.items()) {
    std::string at = path.empty() ? key : path + "." + key;
    if (!properties.contains(key)) continue;  // free-form maps (env, labels): nothing a rule may need
    if (required.count(key) == 0) out.insert({at, false});
    if (!child.is_null() && schema.AllowsNull(properties[key])) out.insert({at, true});
    Collect(schema, child, properties[key], at, out);
  }
}

// Applies the variant to every object the path reaches.
void Apply(json& value, const std::vector<std::string>& steps, size_t i, bool to_null) {
  if (value.is_array()) {
    for (auto& element : value) Apply(element, steps, i, to_null);
    return;
  }
  if (!value.is_object() || i >= steps.size()) return;
  std::string step = steps[i];
  bool through_array = step.size() > 2 && step.compare(step.size() - 2, 2, "[]") == 0;
  if (through_array) step.resize(step.size() - 2);
  if (!value.contains(step)) return;
  if (i + 1 == steps.size() && !through_array) {
    if (to_null)
      value[step] = nullptr;
    else
      value.erase(step);
    return;
  }
  Apply(value[step], steps, i + 1, to_null);
}

std::vector<std::string> Steps(const std::string& path) {
  std::vector<std::string> out;
  std::string step;
  for (char c : path) {
    if (c == '.') {
      out.push_back(step);
      step.clear();
    } else {
      step += c;
    }
  }
  out.push_back(step);
  return out;
}

}  // namespace

TEST_CASE("every built-in rule and reporter over facts with each optional field absent or null: never an error") {
  using imagelint::testing::dockerfile_fixture::Facts;
  Schema schema;
  std::vector<std::pair<std::string, json>> documents = {
      {"seed image", imagelint::facts::WriteFacts(imagelint::testing::rules_fixture::SeedModel())},
      {"unpinned torch from a cu126 index on a 12.4 runtime",
       Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
             "RUN pip install torch --index-url https://download.pytorch.org/whl/cu126\n")},
      {"pinned torch, compat removed, loader entries",
       Facts("FROM nvidia/cuda:12.2.2-devel-ubuntu22.04\n"
             "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:$LD_LIBRARY_PATH\n"
             "RUN pip install torch==2.1.0 && rm -rf /usr/local/cuda/compat\n"
             "RUN echo /usr/local/cuda/lib64/stubs > /etc/ld.so.conf.d/z.conf\n")},
      {"conda, apt compat, copied libcuda",
       Facts("FROM ubuntu:22.04\n"
             "RUN apt-get install -y cuda-compat-12-4 cuda-cudart-12-4\n"
             "RUN conda install -y pytorch pytorch-cuda=12.1 -c pytorch -c nvidia\n"
             "COPY libcuda.so.535.104.05 /usr/lib/x86_64-linux-gnu/\n")},
  };
  size_t variants = 0;
  for (const auto& [label, facts] : documents) {
    CAPTURE(label);
    auto base = RunOnAbsentFleet({facts}, kAbsentFieldsFleet);  // the document itself first
    std::set<std::pair<std::string, bool>> fields;
    Collect(schema, facts, schema.root(), "", fields);
    for (const auto& [path, to_null] : fields) {
      if (path == "schema") continue;  // the document's identity, not a fact
      json changed = facts;
      Apply(changed, Steps(path), 0, to_null);
      CAPTURE(path);
      CAPTURE(to_null);
      json report = RunOnAbsentFleet({changed}, kAbsentFieldsFleet);  // Run REQUIREs an ok report
      CHECK(report["images"].size() == 1);
      RenderEveryFormat(report);
      ++variants;
    }
  }
  MESSAGE("rules run over " << variants << " facts variants");
  CHECK(variants > 100);
}
