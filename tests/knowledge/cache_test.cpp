// Knowledge::Load through the cache of parsed tables (src/knowledge/cache.cpp):
// the same tables as a parse, a changed file misses, a damaged cache file is
// parsed around, an unwritable cache directory costs only the parse.
#include <doctest/doctest.h>

#include <fstream>

#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge.h"
#include "imagelint/knowledge_bundle.h"
#include "support/test_support.h"

using namespace imagelint;
using imagelint::testing::SourceDir;
using imagelint::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> CacheFiles(const fs::path& cache) {
  std::vector<fs::path> files;
  if (fs::is_directory(cache / "knowledge"))
    for (const auto& item : fs::directory_iterator(cache / "knowledge")) files.push_back(item.path());
  return files;
}

// A copy of the checkout's tables, to change.
fs::path CopyTables(const fs::path& to) {
  fs::copy(SourceDir() / "rules" / "knowledge", to, fs::copy_options::recursive);
  return to;
}

}  // namespace

TEST_CASE("a cached load gives the tables a parse gives; a changed file misses") {
  TempDir dir;
  const fs::path tables = CopyTables(dir.path() / "knowledge");
  const fs::path cache = dir.path() / "cache";
  auto parsed = Knowledge::Load(tables);
  REQUIRE(parsed.ok());
  auto first = Knowledge::Load(tables, cache.string());  // parses and stores
  REQUIRE(first.ok());
  REQUIRE(CacheFiles(cache).size() == 1);
  auto second = Knowledge::Load(tables, cache.string());  // from the cache
  REQUIRE(second.ok());
  for (const auto& info : KnowledgeTables()) {
    CAPTURE(info.kind);
    CHECK(second->Table(info.kind) == parsed->Table(info.kind));
  }
  CHECK(second->FindGpu("Tesla T4") != nullptr);
  CHECK(second->base_images().families.size() == parsed->base_images().families.size());
  CHECK(second->base_images().cuda_releases.size() == parsed->base_images().cuda_releases.size());

  // One byte more in a table: another key, so a parse of the new text.
  std::ofstream(tables / "gpus.yaml", std::ios::app) << "\n# changed\n";
  auto changed = Knowledge::Load(tables, cache.string());
  REQUIRE(changed.ok());
  CHECK(CacheFiles(cache).size() == 2);

  // A broken table is the same error with or without the cache.
  std::ofstream(tables / "sass.yaml", std::ios::app) << "rows: [\n";
  auto broken = Knowledge::Load(tables, cache.string());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().ToString() == Knowledge::Load(tables).error().ToString());
}

TEST_CASE("a damaged cache file is parsed around; an unwritable cache directory costs only the parse") {
  TempDir dir;
  const fs::path tables = CopyTables(dir.path() / "knowledge");
  const fs::path cache = dir.path() / "cache";
  REQUIRE(Knowledge::Load(tables, cache.string()).ok());
  REQUIRE(CacheFiles(cache).size() == 1);
  const fs::path file = CacheFiles(cache)[0];
  const std::string sealed = testing::ReadFileText(file);
  {
    std::fstream damage(file, std::ios::in | std::ios::out | std::ios::binary);
    damage.seekp(200);
    damage.put(static_cast<char>(sealed[200] ^ 0x01));  // one bit of the payload
  }
  auto reloaded = Knowledge::Load(tables, cache.string());
  REQUIRE(reloaded.ok());
  CHECK(reloaded->FindGpu("NVIDIA A100-SXM4-80GB") != nullptr);
  // The seal's check found the flipped bit: the tables were parsed and the
  // file written again, as it was.
  CHECK(testing::ReadFileText(file) == sealed);

  // A cache "directory" that is a file: nothing can be stored, the load works.
  testing::WriteFileText(dir.path() / "not-a-directory", "x");
  auto uncached = Knowledge::Load(tables, (dir.path() / "not-a-directory").string());
  REQUIRE(uncached.ok());
  CHECK(uncached->FindGpu("Tesla T4") != nullptr);
}

TEST_CASE("the bundle digest remembered for --version: the digest of the files, and a changed file misses") {
  TempDir dir;
  const fs::path tables = CopyTables(dir.path() / "knowledge");
  const fs::path cache = dir.path() / "cache";
  auto direct = KnowledgeDigest(tables);
  REQUIRE(direct.ok());
  auto first = KnowledgeDigest(tables, cache.string());  // computed and stored
  REQUIRE(first.ok());
  CHECK(*first == *direct);
  REQUIRE(CacheFiles(cache).size() == 1);
  auto second = KnowledgeDigest(tables, cache.string());  // read back
  REQUIRE(second.ok());
  CHECK(*second == *direct);
  std::ofstream(tables / "sass.yaml", std::ios::app) << "\n# changed\n";
  auto changed = KnowledgeDigest(tables, cache.string());
  REQUIRE(changed.ok());
  CHECK(*changed != *direct);
  CHECK(*changed == *KnowledgeDigest(tables));
}
