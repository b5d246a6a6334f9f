// The programs of the GPU validation, compiled once per test process by
// nvcc 13.0 (/usr/local/cuda/bin) into a shared work directory.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace imagelint::validation {

namespace fs = std::filesystem;

struct Built {
  fs::path program;  // the executable
  fs::path fatbin;   // the fatbin nvcc embedded in it (its -keep file), or empty
  fs::path library;  // a shared library the program NEEDs, or empty
};

class Programs {
 public:
  explicit Programs(fs::path work) : work_(std::move(work)) {}

  // A CUDA 13 program (nvcc -cudart shared, NEEDED libcudart.so.13) with one
  // kernel launched through the runtime, compiled with `gencode` ("-gencode"
  // values). With `ptx_version`, the PTX it embeds declares that ISA.
  const Built* Cuda13(const std::vector<std::string>& gencode, const std::string& ptx_version, std::string* why);
  // A host program calling the CUDA runtime API, linked against the genuine
  // libcudart file `cudart` (so it NEEDs that file's SONAME).
  const Built* HostProgram(const fs::path& cudart, std::string* why);
  // Any host program: `source` (C++) compiled by nvcc with `args` after it
  // (libraries by file name, -Xlinker options); `key` names it in the cache.
  const Built* Program(const std::string& key, const std::string& source, const std::vector<std::string>& args,
                       std::string* why);
  // A shared library shaped like NVIDIA's libcufftw / libnppc: a fatbin with
  // one sm_75 cubin that defines a __device__ variable and no kernel, and a
  // program that NEEDs it and `extra` (the genuine libcufftw, linked by
  // file name; `rpath_link` lets ld find what that one NEEDs).
  const Built* KernelLess(const std::vector<fs::path>& extra, const std::vector<fs::path>& rpath_link,
                          std::string* why);

 private:
  fs::path work_;
  std::map<std::string, Built> built_;
};

// The CUDA 13 runtime of the nvcc installation (/usr/local/cuda/lib64), and
// its version from the installation's dist-info directory (NVIDIA's wheel
// nvidia_cuda_runtime-13.0.96.dist-info), e.g. "13.0.96"; "13" when unknown.
fs::path Cudart13();
std::string Cudart13Version();

}  // namespace imagelint::validation
