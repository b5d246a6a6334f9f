// nvcc-built fixtures: what the scanner reports equals what nvcc was asked for.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cuda/elf.h"
#include "cuda/fixtures.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace imagelint::cuda;
using namespace imagelint::cuda::testing;
using imagelint::testing::NeedExternal;
using imagelint::testing::RunCommand;
using imagelint::testing::TempDir;
using nlohmann::json;

namespace {

const char* kNvcc = "/usr/local/cuda/bin/nvcc";

const char* kKernel = R"(
__global__ void scale(float* a, float b) { a[threadIdx.x] *= b; }
__global__ void add(float* a, const float* b) { a[threadIdx.x] += b[threadIdx.x]; }
void launch(float* a, const float* b) { scale<<<1, 32>>>(a, 2.0f); add<<<1, 32>>>(a, b); }
)";

struct Built {
  json scan;
  bool ok = false;
};

// Compiles kernel.cu with `flags` into a shared library (or an object with -c / -dc).
Built NvccBuild(const TempDir& dir, const std::vector<std::string>& flags, bool object = false) {
  fs::path source = dir / "kernel.cu";
  if (!fs::exists(source)) imagelint::testing::WriteFileText(source, kKernel);
  fs::path output = dir / (object ? "kernel.o" : "libkernel.so");
  std::vector<std::string> argv = {kNvcc, "-Xcompiler", "-fPIC", "-o", output.string()};
  if (!object) argv.push_back("-shared");
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(source.string());
  auto result = RunCommand(argv, "", 300);
  Built built;
  if (result.exit_code != 0) {
    MESSAGE("nvcc failed: " << result.err);
    return built;
  }
  built.scan = ScanBytes(imagelint::testing::ReadFileBytes(output), 65536);
  built.ok = true;
  return built;
}

std::vector<std::string> Ptx(const json& scan) {
  std::vector<std::string> out;
  for (const auto& row : scan["ptx"]) out.push_back(row["arch"].get<std::string>() + "@" + row["isa"].get<std::string>());
  return out;
}

bool HaveNvcc() { return fs::exists(kNvcc); }

}  // namespace

TEST_CASE("nvcc: SASS only, PTX only, several -gencode, arch-specific and family-specific targets") {
  if (!NeedExternal("nvcc", HaveNvcc(), "CUDA toolkit in /usr/local/cuda")) return;
  TempDir dir;
  auto sass_only = NvccBuild(dir, {"-gencode", "arch=compute_75,code=sm_75"});
  REQUIRE(sass_only.ok);
  CHECK(sass_only.scan["sass"] == json({"sm_75"}));
  CHECK(sass_only.scan["ptx"].empty());
  // A shared library holds the compiled container and nvlink's device-link container.
  CHECK(sass_only.scan["fatbin"]["sections"].size() == 1);
  CHECK(sass_only.scan["fatbin"]["sections"].contains(".nv_fatbin"));
  CHECK(sass_only.scan["fatbin"]["toolkits"] == json({"13.0"}));
  CHECK_FALSE(sass_only.scan.contains("problems"));

  auto ptx_only = NvccBuild(dir, {"-gencode", "arch=compute_80,code=compute_80"});
  REQUIRE(ptx_only.ok);
  CHECK(ptx_only.scan["sass"].empty());
  CHECK(Ptx(ptx_only.scan) == std::vector<std::string>{"compute_80@9.0"});  // nvcc 13.0 emits PTX ISA 9.0

  auto several = NvccBuild(dir, {"-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_86,code=sm_86",
                             "-gencode", "arch=compute_90,code=[sm_90,compute_90]"});
  REQUIRE(several.ok);
  CHECK(several.scan["sass"] == json({"sm_75", "sm_86", "sm_90"}));
  CHECK(Ptx(several.scan) == std::vector<std::string>{"compute_90@9.0"});

  auto variants = NvccBuild(dir, {"-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]", "-gencode",
                              "arch=compute_100f,code=sm_100f", "-gencode", "arch=compute_120a,code=sm_120a"});
  REQUIRE(variants.ok);
  CHECK(variants.scan["sass"] == json({"sm_90a", "sm_100f", "sm_120a"}));
  CHECK(Ptx(variants.scan) == std::vector<std::string>{"compute_90a@9.0"});
}

TEST_CASE("nvcc: -G debug entries, -rdc relocatable device code") {
  if (!NeedExternal("nvcc", HaveNvcc(), "CUDA toolkit in /usr/local/cuda")) return;
  TempDir dir;
  auto debug = NvccBuild(dir, {"-G", "-gencode", "arch=compute_80,code=sm_80"});
  REQUIRE(debug.ok);
  CHECK(debug.scan["sass"] == json({"sm_80"}));
  CHECK(debug.scan["fatbin"]["debug_entries"].get<int>() >= 1);

  auto rdc = NvccBuild(dir, {"-rdc=true", "-c", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                         "arch=compute_89,code=compute_89"},
                   true);
  REQUIRE(rdc.ok);
  CHECK(rdc.scan["type"] == "rel");
  CHECK(rdc.scan["fatbin"]["sections"].contains("__nv_relfatbin"));
  CHECK(rdc.scan["sass"] == json({"sm_80"}));
  CHECK(Ptx(rdc.scan) == std::vector<std::string>{"compute_89@9.0"});
}

TEST_CASE("nvcc: every --compress-mode gives the compression it asks for") {
  if (!NeedExternal("nvcc", HaveNvcc(), "CUDA toolkit in /usr/local/cuda")) return;
  auto help = RunCommand({kNvcc, "--help"}, "", 60);
  if (help.out.find("--compress-mode") == std::string::npos) {
    MESSAGE("this nvcc has no --compress-mode");
    return;
  }
  TempDir dir;
  // Measured with nvcc 13.0: PTX is compressed unless mode=none; cubins only with
  // mode=size; speed uses LZ4, the others zstd (nvcc --compress-mode,
  // https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/index.html).
  struct Case {
    const char* mode;
    json compression;
  };
  for (const Case& c : {Case{"none", {{"none", 2}}}, Case{"speed", {{"lz4", 1}, {"none", 1}}},
                        Case{"balance", {{"none", 1}, {"zstd", 1}}}, Case{"size", {{"zstd", 2}}},
                        Case{"default", {{"none", 1}, {"zstd", 1}}}}) {
    CAPTURE(std::string(c.mode));
    // An object file: exactly the two entries asked for (no device-link container).
    auto built = NvccBuild(dir, {"-c", std::string("--compress-mode=") + c.mode, "-gencode", "arch=compute_80,code=sm_80",
                             "-gencode", "arch=compute_80,code=compute_80"},
                       true);
    REQUIRE(built.ok);
    CHECK(built.scan["fatbin"]["compression"] == c.compression);
    // Decompressed payloads are inspected: the PTX ISA and the cubin's toolkit survive compression.
    CHECK(built.scan["sass"] == json({"sm_80"}));
    CHECK(Ptx(built.scan) == std::vector<std::string>{"compute_80@9.0"});
    CHECK(built.scan["fatbin"]["toolkits"] == json({"13.0"}));
    CHECK_FALSE(built.scan.contains("problems"));
  }
}

TEST_CASE("nvcc: kernels per cubin - a module with only device data has none, entry functions are counted") {
  if (!NeedExternal("nvcc", HaveNvcc(), "CUDA toolkit in /usr/local/cuda")) return;
  TempDir dir;
  // The shape of NVIDIA's libcufftw / libnppc: one cubin holding a device
  // variable, no __global__ function, no .text section.
  fs::path data_only = dir / "data_only.cu";
  imagelint::testing::WriteFileText(data_only, "__device__ float table[64];\nint host_only(int x) { return x + 1; }\n");
  fs::path lib = dir / "libdata.so";
  auto built = RunCommand({kNvcc, "-Xcompiler", "-fPIC", "-shared", "-gencode", "arch=compute_75,code=sm_75", "-o",
                           lib.string(), data_only.string()},
                          "", 300);
  REQUIRE(built.exit_code == 0);
  json scan = ScanBytes(imagelint::testing::ReadFileBytes(lib), 65536);
  REQUIRE(scan["fatbin"]["sass"].size() == 1);
  CHECK(scan["fatbin"]["sass"][0]["arch"] == "sm_75");
  CHECK(scan["fatbin"]["sass"][0]["kernels"] == 0);

  // Two kernels (and a non-inlined device function, which is no entry) in two SASS targets.
  auto kernels = NvccBuild(dir, {"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"});
  REQUIRE(kernels.ok);
  REQUIRE(kernels.scan["fatbin"]["sass"].size() == 2);
  for (const auto& row : kernels.scan["fatbin"]["sass"]) CHECK(row["kernels"] == 2);

  // Compressed cubins (nvcc's default for big ones; forced here) are inflated whole when small.
  TempDir compressed_dir;
  auto compressed = NvccBuild(compressed_dir, {"-gencode", "arch=compute_90,code=sm_90", "-Xfatbin", "-compress-all"});
  REQUIRE(compressed.ok);
  CHECK(compressed.scan["fatbin"]["compression"].size() >= 1);
  CHECK(compressed.scan["fatbin"]["sass"][0]["kernels"] == 2);
}
