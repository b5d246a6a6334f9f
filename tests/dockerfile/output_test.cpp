// Output: the facts document (schema, requirements, loader), that the same
// NVIDIA variable means the same from an image and from a Dockerfile, and the
// speed of the whole analysis.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "dockerfile_fixture.h"
#include "imagelint/read_image.h"
#include "support/facts_schema.h"
#include "support/image_builder.h"
#include "support/checkout_knowledge.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;
namespace fs = std::filesystem;

namespace {

// One Dockerfile per pattern the builder reads, each also evaluated for
// other platforms and targets (their facts are validated against the schema).
const std::vector<std::string>& Patterns() {
  static const std::vector<std::string> patterns = {
      kCompatTrap,
      "FROM nvidia/cuda:10.2-base-ubuntu18.04\nRUN python3 -m pip install torch==1.12.1\n",
      "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_DISABLE_REQUIRE=true NVIDIA_REQUIRE_ARCH=\"arch>=7.0\"\n",
      "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_REQUIRE_CUDA=\"\" CUDA_VERSION=v12\n",
      "ARG CUDA=11.8.0\nFROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04 AS run\nARG CUDA\nENV MY_CUDA=${CUDA}\n",
      "FROM nvidia/cuda@sha256:" + std::string(64, 'a') + "\n",
      "FROM nvidia/cuda:latest\n",
      "FROM nvcr.io/nvidia/pytorch:24.05-py3\n",
      "FROM python:3.11-slim\nRUN pip install -r requirements.txt torch\nENV PATH=/x:$PATH\n",
      "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nRUN rm -rf /var/lib/apt/lists/*\n",
      "FROM pytorch/pytorch:2.0.0-devel\nRUN pip uninstall -y torch\n",
      "FROM scratch\nCOPY app /app\n",
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\nRUN pip install torch==2.1.0+cu121\n"
      "FROM build AS test\nRUN pip install pytest\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY --from=build /usr/local/cuda-12.4 /usr/local/cuda-12.4\n",
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN apt-get install -y cuda-compat-12-4=550.54.15-1 cuda-cudart-12-4 libnvidia-compute-535 libcuda1\n"
      "RUN apt-get purge -y cuda-compat-12-1 && dpkg -i /tmp/nvidia.deb\n",
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "RUN pip install 'jax[cuda12]==0.4.30' cupy-cuda12x nvidia-cuda-runtime-cu12==12.1.105 tensorflow==2.15.0 "
      "onnxruntime-gpu\nRUN conda install -y pytorch=2.1 pytorch-cuda=12.1 && conda env create -f env.yml\n",
      "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\nENV LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH}\n"
      "RUN echo /usr/local/cuda/compat > /etc/ld.so.conf.d/00-compat.conf && echo $X | tee -a /etc/ld.so.conf\n"
      "RUN ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
      "RUN mv /usr/local/cuda/compat /usr/local/cuda/compat.off && rm -f /usr/local/cuda/compat.off/libcuda.so*\n",
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nSHELL [\"pwsh\", \"-c\"]\nRUN pip install torch\n"
      "COPY libcuda.so.550.54.15 /usr/lib/x86_64-linux-gnu/\nLABEL a=b\n",
      "FROM nvidia/cuda:13.2.0-devel-ubuntu24.04\nRUN sh cuda_13.2.0_linux.run\n",
  };
  return patterns;
}

bool InChildRun() {
  const char* dir = std::getenv("IMAGELINT_TEST_FACTS_DIR");
  return dir != nullptr && *dir != '\0';
}

}  // namespace

TEST_CASE("pattern Dockerfiles on every platform and target give facts") {
  for (const std::string& text : Patterns())
    for (const char* platform : {"linux/amd64", "linux/arm64", "linux/ppc64le"})
      for (const char* target : {"", "build", "test"}) {
        DockerfileOptions options;
        options.platform = platform;
        options.target = target;
        auto analysis = Analyze(text, options);
        if (!analysis.ok()) CHECK(analysis.error().message.find("target stage") != std::string::npos);
      }
}

TEST_CASE("the facts of every Dockerfile in the test suite validate against docs/facts-schema.json") {
  if (InChildRun()) return;  // this test runs the suite itself
  imagelint::testing::TempDir dir;
  // The test binary again, with every facts document written to `dir`.
  auto run = imagelint::testing::RunCommand({fs::read_symlink("/proc/self/exe").string(), "--no-version",
                                             "--test-case-exclude=*validate against docs/facts-schema.json*"},
                                            "", 600, {"IMAGELINT_TEST_FACTS_DIR=" + dir.path().string()});
  INFO(std::string(run.out + run.err));
  REQUIRE(run.exit_code == 0);
  std::vector<std::pair<std::string, json>> documents;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    documents.emplace_back(entry.path().filename().string(),
                           json::parse(imagelint::testing::ReadFileText(entry.path())));
  CHECK(documents.size() > 200);
  imagelint::testing::CheckFactsSchema(documents);
}

TEST_CASE("requirements and loader: the toolkit's reading, provenance, what cannot be told") {
  json legacy = Facts("FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nENV NVIDIA_REQUIRE_CUDA=\"\" CUDA_VERSION=v11.6\n");
  const json& req = legacy["cuda"]["requirements"];
  CHECK(req["legacy"] == true);
  CHECK(req["legacy_cuda_version"] == "11.6");  // the leading v is dropped, as the toolkit does
  CHECK(req["provenance"]["CUDA_VERSION"]["dockerfile_line"] == 2);
  CHECK(req["provenance"]["NVARCH"]["origin"] == "base-image");
  json rejected = Facts("FROM scratch\nENV CUDA_VERSION=12.04\n");  // not semver: the hook refuses the container
  CHECK(rejected["cuda"]["requirements"]["legacy_cuda_version"].is_null());
  CHECK(rejected["cuda"]["requirements"]["legacy_cuda_version_invalid"] == true);
  json unknown_base = Facts("FROM registry.corp.example/ml/base:1\nENV CUDA_VERSION=12.4.1 NVIDIA_DISABLE_REQUIRE=1\n");
  const json& partial = unknown_base["cuda"]["requirements"];
  CHECK(partial["complete"] == false);
  CHECK(partial["disabled"] == true);
  CHECK_FALSE(partial.contains("legacy"));  // the base may set NVIDIA_REQUIRE_CUDA
  CHECK_FALSE(unknown_base["cuda"]["loader"].contains("ld_so_conf"));
  CHECK(unknown_base["cuda"]["loader"]["ld_so_conf_complete"] == false);
  CHECK(unknown_base["image"]["env_complete"] == false);
  json plain = Facts("FROM registry.corp.example/ml/base:1\n");
  CHECK_FALSE(plain["cuda"].contains("requirements"));
  // A base known to carry no CUDA: its environment is known to set nothing.
  json no_cuda = Facts("FROM python:3.11\nENV CUDA_VERSION=12.4.1\n");
  CHECK(no_cuda["cuda"]["requirements"]["complete"] == true);
  CHECK(no_cuda["cuda"]["requirements"]["legacy"] == true);
}

TEST_CASE("the same NVIDIA variable means the same thing from an image and from a Dockerfile") {
  // Both producers, over the same values: a built image's config env, and the
  // same ENV on a scratch base (whose env is fully known).
  struct Case {
    std::vector<std::pair<std::string, std::string>> env;
  };
  std::vector<Case> cases;
  for (const char* value : {"1", "t", "T", "true", "TRUE", "True", "0", "f", "false", "tRuE", "yes", " true", "", "2"})
    cases.push_back({{{"NVIDIA_DISABLE_REQUIRE", value}, {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4"}}});
  for (const char* value : {"12.4.1", "v11.6", "12", "v12", "12.04", "012.4", "12.4.1-rc.1", "12.4.1+build", "1.2.3.4",
                            "x", "4294967296.1", "11.8.0"})
    cases.push_back({{{"CUDA_VERSION", value}}});
  cases.push_back({{{"CUDA_VERSION", "12.4.1"}, {"NVIDIA_REQUIRE_CUDA", ""}}});
  cases.push_back({{{"CUDA_VERSION", "12.4.1"}, {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4"}, {"NV_CUDA_CUDART_VERSION", "12.4.127-1"}}});

  imagelint::testing::TempDir dir;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    imagelint::testing::TestImage image;
    image.Layer().File("etc/hostname", "x\n");
    std::string dockerfile = "FROM scratch\n";
    for (const auto& [name, value] : c.env) {
      image.env.push_back(name + "=" + value);
      dockerfile += "ENV " + name + "=\"" + value + "\"\n";
    }
    fs::path path = dir / ("image-" + std::to_string(i) + ".tar");
    imagelint::testing::WriteImage(image, imagelint::testing::ImageKind::kDockerArchive, path);
    auto scanned = imagelint::ReadImage(path.string(), {}, imagelint::testing::CheckoutKnowledge());
    REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
    json from_image = imagelint::BuildFacts(*scanned, CheckoutKnowledge())["cuda"]["requirements"];
    json from_dockerfile = Facts(dockerfile)["cuda"]["requirements"];
    CAPTURE(dockerfile);
    for (const char* field : {"disabled", "legacy", "legacy_cuda_version", "legacy_cuda_version_invalid"}) {
      CAPTURE(field);
      CHECK(from_image.value(field, json()) == from_dockerfile.value(field, json()));
    }
    for (const auto& [name, value] : c.env) CHECK(from_image.value(name, json()) == from_dockerfile.value(name, json()));
  }
}

TEST_CASE("the same Debian package version means the same release from an image and from a Dockerfile") {
  imagelint::testing::TempDir dir;
  int i = 0;
  for (const char* version : {"12.4.127-1", "1:12.4.127-1", "12.4.127~12.4.1-1", "12.4.127+dfsg-2", "12.4.127"}) {
    CAPTURE(version);
    imagelint::testing::TestImage image;
    image.Layer()
        .File("usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", "not an ELF file")
        .File("var/lib/dpkg/status", std::string("Package: cuda-cudart-12-4\nStatus: install ok installed\n"
                                                 "Architecture: amd64\nVersion: ") + version + "\n\n");
    fs::path path = dir / ("image-" + std::to_string(i++) + ".tar");
    imagelint::testing::WriteImage(image, imagelint::testing::ImageKind::kDockerArchive, path);
    auto scanned = imagelint::ReadImage(path.string(), {}, imagelint::testing::CheckoutKnowledge());
    REQUIRE_MESSAGE(scanned.ok(), imagelint::testing::ErrorText(scanned));
    json image_facts = imagelint::BuildFacts(*scanned, CheckoutKnowledge());
    REQUIRE(image_facts["cuda"]["runtimes"].size() == 1);
    json dockerfile_facts = Facts(std::string("FROM ubuntu:22.04\nRUN apt-get install -y cuda-cudart-12-4=") + version + "\n");
    const json* predicted = Find(dockerfile_facts["cuda"]["runtimes"], "package", "cuda-cudart-12-4");
    REQUIRE(predicted != nullptr);
    CHECK(image_facts["cuda"]["runtimes"][0]["version"] == (*predicted)["version"]);
  }
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
  (void)Analyze(text);  // warm-up; the knowledge is loaded once, by the caller
  const int runs = 200;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) {
    auto analysis = imagelint::dockerfile::AnalyzeDockerfileText(text, "Dockerfile", Options());
    REQUIRE(analysis.ok());
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
  std::printf("dockerfile analysis: %.3f ms per Dockerfile (%d runs, %zu bytes)\n", ms, runs, text.size());
  CHECK(ms > 0);
}
