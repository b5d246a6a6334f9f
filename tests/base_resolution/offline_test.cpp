// Offline is normal: a registry port where nothing listens, a server that
// accepts and never answers, a registry that wants credentials nobody has.
// Dockerfile mode then gives the knowledge tables' answer, one note per base
// in the facts and the JSON report, one line on standard error for the whole
// scan (naming --base-from knowledge), the same exit code, and stays within
// the --base-timeout budget of the scan.
// All traffic goes to loopback; the engine socket named is one that does not exist.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base_resolution/base_fixture.h"
#include "registry/registry_fixture.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kSlackSeconds = 3.0;  // process start, knowledge loading, a loaded CI machine

struct Run {
  int exit_code = -1;
  double seconds = 0;
  json facts;
  std::string text;
};

// `imagelint scan` (text report) and `imagelint facts` of `dockerfile` with auto resolution.
Run Resolve(const fs::path& dockerfile, const std::vector<std::string>& extra, const std::vector<std::string>& env) {
  Run run;
  std::vector<std::string> args = {"scan", dockerfile.string(), "--fleet", FleetFile().string(), "--no-config",
                                   "--no-cache"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto start = std::chrono::steady_clock::now();
  auto scanned = RunImagelint(args, "", env);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = scanned.exit_code;
  run.text = scanned.out + scanned.err;
  std::vector<std::string> facts_args = {dockerfile.string(), "--no-cache"};
  facts_args.insert(facts_args.end(), extra.begin(), extra.end());
  run.facts = json::parse(FactsOut(facts_args, env));
  return run;
}

int KnowledgeExit(const fs::path& dockerfile) {
  return RunImagelint({"scan", dockerfile.string(), "--fleet", FleetFile().string(), "--no-config", "--base-from",
                       "knowledge"})
      .exit_code;
}

std::vector<std::string> Notes(const json& facts) {
  std::vector<std::string> out;
  for (const json& note : facts.at("dockerfile").at("notes"))
    if (note.at("note").get<std::string>().find("not read (") != std::string::npos) out.push_back(note.at("note"));
  return out;
}

// No engine (a socket path that does not exist), no stored credentials.
std::vector<std::string> OfflineEnv(const TempDir& home) {
  return {"IMAGELINT_BASE_FROM=auto", "DOCKER_HOST=unix://" + (home / "no-docker.sock").string(),
          "HOME=" + home.path().string(), "DOCKER_CONFIG=" + (home / "docker").string(),
          "XDG_RUNTIME_DIR=" + home.path().string(), "REGISTRY_AUTH_FILE=", "DOCKER_AUTH_CONFIG="};
}

void WriteDockerfile(const fs::path& path, const std::string& from) {
  WriteFileText(path, "FROM " + from + "\nENV NVIDIA_VISIBLE_DEVICES=all\nCMD [\"true\"]\n");
}

}  // namespace

TEST_CASE("a loopback port where nothing listens: knowledge tables, one note, at once") {
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  TempDir dir;
  const std::string ref = "127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/team/base-cuda:2024.06";
  WriteDockerfile(dir / "Dockerfile", ref);
  const Run run = Resolve(dir / "Dockerfile", {"--base-timeout", "5"}, OfflineEnv(dir));
  INFO(run.text);
  CHECK(run.exit_code == KnowledgeExit(dir / "Dockerfile"));
  CHECK(run.seconds < 5 + kSlackSeconds);
  const auto notes = Notes(run.facts);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("docker:") != std::string::npos);
  CHECK(notes[0].find("registry:") != std::string::npos);
  CHECK(run.facts.at("image").at("base").at("resolved_from") == "none");
  // Out of the verdicts' way: one line about the lookups, with what answered
  // instead and the flag that says so up front.
  size_t lines = 0;
  std::istringstream out(run.text);
  for (std::string line; std::getline(out, line);)
    if (line.find("not read") != std::string::npos || line.find("no engine socket") != std::string::npos ||
        line.find("network error") != std::string::npos || line.find("--base-from") != std::string::npos)
      ++lines;
  CHECK(lines == 1);
  CHECK(run.text.find("from the knowledge tables, not read (docker: ") != std::string::npos);
  CHECK(run.text.find("--base-from knowledge") != std::string::npos);
  MESSAGE("auto, nothing listening: " << run.seconds << " s for scan");
}

TEST_CASE("an unreachable engine and registry are asked once per scan, not once per base") {
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  TempDir dir;
  const std::string host = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  WriteDockerfile(dir / "a.Dockerfile", host + "/team/base-cuda:2024.06");
  WriteDockerfile(dir / "b.Dockerfile", host + "/team/tools:1");
  // One gate run over two Dockerfiles whose bases live on the same registry.
  auto scanned = RunImagelint({"scan", (dir / "a.Dockerfile").string(), (dir / "b.Dockerfile").string(), "--fleet",
                               FleetFile().string(), "--no-config", "--no-cache", "--base-timeout", "5", "-f", "text",
                               "-f", "json=" + (dir / "report.json").string()},
                              "", OfflineEnv(dir));
  INFO(scanned.out << scanned.err);
  CHECK(scanned.exit_code == KnowledgeExit(dir / "a.Dockerfile"));
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // One line for the scan, naming both bases' fallback and each source's reason once.
  CHECK(count(scanned.err, "\n") == 1);
  CHECK(count(scanned.err, "2 base images from the knowledge tables, not read (") == 1);
  CHECK(count(scanned.err, "no engine socket") == 1);
  CHECK(count(scanned.out, "not read") == 0);
  // The report keeps each base's full note: the second base names the first's failures.
  json report = json::parse(ReadFileText(dir / "report.json"));
  REQUIRE(report["images"].size() == 2);
  const std::string first = report["images"][0]["base"].value("note", "");
  const std::string second = report["images"][1]["base"].value("note", "");
  CHECK(count(first + second, "not read (") == 2);                       // each base says it was not read
  CHECK(count(first + second, "no engine socket") == 2);                 // the first note, and the second naming it
  CHECK(count(first + second, "unreachable earlier in this scan") == 2);  // the second base: neither source asked again
}

TEST_CASE("COPY --from=<image> that cannot be read: the note is in the report, at the COPY's line") {
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  TempDir dir;
  const std::string ref = "127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/team/tools:1";
  WriteFileText(dir / "Dockerfile", "FROM scratch\nCOPY --from=" + ref + " /usr/local/cuda /usr/local/cuda\n");
  const Run run = Resolve(dir / "Dockerfile", {"--base-timeout", "5"}, OfflineEnv(dir));
  INFO(run.text);
  bool found = false;
  for (const json& note : run.facts.at("dockerfile").at("notes"))
    if (note.at("note").get<std::string>().rfind("COPY --from: image " + ref + " not read (", 0) == 0) {
      found = true;
      CHECK(note.at("dockerfile_line") == 2);
    }
  CHECK(found);
  CHECK(run.facts.at("cuda").at("runtimes_complete") == false);  // not followed: unknown, never guessed
}

TEST_CASE("a server that accepts and never answers: the budget bounds the whole scan") {
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  std::atomic<bool> release{false};
  LoopbackServer silent([&](int fd, const SeenRequest&) {
    for (int i = 0; i < 600 && !release.load(); ++i) ::usleep(100 * 1000);  // at most a minute
  });
  TempDir dir;
  // Two bases on the silent server: they share one budget, not one each.
  const std::string host = "127.0.0.1:" + std::to_string(silent.port());
  WriteFileText(dir / "Dockerfile", "FROM " + host + "/team/tools:1 AS tools\nFROM " + host +
                                        "/team/base-cuda:2024.06\nCOPY --from=tools /opt/tool /opt/tool\n");
  const Run run = Resolve(dir / "Dockerfile", {"--base-timeout", "2"}, OfflineEnv(dir));
  release = true;
  INFO(run.text);
  CHECK(run.exit_code == KnowledgeExit(dir / "Dockerfile"));
  CHECK(run.seconds < 2 + kSlackSeconds);
  const auto notes = Notes(run.facts);
  CHECK(notes.size() == 1);  // the target stage's base (the tools stage is not in the target's facts)
  MESSAGE("auto, silent server, budget 2 s: " << run.seconds << " s for scan");
}

TEST_CASE("401 without credentials: knowledge tables and a note naming the refusal") {
  if (!NeedExternal("docker-registry + skopeo", HaveRegistryTools(), "runs Debian's docker-registry on loopback") ||
      !NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first"))
    return;
  LocalRegistry registry(RegistryAuth::kHtpasswd, "", "ci", "not-given");
  TempDir dir;
  WriteDockerfile(dir / "Dockerfile", registry.host() + "/team/base-cuda:2024.06");
  const Run run = Resolve(dir / "Dockerfile", {}, OfflineEnv(dir));
  INFO(run.text);
  CHECK(run.exit_code == KnowledgeExit(dir / "Dockerfile"));
  CHECK(run.seconds < 10 + kSlackSeconds);
  const auto notes = Notes(run.facts);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("401") != std::string::npos);
  CHECK(notes[0].find("not-given") == std::string::npos);
}

TEST_CASE("a missing local path is 'no such file' at once, never a lookup") {
  if (!NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first")) return;
  TempDir dir;
  double worst = 0;
  for (const std::string& missing : std::vector<std::string>{"app.tar", "./out/image", "build/app.tar.gz", (dir / "x.tar").string()}) {
    auto start = std::chrono::steady_clock::now();
    auto result = RunImagelint({"scan", missing}, "", OfflineEnv(dir));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    worst = std::max(worst, seconds);
    INFO(missing << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("no such file") != std::string::npos);
  }
  CHECK(worst < 1.0);  // < 100 ms on an idle machine; slack for a loaded CI runner
  MESSAGE("missing local path: slowest " << worst * 1000 << " ms");
}

TEST_CASE("a registry that drops the connection mid-read: knowledge tables and a note, same exit code") {
  TestImage base;
  std::string why;
  if (!NeedExternal("docker-registry + skopeo", HaveRegistryTools(), "runs Debian's docker-registry on loopback") ||
      !NeedExternal("imagelint binary", fs::exists(ImagelintBinary()), "build the imagelint target first") ||
      !NeedExternal("NVIDIA packages", MakeCudaBase(&base, &why), why))
    return;
  LocalRegistry registry;
  TempDir dir;
  WriteImage(base, ImageKind::kOciLayout, dir / "layout");
  auto pushed = registry.Push(dir / "layout", "team/base-cuda:2024.06");
  INFO(pushed.err);
  REQUIRE(pushed.exit_code == 0);
  // The manifest comes through; every blob (config, layer) is cut off by a reset.
  FaultProxy proxy(registry.port(), {{"/blobs/", Fault::kReset, -1}});
  WriteDockerfile(dir / "Dockerfile", proxy.host() + "/team/base-cuda:2024.06");
  const Run run = Resolve(dir / "Dockerfile", {"--base-timeout", "3"}, OfflineEnv(dir));
  INFO(run.text);
  CHECK(proxy.faults_applied() >= 1);
  CHECK(run.exit_code == KnowledgeExit(dir / "Dockerfile"));
  CHECK(run.seconds < 3 + kSlackSeconds);
  const auto notes = Notes(run.facts);
  REQUIRE(notes.size() == 1);
  CHECK(run.facts.at("image").at("base").at("resolved_from") == "none");
}
