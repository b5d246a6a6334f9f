// Shared by the fuzz targets: the knowledge tables (loaded once), a scratch
// directory per process, and small helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/knowledge.h"

namespace imagelint::fuzz {

// The repository's knowledge tables (aborts when they do not load: that is a
// broken checkout, not a finding).
const Knowledge& FuzzKnowledge();

// A directory private to this process, created once, removed at exit.
const std::filesystem::path& ScratchDirectory();

// Writes bytes to a file (replacing it); aborts on host I/O failure.
void WriteScratchFile(const std::filesystem::path& path, std::string_view bytes);

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace imagelint::fuzz
