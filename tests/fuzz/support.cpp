#include "fuzz/support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace imagelint::fuzz {

const Knowledge& FuzzKnowledge() {
  static const Knowledge knowledge = [] {
    auto loaded = Knowledge::LoadDefault(IMAGELINT_SOURCE_DIR);  // the checkout's tables
    if (!loaded.ok()) {
      std::fprintf(stderr, "fuzz: knowledge tables do not load: %s\n", loaded.error().ToString().c_str());
      std::abort();
    }
    return std::move(*loaded);
  }();
  return knowledge;
}

namespace {

struct Scratch {
  std::filesystem::path path;
  Scratch() {
    std::error_code ec;
    path = std::filesystem::temp_directory_path(ec) / ("imagelint-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path, ec);
    if (ec) {
      std::fprintf(stderr, "fuzz: cannot create %s\n", path.c_str());
      std::abort();
    }
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

const std::filesystem::path& ScratchDirectory() {
  static const Scratch scratch;
  return scratch.path;
}

void WriteScratchFile(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

}  // namespace imagelint::fuzz
