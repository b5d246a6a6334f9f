// GPU code a RUN compiles (nvcc flags, CMAKE_CUDA_ARCHITECTURES, CUDAARCHS,
// TORCH_CUDA_ARCH_LIST), installer scripts, archives and binaries COPYed from
// the context: each fixture is one public pattern, reduced.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>

#include "analysis/rules_fixture.h"
#include "cuda/fixtures.h"
#include "pipeline/context_binaries.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;
using imagelint::testing::dockerfile_fixture::Facts;

namespace {

const char* kBuildCodeFleet = R"(pools:
  - name: a100
    gpu: NVIDIA A100-SXM4-80GB
    driver: "570.172.08"
  - name: h100
    gpu: NVIDIA H100 80GB HBM3
    driver: "570.172.08"
  - name: l4
    gpu: NVIDIA L4
    driver: "570.172.08"
)";

json VerdictOf(const json& facts, const std::string& pool) {
  json report = imagelint::testing::rules_fixture::Run({facts}, kBuildCodeFleet);
  return imagelint::testing::rules_fixture::Verdict(report, 0, pool);
}

const json* Built(const json& facts) {
  if (!facts.contains("binaries") || !facts["binaries"].is_array()) return nullptr;
  for (const auto& row : facts["binaries"])
    if (row["path"].get<std::string>().find("GPU code built at line") != std::string::npos) return &row;
  return nullptr;
}

std::string Unknowns(const json& facts, const std::string& fact) {
  std::string out;
  for (const auto& u : facts["dockerfile"]["unknown"])
    if (u["fact"] == fact) out += std::to_string(u["dockerfile_line"].get<int>()) + ": " + u["reason"].get<std::string>() + "\n";
  return out;
}

json BuildContextFacts(const TempDir& dir, const std::string& dockerfile) {
  WriteFileText(dir / "Dockerfile", dockerfile);
  auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string(), imagelint::testing::dockerfile_fixture::Options());
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  imagelint::testing::dockerfile_fixture::RecordFacts(analysis->facts);
  return analysis->facts;
}

}  // namespace

// Pattern: research code compiled in the devel image for the lab's A100s,
// `nvcc -gencode arch=compute_80,code=sm_80`.
TEST_CASE("nvcc -gencode SASS only: a certain 209 on GPUs of another major, a pass on the A100") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nCOPY kernel.cu /src/\n"
      "RUN nvcc -O3 -gencode arch=compute_80,code=sm_80 -o /usr/local/bin/k /src/kernel.cu\n");
  const json* built = Built(facts);
  REQUIRE(built != nullptr);
  CHECK((*built)["sass"] == json::array({"sm_80"}));
  CHECK((*built)["ptx"] == json::array());
  CHECK((*built)["dockerfile_line"] == 3);
  json h100 = VerdictOf(facts, "h100");
  CHECK(h100["status"] == "fail");
  CHECK(VerdictOf(facts, "l4")["status"] == "pass");   // sm_89: SASS sm_80 runs on 8.x
  CHECK(VerdictOf(facts, "a100")["status"] == "pass");
}

// Pattern: `-arch=sm_XY` alone embeds PTX too (nvcc's shorthand), so newer GPUs JIT it.
TEST_CASE("nvcc -arch=sm_75 alone carries PTX: no 209 on newer GPUs") {
  json facts = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN nvcc -arch=sm_75 -o /k k.cu\n");
  const json* built = Built(facts);
  REQUIRE(built != nullptr);
  CHECK((*built)["sass"] == json::array({"sm_75"}));
  CHECK((*built)["ptx"][0]["arch"] == "compute_75");
  CHECK(VerdictOf(facts, "h100")["status"] == "pass");
}

// Pattern: a CMake project configured with -DCMAKE_CUDA_ARCHITECTURES="80;86" (real and virtual).
TEST_CASE("CMAKE_CUDA_ARCHITECTURES: plain numbers are SASS and PTX, -real SASS only") {
  json both = Facts(
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
      "RUN cmake -S /src -B /build -DCMAKE_CUDA_ARCHITECTURES=\"80;86\" && cmake --build /build\n");
  REQUIRE(Built(both) != nullptr);
  CHECK((*Built(both))["ptx"].size() == 2);
  CHECK(VerdictOf(both, "h100")["status"] == "pass");
  json real = Facts(
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nENV CUDAARCHS=\"80-real;86-real\"\n"
      "RUN cmake -S /src -B /build && cmake --build /build\n");
  REQUIRE(Built(real) != nullptr);
  CHECK((*Built(real))["arch_list_source"].get<std::string>().find("CUDAARCHS") != std::string::npos);
  CHECK(VerdictOf(real, "h100")["status"] == "fail");
}

// Pattern: a torch extension built with `TORCH_CUDA_ARCH_LIST="7.0;7.5;8.0" python setup.py install`.
TEST_CASE("TORCH_CUDA_ARCH_LIST of a setup.py build: the extension's arch list") {
  json facts = Facts(
      "FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nWORKDIR /ext\nCOPY . .\n"
      "RUN TORCH_CUDA_ARCH_LIST=\"7.0;7.5;8.0\" python setup.py install\n");
  const json* built = Built(facts);
  REQUIRE(built != nullptr);
  CHECK((*built)["sass"] == json::array({"sm_70", "sm_75", "sm_80"}));
  CHECK((*built)["arch_list_source"].get<std::string>().find("line 4") != std::string::npos);
  CHECK(VerdictOf(facts, "h100")["status"] == "fail");
  // The same build with +PTX on the last entry JIT-compiles on the H100.
  json ptx = Facts(
      "FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nARG TORCH_CUDA_ARCH_LIST=\"7.0 8.0+PTX\"\n"
      "RUN pip install --no-build-isolation /ext\n");
  REQUIRE(Built(ptx) != nullptr);
  CHECK((*Built(ptx))["ptx"][0]["arch"] == "compute_80");
}

// Pattern: builds whose architectures the Dockerfile does not show stay undecided, naming the line.
TEST_CASE("builds without an arch list leave the binaries undecided at their line, never 'none'") {
  json nvcc = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN nvcc -o /k k.cu\n");
  CHECK(Built(nvcc) == nullptr);
  CHECK(!nvcc.contains("binaries"));
  CHECK(Unknowns(nvcc, "binaries").find("2: builds GPU code with nvcc") != std::string::npos);
  json make = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN git clone https://x/y && cd y && make -j8\n");
  CHECK(Unknowns(make, "binaries").find("builds with make") != std::string::npos);
  json native = Facts("FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN cmake -DCMAKE_CUDA_ARCHITECTURES=native ..\n");
  CHECK(Unknowns(native, "binaries").find("native") != std::string::npos);
  json ext = Facts("FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nRUN python setup.py develop\n");
  CHECK(Unknowns(ext, "binaries").find("without TORCH_CUDA_ARCH_LIST") != std::string::npos);
  CHECK(VerdictOf(nvcc, "h100")["status"] == "undecided");
}

// Pattern: the CUDA runtime image with Miniconda installed by its script (repo.anaconda.com).
TEST_CASE("a known installer script adds no GPU code; an unknown one leaves the binaries undecided") {
  json known = Facts(
      "FROM nvidia/cuda:11.0.3-runtime-ubuntu20.04\n"
      "RUN curl -sSL https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh -o /tmp/m.sh && "
      "bash /tmp/m.sh -bfp /usr/local && conda install -y python\n");
  CHECK(known["binaries"] == json::array());
  CHECK(known["binaries_complete"] == true);
  CHECK(VerdictOf(known, "h100")["status"] == "pass");
  json piped = Facts("FROM python:3.12-slim\nRUN curl -LsSf https://astral.sh/uv/install.sh | sh\n");
  CHECK(piped["binaries"] == json::array());
  json unknown = Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN wget https://example.com/setup-gpu.sh && bash setup-gpu.sh\n");
  CHECK(!unknown.contains("binaries"));
  CHECK(Unknowns(unknown, "binaries").find("setup-gpu.sh (from https://example.com/setup-gpu.sh)") != std::string::npos);
  json archive = Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN wget -q https://x/libtorch.zip && unzip libtorch.zip\n");
  CHECK(Unknowns(archive, "binaries").find("unpacks an archive") != std::string::npos);
}

// Pattern: a plain CUDA runtime image with a Python web service: nothing in it launches kernels.
TEST_CASE("no GPU code anywhere is decided: the kernel rules pass") {
  json facts = Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN apt-get update && apt-get install -y python3-pip\n"
                     "RUN pip install flask==3.0.0\n");
  CHECK(facts["binaries"] == json::array());
  CHECK(VerdictOf(facts, "h100")["status"] == "pass");
  // Without a build context, a COPY may bring binaries: undecided, saying how to give it.
  json copied = Facts("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY . /app\n");
  CHECK(!copied.contains("binaries"));
  CHECK(Unknowns(copied, "binaries").find("copies files from the build context, which was not read") != std::string::npos);
}

// Pattern: a service that COPYs its repository, which holds a prebuilt shared library.
TEST_CASE("ELF files COPYed from the context are found, bounded, without following links out") {
  TempDir dir;
  std::filesystem::create_directories(dir / "app" / "lib");
  WriteFileText(dir / "app" / "main.py", "print('hi')\n");
  WriteFileText(dir / "app" / "lib" / "libkern.so", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(64, '\0'));
  TempDir outside;
  WriteFileText(outside / "libout.so", std::string("\x7f" "ELF", 4));
  std::filesystem::create_symlink(outside / "libout.so", dir / "app" / "link.so");
  json with_elf = BuildContextFacts(dir, "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY app /app\n");
  std::string reasons = Unknowns(with_elf, "binaries");
  CAPTURE(reasons);
  CHECK(reasons.find("copies 1 ELF file from the build context (app/lib/libkern.so)") != std::string::npos);
  json without = BuildContextFacts(dir, "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY app/main.py /app/\n");
  CHECK(without["binaries"] == json::array());
  WriteFileText(dir / ".dockerignore", "app/lib\n");
  json ignored = BuildContextFacts(dir, "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY app /app\n");
  CHECK(ignored["binaries"] == json::array());
}

// Pattern: a repository that ships a prebuilt CUDA extension (compiled for
// the lab's A100s only) and COPYs it into a runtime image.
TEST_CASE("ELF files COPYed from the context are read for their GPU code, as an image scan reads them") {
  using namespace imagelint::cuda::testing;
  TempDir dir;
  std::filesystem::create_directories(dir / "build");
  EntrySpec cubin{.kind = 2, .arch = 80, .payload = MakeCubin(80, 124)};
  ElfSpec library{.soname = "libkern.so", .needed = {"libcudart.so.12", "libc.so.6"},
                  .fatbin = MakeContainer({MakeEntry(cubin)})};
  imagelint::testing::WriteFileBytes(dir / "build" / "libkern.so", MakeElf(library));
  WriteFileText(dir / "build" / "README", "not code\n");
  const std::string dockerfile = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nWORKDIR /srv\nCOPY build/ lib/\n";
  WriteFileText(dir / "Dockerfile", dockerfile);

  DockerfileOptions options = imagelint::testing::dockerfile_fixture::Options();
  imagelint::pipeline::ContextBinaries reader(*options.knowledge);
  options.context_binaries = &reader;
  auto analysis = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
  REQUIRE_MESSAGE(analysis.ok(), imagelint::testing::ErrorText(analysis));
  const json& facts = analysis->facts;
  imagelint::testing::dockerfile_fixture::RecordFacts(facts);
  CHECK(Unknowns(facts, "binaries") == "");
  REQUIRE(facts.contains("binaries"));
  const json* kern = nullptr;
  for (const auto& row : facts["binaries"])
    if (row["path"] == "/srv/lib/libkern.so") kern = &row;
  REQUIRE(kern != nullptr);
  CHECK((*kern)["sass"] == json::array({"sm_80"}));
  CHECK((*kern)["needed"] == json::array({"libcudart.so.12", "libc.so.6"}));
  CHECK((*kern)["dockerfile_line"] == 3);
  CHECK_FALSE(kern->contains("reachable"));
  CHECK(VerdictOf(facts, "h100")["status"] == "fail");  // sm_80 SASS, no PTX: no kernel image on 9.0
  CHECK(VerdictOf(facts, "a100")["status"] == "pass");

  // The command line wires the same reader: the context is the Dockerfile's folder.
  WriteFileText(dir / "fleet.yaml", kBuildCodeFleet);
  auto run = imagelint::testing::RunImagelint({(dir / "Dockerfile").string(), "--fleet", (dir / "fleet.yaml").string(),
                                               "--no-config", "--format", "json"});
  CAPTURE(run.err);
  CHECK(run.exit_code == 1);
  json report = json::parse(run.out);
  bool h100_fails = false;
  for (const auto& verdict : report["images"][0]["verdicts"])
    if (verdict["pool"] == "h100") h100_fails = verdict["status"] == "fail";
  CHECK(h100_fails);

  // A reader that fails leaves the binaries undecided, saying why, never a guess.
  struct FailingReader : ContextBinaryReader {
    imagelint::Result<std::vector<imagelint::facts::Binary>> Read(const std::vector<ContextFile>& files) override {
      return imagelint::MakeError(files.at(0).host_path, "cannot be read: test");
    }
  } failing;
  options.context_binaries = &failing;
  auto failed = AnalyzeDockerfile((dir / "Dockerfile").string(), options);
  REQUIRE(failed.ok());
  CHECK(Unknowns(failed->facts, "binaries").find("copies ELF files from the build context that were not read") !=
        std::string::npos);
  CHECK(VerdictOf(failed->facts, "h100")["status"] == "undecided");
}

// The reader opens nothing but regular files, without blocking on a FIFO.
TEST_CASE("host binaries: a FIFO or a missing file is an error naming it, never a wait") {
  TempDir dir;
  REQUIRE(mkfifo((dir / "libfifo.so").c_str(), 0600) == 0);
  const imagelint::Knowledge& knowledge = imagelint::testing::CheckoutKnowledge();
  auto fifo = imagelint::ReadHostBinaries({{(dir / "libfifo.so").string(), "opt/libfifo.so"}}, knowledge);
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().message.find("is not a regular file") != std::string::npos);
  auto missing = imagelint::ReadHostBinaries({{(dir / "gone.so").string(), "opt/gone.so"}}, knowledge);
  REQUIRE_FALSE(missing.ok());
  CHECK(imagelint::testing::ErrorText(missing).find("gone.so") != std::string::npos);
}

// Pattern: a multi-stage build that compiles in the devel stage and copies the result.
TEST_CASE("COPY --from a stage that built GPU code leaves the binaries undecided") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\nRUN nvcc -arch=sm_80 -o /k k.cu\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY --from=build /k /usr/local/bin/k\n");
  CHECK(Unknowns(facts, "binaries").find("copies from build") != std::string::npos);
  json plain = Facts(
      "FROM python:3.12 AS build\nRUN pip install --prefix=/venv flask==3.0.0\n"
      "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCOPY --from=build /venv /venv\n");
  CHECK(plain["binaries"] == json::array());
}

// Pattern: the compat libcuda copied with cp into the system library directory.
TEST_CASE("cp of CUDA libraries is not followed: drivers and runtimes stay undecided, not 'none'") {
  json facts = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                     "RUN cp -a /usr/local/cuda/compat/libcuda.so* /usr/lib/x86_64-linux-gnu/\n");
  CHECK(Unknowns(facts, "cuda.drivers").find("2: cp copies /usr/local/cuda/compat/libcuda.so*") != std::string::npos);
  CHECK(facts["cuda"]["drivers_complete"] == false);
  json other = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN cp /app/config.yaml /etc/app.yaml\n");
  CHECK(Unknowns(other, "cuda.drivers").empty());
}
