// What one pip requirement installs: the framework row, its CUDA build and
// NVIDIA's CUDA wheels, from the requirement and the command's indexes
// (pip_builds.cpp). Private to src/dockerfile: pip.cpp reads the command
// line into Requirements and Indexes and hands each requirement here.
#pragma once

#include <string>
#include <vector>

#include "dockerfile/context.h"
#include "dockerfile/pip.h"

namespace imagelint::dockerfile {

// The index URLs of one command.
struct Indexes {
  std::string index_url;                // -i / --index-url / --index / --default-index
  std::vector<std::string> extra_urls;  // --extra-index-url, in order
  // -f / --find-links: pages whose wheels compete with the indexes' (pip takes
  // the highest version, and torch's `+cu111` local version sorts above PyPI's
  // plain one), so a variant page such as /whl/cu111/torch_stable.html decides
  // as an extra index does (https://pip.pypa.io/en/stable/cli/pip_install/#finding-packages).
  std::vector<std::string> find_links;
  bool from_pypi = true;                // no -i: the default index is PyPI
  // uv's --torch-backend (UV_TORCH_BACKEND): PyTorch packages come from the
  // backend's index instead of the configured ones; "auto" picks it from the
  // driver of the machine that runs the build (docs.astral.sh/uv, "Using uv
  // with PyTorch").
  std::string torch_backend;
};

// The frameworks[], cuda.packages and cuda.runtimes rows `r` adds to `image`.
void PipPackage(const Context& ctx, const Instruction& inst, ImageModel& image, const Requirement& r,
                const Indexes& indexes, bool uv);

}  // namespace imagelint::dockerfile
