// The pre-commit hook of .pre-commit-hooks.yaml, through Debian's pre-commit in
// a scratch git repository: a failing Dockerfile blocks the commit, a good one
// goes through, train.Dockerfile is checked and Dockerfile.dockerignore is not.
#include <doctest/doctest.h>

#include <sstream>

#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  TempDir dir;
  fs::path repo = dir / "repo";
  std::vector<std::string> env;

  explicit Scratch(const fs::path& bin_dir) {
    fs::create_directories(repo);
    env = {"PATH=" + bin_dir.string() + ":/usr/local/bin:/usr/bin:/bin",
           "PRE_COMMIT_HOME=" + (dir / "pre-commit-cache").string(),
           "HOME=" + dir.path().string(),
           "XDG_CACHE_HOME=" + (dir / "cache").string(),
           "GIT_CONFIG_NOSYSTEM=1",
           "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
           "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"};
  }
  CommandResult Run(const std::vector<std::string>& argv) const {
    std::vector<std::string> full = {"env", "-C", repo.string()};
    full.insert(full.end(), argv.begin(), argv.end());
    return RunCommand(full, "", 300, env);
  }
  CommandResult Git(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    return Run(argv);
  }
  void Write(const std::string& name, const std::string& text) const { WriteFileText(repo / name, text); }
};

// One hook of the root .pre-commit-hooks.yaml as a `repo: local` entry: the
// same definition, indented under `hooks:`.
std::string LocalConfig(const std::string& hooks_file, const std::string& id = "imagelint") {
  std::istringstream in(hooks_file);
  std::string config = "repos:\n  - repo: local\n    hooks:\n";
  bool in_hook = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("- id: ", 0) == 0) in_hook = line == "- id: " + id;
    if (in_hook) config += "      " + line + "\n";
  }
  return config;
}

const char* kFleet = "pools:\n  - name: t4-470\n    gpu: Tesla T4\n    driver: \"470.256.02\"\n    runtime: docker-gpus\n";
const char* kFailing = "FROM nvidia/cuda:12.9.1-runtime-ubuntu22.04\n";  // needs a newer driver than 470 (undisputed: its requirement does not list R470)
const char* kGood = "FROM nvidia/cuda:11.4.3-runtime-ubuntu20.04\n";
// Not a Dockerfile: imagelint would refuse it (exit 2) if the hook passed it on.
const char* kIgnore = "*.tar\nbuild/\n";

}  // namespace

TEST_CASE("pre-commit: the hook blocks a failing Dockerfile, lets a good one through, skips .dockerignore") {
  if (!NeedExternal("pre-commit", HaveProgram("pre-commit"), "Debian's pre-commit runs the hook")) return;
  if (!NeedExternal("git", HaveProgram("git"), "pre-commit works in a git repository")) return;
  TempDir bin;
  fs::create_symlink(ImagelintBinary(), bin / "imagelint");  // `imagelint` on PATH, as language: system expects
  Scratch scratch(bin.path());
  const std::string hooks = ReadFileText(SourceDir() / ".pre-commit-hooks.yaml");
  REQUIRE(scratch.Git({"init", "-q", "-b", "main"}).exit_code == 0);
  scratch.Write(".pre-commit-config.yaml", LocalConfig(hooks));
  scratch.Write("fleet.yaml", kFleet);
  scratch.Write(".imagelint.yaml", "version: 1\nfleet: fleet.yaml\n");
  REQUIRE(scratch.Git({"add", "."}).exit_code == 0);
  REQUIRE(scratch.Git({"commit", "-q", "-m", "setup"}).exit_code == 0);
  auto installed = scratch.Run({"pre-commit", "install"});
  REQUIRE_MESSAGE(installed.exit_code == 0, (installed.out + installed.err));

  // identify's view of the names, which the hook relies on.
  scratch.Write("train.Dockerfile", kFailing);
  scratch.Write("Dockerfile.dockerignore", kIgnore);
  REQUIRE(scratch.Git({"add", "train.Dockerfile", "Dockerfile.dockerignore"}).exit_code == 0);
  auto blocked = scratch.Git({"commit", "-m", "train image"});
  CAPTURE(blocked.out);
  CAPTURE(blocked.err);
  CHECK(blocked.exit_code != 0);
  std::string output = blocked.out + blocked.err;
  CHECK(output.find("imagelint (CUDA compatibility of Dockerfiles)") != std::string::npos);
  CHECK(output.find("Failed") != std::string::npos);
  CHECK(output.find("train.Dockerfile") != std::string::npos);
  CHECK(output.find("t4-470  fail") != std::string::npos);
  CHECK(scratch.Git({"rev-list", "--count", "HEAD"}).out == "1\n");  // nothing committed

  // The good Dockerfile and the ignore file go through.
  REQUIRE(scratch.Git({"rm", "-q", "--cached", "train.Dockerfile"}).exit_code == 0);
  scratch.Write("good.Dockerfile", kGood);
  REQUIRE(scratch.Git({"add", "good.Dockerfile"}).exit_code == 0);
  auto passed = scratch.Git({"commit", "-m", "good image"});
  CHECK_MESSAGE(passed.exit_code == 0, (passed.out + passed.err));
  CHECK((passed.out + passed.err).find("Passed") != std::string::npos);
  CHECK(scratch.Git({"rev-list", "--count", "HEAD"}).out == "2\n");

  // Dockerfile.dockerignore alone: nothing for the hook to check.
  auto ignored = scratch.Run({"pre-commit", "run", "imagelint", "--files", "Dockerfile.dockerignore"});
  CHECK_MESSAGE(ignored.exit_code == 0, (ignored.out + ignored.err));
  CHECK(ignored.out.find("(no files to check)") != std::string::npos);
}

TEST_CASE("pre-commit: the hook file as a hook repository (repo: PATH, rev: COMMIT), and entry set to a path") {
  if (!NeedExternal("pre-commit", HaveProgram("pre-commit"), "Debian's pre-commit runs the hook")) return;
  if (!NeedExternal("git", HaveProgram("git"), "pre-commit works in a git repository")) return;
  TempDir bin;
  fs::create_symlink(ImagelintBinary(), bin / "imagelint");
  Scratch scratch(bin.path());
  // A hook repository holding the root .pre-commit-hooks.yaml, committed, as
  // a mirror of this repository would hold it.
  fs::path hook_repo = scratch.dir / "hooks";
  fs::create_directories(hook_repo);
  fs::copy_file(SourceDir() / ".pre-commit-hooks.yaml", hook_repo / ".pre-commit-hooks.yaml");
  auto in_hooks = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-C", hook_repo.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, "", 60, scratch.env);
  };
  REQUIRE(in_hooks({"init", "-q", "-b", "main"}).exit_code == 0);
  REQUIRE(in_hooks({"add", "."}).exit_code == 0);
  REQUIRE(in_hooks({"commit", "-q", "-m", "hooks"}).exit_code == 0);
  std::string rev = in_hooks({"rev-parse", "HEAD"}).out;
  rev.resize(rev.find('\n'));

  REQUIRE(scratch.Git({"init", "-q", "-b", "main"}).exit_code == 0);
  scratch.Write(".pre-commit-config.yaml", "repos:\n  - repo: " + hook_repo.string() + "\n    rev: " + rev +
                                               "\n    hooks:\n      - id: imagelint\n");
  scratch.Write("fleet.yaml", kFleet);
  scratch.Write(".imagelint.yaml", "version: 1\nfleet: fleet.yaml\n");
  scratch.Write("train.Dockerfile", kFailing);
  scratch.Write("Dockerfile.dockerignore", kIgnore);
  REQUIRE(scratch.Git({"add", "."}).exit_code == 0);
  auto all = scratch.Run({"pre-commit", "run", "--all-files"});
  CAPTURE(all.out);
  CAPTURE(all.err);
  CHECK(all.exit_code == 1);
  CHECK(all.out.find("IMAGE train.Dockerfile") != std::string::npos);
  CHECK(all.out.find("Dockerfile.dockerignore") == std::string::npos);

  // No imagelint on PATH: the hook's entry set to the binary's path instead.
  Scratch bare(fs::path("/nonexistent"));
  REQUIRE(bare.Git({"init", "-q", "-b", "main"}).exit_code == 0);
  std::string config = LocalConfig(ReadFileText(SourceDir() / ".pre-commit-hooks.yaml"));
  size_t entry = config.find("entry: imagelint\n");
  REQUIRE(entry != std::string::npos);
  config.replace(entry, 16, "entry: " + ImagelintBinary().string());
  bare.Write(".pre-commit-config.yaml", config);
  bare.Write("fleet.yaml", kFleet);
  bare.Write(".imagelint.yaml", "version: 1\nfleet: fleet.yaml\n");
  bare.Write("good.Dockerfile", kGood);
  bare.Write("bad.Dockerfile", kFailing);
  REQUIRE(bare.Git({"add", "."}).exit_code == 0);
  auto good = bare.Run({"pre-commit", "run", "imagelint", "--files", "good.Dockerfile"});
  CHECK_MESSAGE(good.exit_code == 0, (good.out + good.err));
  auto bad = bare.Run({"pre-commit", "run", "imagelint", "--files", "bad.Dockerfile"});
  CHECK(bad.exit_code == 1);
}

TEST_CASE("pre-commit: the manifest is valid, and its docker hook runs the image of the root Dockerfile") {
  if (!NeedExternal("pre-commit", HaveProgram("pre-commit"), "Debian's pre-commit validates the manifest")) return;
  auto valid = RunCommand({"pre-commit", "validate-manifest", (SourceDir() / ".pre-commit-hooks.yaml").string()});
  CHECK_MESSAGE(valid.exit_code == 0, (valid.out + valid.err));
  std::string hooks = ReadFileText(SourceDir() / ".pre-commit-hooks.yaml");
  std::string docker = LocalConfig(hooks, "imagelint-docker");
  CHECK(docker.find("language: docker\n") != std::string::npos);
  CHECK(docker.find("entry: imagelint\n") != std::string::npos);
  CHECK(LocalConfig(hooks).find("language: system\n") != std::string::npos);
  // pre-commit builds `docker build .` in the hook repository: the Dockerfile
  // at its root, whose last stage puts imagelint on PATH (/usr/bin, from the
  // package) for `--entrypoint imagelint`.
  std::string dockerfile = ReadFileText(SourceDir() / "Dockerfile");
  CHECK(dockerfile.find("apt-get install") != std::string::npos);
  CHECK(dockerfile.find("imagelint_*.deb") != std::string::npos);
  // A broken manifest is refused: the validator is really looking.
  TempDir dir;
  WriteFileText(dir / "hooks.yaml", "- id: x\n  name: x\n  entry: x\n  language: no-such-language\n");
  CHECK(RunCommand({"pre-commit", "validate-manifest", (dir / "hooks.yaml").string()}).exit_code != 0);
}

TEST_CASE("pre-commit: without a fleet the hook passes and says that nothing pool-specific was checked") {
  if (!NeedExternal("pre-commit", HaveProgram("pre-commit"), "Debian's pre-commit runs the hook")) return;
  if (!NeedExternal("git", HaveProgram("git"), "pre-commit works in a git repository")) return;
  TempDir bin;
  fs::create_symlink(ImagelintBinary(), bin / "imagelint");
  Scratch scratch(bin.path());
  REQUIRE(scratch.Git({"init", "-q", "-b", "main"}).exit_code == 0);
  scratch.Write(".pre-commit-config.yaml", LocalConfig(ReadFileText(SourceDir() / ".pre-commit-hooks.yaml")));
  scratch.Write("train.Dockerfile", kFailing);  // fails on the 470 pool, which is not there
  REQUIRE(scratch.Git({"add", "."}).exit_code == 0);
  auto run = scratch.Run({"pre-commit", "run", "imagelint", "--files", "train.Dockerfile"});
  CAPTURE(run.out);
  CAPTURE(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("Passed") != std::string::npos);
  CHECK(run.out.find("no fleet: nothing pool-specific") != std::string::npos);
  CHECK(run.out.find("--fleet FILE") != std::string::npos);
}
