// Images laid out the way CUDA reaches users, built from Debian's genuine
// NVIDIA packages (CUDA 12.4 from trixie): NVIDIA's own runtime/devel image
// tree, NVIDIA's pip wheels in a virtual environment, a conda environment.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "validation/programs.h"

namespace imagelint::validation {

struct Layout {
  std::string name;
  std::string why;  // why a real run of it succeeds on the pools of SupportedPoolsFleet()
  std::function<bool(Programs&, const fs::path& rootfs, const fs::path& layout, std::string* why)> build;
};

// The layouts, and the packages ("package/suite") they are built from.
const std::vector<Layout>& Layouts();
std::vector<std::string> LayoutParts();

// Pools whose GPUs and drivers CUDA 12.4's libraries support: the observed
// H100 host (driver 580, CUDA 13.0), and an A100 on driver 550.163.01
// (CUDA 12.4, the branch of the image's own compat libcuda) launched with
// docker --gpus, so that the image's NVIDIA_REQUIRE_CUDA is checked.
std::string SupportedPoolsFleet();

}  // namespace imagelint::validation
