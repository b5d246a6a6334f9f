// GPU code a RUN adds without a package manager row: code it compiles, and
// scripts and archives it runs or unpacks. Code compiled with an arch list
// the build tool applies becomes a binary of the facts with that SASS and
// PTX (ImageModel::built_binaries), so the kernel rules judge it; anything
// else that may add GPU code makes the image's binaries undecided at its line
// (a "binaries" unknown), never a silent "none".
//
// The arch-list grammars are the tools' own:
//   nvcc: -arch/--gpu-architecture, -code/--gpu-code, -gencode/--generate-code
//     (https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/#options-for-steering-gpu-code-generation);
//     `-arch=sm_XY` alone is `-arch=compute_XY -code=sm_XY,compute_XY`,
//     `-arch=compute_XY` alone is PTX only.
//   CMake: CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable
//     that initialises it): `XY` is SASS and PTX, `XY-real` SASS, `XY-virtual` PTX
//     (https://cmake.org/cmake/help/latest/prop_tgt/CUDA_ARCHITECTURES.html).
//   torch.utils.cpp_extension: TORCH_CUDA_ARCH_LIST, `X.Y` entries separated by
//     `;` or blanks, `+PTX` adds PTX of that entry.
#pragma once

#include <string>

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

// Binaries an image model records from builds and the build context, at most.
inline constexpr size_t kMaxBuiltBinaries = 256;

// One simple command of a RUN; true when it was one of these concerns.
bool ApplyBuildCode(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command);

// `pip install` of a project from source (a local directory, a VCS URL):
// its CUDA extensions, if any, are built with TORCH_CUDA_ARCH_LIST.
void BuildsPythonProject(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                         const std::string& what);

// A RUN starts: downloads piped to a shell are per RUN.
void StartRun(ImageModel& image);

}  // namespace imagelint::dockerfile
