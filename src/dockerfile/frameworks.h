// frameworks[] rows, whoever installs them (base image, pip, conda): one copy
// of a framework per image, removals recorded with their line, and the GPU
// code of torch builds from pytorch.yaml.
#pragma once

#include <string>
#include <string_view>

#include "dockerfile/context.h"

namespace imagelint::dockerfile {

// A package name as pip compares it (PEP 503, without collapsing runs): lower
// case, `_` and `.` as `-`.
std::string NormalizePackageName(std::string_view name);

// Adds sass/ptx from pytorch.yaml's TORCH_CUDA_ARCH_LIST of the row's torch
// release and variant, when the table has that build; otherwise leaves them
// unknown (absent).
void AddArchList(const Context& context, facts::Framework& row);

// The CUDA runtime that a framework's CUDA build brings (framework_runtimes in
// packages.yaml): a cuda.runtimes row of the build's CUDA release under
// <site-packages> (pip) or <conda-prefix> (conda), so a torch wheel on a base
// without CUDA still needs its release's driver. A later install replaces the
// row of the same file.
// `extras`: the pip extras of the install (a row naming one applies only with it).
void AddFrameworkRuntime(const Context& context, ImageModel& image, const facts::Framework& row,
                         const std::string& manager, const std::vector<std::string>& extras = {});

// A later install of a framework replaces the earlier one (one copy per image).
void ReplaceFramework(ImageModel& image, facts::Framework row);

// Removes the rows of package (or framework) `name` (normalized), recording
// each in image.changes with the removing line.
void RemoveFramework(ImageModel& image, int line, const std::string& name);

}  // namespace imagelint::dockerfile
