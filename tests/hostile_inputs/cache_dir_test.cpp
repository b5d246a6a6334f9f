// A cache directory someone else prepared: its subdirectories and entries
// made symbolic links to a directory outside, its mode opened to everyone.
// Nothing is written outside the cache directory, a link never stands for a
// cached result, and an open directory is not used (with one warning).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// Every regular file below `dir` with its size, for "nothing changed here".
std::map<std::string, uintmax_t> Listing(const fs::path& dir) {
  std::map<std::string, uintmax_t> out;
  for (const auto& item : fs::recursive_directory_iterator(dir)) {
    if (item.is_symlink()) out[item.path().string()] = 0;
    else if (item.is_regular_file()) out[item.path().string()] = item.file_size();
    else out[item.path().string()] = 1;
  }
  return out;
}

fs::path SmallImage(const TempDir& dir) {
  TestImage image;
  image.Layer().File("etc/os-release", "ID=debian\n").File("usr/bin/tool", "#!/bin/sh\n");
  image.Layer().File("usr/share/doc/x", "y");
  WriteImage(image, ImageKind::kOciArchive, dir / "image.tar");
  return dir / "image.tar";
}

}  // namespace

TEST_CASE("cache subdirectories that are links to elsewhere: nothing written there, the scan goes on") {
  TempDir dir;
  const fs::path image = SmallImage(dir);
  const fs::path victim = dir / "victim";
  fs::create_directories(victim);
  WriteFileText(victim / "keep", "not the cache's");
  const fs::path cache = dir / "cache";
  fs::create_directories(cache);
  for (const char* name : {"layers", "verified", "knowledge", "checked-yaml", "parsed-yaml"})
    fs::create_directory_symlink(victim, cache / name);
  const auto before = Listing(victim);
  for (int pass = 0; pass < 2; ++pass) {
    auto run = RunBounded({"facts", image.string(), "--cache-dir", cache.string()});
    CAPTURE(run.result.err);
    CHECK(run.result.exit_code == 0);
    CHECK(run.cpu_seconds < kHostileSeconds);
  }
  CHECK(Listing(victim) == before);
  auto scan = RunBounded({"scan", image.string(), "--cache-dir", cache.string()});
  CHECK(scan.result.exit_code <= 1);
  CHECK(Listing(victim) == before);
}

TEST_CASE("a cached entry replaced by a link: not read through, replaced inside the cache") {
  TempDir dir;
  const fs::path image = SmallImage(dir);
  const fs::path cache = dir / "cache";
  auto first = RunBounded({"facts", image.string(), "--cache-dir", cache.string()});
  REQUIRE_MESSAGE(first.result.exit_code == 0, first.result.err);
  const fs::path victim = dir / "victim";
  fs::create_directories(victim);
  size_t replaced = 0;
  for (const auto& item : fs::recursive_directory_iterator(cache / "layers")) {
    if (!item.is_regular_file() || item.path().extension() != ".cbor") continue;
    const fs::path target = victim / ("file" + std::to_string(replaced++));
    fs::copy_file(item.path(), target);  // a valid entry, so only the link can make it refused
    fs::remove(item.path());
    fs::create_symlink(target, item.path());
  }
  REQUIRE(replaced > 0);
  const auto before = Listing(victim);
  auto second = RunBounded({"facts", image.string(), "--cache-dir", cache.string()});
  CHECK_MESSAGE(second.result.exit_code == 0, second.result.err);
  CHECK(second.result.out == first.result.out);
  CHECK(Listing(victim) == before);
  for (const auto& item : fs::recursive_directory_iterator(cache / "layers")) CHECK_FALSE(item.is_symlink());
}

TEST_CASE("a cache directory every user may write without the sticky bit: not used, said once") {
  TempDir dir;
  const fs::path image = SmallImage(dir);
  const fs::path cache = dir / "open-cache";
  fs::create_directories(cache);
  REQUIRE(::chmod(cache.c_str(), 0777) == 0);
  auto run = RunBounded({"facts", image.string(), "--cache-dir", cache.string()});
  CHECK_MESSAGE(run.result.exit_code == 0, run.result.err);
  CHECK(run.result.err.find("layer cache not used") != std::string::npos);
  CHECK(run.result.err.find("writable by every user") != std::string::npos);
  CHECK((!fs::exists(cache / "layers") || fs::is_empty(cache / "layers")));
  // With the sticky bit (as /tmp), others cannot replace this user's entries: used.
  REQUIRE(::chmod(cache.c_str(), 01777) == 0);
  auto sticky = RunBounded({"facts", image.string(), "--cache-dir", cache.string()});
  CHECK_MESSAGE(sticky.result.exit_code == 0, sticky.result.err);
  CHECK(sticky.result.err.find("layer cache not used") == std::string::npos);
  CHECK_FALSE(fs::is_empty(cache / "layers"));
}
