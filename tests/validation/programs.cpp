#include "validation/programs.h"

#include "support/test_support.h"
#include "validation/workshop.h"

namespace imagelint::validation {

using imagelint::testing::WriteFileText;

namespace {

// The observed program: the runtime path (cudaMalloc, a kernel launch,
// synchronize) and then the driver API through libcuda.so.1 by name, as
// the scenarios on the H100 ran it.
const char* kCuda13Source = R"(#include <dlfcn.h>
__global__ void scale(float* a) { a[threadIdx.x] *= 2.0f; }
int main() {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return 1;
  float* device = nullptr;
  if (cudaMalloc(&device, 32 * sizeof(float)) != cudaSuccess) return 1;
  scale<<<1, 32>>>(device);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  return dlopen("libcuda.so.1", RTLD_NOW) == nullptr;
}
)";

// A runtime-API program without kernels of its own (its kernel comes from
// /app/kernel.fatbin through the driver API): what the scenarios that pair
// an older libcudart with a libcuda ran.
const char* kHostSource = R"(#include <dlfcn.h>
#include <stddef.h>
extern "C" {
int cudaRuntimeGetVersion(int*);
int cudaGetDeviceCount(int*);
int cudaMalloc(void**, size_t);
int cudaMemset(void*, int, size_t);
int cudaDeviceSynchronize(void);
}
int main() {
  int version = 0, count = 0;
  void* device = NULL;
  if (cudaRuntimeGetVersion(&version) || cudaGetDeviceCount(&count) || cudaMalloc(&device, 128) ||
      cudaMemset(device, 0, 128) || cudaDeviceSynchronize())
    return 1;
  return dlopen("libcuda.so.1", RTLD_NOW) == NULL;
}
)";

// libcufftw's device code: a module with one __device__ variable (and the
// host function that writes it), no __global__ function.
const char* kKernelLessSource = R"(__device__ float twiddle[64];
extern "C" int upload_twiddle(const float* host) {
  return cudaMemcpyToSymbol(twiddle, host, sizeof(twiddle));
}
)";

const char* kKernelLessProgram = R"(#include <stddef.h>
extern "C" int upload_twiddle(const float*);
extern "C" void* fftwf_malloc(size_t);
int main() {
  float host[64] = {0};
  void* buffer = fftwf_malloc(64);
  return upload_twiddle(host) != 0 || buffer == NULL;
}
)";

std::string Key(const std::vector<std::string>& parts) {
  std::string key;
  for (const auto& part : parts) key += part + "|";
  return key;
}

}  // namespace

const Built* Programs::Cuda13(const std::vector<std::string>& gencode, const std::string& ptx_version,
                              std::string* why) {
  std::string key = Key(gencode) + "ptx=" + ptx_version;
  if (auto it = built_.find(key); it != built_.end()) return &it->second;
  fs::path dir = work_ / ("cuda13-" + std::to_string(built_.size()));
  fs::create_directories(dir);
  WriteFileText(dir / "kernel.cu", kCuda13Source);
  std::vector<std::string> args = {"-keep", "-keep-dir", dir.string()};
  for (const auto& g : gencode) args.insert(args.end(), {"-gencode", g});
  args.insert(args.end(), {"-cudart", "shared", "-o", (dir / "app").string(), (dir / "kernel.cu").string()});
  bool ok = false;
  if (ptx_version.empty()) {
    std::vector<std::string> argv = {kNvcc};
    argv.insert(argv.end(), args.begin(), args.end());
    ok = Run(argv, why);
  } else {
    // nvcc 13.0 writes PTX ISA 9.0.
    ok = NvccWithPtxVersion(args, dir, "9.0", ptx_version, why);
  }
  if (!ok) return nullptr;
  return &(built_[key] = Built{dir / "app", dir / "kernel.fatbin", {}});
}

const Built* Programs::HostProgram(const fs::path& cudart, std::string* why) {
  std::string key = "host|" + cudart.string();
  if (auto it = built_.find(key); it != built_.end()) return &it->second;
  fs::path dir = work_ / ("host-" + std::to_string(built_.size()));
  fs::create_directories(dir);
  WriteFileText(dir / "main.cpp", kHostSource);
  // nvcc takes only known suffixes as inputs: a versioned library goes to ld through -Xlinker.
  if (!Run({kNvcc, "-cudart", "none", "-o", (dir / "app").string(), (dir / "main.cpp").string(), "-Xlinker",
            cudart.string()},
           why))
    return nullptr;
  return &(built_[key] = Built{dir / "app", {}, {}});
}

const Built* Programs::KernelLess(const std::vector<fs::path>& extra, const std::vector<fs::path>& rpath_link,
                                  std::string* why) {
  std::vector<std::string> names;
  for (const auto& file : extra) names.push_back(file.string());
  std::string key = "kernel-less|" + Key(names);
  if (auto it = built_.find(key); it != built_.end()) return &it->second;
  fs::path dir = work_ / ("kernel-less-" + std::to_string(built_.size()));
  fs::create_directories(dir);
  WriteFileText(dir / "twiddle.cu", kKernelLessSource);
  WriteFileText(dir / "main.cpp", kKernelLessProgram);
  fs::path library = dir / "libtwiddle.so.1";
  if (!Run({kNvcc, "-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_75,code=sm_75", "-cudart", "shared",
            "-Xlinker", "-soname=libtwiddle.so.1", "-o", library.string(), (dir / "twiddle.cu").string()},
           why))
    return nullptr;
  // Every library named is NEEDED, used symbol or not (no --as-needed).
  std::vector<std::string> argv = {kNvcc,      "-cudart",        "shared",
                                   "-o",       (dir / "app").string(), "-Xlinker",
                                   "--no-as-needed", (dir / "main.cpp").string()};
  for (const auto& file : extra) argv.insert(argv.end(), {"-Xlinker", file.string()});
  argv.insert(argv.end(), {"-Xlinker", library.string()});
  for (const auto& path : rpath_link) argv.insert(argv.end(), {"-Xlinker", "-rpath-link=" + path.string()});
  if (!Run(argv, why)) return nullptr;
  return &(built_[key] = Built{dir / "app", {}, library});
}

const Built* Programs::Program(const std::string& key, const std::string& source,
                               const std::vector<std::string>& args, std::string* why) {
  std::string full = "program|" + key;
  if (auto it = built_.find(full); it != built_.end()) return &it->second;
  fs::path dir = work_ / ("program-" + std::to_string(built_.size()));
  fs::create_directories(dir);
  WriteFileText(dir / "main.cpp", source);
  std::vector<std::string> argv = {kNvcc, "-o", (dir / "app").string(), (dir / "main.cpp").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!Run(argv, why)) return nullptr;
  return &(built_[full] = Built{dir / "app", {}, {}});
}

fs::path Cudart13() { return "/usr/local/cuda/lib64/libcudart.so.13"; }

std::string Cudart13Version() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/local/cuda/dist-info", ec)) {
    std::string name = entry.path().filename().string();
    const std::string prefix = "nvidia_cuda_runtime-", suffix = ".dist-info";
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  }
  return "13";
}

}  // namespace imagelint::validation
