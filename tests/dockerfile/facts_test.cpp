// From Dockerfile text to facts: base images, ENV, RUN (pip/conda/apt/rm/ln/
// echo), COPY/ADD, multi-stage, ARG-driven tags, unknowns, provenance, speed.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"

using nlohmann::json;
using namespace imagelint::dockerfile;

namespace {

json Facts(const std::string& text, DockerfileOptions options = {}) {
  auto analysis = AnalyzeDockerfileText(text, "Dockerfile", options);
  if (!analysis.ok()) FAIL("analysis failed: " << analysis.error().ToString());
  return analysis->facts;
}

const json* Find(const json& rows, const std::string& key, const std::string& value) {
  for (const auto& row : rows)
    if (row.is_object() && row.contains(key) && row[key] == value) return &row;
  return nullptr;
}

const json* Driver(const json& facts, const std::string& kind) {
  if (!facts["cuda"].contains("drivers")) return nullptr;
  return Find(facts["cuda"]["drivers"], "kind", kind);
}

bool HasUnknown(const json& facts, const std::string& fact) {
  return Find(facts["dockerfile"]["unknown"], "fact", fact) != nullptr;
}

// The knowledge tables, for arch lists (optional: skipped when they do not load).
const imagelint::Knowledge* Tables() {
  static auto loaded = imagelint::Knowledge::LoadDefault(imagelint::testing::SourceDir());
  return loaded.ok() ? &*loaded : nullptr;
}

const char* kCompatTrap =
    "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
    "RUN pip install --no-cache-dir torch==1.12.1+cu113 torchvision==0.13.1+cu113 \\\n"
    "      --extra-index-url https://download.pytorch.org/whl/cu113\n"
    "CMD [\"python\", \"train.py\"]\n";

}  // namespace

TEST_CASE("the classic compat trap: nvidia/cuda 11.3.0 devel + torch 1.12.1+cu113") {
  json facts = Facts(kCompatTrap);
  CHECK(facts["schema"] == "imagelint.facts/v1");
  CHECK(facts["source"]["kind"] == "dockerfile");
  const json& base = facts["image"]["base"];
  CHECK(base["known"] == true);
  CHECK(base["cuda_version"] == "11.3.0");
  CHECK(base["dockerfile_line"] == 1);
  const json& env = facts["image"]["env"];
  CHECK(env["CUDA_VERSION"] == "11.3.0");
  CHECK(env["NVIDIA_REQUIRE_CUDA"] ==
        "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440,driver<441 driver>=450");
  CHECK(env["NV_CUDA_COMPAT_PACKAGE"] == "cuda-compat-11-3");
  CHECK(env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib:/usr/local/nvidia/lib64");
  CHECK(env["LIBRARY_PATH"] == "/usr/local/cuda/lib64/stubs");
  CHECK(facts["image"]["env_provenance"]["CUDA_VERSION"]["dockerfile_line"] == 1);

  const json* compat = Driver(facts, "compat");
  REQUIRE(compat != nullptr);
  CHECK((*compat)["path"] == "/usr/local/cuda-11.3/compat/libcuda.so.465.19.01");
  CHECK((*compat)["version"] == "465.19.01");
  CHECK((*compat)["dockerfile_line"] == 1);
  CHECK((*compat)["origin"] == "base-image");
  CHECK((*compat)["layer"] == 0);
  CHECK_FALSE(compat->contains("unconfirmed"));  // 465.19.01 is confirmed by a field report
  bool alias = false;
  for (const auto& a : (*compat)["aliases"]) alias = alias || a == "/usr/local/cuda/compat/libcuda.so.1";
  CHECK(alias);
  REQUIRE(Driver(facts, "stub") != nullptr);  // devel image
  CHECK(facts["cuda"]["drivers_complete"] == true);

  const json& runtime = facts["cuda"]["runtimes"][0];
  CHECK(runtime["version"] == "11.3.58");
  CHECK(runtime["soname"] == "libcudart.so.11.0");
  const json& requirements = facts["cuda"]["requirements"];
  CHECK(requirements["legacy"] == false);
  CHECK(requirements["disabled"] == false);
  CHECK(requirements["complete"] == true);
  CHECK(requirements["provenance"]["NVIDIA_REQUIRE_CUDA"]["dockerfile_line"] == 1);

  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["version"] == "1.12.1");
  CHECK((*torch)["cuda"] == "11.3");
  CHECK((*torch)["variant"] == "cu113");
  CHECK((*torch)["dockerfile_line"] == 2);
  CHECK((*torch)["layer"] == 1);
  CHECK(facts["image"]["layers"][1]["dockerfile_line"] == 2);
  const json* vision = Find(facts["frameworks"], "name", "torchvision");
  REQUIRE(vision != nullptr);
  CHECK((*vision)["cuda"] == "11.3");

  if (Tables()) {
    json with = Facts(kCompatTrap, [] {
      DockerfileOptions o;
      o.knowledge = Tables();
      return o;
    }());
    const json* t = Find(with["frameworks"], "name", "torch");
    REQUIRE(t != nullptr);
    CHECK((*t)["sass"] == json::array({"sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"}));
    REQUIRE(with.contains("binaries"));
    CHECK(with["binaries"][0]["sass"].size() == 7);
    CHECK(with["binaries"][0]["dockerfile_line"] == 2);
  }
}

TEST_CASE("its fix: removing the compat directory or purging the package") {
  for (const std::string fix : {"RUN rm -rf /usr/local/cuda-11.3/compat\n", "RUN rm -rf /usr/local/cuda/compat\n",
                                "RUN apt-get purge -y cuda-compat-11-3 && rm -rf /var/lib/apt/lists/*\n",
                                "RUN apt-get remove -y 'cuda-compat-*'\n", "RUN rm -f /usr/local/cuda/compat/libcuda.so*\n"}) {
    CAPTURE(fix);
    json facts = Facts(std::string(kCompatTrap) + fix);
    CHECK(Driver(facts, "compat") == nullptr);
    REQUIRE(facts["dockerfile"]["changes"].size() >= 1);
    CHECK(facts["dockerfile"]["changes"][0]["dockerfile_line"] == 5);
    CHECK(Driver(facts, "stub") != nullptr);  // only the compat library went
  }
  // Removing something else keeps it.
  json kept = Facts(std::string(kCompatTrap) + "RUN rm -rf /usr/local/cuda/compat-old /tmp/*\n");
  CHECK(Driver(kept, "compat") != nullptr);
}

TEST_CASE("a PyTorch wheel without kernels for the fleet's GPU: torch 1.12.1 from PyPI on a 10.2 base") {
  DockerfileOptions options;
  options.knowledge = Tables();
  json facts = Facts(
      "FROM nvidia/cuda:10.2-base-ubuntu18.04\n"
      "RUN apt-get update && apt-get install -y python3-pip\n"
      "RUN python3 -m pip install torch==1.12.1\n",
      options);
  CHECK(facts["image"]["base"]["cuda_version"] == "10.2.89");  // minor-only tag: newest known
  CHECK(facts["image"]["base"].contains("tag_resolution"));
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  CHECK((*torch)["cuda"] == "10.2");
  CHECK((*torch)["variant"] == "cu102");
  CHECK((*torch)["cuda_source"] == "PyPI default of torch 1.12");
  CHECK((*torch)["dockerfile_line"] == 3);
  CHECK_FALSE(torch->contains("unconfirmed"));  // 1.12 -> cu102 is a field report
  if (Tables()) {
    CHECK((*torch)["sass"] == json::array({"sm_37", "sm_50", "sm_60", "sm_70"}));
    CHECK((*torch)["ptx"].empty());
  }
  // The 2.0 default is from memory and says so.
  json later = Facts("FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\nRUN pip install torch==2.0.1\n");
  CHECK(Find(later["frameworks"], "name", "torch")->contains("unconfirmed"));
}

TEST_CASE("an image whose requirement string older drivers refuse") {
  json facts = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\n");
  std::string require = facts["image"]["env"]["NVIDIA_REQUIRE_CUDA"];
  CHECK(require.rfind("cuda>=12.8 brand=unknown,driver>=470,driver<471 brand=grid,driver>=470,driver<471", 0) == 0);
  CHECK(require.find("brand=geforce") == std::string::npos);  // B12: no GeForce terms
  CHECK(require.find("brand=cloudgaming,driver>=565,driver<566") != std::string::npos);
  CHECK(facts["image"]["env"]["LD_LIBRARY_PATH"] == "/usr/local/cuda/lib64");
  CHECK(Driver(facts, "compat")->at("version") == "570.86.10");
  CHECK(Driver(facts, "stub") == nullptr);  // runtime flavour
  CHECK(facts["cuda"]["requirements"]["NVIDIA_REQUIRE_CUDA"] == require);

  // ENV overrides are tracked to their line; NVIDIA_DISABLE_REQUIRE is read like the toolkit does.
  json disabled = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_DISABLE_REQUIRE=true\n");
  CHECK(disabled["cuda"]["requirements"]["disabled"] == true);
  CHECK(disabled["cuda"]["requirements"]["provenance"]["NVIDIA_DISABLE_REQUIRE"]["dockerfile_line"] == 2);
  // Legacy images: CUDA_VERSION without NVIDIA_REQUIRE_CUDA.
  json legacy = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_REQUIRE_CUDA=\"\"\n");
  CHECK(legacy["cuda"]["requirements"]["legacy"] == true);
  CHECK(legacy["cuda"]["requirements"]["legacy_cuda_version"] == "12.8");
}

TEST_CASE("ARG-driven base tags, --build-arg overrides, platform") {
  const char* text =
      "ARG CUDA=11.8.0\n"
      "ARG FLAVOR\n"
      "ARG OS=ubuntu22.04\n"
      "FROM nvidia/cuda:${CUDA}-${FLAVOR:-runtime}-${OS} AS run\n"
      "ARG CUDA\n"
      "ENV MY_CUDA=${CUDA} UNSET=${OS}x\n";
  json facts = Facts(text);
  CHECK(facts["image"]["base"]["ref"] == "nvidia/cuda:11.8.0-runtime-ubuntu22.04");
  CHECK(facts["image"]["env"]["CUDA_VERSION"] == "11.8.0");
  CHECK(facts["image"]["env"]["MY_CUDA"] == "11.8.0");  // redeclared ARG takes the global value
  CHECK(facts["image"]["env"]["UNSET"] == "x");          // OS not redeclared in the stage
  DockerfileOptions options;
  options.build_args = {{"CUDA", "12.4.1"}, {"FLAVOR", "devel"}, {"UNUSED", "1"}};
  json overridden = Facts(text, options);
  CHECK(overridden["image"]["base"]["ref"] == "nvidia/cuda:12.4.1-devel-ubuntu22.04");
  CHECK(overridden["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(overridden["image"]["env"]["MY_CUDA"] == "12.4.1");
  CHECK(overridden["dockerfile"]["unused_build_args"] == json::array({"UNUSED"}));
  CHECK(Driver(overridden, "compat")->at("version") == "550.54.15");
  CHECK(Driver(overridden, "stub") != nullptr);

  // arm64 Ubuntu images of CUDA <= 12.5.0 carry no compat package.
  DockerfileOptions arm;
  arm.platform = "linux/arm64";
  json arm_facts = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n", arm);
  CHECK(arm_facts["image"]["architecture"] == "arm64");
  CHECK(Driver(arm_facts, "compat") == nullptr);
  CHECK(arm_facts["cuda"]["runtimes"][0]["path"] == "/usr/local/cuda-12.4/targets/sbsa-linux/lib/libcudart.so.12.4.127");
  json arm_new = Facts("FROM --platform=linux/arm64 nvidia/cuda:12.6.3-base-ubuntu22.04\n");
  CHECK(Driver(arm_new, "compat") != nullptr);

  // A digest pin works with the tag; without the tag the release is unknown.
  json pinned = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04@sha256:" + std::string(64, 'a') + "\n");
  CHECK(pinned["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  json digest_only = Facts("FROM nvidia/cuda@sha256:" + std::string(64, 'a') + "\n");
  CHECK(HasUnknown(digest_only, "base-image"));
  CHECK_FALSE(digest_only["cuda"].contains("drivers"));
  // docker.io prefixes are the same repository.
  CHECK(Facts("FROM docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n")["image"]["base"]["known"] == true);

  // A missing required ARG is an error with the line.
  auto missing = AnalyzeDockerfileText("ARG V\nFROM nvidia/cuda:${V:?set V}\n", "Dockerfile", {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().line == 2);
}

TEST_CASE("multi-stage: only the target stage's chain matters") {
  const char* text =
      "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04 AS build\n"
      "RUN pip install torch==1.12.1+cu113 --extra-index-url https://download.pytorch.org/whl/cu113\n"
      "FROM build AS test\n"
      "RUN pip install pytest\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
      "COPY --from=build /app /app\n";
  json final_stage = Facts(text);
  CHECK(final_stage["image"]["env"]["CUDA_VERSION"] == "12.4.1");
  CHECK(final_stage["frameworks"].empty());
  CHECK(Driver(final_stage, "compat")->at("version") == "550.54.15");
  CHECK(final_stage["source"]["stage"] == 2);

  DockerfileOptions options;
  options.target = "test";
  json test_stage = Facts(text, options);
  CHECK(test_stage["image"]["env"]["CUDA_VERSION"] == "11.3.0");
  CHECK(Find(test_stage["frameworks"], "name", "torch") != nullptr);
  CHECK(Find(test_stage["frameworks"], "name", "torch")->at("dockerfile_line") == 2);
  CHECK(test_stage["image"]["ref"] == "Dockerfile#test");

  options.target = "nope";
  auto missing = AnalyzeDockerfileText(text, "Dockerfile", options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("target stage") != std::string::npos);

  // Copying a libcuda out of another stage is seen.
  json copied = Facts("FROM ubuntu:22.04 AS drv\nFROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                      "COPY --from=drv /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05 /usr/lib/x86_64-linux-gnu/\n");
  const json* bundled = Driver(copied, "bundled");
  REQUIRE(bundled != nullptr);
  CHECK((*bundled)["version"] == "535.104.05");
  CHECK((*bundled)["path"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05");
  CHECK((*bundled)["dockerfile_line"] == 3);
}

TEST_CASE("unknown bases and unread constructs stay unknown, never guessed") {
  json facts = Facts(
      "FROM python:3.11-slim\n"
      "RUN pip install -r requirements.txt\n"
      "RUN pip install torch\n");
  CHECK(facts["image"]["base"]["known"] == false);
  CHECK(HasUnknown(facts, "base-image"));
  CHECK(HasUnknown(facts, "frameworks"));
  CHECK_FALSE(facts["cuda"].contains("drivers"));
  CHECK_FALSE(facts["cuda"].contains("runtimes"));
  CHECK_FALSE(facts["cuda"].contains("requirements"));
  CHECK(facts["cuda"]["drivers_complete"] == false);
  CHECK(facts["frameworks_complete"] == false);
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);  // positive evidence is kept
  CHECK((*torch)["version"].is_null());
  CHECK((*torch)["cuda_unknown"] == true);

  json ngc = Facts("FROM nvcr.io/nvidia/pytorch:24.05-py3\n");
  CHECK(ngc["image"]["base"]["kind"] == "ngc");
  CHECK(HasUnknown(ngc, "base-image"));

  json unknown_tag = Facts("FROM nvidia/cuda:99.1.0-base-ubuntu22.04\n");
  CHECK(unknown_tag["image"]["base"]["known"] == false);
  CHECK_FALSE(unknown_tag["cuda"].contains("drivers"));

  json installer = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN sh cuda_12.6.0_560.28.03_linux.run --silent\n");
  CHECK(HasUnknown(installer, "cuda.drivers"));
  CHECK(installer["cuda"]["drivers_complete"] == false);

  json unresolved = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN pip install torch==$TORCH_VERSION\n");
  CHECK(Find(unresolved["frameworks"], "name", "torch")->at("version").is_null());

  // pytorch/pytorch tags: torch and CUDA from the tag, drivers unknown unless a row says.
  json torch_base = Facts("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n");
  CHECK(Find(torch_base["frameworks"], "name", "torch")->at("cuda") == "12.1");
  CHECK_FALSE(torch_base["cuda"].contains("drivers"));
  json torch_known = Facts("FROM pytorch/pytorch:2.0.0-cuda11.7-cudnn8-devel\n");
  CHECK(torch_known["cuda"]["drivers"].empty());

  json scratch = Facts("FROM scratch\nCOPY app /app\n");
  CHECK(scratch["cuda"]["drivers"].empty());
  CHECK(scratch["image"]["base"]["known"] == true);
}

TEST_CASE("RUN shell reading: quoting, sh -c, heredocs, variables, package managers") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "ARG TORCH=2.1.2\n"
      "ENV PIP_FLAGS=--no-cache-dir\n"
      "RUN set -eux; \\\n"
      "    pip3 install $PIP_FLAGS \"torch==${TORCH}\" --index-url https://download.pytorch.org/whl/cu121 \\\n"
      "    && pip install 'jax[cuda12_pip]==0.4.23' cupy-cuda12x nvidia-cuda-runtime-cu12==12.1.105 \\\n"
      "    || true\n"
      "RUN <<EOF\n"
      "uv pip install tensorflow==2.15.0\n"
      "EOF\n"
      "RUN [\"/bin/sh\", \"-c\", \"apt-get install -y --no-install-recommends cuda-compat-12-4=550.54.15-1 libnvidia-compute-535\"]\n"
      "RUN conda install -y -c pytorch pytorch==2.0.1 pytorch-cuda=11.8 && conda clean -a\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  // conda's later install replaced pip's torch
  CHECK((*torch)["installer"] == "conda");
  CHECK((*torch)["version"] == "2.0.1");
  CHECK((*torch)["cuda"] == "11.8");
  CHECK((*torch)["dockerfile_line"] == 12);
  const json* jax = Find(facts["frameworks"], "name", "jax");
  REQUIRE(jax != nullptr);
  CHECK((*jax)["cuda"] == "12");
  CHECK((*jax)["version"] == "0.4.23");
  CHECK(Find(facts["frameworks"], "name", "cupy")->at("cuda") == "12.x");
  const json* tf = Find(facts["frameworks"], "name", "tensorflow");
  REQUIRE(tf != nullptr);
  CHECK((*tf)["cuda"] == "12.2");
  CHECK((*tf)["dockerfile_line"] == 8);
  CHECK((*tf)["installer"] == "uv pip");
  const json* cudart = Find(facts["cuda"]["runtimes"], "source", "pip");
  REQUIRE(cudart != nullptr);
  CHECK((*cudart)["version"] == "12.1.105");
  CHECK((*cudart)["dockerfile_line"] == 4);
  // Pinned compat package: two compat libraries now (base 12.1 and 12.4).
  const json* pinned = Find(facts["cuda"]["drivers"], "package", "cuda-compat-12-4");
  REQUIRE(pinned != nullptr);
  CHECK((*pinned)["version"] == "550.54.15");
  CHECK((*pinned)["version_source"] == "apt pin");
  CHECK((*pinned)["dockerfile_line"] == 11);
  const json* bundled = Find(facts["cuda"]["drivers"], "package", "libnvidia-compute-535");
  REQUIRE(bundled != nullptr);
  CHECK((*bundled)["kind"] == "bundled");
  CHECK((*bundled)["branch"] == "535");
  CHECK((*bundled)["version"].is_null());

  // The pip torch row (before conda replaced it) came from the cu121 index with the ARG value.
  json pip_only = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nARG TORCH=2.1.2\n"
      "RUN pip3 install \"torch==${TORCH}\" --index-url https://download.pytorch.org/whl/cu121\n");
  const json* t = Find(pip_only["frameworks"], "name", "torch");
  REQUIRE(t != nullptr);
  CHECK((*t)["version"] == "2.1.2");
  CHECK((*t)["variant"] == "cu121");
  CHECK((*t)["cuda_source"].get<std::string>().find("--index-url") == 0);
  json cpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                   "RUN pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cpu\n");
  CHECK(Find(cpu["frameworks"], "name", "torch")->at("cuda").is_null());
  json uninstalled = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                           "RUN pip install torch==2.3.0+cu121 && pip uninstall -y torch\n");
  CHECK(uninstalled["frameworks"].empty());
}

TEST_CASE("loader facts: LD_LIBRARY_PATH, ld.so.conf writes, stub symlinks") {
  json facts = Facts(
      "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
      "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH}\n"
      "RUN echo /usr/local/cuda/compat > /etc/ld.so.conf.d/00-compat.conf && ldconfig\n"
      "RUN ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /usr/lib/x86_64-linux-gnu/libcuda.so.1\n");
  const json& loader = facts["cuda"]["loader"];
  CHECK(loader["ld_library_path"] ==
        json::array({"/usr/local/cuda/compat", "/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"}));
  CHECK(loader["ld_library_path_provenance"]["dockerfile_line"] == 2);
  const json* conf = Find(loader["ld_so_conf"], "file", "/etc/ld.so.conf.d/00-compat.conf");
  REQUIRE(conf != nullptr);
  CHECK((*conf)["dir"] == "/usr/local/cuda/compat");
  CHECK((*conf)["dockerfile_line"] == 3);
  REQUIRE(loader["libcuda_candidates"].size() >= 2);
  CHECK(loader["libcuda_candidates"][0]["via"] == "LD_LIBRARY_PATH");
  CHECK(loader["libcuda_candidates"][0]["kind"] == "compat");
  CHECK(loader["libcuda_candidates"][0]["via_dockerfile_line"] == 2);
  const json* link = Find(facts["cuda"]["drivers"], "path", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  REQUIRE(link != nullptr);
  CHECK((*link)["kind"] == "stub");
  CHECK((*link)["dockerfile_line"] == 4);
  CHECK((*link)["resolves_to"] == "/usr/local/cuda-11.3/lib64/stubs/libcuda.so");

  json heredoc = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                       "COPY <<EOF /etc/ld.so.conf.d/compat.conf\n/usr/local/cuda/compat\nEOF\n");
  CHECK(Find(heredoc["cuda"]["loader"]["ld_so_conf"], "file", "/etc/ld.so.conf.d/compat.conf") != nullptr);
}

TEST_CASE("suppressions come back with the analysis") {
  auto analysis = AnalyzeDockerfileText(
      "FROM nvidia/cuda:11.3.0-devel-ubuntu20.04\n# imagelint ignore=IL003 A100-only service\nRUN true\n",
      "svc/Dockerfile", {});
  REQUIRE(analysis.ok());
  REQUIRE(analysis->suppressions.size() == 1);
  CHECK(analysis->suppressions[0].file == "svc/Dockerfile");
  CHECK(analysis->suppressions[0].instruction_line == 3);
  CHECK(analysis->facts["dockerfile"]["suppressions"][0]["rules"] == json::array({"IL003"}));
}

TEST_CASE("files: read from disk, missing file, bad knowledge directory") {
  imagelint::testing::TempDir dir;
  imagelint::testing::WriteFileText(dir / "Dockerfile", kCompatTrap);
  auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string());
  REQUIRE(analysis.ok());
  CHECK(analysis->facts["image"]["env"]["CUDA_VERSION"] == "11.3.0");
  CHECK_FALSE(AnalyzeDockerfile((dir / "nope").string()).ok());
  DockerfileOptions options;
  options.knowledge_dir = (dir / "knowledge").string();
  auto bad = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().subject.find("base-images.yaml") != std::string::npos);
}

TEST_CASE("speed: well under 20 ms per Dockerfile (measured, printed, not asserted)") {
  std::string text = std::string(kCompatTrap) +
                     "ARG TORCH=2.1.2\n"
                     "RUN apt-get update && apt-get install -y --no-install-recommends python3-pip git curl \\\n"
                     "    && rm -rf /var/lib/apt/lists/*\n"
                     "RUN pip install numpy scipy pandas 'jax[cuda12]' cupy-cuda12x\n"
                     "RUN <<EOF\nset -e\nrm -rf /usr/local/cuda/compat\nldconfig\nEOF\n"
                     "ENV LD_LIBRARY_PATH=/opt/lib:${LD_LIBRARY_PATH}\n"
                     "COPY . /app\nWORKDIR /app\n";
  (void)AnalyzeDockerfileText(text, "Dockerfile", {});  // knowledge is loaded once per process
  const int runs = 200;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) {
    auto analysis = AnalyzeDockerfileText(text, "Dockerfile", {});
    REQUIRE(analysis.ok());
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
  std::printf("dockerfile analysis: %.3f ms per Dockerfile (%d runs, %zu bytes)\n", ms, runs, text.size());
  CHECK(ms > 0);
}
