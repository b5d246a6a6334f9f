// Base images for the base-resolution tests, made here from Debian's genuine
// NVIDIA packages (scripts/fetch-nvidia-debs.sh): a CUDA 12.4 runtime-like
// base with the compat package's libcuda (the layout of NVIDIA's image
// definition, its environment as the knowledge tables give that tag), under
// a name no knowledge table knows.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "support/image_builder.h"
#include "support/test_support.h"

namespace imagelint::testing {

// False (with `why`) when the NVIDIA packages are not cached. `architecture`
// "arm64" gives the arm64 image of the same tag as NVIDIA's Ubuntu template
// built it before CUDA 12.5.1: the runtime under targets/sbsa-linux and no
// compat package (Debian's x86-64 libcudart stands in for the arm64 build:
// the reader takes its version from the file name and the package database).
bool MakeCudaBase(TestImage* image, std::string* why, const std::string& architecture = "amd64");

// The pools of tests/differential/fleet.yaml.
std::filesystem::path FleetFile();

// pool -> "status[/code]" of `imagelint scan ARGS --fleet FleetFile() --format json`;
// `exit_code` gets the exit status.
std::map<std::string, std::string> Verdicts(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                            int* exit_code, std::string* err);

// Facts JSON of `imagelint facts ARGS`; throws on a non-zero exit.
std::string FactsOut(const std::vector<std::string>& args, const std::vector<std::string>& env);

}  // namespace imagelint::testing
