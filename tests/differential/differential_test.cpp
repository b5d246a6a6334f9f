// Dockerfile mode against the image it predicts: every case under cases/ is
// built by a real Docker engine (Debian's docker.io, tests/support/
// docker_engine.h), saved, and scanned; the same Dockerfile is scanned
// without building. Both must give the same verdict (status and predicted
// CUDA error) on every pool of fleet.yaml; a disagreement is a bug in one of
// the two readers.
//
// The bases are made here, offline, and tagged with the names the cases use:
//   nvidia/cuda:12.4.1-base-ubuntu22.04  what NVIDIA's image definition puts
//       in that tag (its environment as the knowledge tables give it,
//       the /usr/local/cuda-12.4 layout, compat package, ld.so.conf.d), with
//       Debian's genuine libcudart.so.12.4.127
//       and, as the compat driver, Debian's libcuda.so.550.163.01 (the tag
//       ships 550.54.15; no pool of the fleet runs that branch)
//   ubuntu:22.04  a distribution image with no CUDA at all
// Each is busybox-static for the RUN steps, so builds need no network.
//
// A case's Dockerfile says which public pattern it stands for on its first
// lines ("# pattern: …") and may pin verdicts of the built image
// ("# expect: POOL=pass|warn|fail[/CODE]"), so that agreement cannot come
// from both readers missing the same thing. A pool Dockerfile mode leaves
// undecided is counted and printed, and fails only where the built image
// fails (a missed failure).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/docker_engine.h"
#include "support/real_images.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path Here() { return SourceDir() / "tests" / "differential"; }

void Link(const std::string& target, const fs::path& link) {
  fs::create_directories(link.parent_path());
  fs::create_symlink(target, link);
}

// busybox-static and an Ubuntu 22.04 identity: the plain distribution base.
bool MakeUbuntuRoot(const fs::path& root, std::string* why) {
  std::string busybox;
  for (const char* candidate : {"/bin/busybox", "/usr/bin/busybox"})
    if (fs::exists(candidate)) busybox = candidate;
  if (busybox.empty()) {
    *why = "Debian's busybox-static is not installed (the bases' shell; scripts/setup.sh installs it)";
    return false;
  }
  fs::create_directories(root / "bin");
  fs::copy_file(busybox, root / "bin" / "busybox");
  for (const char* applet : {"sh", "ls", "cat", "cp", "mv", "rm", "ln", "mkdir", "chmod", "echo", "true"})
    fs::create_symlink("busybox", root / "bin" / applet);
  for (const char* dir : {"etc/ld.so.conf.d", "root", "tmp", "usr/lib/x86_64-linux-gnu", "var/lib/dpkg"})
    fs::create_directories(root / dir);
  WriteFileText(root / "etc" / "os-release",
                "PRETTY_NAME=\"Ubuntu 22.04.5 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nID=ubuntu\nID_LIKE=debian\n");
  WriteFileText(root / "etc" / "ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  WriteFileText(root / "etc" / "ld.so.conf.d" / "x86_64-linux-gnu.conf",
                "/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n");
  WriteFileText(root / "var" / "lib" / "dpkg" / "status", "");
  return true;
}

// The CUDA 12.4.1 base: the plain root plus what the tag's image definition
// installs, with genuine libraries from Debian's packages.
bool MakeCudaRoot(const fs::path& root, std::string* why) {
  if (!MakeUbuntuRoot(root, why)) return false;
  const fs::path cudart = FindNvidiaFile("libcudart12", "trixie", "libcudart.so.12.4.");
  const fs::path libcuda = FindNvidiaFile("libcuda1", "trixie", "libcuda.so.550.");
  if (cudart.empty() || libcuda.empty()) {
    *why = "Debian's libcudart12 / libcuda1 (trixie) are not cached (scripts/fetch-nvidia-debs.sh)";
    return false;
  }
  const fs::path home = root / "usr" / "local" / "cuda-12.4";
  const fs::path lib = home / "targets" / "x86_64-linux" / "lib";
  fs::create_directories(lib);
  fs::copy_file(cudart, lib / cudart.filename());
  Link(cudart.filename().string(), lib / "libcudart.so.12");
  Link("targets/x86_64-linux/lib", home / "lib64");
  fs::create_directories(home / "compat");
  fs::copy_file(libcuda, home / "compat" / libcuda.filename());
  Link(libcuda.filename().string(), home / "compat" / "libcuda.so.1");
  Link("libcuda.so.1", home / "compat" / "libcuda.so");
  Link("cuda-12.4", root / "usr" / "local" / "cuda");
  WriteFileText(root / "etc" / "ld.so.conf.d" / "nvidia.conf", "/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n");
  const std::string compat_version = libcuda.filename().string().substr(std::string("libcuda.so.").size());
  WriteFileText(root / "var" / "lib" / "dpkg" / "status",
                "Package: cuda-cudart-12-4\nStatus: install ok installed\nArchitecture: amd64\nVersion: 12.4.127-1\n\n"
                "Package: cuda-compat-12-4\nStatus: install ok installed\nArchitecture: amd64\nVersion: " +
                    compat_version + "-1\n\n");
  return true;
}

// The tag's environment as the knowledge tables give it (rules/knowledge/
// base-images.yaml): Dockerfile mode's own facts of a bare FROM, so that the
// base differs from what Dockerfile mode assumes only in its files.
std::vector<std::string> CudaEnvironment(const fs::path& work, std::string* why) {
  const fs::path dockerfile = work / "base.Dockerfile";
  WriteFileText(dockerfile, "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n");
  auto facts = RunImagelint({"facts", dockerfile.string()});
  if (facts.exit_code != 0) {
    *why = "imagelint facts " + dockerfile.string() + ": " + facts.err;
    return {};
  }
  // Held in a variable: a range-for over a member of a temporary json would
  // iterate a destroyed object.
  const json parsed = json::parse(facts.out);
  std::vector<std::string> env;
  for (const auto& [name, value] : parsed.at("image").at("env").items())
    env.push_back(name + "=" + value.get<std::string>());
  return env;
}

// `docker import` of a root directory as `tag`, with ENV changes.
bool Import(DockerEngine& engine, const fs::path& root, const std::string& tag, const std::vector<std::string>& env,
            std::string* why) {
  const fs::path archive = root.string() + ".tar";
  auto tar = RunCommand({"tar", "-C", root.string(), "-cf", archive.string(), "."});
  if (tar.exit_code != 0) {
    *why = "tar: " + tar.err;
    return false;
  }
  std::vector<std::string> args = {"import"};
  for (const std::string& entry : env) {
    // Quoted: an unquoted space would start another NAME=VALUE pair.
    const size_t eq = entry.find('=');
    args.push_back("--change");
    args.push_back("ENV " + entry.substr(0, eq) + "=\"" + entry.substr(eq + 1) + "\"");
  }
  args.push_back(archive.string());
  args.push_back(tag);
  auto imported = engine.Docker(args);
  if (imported.exit_code != 0) *why = "docker import " + tag + ": " + imported.out + imported.err;
  return imported.exit_code == 0;
}

struct Verdict {
  std::string status;
  int code = 0;  // the predicted CUDA error, 0 when none
  std::string rules;
  bool operator==(const Verdict& other) const { return status == other.status && code == other.code; }
};

std::string Show(const Verdict& v) {
  return v.status + (v.code ? "/" + std::to_string(v.code) : "") + " [" + v.rules + "]";
}

// pool -> verdict of one scan (`imagelint TARGET --fleet fleet.yaml`).
std::map<std::string, Verdict> Scan(const std::string& target, std::string* error) {
  auto result = RunImagelint({"scan", target, "--fleet", (Here() / "fleet.yaml").string(), "--format", "json",
                              "--no-config", "--no-cache"});
  if (result.exit_code != 0 && result.exit_code != 1) {
    *error = "imagelint scan " + target + " exited " + std::to_string(result.exit_code) + ": " + result.err;
    return {};
  }
  std::map<std::string, Verdict> verdicts;
  json report = json::parse(result.out);
  for (const json& verdict : report.at("images").at(0).at("verdicts")) {
    Verdict v;
    v.status = verdict.at("status").get<std::string>();
    if (verdict.at("predicted_error").is_object()) v.code = verdict["predicted_error"].value("code", 0);
    for (const json& rule : verdict.at("rules")) v.rules += (v.rules.empty() ? "" : " ") + rule.get<std::string>();
    verdicts[verdict.at("pool").get<std::string>()] = v;
  }
  return verdicts;
}

// "# expect: POOL=STATUS[/CODE]" lines of a case.
std::map<std::string, Verdict> Expectations(const std::string& dockerfile) {
  std::map<std::string, Verdict> expected;
  std::istringstream in(dockerfile);
  for (std::string line; std::getline(in, line);) {
    const std::string key = "# expect: ";
    if (line.rfind(key, 0) != 0) continue;
    std::string pair = line.substr(key.size());
    size_t eq = pair.find('='), slash = pair.find('/');
    Verdict v;
    v.status = pair.substr(eq + 1, slash == std::string::npos ? std::string::npos : slash - eq - 1);
    if (slash != std::string::npos) v.code = std::stoi(pair.substr(slash + 1));
    expected[pair.substr(0, eq)] = v;
  }
  return expected;
}

// KNOWN: "CASE POOL reason" lines, disagreements that are open bugs. Each
// must still disagree (a fix removes its line), so the list cannot go stale.
std::map<std::string, std::string> KnownDisagreements() {
  std::map<std::string, std::string> known;
  std::istringstream in(ReadFileText(Here() / "KNOWN"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, pool, reason;
    words >> name >> pool;
    std::getline(words, reason);
    known[name + " " + pool] = reason;
  }
  return known;
}

}  // namespace

TEST_CASE("Dockerfile mode and the image Docker builds from it agree on every pool") {
  std::string why;
  DockerEngine* engine = DockerEngine::Shared(&why);
  if (!NeedExternal("docker engine", engine != nullptr, why)) return;
  TempDir work;
  bool bases = MakeUbuntuRoot(work.path() / "ubuntu", &why) && MakeCudaRoot(work.path() / "cuda", &why) &&
               Import(*engine, work.path() / "ubuntu", "ubuntu:22.04", {}, &why) &&
               Import(*engine, work.path() / "cuda", "nvidia/cuda:12.4.1-base-ubuntu22.04",
                      CudaEnvironment(work.path(), &why), &why) && why.empty();
  if (!NeedExternal("differential bases (busybox-static, Debian's NVIDIA packages, docker import)", bases, why)) return;

  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(Here() / "cases")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 12);
  const auto known = KnownDisagreements();
  size_t cells = 0, disagreements = 0, known_seen = 0, undecided = 0;
  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    CAPTURE(name);
    const std::string dockerfile = ReadFileText(dir / "Dockerfile");
    REQUIRE_MESSAGE(dockerfile.find("# pattern: ") == 0, "each case names the pattern it stands for");
    const std::string tag = "imagelint-differential/" + name + ":1";
    auto built = engine->Docker({"build", "--network", "none", "-t", tag, dir.string()});
    REQUIRE_MESSAGE(built.exit_code == 0, "docker build " << name << ": " << built.out << built.err);
    const fs::path saved = work.path() / (name + ".tar");
    auto save = engine->Docker({"save", "-o", saved.string(), tag});
    REQUIRE_MESSAGE(save.exit_code == 0, save.err);

    std::string error;
    auto from_dockerfile = Scan((dir / "Dockerfile").string(), &error);
    REQUIRE_MESSAGE(error.empty(), error);
    auto from_image = Scan(saved.string(), &error);
    REQUIRE_MESSAGE(error.empty(), error);
    REQUIRE(from_image.size() == from_dockerfile.size());
    for (const auto& [pool, image_verdict] : from_image) {
      ++cells;
      const Verdict& predicted = from_dockerfile[pool];
      // Undecided is not a verdict: a Dockerfile can leave open what only
      // the built files say (fatbins, a library's ELF note). It is counted,
      // not failed, unless the built image fails there (a missed failure).
      if (predicted.status == "undecided" && image_verdict.status != "fail") {
        ++undecided;
        continue;
      }
      const bool agree = predicted == image_verdict;
      auto listed = known.find(name + " " + pool);
      std::ostringstream what;
      what << name << " on " << pool << ": Dockerfile " << Show(predicted) << ", built image " << Show(image_verdict);
      if (!agree) ++disagreements;
      if (listed != known.end()) {
        ++known_seen;
        CHECK_MESSAGE(!agree, what.str() << ": agrees now; remove its line from tests/differential/KNOWN");
        if (!agree) MESSAGE("known disagreement (" << listed->second << "): " << what.str());
        continue;
      }
      CHECK_MESSAGE(agree, what.str());
    }
    for (const auto& [pool, expected] : Expectations(dockerfile)) {
      REQUIRE_MESSAGE(from_image.count(pool), "expect: names a pool fleet.yaml does not have: " << pool);
      CHECK_MESSAGE(from_image[pool] == expected,
                    name << " on " << pool << ": built image " << Show(from_image[pool]) << ", expected " << Show(expected));
    }
  }
  MESSAGE("differential: " << cases.size() << " Dockerfiles, " << cells << " image x pool cells, " << disagreements
                           << " disagreements (" << known_seen << " of them listed in KNOWN), " << undecided
                           << " cells undecided in Dockerfile mode where the built image decides");
}
