// Small hand-written scanners for the names and text files the CUDA facts
// read: no std::regex (a recursive backtracking matcher that overflows the
// stack on long inputs, e.g. a 200 KB `__version__` string in
// torch/version.py), and every captured value is bounded.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace imagelint::cuda {

// The longest value a scanner captures from a Python or version file; a
// longer one is no version imagelint would believe, so it is not captured.
inline constexpr size_t kMaxCapturedValue = 256;

// "libcudart-9335f6a2.so.12.4.127" -> {prefix "libcudart-9335f6a2", stem
// "libcudart", hashed, version "12.4.127"}: a file name of the form
// NAME[-8 hex].so[.N]... (nullopt otherwise). `version` is "" for "NAME.so".
struct SharedObjectName {
  std::string prefix;   // everything before ".so"
  std::string stem;     // prefix without the "-<8 hex>" of a hashed (pip/PyTorch) copy
  bool hashed = false;
  std::string version;  // the dotted numbers after ".so", without the first dot
};
std::optional<SharedObjectName> ParseSharedObjectName(std::string_view file_name);

// "usr/local/cuda-12.4/x" and "usr/local/cuda/x" -> the toolkit directory
// ("usr/local/cuda-12.4"); the suffix after "cuda-" is digits and dots.
std::optional<std::string> ToolkitRoot(std::string_view path);
// "usr/local/cuda-12.4/x" -> "12.4" (exactly MAJOR.MINOR); nullopt otherwise.
std::optional<std::string> ToolkitDirVersion(std::string_view path);

// Python source: the string literal assigned to `name` at the start of a
// line (`name = '1.0'`, `name: Optional[str] = "1.0"`); "" when there is none
// or it is longer than kMaxCapturedValue.
std::string PythonAssignment(std::string_view text, std::string_view name);
// Python dict literal: the string value of 'key' ("'key': 'value'"); "" when none.
std::string PythonDictValue(std::string_view text, std::string_view key);
// The dotted number after the first `marker` ("CUDA Version " -> "12.4.131"); "" when none.
std::string NumberAfter(std::string_view text, std::string_view marker);

// CUDA of a normalized Python distribution name: "cupy-cuda117" -> "11.7",
// "cupy-cuda12x" -> "12.x", "tensorrt-cu12" -> "12", "jax-cuda12-plugin" -> "12".
std::optional<std::string> CudaFromDistributionName(std::string_view name);
// CUDA of a conda build string: "py3.10_cuda12.1_cudnn8.9.2_0" -> "12.1",
// "cuda118..." -> "11.8".
std::optional<std::string> CudaFromCondaBuild(std::string_view build);

}  // namespace imagelint::cuda
