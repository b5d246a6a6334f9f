// The knowledge bundle: its identity (bundle.yaml, digest, age), pack
// (deterministic), unpack (hostile bytes refused with a reason) and the store
// of updated bundles, where a refused bundle changes nothing.
#include <doctest/doctest.h>

#include <filesystem>

#include "imagelint/digest.h"
#include "imagelint/knowledge_bundle.h"
#include "support/test_support.h"

using imagelint::Knowledge;
using imagelint::KnowledgeBundle;
namespace fs = std::filesystem;
using namespace imagelint::testing;

namespace {

fs::path CheckoutTables() { return SourceDir() / "rules" / "knowledge"; }

// A copy of the checkout's tables, to edit.
void CopyTablesTo(const fs::path& to) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(CheckoutTables()))
    if (entry.path().extension() == ".yaml") fs::copy_file(entry.path(), to / entry.path().filename());
}

void Replace(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = ReadFileText(file);
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  WriteFileText(file, text);
}

std::string Pack(const fs::path& dir) {
  std::string tar;
  auto bundle = imagelint::PackKnowledge(dir, &tar);
  REQUIRE_MESSAGE(bundle.ok(), ErrorText(bundle));
  return tar;
}

}  // namespace

TEST_CASE("bundle: the checkout's tables are one bundle with a schema version, revision, date and digest") {
  auto knowledge = Knowledge::Load(CheckoutTables());
  REQUIRE_MESSAGE(knowledge.ok(), ErrorText(knowledge));
  auto identity = imagelint::BundleOf(*knowledge);
  REQUIRE_MESSAGE(identity.ok(), ErrorText(identity));
  const KnowledgeBundle& bundle = *identity;
  CHECK(bundle.schema_version == imagelint::kKnowledgeSchemaVersion);
  CHECK(imagelint::KnowledgeAgeDays(bundle.as_of, bundle.as_of) == 0);
  CHECK(!bundle.revision.empty());
  REQUIRE(bundle.digest.size() == 71);
  CHECK(imagelint::ValidateDigest(bundle.digest).ok());
  // The digest is sha256 over "<sha256>  <file>\n" per table file, in byte order.
  std::string listing;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(CheckoutTables()))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    auto bytes = ReadFileBytes(CheckoutTables() / name);
    listing += imagelint::Sha256Digest(bytes).substr(7) + "  " + name + "\n";
  }
  CHECK(bundle.digest ==
        imagelint::Sha256Digest(std::vector<uint8_t>(listing.begin(), listing.end())));
  // No source was consulted after the bundle's date.
  for (const auto& source : knowledge->Table("sources"))
    if (source.contains("consulted")) CHECK(source["consulted"].get<std::string>() <= bundle.as_of);
}

TEST_CASE("bundle: an edited table changes the digest; a missing or bad bundle.yaml is refused by name") {
  TempDir dir;
  CopyTablesTo(dir / "k");
  auto before = imagelint::KnowledgeDigest(dir / "k");
  REQUIRE(before.ok());
  WriteFileText(dir / "k" / "gpus.yaml", ReadFileText(dir / "k" / "gpus.yaml") + "\n# edited\n");
  auto after = imagelint::KnowledgeDigest(dir / "k");
  REQUIRE(after.ok());
  CHECK(*after != *before);

  Replace(dir / "k" / "bundle.yaml", "schema_version: 1", "schema_version: 2");
  auto newer = Knowledge::Load(dir / "k");
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.error().message.find("schema version 2") != std::string::npos);
  CHECK(newer.error().message.find("newer imagelint") != std::string::npos);

  Replace(dir / "k" / "bundle.yaml", "schema_version: 2", "schema_version: 1");
  Replace(dir / "k" / "bundle.yaml", "as_of: \"", "as_of: \"20");
  CHECK_FALSE(Knowledge::Load(dir / "k").ok());

  fs::remove(dir / "k" / "bundle.yaml");
  auto missing = Knowledge::Load(dir / "k");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("no bundle.yaml") != std::string::npos);
}

TEST_CASE("bundle: a source consulted after the bundle's date is an error") {
  TempDir dir;
  CopyTablesTo(dir / "k");
  Replace(dir / "k" / "sources.yaml", "  - id: S1\n", "  - id: S1\n    consulted: \"2999-01-01\"\n");
  auto loaded = Knowledge::Load(dir / "k");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().message.find("after the bundle's as_of") != std::string::npos);
}

TEST_CASE("bundle: age in days, and the note past 90 days") {
  CHECK(imagelint::KnowledgeAgeDays("2026-08-01", "2026-11-27") == 118);
  CHECK(imagelint::KnowledgeAgeDays("2026-11-27", "2026-11-27") == 0);
  CHECK(imagelint::KnowledgeAgeDays("2024-02-28", "2024-03-01") == 2);  // leap year
  CHECK_FALSE(imagelint::KnowledgeAgeDays("2026-02-30", "2026-11-27"));
  KnowledgeBundle bundle{1, "2026.8.1", "2026-08-01", "sha256:" + std::string(64, 'a'), {}};
  auto fresh = imagelint::KnowledgeStampOf(bundle, "2026-10-30");  // 90 days: not yet
  CHECK(fresh.age_days == 90);
  CHECK(fresh.stale == false);
  CHECK_FALSE(fresh.note);
  auto stale = imagelint::KnowledgeStampOf(bundle, "2026-10-31");
  CHECK(stale.stale == true);
  REQUIRE(stale.note);
  CHECK(stale.note->find("91 days old (as of 2026-08-01") != std::string::npos);
  CHECK(stale.note->find("imagelint knowledge update") != std::string::npos);
}

TEST_CASE("pack: the same tables give the same bytes, and unpack gives the same bundle back") {
  TempDir dir;
  CopyTablesTo(dir / "a");
  CopyTablesTo(dir / "b");
  fs::last_write_time(dir / "b" / "gpus.yaml", fs::file_time_type::clock::now() - std::chrono::hours(100));
  const std::string a = Pack(dir / "a");
  CHECK(a == Pack(dir / "b"));
  CHECK(a == Pack(dir / "a"));
  REQUIRE(imagelint::UnpackKnowledge(a, "a.tar", dir / "unpacked").ok());
  CHECK(*imagelint::KnowledgeDigest(dir / "unpacked") == *imagelint::KnowledgeDigest(dir / "a"));
  // Only the table files travel: a stray file in the directory is not packed.
  WriteFileText(dir / "a" / "notes.txt", "private notes\n");
  CHECK(Pack(dir / "a") == a);
  // A table that does not load is not packed.
  Replace(dir / "b" / "gpus.yaml", "compute_capability:", "compute_capabilty:");
  std::string tar;
  CHECK_FALSE(imagelint::PackKnowledge(dir / "b", &tar).ok());
}

TEST_CASE("store: corrupt, truncated, oversized, foreign and wrong-schema bundles are refused; the stored one stays") {
  TempDir dir;
  CopyTablesTo(dir / "good");
  const std::string good = Pack(dir / "good");
  const fs::path store = dir / "store";
  auto stored = imagelint::StoreKnowledge(good, "good.tar", store);
  REQUIRE_MESSAGE(stored.ok(), ErrorText(stored));
  CHECK(stored->directory.parent_path() == store);
  CHECK(stored->digest == *imagelint::KnowledgeDigest(dir / "good"));

  auto refused = [&](const std::string& bytes, const std::string& why) {
    CAPTURE(why);
    auto result = imagelint::StoreKnowledge(bytes, "bad.tar", store);
    REQUIRE_FALSE(result.ok());
    CHECK_MESSAGE(result.error().message.find(why) != std::string::npos, result.error().message);
    CHECK(result.error().subject == "bad.tar");
    auto kept = imagelint::StoredKnowledge(store);
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].directory == stored->directory);
    size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(store)) ++entries;
    CHECK(entries == 1);  // no staging directory left behind
  };
  refused(good.substr(0, good.size() / 2), "truncated");
  refused(std::string(4096, 'x'), "not a knowledge bundle");
  refused("", "empty");
  std::string flipped = good;
  flipped[100] ^= 0x55;  // inside the first header: its checksum fails
  refused(flipped, "corrupt");
  refused(std::string(imagelint::kMaxKnowledgeBundleBytes + 1, '\0'), "larger than");

  // A bundle of another schema version, and one with a file that is not a table.
  CopyTablesTo(dir / "v2");
  Replace(dir / "v2" / "bundle.yaml", "schema_version: 1", "schema_version: 2");
  Replace(dir / "v2" / "gpus.yaml", "kind: gpus", "kind: gpus\n# schema 2 would add fields");
  auto tar_of = [&](const fs::path& from, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {"tar", "-C", from.string(), "--sort=name", "-cf", (dir / "out.tar").string()};
    for (const auto& entry : fs::directory_iterator(from)) argv.push_back(entry.path().filename().string());
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto made = RunCommand(argv);
    REQUIRE_MESSAGE(made.exit_code == 0, made.err);
    auto bytes = ReadFileBytes(dir / "out.tar");
    return std::string(bytes.begin(), bytes.end());
  };
  refused(tar_of(dir / "v2", {}), "schema version 2");
  CopyTablesTo(dir / "extra");
  WriteFileText(dir / "extra" / "run.sh", "#!/bin/sh\n");
  refused(tar_of(dir / "extra", {}), "'run.sh', which is not a table file");
  fs::remove(dir / "extra" / "run.sh");
  fs::remove(dir / "extra" / "loader.yaml");
  refused(tar_of(dir / "extra", {}), "lacks loader.yaml");
  CopyTablesTo(dir / "broken");
  Replace(dir / "broken" / "gpus.yaml", "compute_capability:", "compute_capabilty:");
  refused(tar_of(dir / "broken", {}), "gpus.yaml");
}

TEST_CASE("store: the newest compatible bundle first; the same bundle stored twice is one directory") {
  TempDir dir;
  CopyTablesTo(dir / "old");
  CopyTablesTo(dir / "new");
  Replace(dir / "new" / "bundle.yaml", "revision: \"", "revision: \"9");  // a higher revision, same date
  const fs::path store = dir / "store";
  REQUIRE(imagelint::StoreKnowledge(Pack(dir / "new"), "new.tar", store).ok());
  REQUIRE(imagelint::StoreKnowledge(Pack(dir / "old"), "old.tar", store).ok());
  REQUIRE(imagelint::StoreKnowledge(Pack(dir / "old"), "old.tar", store).ok());
  auto stored = imagelint::StoredKnowledge(store);
  REQUIRE(stored.size() == 2);
  CHECK(stored[0].revision.front() == '9');
  CHECK(imagelint::KnowledgeBundleNewer(stored[0], stored[1]));
  CHECK(imagelint::StoredKnowledge(dir / "nowhere").empty());
}
