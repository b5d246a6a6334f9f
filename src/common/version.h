// Version comparison, in two flavours, for every module.
//
// NVIDIA's own components compare versions in their own ways, and where
// imagelint must predict what they do it copies them exactly (the
// libnvidia-container requirement DSL in src/nvidia/requirements.cpp, Go's
// semver in src/nvidia/go_requirements.cpp). Everything else uses these two.
#pragma once

#include <optional>
#include <string_view>

namespace imagelint {

// Strict dotted numbers ("470.256.02", "12.4", "8"): missing components count
// as 0, so "12.4" == "12.4.0". nullopt when either side is anything but digits
// and single dots (an empty string included), or has a component of more
// than 18 digits. Returns -1, 0 or 1.
std::optional<int> CompareVersions(std::string_view a, std::string_view b);

// Whether `text` is such a strict dotted version ("535.104.05", "8.6", "12").
bool IsDottedVersion(std::string_view text);

// Natural order for versions as people write them ("v2.1.0", "1.17.0-rc.1",
// "12.4.127", "2.1.0a0"): a leading 'v' before a digit is ignored; dot-separated
// components compare by their leading number, then by the rest as text, where
// a component with no rest (a release) sorts after one with a rest
// (a pre-release: "12.2" > "12.2-rc"). Missing components count as "0".
// Total: every pair of strings compares. Returns -1, 0 or 1.
int CompareNaturalVersions(std::string_view a, std::string_view b);

}  // namespace imagelint
