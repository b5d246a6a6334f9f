// The Dockerfile module's knowledge (base-images.yaml, packages.yaml) as
// tables of imagelint::Knowledge: typed lookups, schema errors with
// file:line:column, cross-row checks, and the linear name-pattern matcher.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>

#include "dockerfile_fixture.h"
#include "imagelint/image_knowledge.h"

using imagelint::FillTemplate;
using imagelint::Knowledge;
using imagelint::MatchNamePattern;
using nlohmann::json;
using imagelint::testing::dockerfile_fixture::CheckoutKnowledge;
namespace fs = std::filesystem;

namespace {

// A copy of the checkout's knowledge directory with one file replaced.
fs::path KnowledgeWith(const imagelint::testing::TempDir& dir, const std::string& file, const std::string& text) {
  fs::path out = dir / "knowledge";
  fs::create_directories(out);
  for (const auto& entry : fs::directory_iterator(imagelint::testing::SourceDir() / "rules" / "knowledge"))
    fs::copy_file(entry.path(), out / entry.path().filename(), fs::copy_options::overwrite_existing);
  imagelint::testing::WriteFileText(out / file, text);
  return out;
}

std::string CheckoutFile(const std::string& name) {
  return imagelint::testing::ReadFileText(imagelint::testing::SourceDir() / "rules" / "knowledge" / name);
}

// Replaces the first occurrence of `from` in `text` (which must hold it).
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("base-images.yaml: typed lookups of releases, families, architectures, files") {
  const imagelint::BaseImageKnowledge& images = CheckoutKnowledge().base_images();
  const imagelint::CudaImageRelease* trap = images.FindCudaRelease("11.3.0");
  REQUIRE(trap != nullptr);
  CHECK(trap->cudart == "11.3.58");
  CHECK(trap->require == "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450");
  CHECK(trap->compat_libcuda == "465.19.01");
  CHECK_FALSE(trap->compat_unconfirmed);
  REQUIRE(images.FindCudaRelease("10.2") != nullptr);  // minor-only: the newest 10.2.x
  CHECK(images.FindCudaRelease("10.2")->cuda == "10.2.89");
  CHECK(images.FindCudaRelease("12.7") == nullptr);
  CHECK(images.FindCudaRelease("12.4.9") == nullptr);
  CHECK(images.FindCudaRelease("9.0.176")->compat_libcuda.empty());  // no compat package before 10.0

  REQUIRE(images.FamilyOf("nvidia/cuda") != nullptr);
  CHECK(images.FamilyOf("nvidia/cuda")->family == "nvidia/cuda");
  CHECK(images.FamilyOf("nvcr.io/nvidia/cuda")->family == "nvidia/cuda");  // exact names before prefixes
  CHECK(images.FamilyOf("nvcr.io/nvidia/pytorch")->family == "ngc");
  CHECK(images.FamilyOf("pytorch/pytorch")->flavors == std::vector<std::string>{"runtime", "devel"});
  REQUIRE(images.FamilyOf("ubuntu") != nullptr);  // operating-system images carry no CUDA
  CHECK(images.FamilyOf("ubuntu")->family == "no-cuda");
  CHECK(images.FamilyOf("continuumio/miniconda3")->family == "no-cuda");
  CHECK(images.FamilyOf("registry.corp.example/ml/base") == nullptr);

  REQUIRE(images.FindArchitecture("arm64") != nullptr);
  CHECK(images.FindArchitecture("arm64")->ubuntu_compat_from == "12.5.1");
  CHECK(images.FindArchitecture("s390x") == nullptr);
  REQUIRE(images.FindFile("stub", "12.4.1", "devel") != nullptr);
  CHECK(images.FindFile("stub", "12.4.1", "runtime") == nullptr);
  REQUIRE(images.LdSoConf("13.0.0", "base").size() == 1);
  CHECK(images.LdSoConf("13.0.0", "base")[0]->dirs == std::vector<std::string>{"/usr/local/cuda/lib64"});
  CHECK(images.LdSoConf("12.4.1", "base")[0]->dirs.size() == 2);
  REQUIRE(images.FindPytorchTag("2.0.0-devel") != nullptr);
  CHECK(images.FindPytorchTag("2.0.0-devel")->compat == false);
}

TEST_CASE("packages.yaml: typed lookups of Python packages, PyPI releases, system packages") {
  const imagelint::PackageKnowledge& packages = CheckoutKnowledge().packages();
  std::map<std::string, std::string> captured;
  const imagelint::PythonPackage* cudart = packages.FindPythonPackage("pip", "nvidia-cuda-runtime-cu12", &captured);
  REQUIRE(cudart != nullptr);
  CHECK(cudart->component == "cudart");
  CHECK(captured["cu"] == "12");
  const imagelint::PythonPackage* other = packages.FindPythonPackage("pip", "nvidia-foo-cu11");
  REQUIRE(other != nullptr);  // the generic NVIDIA wheel row, after the specific ones
  CHECK(other->component.empty());
  CHECK(packages.FindPythonPackage("pip", "jax-cuda12-plugin")->framework == "jax");
  CHECK(packages.FindPythonPackage("conda", "pytorch")->framework == "torch");
  CHECK(packages.FindPythonPackage("conda", "pytorch-cuda")->cuda_selector);
  CHECK(packages.FindPythonPackage("pip", "pytorch") == nullptr);
  CHECK(packages.FindPythonPackage("pip", "numpy") == nullptr);

  CHECK(packages.FindPypiRelease("torch", "1.12")->cuda == "10.2");
  CHECK(packages.FindPypiRelease("torch", "1.12")->unconfirmed.empty());
  CHECK_FALSE(packages.FindPypiRelease("torch", "2.0")->unconfirmed.empty());
  CHECK(packages.FindPypiRelease("torchvision", "0.13")->torch == "1.12");
  CHECK(packages.FindPypiRelease("tensorflow", "2.15")->cuda == "12.2");
  CHECK(packages.FindPypiRelease("tensorflow", "2.1") == nullptr);  // "2.10" is not "2.1"

  captured.clear();
  REQUIRE(packages.FindSystemPackage("cuda-compat-12-4", &captured) != nullptr);
  CHECK(captured["M"] == "12");
  CHECK(captured["m"] == "4");
  captured.clear();
  CHECK(packages.FindSystemPackage("libnvidia-compute-535", &captured)->kind == "bundled");
  CHECK(captured["B"] == "535");
  CHECK(packages.FindSystemPackage("cuda-compat-12", &captured) == nullptr);
  CHECK(packages.FindSystemPackage("cuda-compat-12-4-dev", &captured) == nullptr);
}

TEST_CASE("a source id is spelled out from sources.yaml; other text stays") {
  const Knowledge& k = CheckoutKnowledge();
  CHECK(k.DescribeSource("S10").rfind("S10: conda-forge/cuda-compat-feedstock", 0) == 0);
  CHECK(k.DescribeSource("S6 runfile driver") == "S6 runfile driver");
}

TEST_CASE("name patterns: literal, one `*`, digit placeholders; linear on long names") {
  std::map<std::string, std::string> captured;
  CHECK(MatchNamePattern("cuda-compat-{M}-{m}", "cuda-compat-12-4", &captured));
  CHECK(captured == std::map<std::string, std::string>{{"M", "12"}, {"m", "4"}});
  CHECK_FALSE(MatchNamePattern("cuda-compat-{M}-{m}", "cuda-compat-12-"));
  CHECK_FALSE(MatchNamePattern("cuda-compat-{M}-{m}", "cuda-compat-12-4x"));
  CHECK(MatchNamePattern("cupy-cuda*", "cupy-cuda12x"));
  CHECK_FALSE(MatchNamePattern("cupy-cuda*", "cupy-cuda"));  // `*` takes at least one character
  captured.clear();
  CHECK(MatchNamePattern("nvidia-*-cu{cu}", "nvidia-cuda-nvrtc-cu12", &captured));
  CHECK(captured["cu"] == "12");
  CHECK_FALSE(MatchNamePattern("nvidia-*-cu{cu}", "nvidia-cu12"));
  CHECK_FALSE(MatchNamePattern("torch", "torchvision"));

  // A 200 KB name is read once, in linear time, whatever the pattern.
  std::string huge = "nvidia-" + std::string(200 * 1024, '-') + "-cu12";
  std::string digits(200 * 1024, '7');
  auto start = std::chrono::steady_clock::now();
  CHECK(MatchNamePattern("nvidia-*-cu{cu}", huge));
  CHECK_FALSE(MatchNamePattern("cuda-compat-{M}-{m}", "cuda-compat-" + digits));
  CHECK_FALSE(MatchNamePattern("nvidia-*-cu{cu}", "nvidia-" + std::string(200 * 1024, 'x')));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));

  CHECK(FillTemplate("/usr/local/cuda-{M}.{m}/{unknown}", {{"M", "12"}, {"m", "4"}}) == "/usr/local/cuda-12.4/{unknown}");
  CHECK(FillTemplate("{", {}) == "{");
}

TEST_CASE("several tables in one file: each document validated, errors name file:line:column") {
  imagelint::testing::TempDir dir;
  std::string base_images = CheckoutFile("base-images.yaml");

  // A missing required key is an error, not "".
  auto missing = Knowledge::Load(
      KnowledgeWith(dir, "base-images.yaml", Replace(base_images, R"({cuda: "12.4.1", cudart: "12.4.127", )", R"({cuda: "12.4.1", )")));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().subject.find("base-images.yaml") != std::string::npos);
  CHECK(missing.error().message.find("missing required field 'cudart'") != std::string::npos);
  CHECK(missing.error().line > 60);  // in the cuda_images document, not the first one
  CHECK(missing.error().column > 0);

  // A wrong type, an unknown field.
  auto wrong = Knowledge::Load(KnowledgeWith(dir, "base-images.yaml", Replace(base_images, R"(cudart: "12.4.127")", "cudart: twelve")));
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("must be a version") != std::string::npos);
  auto unknown_field = Knowledge::Load(KnowledgeWith(dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), "framework: torch,", "framwork: torch,")));
  REQUIRE_FALSE(unknown_field.ok());
  CHECK(unknown_field.error().message.find("unknown field 'framwork'") != std::string::npos);

  // A document of a table that does not live in this file; a table given twice; a table missing.
  auto stranger = Knowledge::Load(KnowledgeWith(dir, "packages.yaml", CheckoutFile("packages.yaml") + "---\nkind: gpus\nschema: 1\nrows: []\n"));
  REQUIRE_FALSE(stranger.ok());
  CHECK(stranger.error().message.find("kind 'gpus' is not a table of packages.yaml") != std::string::npos);
  auto twice = Knowledge::Load(KnowledgeWith(dir, "packages.yaml",
                                             CheckoutFile("packages.yaml") + "---\nkind: system_packages\nschema: 1\nrows: []\n"));
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message.find("given twice") != std::string::npos);
  std::string without_pypi = CheckoutFile("packages.yaml");
  without_pypi = without_pypi.replace(without_pypi.find("kind: pypi_releases"), 19, "kind: python_packages");
  auto lost = Knowledge::Load(KnowledgeWith(dir, "packages.yaml", without_pypi));
  REQUIRE_FALSE(lost.ok());

  // Cross-row checks: an unknown brand set, a duplicate package, a pattern the matcher cannot read.
  auto brands = Knowledge::Load(KnowledgeWith(dir, "base-images.yaml", Replace(base_images, "require_brands: B12", "require_brands: B99")));
  REQUIRE_FALSE(brands.ok());
  CHECK(brands.error().message.find("unknown brand set 'B99'") != std::string::npos);
  CHECK(brands.error().line > 0);
  auto duplicate = Knowledge::Load(KnowledgeWith(
      dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), "name: torchvision, framework", "name: torch, framework")));
  REQUIRE_FALSE(duplicate.ok());
  CHECK(duplicate.error().message.find("duplicate pip package 'torch'") != std::string::npos);
  auto pattern = Knowledge::Load(KnowledgeWith(
      dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), R"(name: "cuda-compat-{M}-{m}")", R"(name: "cuda-compat-{M}{m}")")));
  REQUIRE_FALSE(pattern.ok());
  CHECK(pattern.error().message.find("placeholder") != std::string::npos);
  // framework_runtimes: a CUDA major that is not digits, a library without {soname}.
  auto major = Knowledge::Load(KnowledgeWith(
      dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), R"(cuda_major: "12")", R"(cuda_major: "12.x")")));
  REQUIRE_FALSE(major.ok());
  CHECK(major.error().message.find("cuda_major is a CUDA major") != std::string::npos);
  auto library = Knowledge::Load(KnowledgeWith(
      dir, "packages.yaml",
      Replace(CheckoutFile("packages.yaml"), R"(library: "lib/libcudart.so.{soname}")", R"(library: "lib/libcudart.so")")));
  REQUIRE_FALSE(library.ok());
  CHECK(library.error().message.find("library needs {soname}") != std::string::npos);

  // A row citing no id of sources.yaml.
  auto uncited = Knowledge::Load(KnowledgeWith(dir, "base-images.yaml", Replace(base_images, "{architecture: amd64, source: S7}", "{architecture: amd64, source: memory}")));
  REQUIRE_FALSE(uncited.ok());
  CHECK(uncited.error().message.find("names no id from sources.yaml") != std::string::npos);
}

TEST_CASE("one table of several can be parsed from text alone") {
  auto rows = Knowledge::ParseTable("pytorch_images",
                                    "kind: pytorch_images\nschema: 1\nrows:\n  - {tag: 2.1.0-devel, cuda: \"12.1\", source: S7}\n",
                                    "base-images.yaml", {"S7"});
  REQUIRE(rows.ok());
  CHECK(rows->size() == 1);
  auto bad = Knowledge::ParseTable("pytorch_images", "kind: pytorch_images\nschema: 1\nrows:\n  - {tag: x, source: S7}\n",
                                   "base-images.yaml", {"S7"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().line == 4);
  CHECK(bad.error().message.find("missing required field 'cuda'") != std::string::npos);
}

TEST_CASE("tables behind: a tag or release newer than every row says so, with the bundle and the update command") {
  using imagelint::testing::dockerfile_fixture::Facts;
  auto gaps = [](const nlohmann::json& facts) {
    std::string all;
    for (const auto& gap : facts["dockerfile"].value("unknown", nlohmann::json::array()))
      all += gap.value("reason", std::string()) + "\n";
    return all;
  };
  const auto& bundle = CheckoutKnowledge().Table("bundle").at(0);
  const std::string stamp = "knowledge tables " + bundle["revision"].get<std::string>() + " of " +
                            bundle["as_of"].get<std::string>();
  auto newer = gaps(Facts("FROM nvidia/cuda:99.1.0-runtime-ubuntu24.04\nRUN pip install torch==99.0.0 torchvision==9.99.0\n"));
  CAPTURE(newer);
  CHECK(newer.find("nvidia/cuda 99.1.0 is newer than the " + stamp + " know (newest: ") != std::string::npos);
  CHECK(newer.find("torch 99.0.0 is newer than the " + stamp) != std::string::npos);
  CHECK(newer.find("run `imagelint knowledge update`") != std::string::npos);
  auto ngc = gaps(Facts("FROM nvcr.io/nvidia/pytorch:99.01-py3\n"));
  CHECK(ngc.find("NGC release 99.01 is newer than the " + stamp) != std::string::npos);
  // Quiet: a known release, and an unknown one older than the newest row (a gap, not the tables behind).
  CHECK(gaps(Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n")).find("newer than") == std::string::npos);
  auto gap = gaps(Facts("FROM nvidia/cuda:12.4.9-runtime-ubuntu22.04\n"));
  CHECK(gap.find("nvidia/cuda 12.4.9 is not in base-images.yaml") != std::string::npos);
  CHECK(gap.find("newer than") == std::string::npos);
}

// commands.yaml and python_packages' cuda_naming: the rows, not the code,
// decide which wrappers, shells and CUDA grammars the reader follows.
namespace {

json FactsWith(const Knowledge& knowledge, const std::string& text) {
  imagelint::dockerfile::DockerfileOptions options;
  options.knowledge = &knowledge;
  return imagelint::testing::dockerfile_fixture::Facts(text, options);
}

Knowledge LoadOrFail(const fs::path& dir) {
  auto loaded = Knowledge::Load(dir);
  REQUIRE_MESSAGE(loaded.ok(), imagelint::testing::ErrorText(loaded));
  return std::move(*loaded);
}

}  // namespace

TEST_CASE("commands.yaml: a command_runners row makes a wrapper's install read; posix_shells keeps RUN readable") {
  using imagelint::testing::dockerfile_fixture::Find;
  const std::string base = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n";
  const std::string wrapped = base + "RUN with-proxy --region eu pip install torch==2.5.1\n";
  // Without a row, the wrapper is not followed (run_test.cpp says so too).
  CHECK(Find(FactsWith(CheckoutKnowledge(), wrapped)["frameworks"], "name", "torch") == nullptr);
  imagelint::testing::TempDir dir;
  Knowledge with_row = LoadOrFail(KnowledgeWith(
      dir, "commands.yaml",
      CheckoutFile("commands.yaml") + "  - {program: with-proxy, valued_options: [\"--region\"], source: EXEC-RUNNERS}\n"));
  REQUIRE(with_row.commands().FindRunner("with-proxy", "--region") != nullptr);
  json facts = FactsWith(with_row, wrapped);
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.5.1");
  CHECK(facts["frameworks_complete"] == true);

  // SHELL ["/bin/bash", "-c"] keeps RUN readable because bash is a posix_shells row.
  const std::string shell = base + "SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]\nRUN pip install torch==2.5.1\n";
  CHECK(CheckoutKnowledge().commands().IsPosixShell("bash"));
  CHECK(Find(FactsWith(CheckoutKnowledge(), shell)["frameworks"], "name", "torch") != nullptr);
  imagelint::testing::TempDir other;
  Knowledge without_bash =
      LoadOrFail(KnowledgeWith(other, "commands.yaml", Replace(CheckoutFile("commands.yaml"), "  - {name: bash, source: SHELLS}\n", "")));
  json unread = FactsWith(without_bash, shell);
  CHECK(Find(unread["frameworks"], "name", "torch") == nullptr);
  CHECK(unread["frameworks_complete"] == false);
}

TEST_CASE("commands.yaml: a malformed row is refused with its file and line") {
  imagelint::testing::TempDir dir;
  const std::string commands = CheckoutFile("commands.yaml");
  auto dashless = Knowledge::Load(KnowledgeWith(dir, "commands.yaml", Replace(commands, "\"--kill-after\"", "\"kill-after\"")));
  REQUIRE_FALSE(dashless.ok());
  CHECK(dashless.error().message.find("option 'kill-after' does not start with '-'") != std::string::npos);
  CHECK(dashless.error().subject.find("commands.yaml") != std::string::npos);
  CHECK(dashless.error().line > 20);  // the timeout row, in the second document
  auto sync = Knowledge::Load(KnowledgeWith(dir, "commands.yaml", Replace(commands, "{program: nice,", "{program: nice, syncs_with: install,")));
  REQUIRE_FALSE(sync.ok());
  CHECK(sync.error().message.find("syncs_with needs a subcommand") != std::string::npos);
  auto typo = Knowledge::Load(KnowledgeWith(dir, "commands.yaml", Replace(commands, "positionals: 1", "positional: 1")));
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message.find("unknown field 'positional'") != std::string::npos);
  CHECK(typo.error().line > 0);
  auto path = Knowledge::Load(KnowledgeWith(dir, "commands.yaml", Replace(commands, "{name: sh,", "{name: /bin/sh,")));
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message.find("without a directory") != std::string::npos);
}

TEST_CASE("packages.yaml cuda_naming: the row picks the grammar that reads a framework's CUDA build") {
  using imagelint::testing::dockerfile_fixture::Find;
  const std::string text = "FROM ubuntu:22.04\nRUN pip install torch==2.1.0+cu121\n";
  const json named = FactsWith(CheckoutKnowledge(), text);
  const json* torch = Find(named["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "12.1");
  // The same row without cuda_naming: a framework whose CUDA the install line does not tell.
  imagelint::testing::TempDir dir;
  Knowledge unnamed = LoadOrFail(KnowledgeWith(
      dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), "name: torch, framework: torch, cuda_naming: torch,", "name: torch, framework: torch,")));
  json facts = FactsWith(unnamed, text);
  torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK(torch->value("cuda", json()).is_null());  // written as null: not known
  CHECK((*torch)["cuda_unknown"] == true);
  // Only a pip row with a framework has a CUDA grammar.
  auto conda = Knowledge::Load(KnowledgeWith(
      dir, "packages.yaml", Replace(CheckoutFile("packages.yaml"), "{manager: conda, name: cupy, framework: cupy,", "{manager: conda, name: cupy, framework: cupy, cuda_naming: cupy,")));
  REQUIRE_FALSE(conda.ok());
  CHECK(conda.error().message.find("cuda_naming") != std::string::npos);
  CHECK(conda.error().subject.find("packages.yaml") != std::string::npos);
  CHECK(conda.error().line > 0);
}

TEST_CASE("base-images.yaml gpu: a family's flag makes its images GPU images; its rows must agree") {
  using imagelint::testing::dockerfile_fixture::Find;
  const imagelint::BaseImageKnowledge& images = CheckoutKnowledge().base_images();
  for (const char* family : {"nvidia/cuda", "pytorch/pytorch", "ngc", "l4t", "cuda-application"})
    CHECK_MESSAGE(images.IsGpuFamily(family), family);
  CHECK_FALSE(images.IsGpuFamily("no-cuda"));
  CHECK_FALSE(images.IsGpuFamily("unknown"));
  const std::string sglang = "FROM lmsysorg/sglang:latest\n";
  CHECK(Find(FactsWith(CheckoutKnowledge(), sglang)["gpu"]["signals"], "signal", "base-image") != nullptr);

  // Without the flag on any cuda-application row, the FROM alone no longer says GPU.
  const std::string flagged = "  - family: cuda-application\n    gpu: true\n";
  std::string unflagged = CheckoutFile("base-images.yaml");
  for (size_t at; (at = unflagged.find(flagged)) != std::string::npos;)
    unflagged.replace(at, flagged.size(), "  - family: cuda-application\n");
  imagelint::testing::TempDir dir;
  Knowledge without = LoadOrFail(KnowledgeWith(dir, "base-images.yaml", unflagged));
  CHECK_FALSE(without.base_images().IsGpuFamily("cuda-application"));
  CHECK(Find(FactsWith(without, sglang)["gpu"]["signals"], "signal", "base-image") == nullptr);

  // One row of a family without it: refused at that row.
  imagelint::testing::TempDir other;
  auto split = Knowledge::Load(KnowledgeWith(other, "base-images.yaml", Replace(CheckoutFile("base-images.yaml"), flagged,
                                                                                "  - family: cuda-application\n")));
  REQUIRE_FALSE(split.ok());
  CHECK(split.error().message.find("family cuda-application: its rows disagree on gpu") != std::string::npos);
  CHECK(split.error().line > 0);
}
