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

// False (with `why`) when the NVIDIA packages are not cached.
bool MakeCudaBase(TestImage* image, std::string* why);

// The pools of tests/differential/fleet.yaml.
std::filesystem::path FleetFile();

// pool -> "status[/code]" of `imagelint scan ARGS --fleet FleetFile() --format json`;
// `exit_code` gets the exit status.
std::map<std::string, std::string> Verdicts(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                            int* exit_code, std::string* err);

// Facts JSON of `imagelint facts ARGS`; throws on a non-zero exit.
std::string FactsOut(const std::vector<std::string>& args, const std::vector<std::string>& env);

}  // namespace imagelint::testing
