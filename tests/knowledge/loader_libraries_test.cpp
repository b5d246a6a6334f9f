// loader.yaml, cuda-targets.yaml, cudart-sonames.yaml, runtime-libraries.yaml
// driver-files.yaml and their Knowledge accessors, on the real files.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "imagelint/knowledge.h"
#include "support/checkout_knowledge.h"
#include "support/test_support.h"

using imagelint::CapturedPackages;
using imagelint::Knowledge;

namespace {
const Knowledge& LoadedForLibraries() { return imagelint::testing::CheckoutKnowledge(); }
}  // namespace

TEST_CASE("LoaderDefaultDirectories: multiarch first, then glibc's defaults") {
  const Knowledge& k = LoadedForLibraries();
  CHECK(k.LoaderDefaultDirectories() ==
        std::vector<std::string>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                                 "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"});
  CHECK(k.LoaderDefaultDirectories("aarch64-linux-gnu") ==
        std::vector<std::string>{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64",
                                 "/lib", "/usr/lib"});
}

TEST_CASE("FindCudaTarget and CudaTargetNames") {
  const Knowledge& k = LoadedForLibraries();
  const auto* amd64 = k.FindCudaTarget("amd64");
  REQUIRE(amd64 != nullptr);
  CHECK((*amd64)["cuda_target"] == "x86_64-linux");
  CHECK((*amd64)["lib_triplet"] == "x86_64-linux-gnu");
  CHECK((*amd64)["nvarch"] == "x86_64");
  const auto* arm64 = k.FindCudaTarget("arm64");
  REQUIRE(arm64 != nullptr);
  CHECK((*arm64)["cuda_target"] == "sbsa-linux");  // not Jetson's aarch64-linux
  CHECK((*arm64)["nvarch"] == "sbsa");
  CHECK(k.FindCudaTarget("riscv64") == nullptr);
  auto names = k.CudaTargetNames();
  for (const char* name : {"x86_64-linux", "sbsa-linux", "aarch64-linux", "ppc64le-linux"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
}

TEST_CASE("CudartSoname: M.m before 11, 11.0 for 11.x, M from 12") {
  const Knowledge& k = LoadedForLibraries();
  CHECK(k.CudartSoname("9.2") == "libcudart.so.9.2");
  CHECK(k.CudartSoname("10.2.89") == "libcudart.so.10.2");
  CHECK(k.CudartSoname("10") == "libcudart.so.10.0");
  CHECK(k.CudartSoname("11.0") == "libcudart.so.11.0");
  CHECK(k.CudartSoname("11.8.89") == "libcudart.so.11.0");
  CHECK(k.CudartSoname("12.4.1") == "libcudart.so.12");
  CHECK(k.CudartSoname("13.0") == "libcudart.so.13");
  CHECK(!k.CudartSoname("").has_value());
  CHECK(!k.CudartSoname("12.").has_value());
  CHECK(!k.CudartSoname("v12").has_value());
  CHECK(!k.CudartSoname("12.x").has_value());
  CHECK(!k.CudartSoname("0.9").has_value());  // no row covers CUDA 0
}

TEST_CASE("FindRuntimeLibrary: exact names and families") {
  const Knowledge& k = LoadedForLibraries();
  auto role = [&](const char* name) -> std::string {
    const auto* row = k.FindRuntimeLibrary(name);
    if (row == nullptr) return "none";
    return std::string((*row)["cuda_library"].get<bool>() ? "cuda" : "") +
           ((*row)["driver_library"].get<bool>() ? "driver" : "");
  };
  CHECK(role("libcudart") == "cuda");
  CHECK(role("libcublasLt") == "cuda");
  CHECK(role("libcudnn_ops_infer") == "cuda");
  CHECK(role("libnppig") == "cuda");
  CHECK(role("libnpp_x") == "none");  // npp names are letters only
  CHECK(role("libnvinfer_plugin") == "cuda");
  CHECK(role("libnvidia-ml") == "cudadriver");
  CHECK(role("libnvidia-ptxjitcompiler") == "driver");
  CHECK(role("libcudadebugger") == "driver");
  CHECK(role("libnvidia-glcore") == "none");
  CHECK(role("libcudartx") == "none");
  CHECK(role("libc") == "none");
}

TEST_CASE("IsDriverFile: the driver-files.yaml prefixes, and only they") {
  const Knowledge& k = LoadedForLibraries();
  CHECK(k.IsDriverFile("libcuda.so.535.104.05"));
  CHECK(k.IsDriverFile("libnvidia-ml.so.1"));
  CHECK(k.IsDriverFile("libnvidia-glcore.so.550.54.15"));  // any libnvidia-, not only runtime_libraries' rows
  CHECK(k.IsDriverFile("libcudadebugger.so.1"));
  CHECK_FALSE(k.IsDriverFile("libcudart.so.12"));
  CHECK_FALSE(k.IsDriverFile("libcudnn.so.9"));
  CHECK_FALSE(k.IsDriverFile("app.so"));
  // A row is what makes a prefix one: without the libnvidia- row, no libnvidia-* file is.
  imagelint::testing::TempDir dir;
  std::filesystem::path copy = dir / "knowledge";
  std::filesystem::create_directories(copy);
  for (const auto& entry : std::filesystem::directory_iterator(imagelint::testing::SourceDir() / "rules" / "knowledge"))
    std::filesystem::copy_file(entry.path(), copy / entry.path().filename());
  std::string text = imagelint::testing::ReadFileText(copy / "driver-files.yaml");
  size_t row = text.find("  - prefix: libnvidia-");
  REQUIRE(row != std::string::npos);
  text.erase(row, text.find("  - prefix:", row + 1) - row);
  imagelint::testing::WriteFileText(copy / "driver-files.yaml", text);
  auto fewer = Knowledge::Load(copy);
  REQUIRE_MESSAGE(fewer.ok(), imagelint::testing::ErrorText(fewer));
  CHECK_FALSE(fewer->IsDriverFile("libnvidia-ml.so.1"));
  CHECK(fewer->IsDriverFile("libcuda.so.1"));
  auto missing = Knowledge::ParseTable("driver_files", "kind: driver_files\nschema: 1\nrows:\n  - {note: no prefix, source: CUDA-LIBS}\n",
                                       "driver-files.yaml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().subject == "driver-files.yaml");
  CHECK(missing.error().line == 4);
  CHECK(missing.error().message.find("missing required field 'prefix'") != std::string::npos);
}

TEST_CASE("CapturedPackageNames: the captured-packages.yaml rows, by where they are looked for") {
  CapturedPackages captured = LoadedForLibraries().CapturedPackageNames();
  auto has = [](const std::vector<std::string>& list, const char* word) {
    return std::find(list.begin(), list.end(), word) != list.end();
  };
  CHECK(has(captured.python_prefixes, "nvidia-"));
  CHECK(has(captured.python_prefixes, "flash-attn"));
  CHECK_FALSE(has(captured.python_prefixes, "nvinfer"));
  CHECK(has(captured.dpkg_words, "nvinfer"));
  CHECK_FALSE(has(captured.dpkg_words, "nvidia-"));

  // A row written as a team might (capitals, `_`) is normalised as the names
  // it is matched against.
  imagelint::testing::TempDir dir;
  const std::filesystem::path tables = dir.path() / "knowledge";
  std::filesystem::copy(imagelint::testing::SourceDir() / "rules" / "knowledge", tables,
                        std::filesystem::copy_options::recursive);
  std::ofstream(tables / "captured-packages.yaml", std::ios::app)
      << "  - {where: python-prefix, text: Team_Kernels, source: PYPI}\n"
         "  - {where: dpkg-word, text: TeamCUDA, source: DEB}\n";
  auto team = Knowledge::Load(tables);
  REQUIRE_MESSAGE(team.ok(), imagelint::testing::ErrorText(team));
  CapturedPackages extended = team->CapturedPackageNames();
  CHECK(has(extended.python_prefixes, "team-kernels"));
  CHECK(has(extended.dpkg_words, "teamcuda"));
  auto unknown = Knowledge::ParseTable("captured_packages",
                                       "kind: captured_packages\nschema: 1\nrows:\n"
                                       "  - {where: rpm-word, text: cuda, source: CUDA-LIBS}\n",
                                       "captured-packages.yaml", {"CUDA-LIBS"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().line == 4);
  CHECK(unknown.error().message.find("where") != std::string::npos);
}
