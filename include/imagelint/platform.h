// A platform, "os/arch[/variant]" (OCI image index `platform`, docker's
// --platform, a fleet pool's `platform`), in containerd's normalised form.
//
// One typed value from the fleet file to the verdict: the fleet reader
// parses each pool's platform once, the Dockerfile builds and the analysis
// compare Platforms, and only the writers spell it ("linux/arm64").
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "imagelint/result.h"

namespace imagelint {

struct Platform {
  std::string os = "linux";
  std::string architecture = "amd64";
  std::string variant;  // empty when none
  // "os/arch[/variant]" in containerd's normalised spelling.
  std::string ToString() const;
  // The same platform in containerd's spelling (lower case; x86_64 -> amd64,
  // aarch64 -> arm64, arm64/v8 -> arm64, arm -> arm/v7, armhf -> arm/v7...).
  Platform Normalized() const;
  // Parses "linux/amd64", "linux/arm64/v8", "x86_64"... normalised like
  // containerd. An empty part or more than three is an error.
  static Result<Platform> Parse(std::string_view text);
  bool operator==(const Platform&) const = default;
  auto operator<=>(const Platform&) const = default;
};

}  // namespace imagelint
