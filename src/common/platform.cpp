// Platforms in containerd's normalisation (imagelint/platform.h).
#include "imagelint/platform.h"

#include <cctype>
#include <vector>

#include "common/text.h"

namespace imagelint {

Platform Platform::Normalized() const {
  Platform p = *this;
  p.os = ToLower(p.os);
  p.architecture = ToLower(p.architecture);
  p.variant = ToLower(p.variant);
  if (p.os == "macos") p.os = "darwin";
  if (p.architecture == "x86_64" || p.architecture == "x86-64" || p.architecture == "amd64") {
    p.architecture = "amd64";
    if (p.variant == "v1") p.variant.clear();
  } else if (p.architecture == "aarch64" || p.architecture == "arm64") {
    p.architecture = "arm64";
    if (p.variant == "8" || p.variant == "v8") p.variant.clear();
  } else if (p.architecture == "armhf") {
    p.architecture = "arm";
    p.variant = "v7";
  } else if (p.architecture == "armel") {
    p.architecture = "arm";
    p.variant = "v6";
  } else if (p.architecture == "arm") {
    if (p.variant.empty()) p.variant = "v7";
    if (p.variant.size() == 1 && std::isdigit(static_cast<unsigned char>(p.variant[0]))) p.variant = "v" + p.variant;
  } else if (p.architecture == "i386") {
    p.architecture = "386";
  }
  return p;
}

std::string Platform::ToString() const {
  Platform p = Normalized();
  std::string text = p.os + "/" + p.architecture;
  if (!p.variant.empty()) text += "/" + p.variant;
  return text;
}

Result<Platform> Platform::Parse(std::string_view text) {
  std::vector<std::string> parts = SplitOn(text, '/');
  for (const auto& part : parts) {
    if (part.empty()) return MakeError(std::string(text), "not a platform (expected os/arch[/variant])");
  }
  Platform p;
  if (parts.size() == 1) {
    p.os = "linux";
    p.architecture = parts[0];
  } else if (parts.size() <= 3) {
    p.os = parts[0];
    p.architecture = parts[1];
    if (parts.size() == 3) p.variant = parts[2];
  } else {
    return MakeError(std::string(text), "not a platform (expected os/arch[/variant])");
  }
  return p.Normalized();
}

}  // namespace imagelint
