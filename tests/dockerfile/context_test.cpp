// The build context (requirement files, projects, conda environment files,
// .dockerignore) and hostile context files: bounded, no read outside the
// context, a clear reason for what was not read, never an error for it.
#include <doctest/doctest.h>

#include <chrono>
#include <sys/stat.h>

#include <filesystem>

#include "analysis/rules_fixture.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;
using imagelint::testing::dockerfile_fixture::Find;

namespace {

const char* kR460Fleet = R"(pools:
  - name: t4-r460
    gpu: Tesla T4
    driver: "460.106.00"
  - name: rtx3090-r460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.91.03"
  - name: a100-r550
    gpu: NVIDIA A100-SXM4-80GB
    driver: "550.163.01"
)";

json ContextFacts(const TempDir& dir, const std::string& dockerfile) {
  WriteFileText(dir / "Dockerfile", dockerfile);
  DockerfileOptions options = imagelint::testing::dockerfile_fixture::Options();
  auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  imagelint::testing::dockerfile_fixture::RecordFacts(analysis->facts);
  return analysis->facts;
}

std::string UnknownReasons(const json& facts) {
  std::string out;
  for (const auto& u : facts["dockerfile"]["unknown"]) out += u["reason"].get<std::string>() + "\n";
  return out;
}

const char* kService =
    "FROM python:3.12-slim\n"
    "WORKDIR /app\n"
    "COPY requirements.txt .\n"
    "RUN pip install --no-cache-dir -r requirements.txt\n"
    "COPY . .\n";

}  // namespace

TEST_CASE("requirements.txt from the context: torch inside fails the R460 pools on the pip line") {
  TempDir dir;
  WriteFileText(dir / "requirements.txt", "fastapi==0.115.0\n# the model\ntorch==2.9.0  # GPU\nuvicorn\n");
  json facts = ContextFacts(dir, kService);
  CHECK(facts["gpu"]["workload"] == "nvidia");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.9.0");
  CHECK((*torch)["cuda"] == "12.8");
  CHECK((*torch)["dockerfile_line"] == 4);
  CHECK((*torch)["cuda_source"].get<std::string>().find("requirements.txt:3") != std::string::npos);
  CHECK(facts["frameworks_complete"] == true);
  json report = imagelint::testing::rules_fixture::Run({facts}, kR460Fleet);
  auto verdict = [&](const std::string& pool) { return imagelint::testing::rules_fixture::Verdict(report, 0, pool); };
  CHECK(verdict("t4-r460")["status"] == "fail");
  CHECK(verdict("rtx3090-r460")["status"] == "fail");
  CHECK(verdict("a100-r550")["status"] != "fail");  // CUDA 12.8 on R550: minor-version compatibility (IL010)
  bool noted = false;
  for (const auto& note : facts["dockerfile"]["notes"])
    noted = noted || note["note"].get<std::string>().find("pip reads requirements.txt") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("without the context the same service stays plain and says what was not read and how to give it") {
  json facts = imagelint::testing::dockerfile_fixture::Facts(kService);  // text only: no context
  CHECK(facts["gpu"]["workload"] == "none");
  CHECK(UnknownReasons(facts).find("no build context was given") != std::string::npos);
  bool decide = false;
  for (const auto& u : facts["dockerfile"]["unknown"])
    decide = decide || (u.contains("decide") && u["decide"].get<std::string>().find("--context DIR") != std::string::npos);
  CHECK(decide);
  json report = imagelint::testing::rules_fixture::Run({facts}, kR460Fleet);
  const json& finding = report["images"][0]["findings"][0];
  CHECK(finding["rule"] == "IL016");
  CHECK(finding["message"].get<std::string>().find("Not read") != std::string::npos);
  REQUIRE(!finding["evidence"].empty());
  CHECK(finding["evidence"][0]["dockerfile_line"] == 4);
}

TEST_CASE("-r includes, -c constraints and index options inside requirement files apply as pip applies them") {
  TempDir dir;
  std::filesystem::create_directories(dir / "reqs");
  WriteFileText(dir / "reqs" / "base.txt", "--index-url https://download.pytorch.org/whl/cu118\n-r gpu.txt\n-c pins.txt\n");
  WriteFileText(dir / "reqs" / "gpu.txt", "torch \\\n  --hash=sha256:0000\nnumpy\n");
  WriteFileText(dir / "reqs" / "pins.txt", "torch==2.3.1\n");
  json facts = ContextFacts(dir, "FROM python:3.11\nCOPY reqs /reqs\nRUN pip install -r /reqs/base.txt\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.3.1");
  CHECK((*torch)["variant"] == "cu118");
  CHECK(facts["frameworks_complete"] == true);
}

TEST_CASE("pip install . reads pyproject.toml dependencies and the extras asked for") {
  TempDir dir;
  WriteFileText(dir / "pyproject.toml",
                "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"app\"\n"
                "dependencies = [\n  \"numpy>=1.26\",\n  'requests',\n]\n\n"
                "[project.optional-dependencies]\ngpu = [\"torch==2.4.1\"]\n");
  json facts = ContextFacts(dir, "FROM python:3.11\nWORKDIR /src\nCOPY . .\nRUN pip install .[gpu]\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.4.1");
  json plain = ContextFacts(dir, "FROM python:3.11\nWORKDIR /src\nCOPY . .\nRUN pip install -e .\n");
  CHECK(Find(plain["frameworks"], "name", "torch") == nullptr);
  CHECK(plain["frameworks_complete"] == true);
}

// Pattern: `CMD ["uv", "run", ...]` (astral's uv images): uv syncs the
// project's environment when the container starts, before the program runs.
TEST_CASE("uv run syncs the project first, in RUN and in CMD/ENTRYPOINT; --no-sync, UV_NO_SYNC or no project: nothing") {
  TempDir dir;
  WriteFileText(dir / "pyproject.toml", "[project]\nname = \"api\"\ndependencies = [\"torch==2.5.1\"]\n");
  for (const char* start : {"CMD [\"uv\", \"run\", \"python\", \"-m\", \"api\"]",
                            "ENTRYPOINT [\"uv\", \"run\", \"--frozen\", \"api\"]", "CMD uv run python -m api",
                            "RUN uv run python -c 'import api'"}) {
    CAPTURE(start);
    json facts = ContextFacts(dir, std::string("FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\n") + start + "\n");
    const json* torch = Find(facts["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    CHECK((*torch)["version"] == "2.5.1");
    CHECK((*torch)["dockerfile_line"] == 4);
  }
  for (const char* quiet : {"CMD [\"uv\", \"run\", \"--no-sync\", \"python\", \"-m\", \"api\"]",
                            "ENV UV_NO_SYNC=1\nCMD [\"uv\", \"run\", \"api\"]", "CMD [\"python\", \"-m\", \"api\"]"}) {
    CAPTURE(quiet);
    json facts = ContextFacts(dir, std::string("FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\n") + quiet + "\n");
    CHECK(Find(facts["frameworks"], "name", "torch") == nullptr);
    CHECK(facts["frameworks_complete"] == true);
  }
  // No project where the command runs (the context holds none): uv just runs it.
  TempDir empty;
  WriteFileText(empty / "api.py", "print('hi')\n");
  json none = ContextFacts(empty, "FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nCMD [\"uv\", \"run\", \"api.py\"]\n");
  CHECK(none["frameworks_complete"] == true);
  CHECK(UnknownReasons(none).empty());
}

// Pattern: `uv run --with PKG` (a script's dependencies given on the command
// line): uv installs them for the command, with or without a project.
TEST_CASE("uv run --with installs its packages for the command, in RUN and at container start") {
  for (const char* line : {"CMD [\"uv\", \"run\", \"--no-project\", \"--with\", \"torch==2.5.1,numpy\", \"python\", \"app.py\"]",
                           "RUN uv run --with=torch==2.5.1 --no-project python -c 'import torch'",
                           "ENTRYPOINT uv run --isolated --with numpy --with torch==2.5.1 app.py"}) {
    CAPTURE(line);
    json facts = Facts(std::string("FROM python:3.12-slim\nRUN pip install uv\n") + line + "\n");
    const json* torch = Find(facts["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    CHECK((*torch)["version"] == "2.5.1");
    CHECK((*torch)["dockerfile_line"] == 3);
    CHECK(facts["gpu"]["workload"] == "nvidia");
  }
  json none = Facts("FROM python:3.12-slim\nRUN pip install uv\nCMD [\"uv\", \"run\", \"--no-project\", \"app.py\"]\n");
  CHECK(Find(none["frameworks"], "name", "torch") == nullptr);
}

// Pattern: a uv project that locks torch from PyTorch's CUDA index for Linux
// and from PyPI for macOS, installed with `uv sync --frozen`.
TEST_CASE("uv sync reads uv.lock: the Linux torch with its CUDA variant, on the uv line") {
  TempDir dir;
  WriteFileText(dir / "pyproject.toml", "[project]\nname = \"svc\"\nversion = \"0.1.0\"\ndependencies = [\"torch>=2.5\", \"fastapi\"]\n");
  WriteFileText(dir / "uv.lock",
                "version = 1\nrequires-python = \">=3.12\"\nresolution-markers = [\n    \"sys_platform == 'linux'\",\n"
                "    \"sys_platform != 'linux'\",\n]\n\n"
                "[[package]]\nname = \"fastapi\"\nversion = \"0.115.6\"\n"
                "source = { registry = \"https://pypi.org/simple\" }\n\n"
                "[[package]]\nname = \"torch\"\nversion = \"2.5.1\"\nsource = { registry = \"https://pypi.org/simple\" }\n"
                "resolution-markers = [\n    \"sys_platform == 'darwin'\",\n]\ndependencies = [\n    { name = \"filelock\" },\n]\n\n"
                "[[package]]\nname = \"torch\"\nversion = \"2.5.1+cu124\"\n"
                "source = { registry = \"https://download.pytorch.org/whl/cu124\" }\n"
                "resolution-markers = [\n    \"sys_platform == 'linux'\",\n]\n"
                "wheels = [\n    { url = \"https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl\" },\n]\n");
  const std::string dockerfile =
      "FROM python:3.12-slim\nRUN pip install uv==0.5.11\nWORKDIR /app\nCOPY pyproject.toml uv.lock ./\n"
      "RUN uv sync --frozen --no-install-project\n";
  json facts = ContextFacts(dir, dockerfile);
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"].get<std::string>().find("2.5.1") == 0);
  CHECK((*torch)["cuda"] == "12.4");
  CHECK((*torch)["dockerfile_line"] == 5);
  CHECK(facts["frameworks_complete"] == true);
  json report = imagelint::testing::rules_fixture::Run({facts}, kR460Fleet);
  CHECK(imagelint::testing::rules_fixture::Verdict(report, 0, "t4-r460")["status"] == "fail");

  // Without its lock uv resolves the project's dependencies (unpinned: the newest known, said so).
  std::filesystem::remove(dir / "uv.lock");
  WriteFileText(dir / "uv.lock.unused", "");
  json unlocked = ContextFacts(dir, "FROM python:3.12-slim\nWORKDIR /app\nCOPY pyproject.toml ./\nRUN uv sync\n");
  CHECK(Find(unlocked["frameworks"], "name", "torch") != nullptr);

  // A uv.lock with no package in it (a placeholder, another format): not read
  // as "installs nothing"; the project's dependencies stand for it, said so.
  WriteFileText(dir / "uv.lock", "# generated elsewhere\n");
  json placeholder = ContextFacts(dir, dockerfile);
  CHECK(Find(placeholder["frameworks"], "name", "torch") != nullptr);
  CHECK(placeholder.dump().find("holds no [[package]] table") != std::string::npos);

  // Two Linux builds of torch in the lock: which one installs is not decided here.
  WriteFileText(dir / "uv.lock",
                "version = 1\n[[package]]\nname = \"torch\"\nversion = \"2.5.1+cu121\"\n"
                "resolution-markers = [\n    \"platform_machine == 'x86_64'\",\n]\n"
                "[[package]]\nname = \"torch\"\nversion = \"2.5.1+cu124\"\n"
                "resolution-markers = [\n    \"platform_machine == 'aarch64'\",\n]\n");
  json two = ContextFacts(dir, dockerfile);
  CHECK(Find(two["frameworks"], "name", "torch") == nullptr);
  CHECK(two["frameworks_complete"] == false);
  CHECK(UnknownReasons(two).find("torch is locked at 2 versions") != std::string::npos);
}

// Pattern: poetry installing from poetry.lock, torch from a supplemental
// PyTorch source.
TEST_CASE("poetry install reads poetry.lock: torch from its PyTorch source") {
  TempDir dir;
  WriteFileText(dir / "pyproject.toml", "[tool.poetry]\nname = \"svc\"\n[tool.poetry.dependencies]\ntorch = \"2.1.0\"\n");
  WriteFileText(dir / "poetry.lock",
                "# This file is automatically @generated by Poetry\n\n[[package]]\nname = \"torch\"\nversion = \"2.1.0+cu118\"\n"
                "description = \"Tensors\"\noptional = false\n\n[package.dependencies]\nfilelock = \"*\"\n\n"
                "[package.source]\ntype = \"legacy\"\nurl = \"https://download.pytorch.org/whl/cu118\"\nreference = \"pytorch\"\n\n"
                "[metadata]\nlock-version = \"2.0\"\n");
  json facts = ContextFacts(dir, "FROM python:3.11\nWORKDIR /srv\nCOPY pyproject.toml poetry.lock ./\n"
                                 "RUN pip install poetry==1.8.3 && poetry install --no-root\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "11.8");
  CHECK(facts["frameworks_complete"] == true);
}

// Pattern: pipenv installing Pipfile.lock into the system Python, torch
// pinned to a named PyTorch source (pipenv installs a package that names an
// index from that index only).
TEST_CASE("pipenv install reads Pipfile.lock, else the Pipfile; pipenv sync needs the lock") {
  TempDir dir;
  WriteFileText(dir / "Pipfile",
                "[[source]]\nurl = \"https://pypi.org/simple\"\nverify_ssl = true\nname = \"pypi\"\n\n"
                "[[source]]\nurl = \"https://download.pytorch.org/whl/cu118\"\nverify_ssl = true\nname = \"pytorch\"\n\n"
                "[packages]\ntorch = {version = \"==2.1.0\", index = \"pytorch\"}\nfastapi = \"*\"\n\n[dev-packages]\npytest = \"*\"\n");
  WriteFileText(dir / "Pipfile.lock",
                R"({"_meta": {"pipfile-spec": 6, "sources": [{"name": "pypi", "url": "https://pypi.org/simple", "verify_ssl": true},
                 {"name": "pytorch", "url": "https://download.pytorch.org/whl/cu118", "verify_ssl": true}]},
                 "default": {"torch": {"hashes": ["sha256:00"], "index": "pytorch", "version": "==2.1.0+cu118"},
                             "fastapi": {"hashes": [], "index": "pypi", "version": "==0.110.0"},
                             "pywin32": {"markers": "sys_platform == 'win32'", "version": "==306"}},
                 "develop": {"pytest": {"version": "==8.0.0"}}})");
  const std::string dockerfile =
      "FROM python:3.11-slim\nRUN pip install pipenv\nWORKDIR /srv\nCOPY Pipfile Pipfile.lock ./\n"
      "RUN pipenv install --system --deploy\n";
  json facts = ContextFacts(dir, dockerfile);
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"].get<std::string>().find("2.1.0") == 0);
  CHECK((*torch)["cuda"] == "11.8");
  CHECK((*torch)["dockerfile_line"] == 5);
  CHECK(facts["frameworks_complete"] == true);
  json report = imagelint::testing::rules_fixture::Run({facts}, kR460Fleet);
  CHECK(imagelint::testing::rules_fixture::Verdict(report, 0, "a100-r550")["status"] == "pass");

  // No lock: `pipenv install` locks the Pipfile first; torch comes from the index it names.
  std::filesystem::remove(dir / "Pipfile.lock");
  json unlocked = ContextFacts(dir, "FROM python:3.11-slim\nWORKDIR /srv\nCOPY Pipfile ./\nRUN pipenv install --system\n");
  const json* resolved = Find(unlocked["frameworks"], "name", "torch");
  REQUIRE(resolved != nullptr);
  CHECK((*resolved)["cuda"] == "11.8");
  // `pipenv sync` installs only a lock, and there is none.
  json sync = ContextFacts(dir, "FROM python:3.11-slim\nWORKDIR /srv\nCOPY Pipfile ./\nRUN pipenv sync --system\n");
  CHECK(sync["frameworks_complete"] == false);
  CHECK(UnknownReasons(sync).find("Pipfile.lock") != std::string::npos);
  // A package named on the command line re-resolves: not followed.
  json named = ContextFacts(dir, "FROM python:3.11-slim\nWORKDIR /srv\nCOPY Pipfile ./\nRUN pipenv install --system torch\n");
  CHECK(named["frameworks_complete"] == false);
}

// Pattern: a pixi workspace whose lock holds conda-forge's CUDA build of
// pytorch for linux-64 and PyTorch's cu124 wheel in a second environment.
TEST_CASE("pixi install reads pixi.lock for the command's environment and the image's platform") {
  TempDir dir;
  WriteFileText(dir / "pixi.toml", "[workspace]\nname = \"svc\"\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n");
  const std::string forge = "https://conda.anaconda.org/conda-forge/";
  WriteFileText(dir / "pixi.lock",
                "version: 6\nenvironments:\n  default:\n    channels:\n    - url: " + forge + "\n    packages:\n"
                "      linux-64:\n"
                "      - conda: " + forge + "linux-64/cuda-version-12.6-h7480c83_3.conda\n"
                "      - conda: " + forge + "linux-64/python-3.12.8-h9e4cc4f_1_cpython.conda\n"
                "      - conda: " + forge + "linux-64/pytorch-2.5.1-cuda126_py312h1763f6d_306.conda\n"
                "      osx-arm64:\n"
                "      - conda: " + forge + "osx-arm64/pytorch-2.5.1-cpu_generic_py312_h0.conda\n"
                "  wheels:\n    channels:\n    - url: " + forge + "\n    indexes:\n    - https://pypi.org/simple\n    packages:\n"
                "      linux-64:\n"
                "      - conda: " + forge + "linux-64/python-3.12.8-h9e4cc4f_1_cpython.conda\n"
                "      - pypi: https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl\n"
                "      - pypi: ./\n"
                "  cpu:\n    channels:\n    - url: " + forge + "\n    packages:\n"
                "      linux-64:\n"
                "      - conda: " + forge + "linux-64/pytorch-2.5.1-cpu_mkl_py312_h0_100.conda\n"
                "packages:\n- conda: " + forge + "linux-64/cuda-version-12.6-h7480c83_3.conda\n  sha256: 00\n");
  auto facts_of = [&](const std::string& command) {
    return ContextFacts(dir, "FROM ubuntu:24.04\nWORKDIR /app\nCOPY pixi.toml pixi.lock ./\nRUN " + command + "\n");
  };
  // conda-forge's build: CUDA 12.6 from cuda-version, its arch list not claimed.
  json forge_facts = facts_of("pixi install --locked");
  const json* torch = Find(forge_facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "2.5.1");
  CHECK((*torch)["cuda"] == "12.6");
  CHECK(torch->value("sass", json()).is_null());
  CHECK_MESSAGE(forge_facts["frameworks_complete"] == true, UnknownReasons(forge_facts));

  // The wheel environment: PyTorch's cu124 build with its arch list.
  json wheels = facts_of("pixi install -e wheels");
  const json* wheel = Find(wheels["frameworks"], "name", "torch");
  REQUIRE(wheel != nullptr);
  CHECK((*wheel)["cuda"] == "12.4");
  CHECK((*wheel)["sass"].is_array());
  CHECK(wheels["frameworks_complete"] == true);

  // A CPU build is no GPU framework; an environment the lock lacks is not read.
  CHECK(Find(facts_of("pixi install --environment=cpu")["frameworks"], "name", "torch") == nullptr);
  json missing = facts_of("pixi install -e gpu");
  CHECK(missing["frameworks_complete"] == false);
  CHECK(UnknownReasons(missing).find("no environment `gpu`") != std::string::npos);
  // linux/arm64 has no list in the default environment.
  WriteFileText(dir / "Dockerfile",
                "FROM --platform=linux/arm64 ubuntu:24.04\nWORKDIR /app\nCOPY pixi.toml pixi.lock ./\nRUN pixi install\n");
  DockerfileOptions options = imagelint::testing::dockerfile_fixture::Options();
  auto arm = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
  REQUIRE(arm.ok());
  CHECK(UnknownReasons(arm->facts).find("locks no packages for linux-aarch64") != std::string::npos);
}

TEST_CASE("hostile lock files: oversized, deeply nested, not JSON, no environments: a reason, never an error") {
  TempDir dir;
  WriteFileText(dir / "Pipfile.lock", std::string(100000, '[') + std::string(100000, ']'));
  json deep = ContextFacts(dir, "FROM python:3.11-slim\nCOPY Pipfile.lock .\nRUN pipenv sync --system\n");
  CHECK(deep["frameworks_complete"] == false);
  CHECK(UnknownReasons(deep).find("Pipfile.lock") != std::string::npos);
  WriteFileText(dir / "Pipfile.lock", "\xff\xfe not json");
  json binary = ContextFacts(dir, "FROM python:3.11-slim\nCOPY Pipfile.lock .\nRUN pipenv sync --system\n");
  CHECK(binary["frameworks_complete"] == false);
  // A lock over the lock limit (8 MiB) is named, not read.
  WriteFileText(dir / "pixi.lock", "version: 6\n" + std::string(9u << 20, '#'));
  json big = ContextFacts(dir, "FROM ubuntu:24.04\nCOPY pixi.lock .\nRUN pixi install\n");
  CHECK(UnknownReasons(big).find("over the limit") != std::string::npos);
  // Indentation and keys pixi never writes: nothing taken, and said so.
  WriteFileText(dir / "pixi.lock", "environments: {default: {packages: {linux-64: [{conda: x}]}}}\n  - - - :\n\t:\n");
  json odd = ContextFacts(dir, "FROM ubuntu:24.04\nCOPY pixi.lock .\nRUN pixi install\n");
  CHECK(odd["frameworks_complete"] == false);
  CHECK(UnknownReasons(odd).find("no environment `default`") != std::string::npos);
}

TEST_CASE("conda env create -f environment.yml reads channels, conda specs and pip entries") {
  TempDir dir;
  WriteFileText(dir / "environment.yml",
                "name: gpu\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n  - python=3.11\n"
                "  - pytorch=2.1.0\n  - pytorch-cuda=12.1\n  - pip\n  - pip:\n      - requests\n");
  json facts = ContextFacts(dir, "FROM continuumio/miniconda3\nCOPY environment.yml .\nRUN conda env create -f environment.yml\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "12.1");
  CHECK((*torch)["installer"] == "conda");
}

TEST_CASE(".dockerignore excludes a requirements file: it is not in the image") {
  TempDir dir;
  WriteFileText(dir / "requirements.txt", "torch==2.9.0\n");
  WriteFileText(dir / ".dockerignore", "# build outputs\n**/*.txt\n");
  json facts = ContextFacts(dir, kService);
  CHECK(Find(facts["frameworks"], "name", "torch") == nullptr);
  CHECK(UnknownReasons(facts).find("excluded from the build context by .dockerignore") != std::string::npos);
  WriteFileText(dir / ".dockerignore", "*.txt\n!requirements.txt\n");
  json kept = ContextFacts(dir, kService);
  CHECK(Find(kept["frameworks"], "name", "torch") != nullptr);
}

TEST_CASE("hostile context files: cycles, depth, size, non-UTF-8, symlinks out, FIFOs: a reason, no hang") {
  TempDir dir;
  TempDir outside;
  WriteFileText(outside / "secret.txt", "torch==2.9.0\n");
  WriteFileText(dir / "a.txt", "-r b.txt\n");
  WriteFileText(dir / "b.txt", "-r a.txt\n");
  std::string chain;
  for (int i = 0; i < 40; ++i) WriteFileText(dir / ("d" + std::to_string(i) + ".txt"), "-r d" + std::to_string(i + 1) + ".txt\n");
  WriteFileText(dir / "huge.txt", std::string(3 << 20, '#'));
  WriteFileText(dir / "latin1.txt", std::string("torch==2.9.0 # caf\xe9\n"));
  std::filesystem::create_symlink(outside / "secret.txt", dir / "link.txt");
  bool fifo = ::mkfifo((dir / "pipe.txt").c_str(), 0600) == 0;
  auto start = std::chrono::steady_clock::now();
  json facts = ContextFacts(dir,
                            "FROM python:3.11\nCOPY . /c\nRUN pip install -r /c/a.txt\nRUN pip install -r /c/d0.txt\n"
                            "RUN pip install -r /c/huge.txt\nRUN pip install -r /c/latin1.txt\n"
                            "RUN pip install -r /c/link.txt\nRUN pip install -r /c/pipe.txt\n"
                            "RUN pip install -r /c/../../etc/passwd\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 2.0);
  std::string reasons = UnknownReasons(facts);
  CAPTURE(reasons);
  CHECK(reasons.find("includes itself (a.txt -> b.txt -> a.txt)") != std::string::npos);
  CHECK(reasons.find("files deep") != std::string::npos);
  CHECK(reasons.find("is over the limit of 1048576 bytes") != std::string::npos);
  CHECK(reasons.find("is not UTF-8 text") != std::string::npos);
  CHECK(reasons.find("leads out of the build context") != std::string::npos);
  if (fifo) CHECK(reasons.find("is not a regular file") != std::string::npos);
  CHECK(reasons.find("/etc/passwd: not in the image from the build context") != std::string::npos);
  CHECK(Find(facts["frameworks"], "name", "torch") == nullptr);  // nothing from outside the context
  CHECK(facts["frameworks_complete"] == false);
}

TEST_CASE("speed: a Dockerfile with a context of a few files, and without one") {
  TempDir dir;
  std::filesystem::create_directories(dir / "reqs");
  WriteFileText(dir / "reqs" / "base.txt",
                "--extra-index-url https://download.pytorch.org/whl/cu124\n-r gpu.txt\n-c pins.txt\nfastapi==0.115.0\n");
  WriteFileText(dir / "reqs" / "gpu.txt", "torch\ntorchvision\nnumpy>=1.26\n");
  WriteFileText(dir / "reqs" / "pins.txt", "torch==2.5.1\ntorchvision==0.20.1\n");
  WriteFileText(dir / "pyproject.toml", "[project]\nname = \"app\"\ndependencies = [\"requests\", \"pydantic>=2\"]\n");
  WriteFileText(dir / "environment.yml", "channels: [conda-forge]\ndependencies:\n  - python=3.11\n  - pip\n");
  WriteFileText(dir / ".dockerignore", "**/__pycache__\n*.md\n");
  WriteFileText(dir / "Dockerfile",
                "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nWORKDIR /app\nCOPY reqs reqs\n"
                "RUN pip install -r reqs/base.txt\nCOPY . .\nRUN pip install .\nRUN conda env update -f environment.yml\n");
  auto time = [&](bool context) {
    DockerfileOptions options = imagelint::testing::dockerfile_fixture::Options();
    options.no_context = !context;
    const int runs = 50;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) {
      auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
      REQUIRE(analysis.ok());
      if (context) CHECK(Find(analysis->facts["frameworks"], "name", "torch") != nullptr);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
  };
  double with_context = time(true), without = time(false);
  MESSAGE("dockerfile analysis: " << with_context << " ms per Dockerfile with 6 context files, " << without
                                  << " ms without a context");
  CHECK(with_context < 50.0);
  CHECK(without < 20.0);
}

// Pattern: `pip install -e .` of a hatchling (or flit, poetry-core,
// pdm-backend) project with TORCH_CUDA_ARCH_LIST set in the image for other
// builds: a pure-Python backend compiles nothing (python_build_backends rows),
// so the project adds no GPU code; a build hook or another backend may.
TEST_CASE("pip install of a project: a pure-Python build backend adds no GPU code, a build hook may") {
  const std::string dockerfile =
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nENV TORCH_CUDA_ARCH_LIST=\"9.0;10.0\"\n"
      "RUN apt-get update && apt-get install -y python3-pip\nWORKDIR /app\nCOPY . .\nRUN pip install -e .\n";
  auto built = [](const json& facts) {
    if (!facts.contains("binaries")) return false;
    for (const json& row : facts["binaries"])
      if (row.value("path", "").find("GPU code built at line 6") != std::string::npos) return true;
    return false;
  };
  const std::string project = "[project]\nname = \"svc\"\nversion = \"0.1\"\ndependencies = [\"pyyaml\"]\n";
  {
    TempDir dir;
    WriteFileText(dir / "pyproject.toml", "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n" + project);
    json facts = ContextFacts(dir, dockerfile);
    CHECK_FALSE(built(facts));
    CHECK(facts.dump().find("builds pure-Python wheels: no GPU code") != std::string::npos);
    CHECK(UnknownReasons(facts).find("binaries") == std::string::npos);
  }
  {  // a hatch build hook can compile: read as any source build
    TempDir dir;
    WriteFileText(dir / "pyproject.toml", "[build-system]\nbuild-backend = \"hatchling.build\"\n" + project +
                                              "[tool.hatch.build.hooks.custom]\npath = \"hatch_build.py\"\n");
    CHECK(built(ContextFacts(dir, dockerfile)));
  }
  {  // setuptools compiles extensions
    TempDir dir;
    WriteFileText(dir / "pyproject.toml", "[build-system]\nbuild-backend = \"setuptools.build_meta\"\n" + project);
    CHECK(built(ContextFacts(dir, dockerfile)));
  }
  {  // pdm-backend with its hook file in the project
    TempDir dir;
    WriteFileText(dir / "pyproject.toml", "[build-system]\nbuild-backend = 'pdm.backend'\n" + project);
    CHECK_FALSE(built(ContextFacts(dir, dockerfile)));
    WriteFileText(dir / "pdm_build.py", "def pdm_build_update_setup_kwargs(context, kwargs): pass\n");
    CHECK(built(ContextFacts(dir, dockerfile)));
  }
}
