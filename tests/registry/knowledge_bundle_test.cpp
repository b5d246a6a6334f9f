// Knowledge bundles end to end with the imagelint binary: pack, push to
// Debian's docker-registry on loopback, update into another cache, and the
// scans that follow; refused bundles that leave the stored one in use; the
// air-gapped --knowledge FILE; the note on an old bundle.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "imagelint/artifact.h"
#include "imagelint/knowledge_bundle.h"
#include "registry/registry_fixture.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kTeamGpu = "NVIDIA Team Accelerator X1";

bool NeedBinary() {
  return NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first");
}
bool NeedBundleRegistry() {
  return NeedExternal("docker-registry + skopeo", HaveRegistryTools(),
                      "knowledge update tests run Debian's docker-registry on loopback") &&
         NeedBinary();
}

void CopyTables(const fs::path& to) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(SourceDir() / "rules" / "knowledge"))
    if (entry.path().extension() == ".yaml") fs::copy_file(entry.path(), to / entry.path().filename());
}

void Replace(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = ReadFileText(file);
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  WriteFileText(file, text);
}

std::string Revision(const fs::path& tables) {
  auto header = imagelint::ReadKnowledgeBundleHeader(tables);
  REQUIRE(header.ok());
  return header->revision;
}

// A team's copy of the tables with one private GPU row and its own revision.
std::string MakeTeamTables(const fs::path& dir) {
  CopyTables(dir);
  const std::string revision = Revision(dir) + ".1";
  Replace(dir / "bundle.yaml", "revision: \"" + Revision(dir) + "\"", "revision: \"" + revision + "\"");
  Replace(dir / "gpus.yaml", "rows:\n",
          std::string("rows:\n  - name: \"") + kTeamGpu +
              "\"\n    compute_capability: \"9.0\"\n    architecture: Hopper\n    brand: nvidia\n"
              "    datacenter: yes\n    forward_compat: yes\n    source: S4\n");
  return revision;
}

struct Scene {
  TempDir dir;
  fs::path image, fleet;
  Scene() {
    TestImage image_spec;
    image_spec.env = {"NVIDIA_REQUIRE_CUDA=cuda>=12.4", "CUDA_VERSION=12.4.1"};
    image_spec.Layer().Dir("etc").File("etc/os-release", "ID=debian\n");
    image = dir / "app.tar";
    WriteImage(image_spec, ImageKind::kOciArchive, image);
    fleet = dir / "fleet.yaml";
    WriteFileText(fleet, std::string("pools:\n  - name: team\n    gpu: ") + kTeamGpu +
                             "\n    driver: \"580.95.05\"\n  - name: a100\n    gpu: NVIDIA A100-SXM4-80GB\n"
                             "    driver: \"550.54.15\"\n");
  }
  // `imagelint scan` with the JSON report, a cache directory and more flags.
  CommandResult Scan(const fs::path& cache, std::vector<std::string> more = {},
                     std::vector<std::string> env = {}) const {
    std::vector<std::string> args = {"scan", image.string(), "--fleet", fleet.string(), "--no-config",
                                     "--format", "json", "--cache-dir", cache.string()};
    args.insert(args.end(), more.begin(), more.end());
    env.push_back("IMAGELINT_KNOWLEDGE_DIR=");
    env.push_back("XDG_CACHE_HOME=" + cache.string());
    return RunImagelint(args, "", env);
  }
};

bool HasRule(const json& report, const std::string& rule, const std::string& pool) {
  for (const auto& image : report["images"])
    for (const auto& finding : image["findings"])
      if (finding["rule"] == rule)
        for (const auto& p : finding["pools"])
          if (p == pool) return true;
  return false;
}

json Parse(const CommandResult& run) {
  INFO(run.err);
  REQUIRE(!run.out.empty());
  return json::parse(run.out);
}

// `knowledge <args>` with the cache in `cache`.
CommandResult RunKnowledge(const fs::path& cache, std::vector<std::string> args) {
  args.insert(args.begin(), "knowledge");
  args.push_back("--cache-dir");
  args.push_back(cache.string());
  return RunImagelint(args, "", {"IMAGELINT_KNOWLEDGE_DIR=", "XDG_CACHE_HOME=" + cache.string()});
}

}  // namespace

TEST_CASE("knowledge pack + push + update: the same verdicts as the built-in tables, and a team's row in use") {
  if (!NeedBundleRegistry()) return;
  LocalRegistry registry;
  Scene scene;
  TempDir work;

  // The checkout's own tables, published and updated into a fresh cache.
  auto packed = RunKnowledge(work / "c0", {"pack", (SourceDir() / "rules/knowledge").string(), "-o", (work / "k.tar").string()});
  REQUIRE_MESSAGE(packed.exit_code == 0, packed.err);
  const std::string plain_ref = registry.host() + "/tools/knowledge:plain";
  auto pushed = RunKnowledge(work / "c0", {"push", (work / "k.tar").string(), plain_ref});
  REQUIRE_MESSAGE(pushed.exit_code == 0, pushed.err);
  CHECK(pushed.out.find("@sha256:") != std::string::npos);
  auto updated = RunKnowledge(work / "plain", {"update", plain_ref});
  REQUIRE_MESSAGE(updated.exit_code == 0, updated.err);
  auto builtin = Parse(scene.Scan(work / "none"));
  auto via_update = Parse(scene.Scan(work / "plain"));
  CHECK(via_update["knowledge"]["digest"] == builtin["knowledge"]["digest"]);
  CHECK(via_update["images"] == builtin["images"]);
  CHECK(HasRule(builtin, "IL020", "team"));  // the team's GPU is unknown to the built-in tables
  CHECK_FALSE(HasRule(builtin, "IL020", "a100"));

  // The team's tables: pack, push, update on another cache; its row decides.
  const std::string revision = MakeTeamTables(work / "team");
  REQUIRE(RunKnowledge(work / "c0", {"pack", (work / "team").string(), "-o", (work / "team.tar").string()}).exit_code == 0);
  const std::string team_ref = registry.host() + "/team/knowledge:1";
  REQUIRE(RunKnowledge(work / "c0", {"push", (work / "team.tar").string(), team_ref}).exit_code == 0);
  auto team_update = RunKnowledge(work / "teamcache", {"update", team_ref});
  REQUIRE_MESSAGE(team_update.exit_code == 0, team_update.err);
  CHECK(team_update.out.find("knowledge " + revision) != std::string::npos);
  auto shown = RunKnowledge(work / "teamcache", {"show", "-f", "json"});
  REQUIRE(shown.exit_code == 0);
  auto show = json::parse(shown.out);
  CHECK(show["revision"] == revision);
  CHECK(show["digest"] == *imagelint::KnowledgeDigest(work / "team"));
  auto team_report = Parse(scene.Scan(work / "teamcache"));
  CHECK(team_report["knowledge"]["revision"] == revision);
  CHECK_FALSE(HasRule(team_report, "IL020", "team"));
  // `update` without a reference pulls the last one again.
  auto again = RunKnowledge(work / "teamcache", {"update"});
  CHECK_MESSAGE(again.exit_code == 0, again.err);
}

TEST_CASE("knowledge update: refused bundles say why and leave the stored bundle in use") {
  if (!NeedBundleRegistry()) return;
  LocalRegistry registry;
  TempDir work;
  const std::string revision = MakeTeamTables(work / "team");
  REQUIRE(RunKnowledge(work / "c0", {"pack", (work / "team").string(), "-o", (work / "team.tar").string()}).exit_code == 0);
  const std::string good_ref = registry.host() + "/team/knowledge:good";
  auto pushed = RunKnowledge(work / "c0", {"push", (work / "team.tar").string(), good_ref});
  REQUIRE(pushed.exit_code == 0);
  const std::string good_digest = pushed.out.substr(pushed.out.find("@") + 1, 71);
  const fs::path cache = work / "cache";
  REQUIRE(RunKnowledge(cache, {"update", good_ref, "--digest", good_digest}).exit_code == 0);

  // Bundles a registry may serve, pushed as they are (push itself refuses them).
  auto raw_push = [&](const std::string& tag, const std::string& bytes, const std::string& type) {
    auto ref = imagelint::registry::ParseReference(registry.host() + "/team/knowledge:" + tag);
    REQUIRE(ref.ok());
    imagelint::registry::ArtifactDescription what{type, imagelint::kKnowledgeLayerMediaType, "bad.tar", {}};
    auto done = imagelint::registry::PushArtifact(*ref, what, bytes, {});
    REQUIRE_MESSAGE(done.ok(), ErrorText(done));
    return ref->ToString();
  };
  const std::string tar = ReadFileText(work / "team.tar");
  CopyTables(work / "v2");
  Replace(work / "v2" / "bundle.yaml", "schema_version: 1", "schema_version: 2");
  std::vector<std::string> tar_argv = {"tar", "-C", (work / "v2").string(), "-cf", (work / "v2.tar").string()};
  for (const auto& entry : fs::directory_iterator(work / "v2")) tar_argv.push_back(entry.path().filename().string());
  REQUIRE(RunCommand(tar_argv).exit_code == 0);
  struct Case {
    std::string ref;
    std::vector<std::string> extra;
    std::string why;
  };
  const std::vector<Case> cases = {
      {raw_push("corrupt", std::string(8192, 'x'), imagelint::kKnowledgeArtifactType), {}, "not a knowledge bundle"},
      {raw_push("truncated", tar.substr(0, tar.size() / 2), imagelint::kKnowledgeArtifactType), {}, "truncated"},
      {raw_push("schema2", ReadFileText(work / "v2.tar"), imagelint::kKnowledgeArtifactType), {}, "schema version 2"},
      {raw_push("oversized", std::string(imagelint::kMaxKnowledgeBundleBytes + 1, '\0'), imagelint::kKnowledgeArtifactType),
       {},
       "larger than"},
      {raw_push("other", tar, "application/vnd.example.other"), {}, "is not application/vnd.imagelint.knowledge.v1"},
      {good_ref, {"--digest", "sha256:" + std::string(64, '0')}, "digest mismatch"},
  };
  for (const auto& one : cases) {
    CAPTURE(one.ref);
    std::vector<std::string> args = {"update", one.ref};
    args.insert(args.end(), one.extra.begin(), one.extra.end());
    auto refused = RunKnowledge(cache, args);
    CHECK(refused.exit_code == 2);
    CHECK_MESSAGE(refused.err.find(one.why) != std::string::npos, refused.err);
    CHECK(refused.err.find("stays") != std::string::npos);
    auto show = json::parse(RunKnowledge(cache, {"show", "-f", "json"}).out);
    CHECK(show["revision"] == revision);
    CHECK(show["stored"].size() == 1);
  }
}

TEST_CASE("--knowledge FILE (air-gapped) and DIR; a bad one is exit 2; an old bundle adds one note") {
  if (!NeedBinary()) return;
  Scene scene;
  TempDir work;
  const std::string revision = MakeTeamTables(work / "team");
  REQUIRE(RunKnowledge(work / "c0", {"pack", (work / "team").string(), "-o", (work / "team.tar").string()}).exit_code == 0);
  auto with_file = Parse(scene.Scan(work / "c1", {"--knowledge", (work / "team.tar").string()}));
  CHECK(with_file["knowledge"]["revision"] == revision);
  CHECK_FALSE(HasRule(with_file, "IL020", "team"));
  auto with_dir = Parse(scene.Scan(work / "c1", {"--knowledge", (work / "team").string()}));
  CHECK(with_dir["knowledge"]["digest"] == with_file["knowledge"]["digest"]);
  auto missing = scene.Scan(work / "c1", {"--knowledge", (work / "nothing.tar").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("nothing.tar") != std::string::npos);
  WriteFileText(work / "junk.tar", std::string(4096, 'j'));
  auto junk = scene.Scan(work / "c1", {"--knowledge", (work / "junk.tar").string()});
  CHECK(junk.exit_code == 2);
  CHECK(junk.err.find("not a knowledge bundle") != std::string::npos);

  // As of the bundle's date: no note; 91 days later: one, in every format.
  auto header = imagelint::ReadKnowledgeBundleHeader(SourceDir() / "rules" / "knowledge");
  REQUIRE(header.ok());
  auto fresh = Parse(scene.Scan(work / "c2", {}, {"IMAGELINT_TODAY=" + header->as_of}));
  CHECK(fresh["knowledge"]["stale"] == false);
  CHECK_FALSE(fresh["knowledge"].contains("note"));
  auto later = Parse(scene.Scan(work / "c2", {"--knowledge", (SourceDir() / "rules" / "knowledge").string()},
                                {"IMAGELINT_TODAY=2099-01-01"}));
  CHECK(later["knowledge"]["stale"] == true);
  CHECK(later["knowledge"]["note"].get<std::string>().find("imagelint knowledge update") != std::string::npos);
  auto text = RunImagelint({"scan", scene.image.string(), "--fleet", scene.fleet.string(), "--no-config", "--cache-dir",
                            (work / "c2").string()},
                           "", {"IMAGELINT_TODAY=2099-01-01", "IMAGELINT_KNOWLEDGE_DIR="});
  CHECK(text.out.find("NOTE: The knowledge tables are") != std::string::npos);
  CHECK(text.out.find("; knowledge " + header->revision + " of " + header->as_of) != std::string::npos);
}
