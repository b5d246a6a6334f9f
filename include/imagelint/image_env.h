// How NVIDIA's container runtime reads an image's environment, and how a
// Debian package version names the upstream release: one function for each
// interpretation, shared by both facts producers (the image reader in
// src/cuda and the Dockerfile predictor in src/dockerfile), so that the same
// variable means the same thing whichever produced the facts.
//
// The container toolkit's code is the reference: NVIDIA/nvidia-container-toolkit
// v1.20.0, internal/config/image/cuda_image.go (IsLegacy, GetRequirements,
// HasDisableRequire, parseMajorMinorVersion) and envvars.go,
// https://github.com/NVIDIA/nvidia-container-toolkit/blob/v1.20.0/internal/config/image/cuda_image.go
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "imagelint/facts.h"

namespace imagelint::nvidia {

// Go's strconv.ParseBool: "1", "t", "T", "TRUE", "true", "True" are true;
// "0", "f", "F", "FALSE", "false", "False" are false; anything else (" true",
// "yes", "on") is an error, which the toolkit treats as false.
// https://pkg.go.dev/strconv#ParseBool
std::optional<bool> GoParseBool(std::string_view value);

// NVIDIA_DISABLE_REQUIRE: the toolkit skips every requirement check (the
// legacy cuda>= included) when the variable is set and ParseBool says true.
bool DisableRequireIsTrue(std::optional<std::string_view> value);

// A "legacy" image sets CUDA_VERSION (non-empty) and no (or an empty)
// NVIDIA_REQUIRE_CUDA; the runtime then adds the requirement cuda>=MAJOR.MINOR.
bool IsLegacyCudaImage(std::string_view cuda_version, std::string_view require_cuda);

// The MAJOR.MINOR of that legacy requirement, parsed as toolkits v1.10.0 to
// v1.20.0 do: a single leading "v" is dropped and "v" added back, the result
// must be a valid golang.org/x/mod/semver version ("12", "v12", "12.4",
// "12.4.1", "12.4.1-rc.1+build"; no leading zeros, no prerelease on a short
// form), and major and minor must fit strconv.ParseUint(_, 10, 32).
// "12" -> "12.0", "v11.6" -> "11.6", "12.4.1" -> "12.4"; nullopt where the
// toolkit's hook fails the container ("invalid CUDA version").
// https://github.com/golang/mod/blob/master/semver/semver.go
std::optional<std::string> LegacyCudaRequirementVersion(std::string_view cuda_version);

// The upstream release of a Debian package version: the epoch (up to the
// first ':') and the Debian revision (from the last '-') are dropped, then
// everything from the first '~' or '+' (NVIDIA's "11.2.152~11.2.2" component
// builds, "+dfsg" repacks, "+cuda12.0" local suffixes). "1:550.54.15-1" ->
// "550.54.15", "11.2.152~11.2.2-3+deb11u3" -> "11.2.152", "8.6.1.6-1+cuda12.0"
// -> "8.6.1.6". Debian Policy Manual, 5.6.12 Version,
// https://www.debian.org/doc/debian-policy/ch-controlfields.html#version
std::string PackageUpstreamVersion(std::string_view debian_version);

// cuda.requirements of the facts from an image env: the variables
// facts::IsRequirementVariable selects, `disabled`, `legacy`,
// `legacy_cuda_version` (null unless legacy) and
// `legacy_cuda_version_invalid` (only when true).
facts::Requirements RequirementsFromEnv(const std::map<std::string, std::string>& env);

}  // namespace imagelint::nvidia
