// The hand-written scanners of src/cuda/scan_text.h (no std::regex): each
// case the regular expressions they replace matched, and bounded captures.
#include <doctest/doctest.h>

#include "cuda/scan_text.h"

using namespace imagelint::cuda;

TEST_CASE("ParseSharedObjectName: NAME[-8 hex].so[.N]...") {
  auto plain = ParseSharedObjectName("libcudart.so.12.4.127");
  REQUIRE(plain);
  CHECK(plain->prefix == "libcudart");
  CHECK(plain->stem == "libcudart");
  CHECK(!plain->hashed);
  CHECK(plain->version == "12.4.127");
  auto hashed = ParseSharedObjectName("libcudart-9335f6a2.so.12");
  REQUIRE(hashed);
  CHECK(hashed->prefix == "libcudart-9335f6a2");
  CHECK(hashed->stem == "libcudart");
  CHECK(hashed->hashed);
  CHECK(hashed->version == "12");
  auto bare = ParseSharedObjectName("libcuda.so");
  REQUIRE(bare);
  CHECK(bare->version.empty());
  CHECK(ParseSharedObjectName("libnvidia-ml.so.1")->prefix == "libnvidia-ml");
  CHECK(!ParseSharedObjectName("libcudart-9335F6A2.so")->hashed);  // upper-case hex is no hash
  CHECK(!ParseSharedObjectName("libcudart-9335f6a.so")->hashed);   // 7 digits
  for (const char* no : {"libcudart.so.12.", "libcudart.so.x", "libcudart.so.12a", "libcudart.a", ".so", "libcudart.so..1",
                         "libcudart"})
    CHECK_MESSAGE(!ParseSharedObjectName(no), no);
  // The first ".so" followed only by numbers counts.
  CHECK(ParseSharedObjectName("libfoo.so.bar.so.1")->prefix == "libfoo.so.bar");
}

TEST_CASE("ToolkitRoot and ToolkitDirVersion") {
  CHECK(ToolkitRoot("usr/local/cuda-12.4/lib64/libcudart.so") == "usr/local/cuda-12.4");
  CHECK(ToolkitRoot("usr/local/cuda/lib64/libcudart.so") == "usr/local/cuda");
  CHECK(ToolkitRoot("usr/local/cuda-12/x") == "usr/local/cuda-12");
  CHECK(!ToolkitRoot("usr/local/cudax/lib"));
  CHECK(!ToolkitRoot("usr/local/cuda-/lib"));
  CHECK(!ToolkitRoot("usr/local/cuda-12.4"));
  CHECK(!ToolkitRoot("opt/usr/local/cuda/x"));
  CHECK(ToolkitDirVersion("usr/local/cuda-12.9/compat/libcuda.so.1") == "12.9");
  CHECK(!ToolkitDirVersion("usr/local/cuda-12/compat/libcuda.so.1"));
  CHECK(!ToolkitDirVersion("usr/local/cuda-12.4.1/compat/libcuda.so.1"));
  CHECK(!ToolkitDirVersion("usr/local/cuda/compat/libcuda.so.1"));
}

TEST_CASE("PythonAssignment: a string literal assigned at the start of a line") {
  std::string torch = "__version__ = '2.3.0+cu121'\ndebug = False\ncuda: Optional[str] = \"12.1\"\n"
                      "git_version = 'abc'\nhip: Optional[str] = None\n";
  CHECK(PythonAssignment(torch, "__version__") == "2.3.0+cu121");
  CHECK(PythonAssignment(torch, "cuda") == "12.1");
  CHECK(PythonAssignment(torch, "git_version") == "abc");
  CHECK(PythonAssignment(torch, "hip").empty());    // None, not a string
  CHECK(PythonAssignment(torch, "debug").empty());
  CHECK(PythonAssignment(torch, "version").empty());  // not __version__
  CHECK(PythonAssignment("  cuda_version = '12.2'\n", "cuda").empty());  // another name
  CHECK(PythonAssignment("  cuda_version = '12.2'\n", "cuda_version") == "12.2");
  CHECK(PythonAssignment("x = 1; cuda = '12.2'\n", "cuda").empty());   // not at the start of a line
  CHECK(PythonAssignment("cuda == '12.2'\n", "cuda").empty());
  CHECK(PythonAssignment("cuda = '12.2\"\n", "cuda") == "12.2");        // either quote closes, as before
  CHECK(PythonAssignment("cuda = '12.2\n'\n", "cuda").empty());          // no newline inside
  CHECK(PythonAssignment("\r\n\tcuda\t=\t'11.8'\r\n", "cuda") == "11.8");
  CHECK(PythonAssignment("cuda: str = '12.4'", "cuda") == "12.4");       // no final newline
  std::string huge = "__version__ = '" + std::string(200 * 1024, '1') + "'\ncuda = '12.1'\n";
  CHECK(PythonAssignment(huge, "__version__").empty());
  CHECK(PythonAssignment(huge, "cuda") == "12.1");
  std::string limit(kMaxCapturedValue, '7');
  CHECK(PythonAssignment("v = '" + limit + "'", "v") == limit);
  CHECK(PythonAssignment("v = '" + limit + "7'", "v").empty());
}

TEST_CASE("PythonDictValue and NumberAfter") {
  std::string info = "build_info = {'cuda_version': '12.3', \"cudnn_version\" : \"8\", 'is_cuda_build': True}\n";
  CHECK(PythonDictValue(info, "cuda_version") == "12.3");
  CHECK(PythonDictValue(info, "cudnn_version") == "8");
  CHECK(PythonDictValue(info, "is_cuda_build").empty());
  CHECK(PythonDictValue("cuda_version: '12.3'", "cuda_version").empty());  // key not quoted
  CHECK(PythonDictValue("'cuda_version' 'x', 'cuda_version': '12.4'", "cuda_version") == "12.4");
  CHECK(PythonDictValue("'k':\n  '1'", "k") == "1");
  CHECK(PythonDictValue("'k': '" + std::string(100000, 'x') + "'", "k").empty());
  CHECK(NumberAfter("CUDA Version 12.4.131\n", "CUDA Version ") == "12.4.131");
  CHECK(NumberAfter("CUDA Version x\nCUDA Version 11.8", "CUDA Version ") == "11.8");
  CHECK(NumberAfter("no version here", "CUDA Version ").empty());
  CHECK(NumberAfter("CUDA Version " + std::string(100000, '9'), "CUDA Version ").empty());
}

TEST_CASE("CudaFromDistributionName and CudaFromCondaBuild") {
  CHECK(CudaFromDistributionName("cupy-cuda117") == "11.7");
  CHECK(CudaFromDistributionName("cupy-cuda12x") == "12.x");
  CHECK(CudaFromDistributionName("tensorrt-cu12") == "12");
  CHECK(CudaFromDistributionName("jax-cuda12-plugin") == "12");
  CHECK(CudaFromDistributionName("jax-cuda12-pjrt") == "12");
  CHECK(CudaFromDistributionName("nvidia-cublas-cu11") == "11");
  CHECK(!CudaFromDistributionName("cupy"));
  CHECK(!CudaFromDistributionName("cupy-cudax"));
  CHECK(!CudaFromDistributionName("cupy-cuda12y"));
  CHECK(!CudaFromDistributionName("pycuda"));
  CHECK(!CudaFromDistributionName("cupy-cuda" + std::string(100000, '1')));
  CHECK(CudaFromCondaBuild("py3.10_cuda12.1_cudnn8.9.2_0") == "12.1");
  CHECK(CudaFromCondaBuild("cuda118py310h") == "11.8");
  CHECK(CudaFromCondaBuild("cuda11_8") == "11.8");
  CHECK(CudaFromCondaBuild("cuda12.x") == "1.2");  // as the expression it replaces read it
  CHECK(!CudaFromCondaBuild("cuda1"));
  CHECK(!CudaFromCondaBuild("cpu_py310"));
  CHECK(CudaFromCondaBuild("cudaX_cuda120") == "12.0");
}
