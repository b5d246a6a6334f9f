// One set of flags: the image flags on every command that reads
// images, comma lists, -f/-o, "did you mean" for flags, commands and rules,
// "-" for a Dockerfile on standard input, --quiet/--no-progress, --rootfs,
// and directories that are not images.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "support/image_builder.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

CommandResult FlagsImagelint(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  TempDir cache;  // fresh per call, never the user's
  return RunImagelint(args, stdin_text, {"XDG_CACHE_HOME=" + cache.path().string()});
}

// A script the reader does not follow leaves image rules open: findings without a fleet.
const char* kDockerfile = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN ./setup.sh\n";

TestImage CudaImage() {
  TestImage image;
  image.env = {"PATH=/usr/local/cuda/bin:/usr/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
  image.Layer(Compression::kGzip)
      .Dir("etc")
      .File("etc/os-release", "ID=debian\n")
      .Dir("usr")
      .Dir("usr/lib")
      .File("usr/lib/libcudart.so.12.4.127", std::string(4000, 'c'));
  image.Layer(Compression::kZstd).File("app", "x");
  return image;
}

std::set<std::string> RulesIn(const std::string& json_report) {
  std::set<std::string> rules;
  auto report = nlohmann::json::parse(json_report);
  for (const auto& image : report["images"])
    for (const auto& finding : image["findings"]) rules.insert(finding["rule"].get<std::string>());
  return rules;
}

bool OneLine(const std::string& text) { return std::count(text.begin(), text.end(), '\n') == 1; }

}  // namespace

TEST_CASE("ClosestMatch: edits, swaps, case; nothing for unrelated words") {
  using imagelint::ClosestMatch;
  std::vector<std::string> commands = {"scan", "facts", "ls", "rules", "explain", "fleet", "cache"};
  CHECK(ClosestMatch("expain", commands) == "explain");
  CHECK(ClosestMatch("fatcs", commands) == "facts");
  CHECK(ClosestMatch("RULES", commands) == "rules");
  CHECK(ClosestMatch("ubuntu", commands) == "");
  CHECK(ClosestMatch("lx", commands) == "ls");
  CHECK(ClosestMatch("xy", commands) == "");
  CHECK(ClosestMatch("--flet", {"--fleet", "--format"}) == "--fleet");
  CHECK(ClosestMatch("", commands) == "");
  CHECK(ClosestMatch("T404", {"T001"}) == "");  // two of four characters: no hint
}

TEST_CASE("scan takes the image flags facts and ls take") {
  TempDir dir;
  WriteImage(CudaImage(), ImageKind::kOciArchive, dir / "app.tar");
  const std::string app = (dir / "app.tar").string();
  for (const char* command : {"scan", "facts", "ls"}) {
    CAPTURE(command);
    auto ok = FlagsImagelint({command, app, "--jobs", "2", "--no-verify", "--max-layer-bytes", "1G", "--no-progress", "-q"});
    CHECK_MESSAGE(ok.exit_code == 0, ok.err);
    auto bomb = FlagsImagelint({command, app, "--max-layer-bytes", "1K"});
    CHECK(bomb.exit_code == 2);
    CHECK(bomb.err.find("exceeds the limit of 1024 bytes") != std::string::npos);
  }
}

TEST_CASE("rule lists take commas; a list flag takes one value, never the image after it") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile", kDockerfile);
  const std::string dockerfile = (dir / "Dockerfile").string();
  auto all = FlagsImagelint({dockerfile, "--no-config", "-f", "json"});
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  std::set<std::string> fired = RulesIn(all.out);
  REQUIRE(fired.size() >= 2);
  std::string first = *fired.begin();
  std::string second = *std::next(fired.begin());
  std::string both = first + "," + second;

  auto disabled = FlagsImagelint({"scan", "--disable", both, dockerfile, "--no-config", "-f", "json"});
  REQUIRE_MESSAGE(disabled.exit_code == 0, disabled.err);
  CHECK(RulesIn(disabled.out).count(first) == 0);
  CHECK(RulesIn(disabled.out).count(second) == 0);

  auto raised = FlagsImagelint({"--severity", first + "=error," + second + "=off", dockerfile, "--no-config", "-f", "json"});
  REQUIRE(raised.exit_code != 2);
  CHECK(RulesIn(raised.out).count(second) == 0);
  // Undecided findings keep the severity of not knowing (on_unknown); a
  // decided one takes the override: the plain service's note, raised in a list.
  const nlohmann::json raised_report = nlohmann::json::parse(raised.out);  // the loop must not outlive it
  for (const auto& finding : raised_report["images"][0]["findings"])
    if (finding["rule"] == first && !finding.value("unknown", false)) CHECK(finding["severity"] == "error");
  WriteFileText(dir / "plain.Dockerfile", "FROM ubuntu:22.04\nCMD [\"sh\"]\n");
  auto plain = FlagsImagelint({"--severity", "IL016=error,IL013=off", (dir / "plain.Dockerfile").string(), "--no-config",
                          "-f", "json"});
  CHECK(plain.exit_code == 1);
  bool raised_note = false;
  const nlohmann::json plain_report = nlohmann::json::parse(plain.out);
  for (const auto& finding : plain_report["images"].at(0)["findings"])
    raised_note = raised_note || (finding["rule"] == "IL016" && finding["severity"] == "error");
  CHECK(raised_note);

  auto ignored = FlagsImagelint({"--ignore", both + ":2999-01-01=accepted, for now", dockerfile, "--no-config", "-f", "json"});
  REQUIRE_MESSAGE(ignored.exit_code == 0, ignored.err);
  auto report = nlohmann::json::parse(ignored.out);
  CHECK(report["images"][0]["findings"].empty());
  CHECK(report["summary"]["suppressed"].get<int>() >= 2);

  auto typo = FlagsImagelint({"--disable", first + ",IL9999", dockerfile, "--no-config"});
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("IL9999") != std::string::npos);
}

TEST_CASE("-f and -o as in hadolint and trivy; --format k8s is documented in the help") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile", kDockerfile);
  auto json = FlagsImagelint({(dir / "Dockerfile").string(), "--no-config", "-f", "json", "-o", (dir / "r.json").string()});
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  CHECK(json.out == "");
  CHECK(nlohmann::json::parse(ReadFileText(dir / "r.json"))["images"].size() == 1);
  auto facts = FlagsImagelint({"facts", "-f", "text", "--rootfs", dir.path().string()});
  CHECK(facts.exit_code == 0);
  CHECK(FlagsImagelint({"rules", "-f", "json"}).exit_code == 0);
  auto help = FlagsImagelint({"scan", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("k8s") != std::string::npos);
  CHECK(help.out.find("-f,--format") != std::string::npos);
}

TEST_CASE("unknown flags and commands: imagelint: prefix, the closest match, exit 2, one line") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {{"scan", "--flet", "fleet.yaml", "x.tar"}, "imagelint: scan: unknown flag --flet (did you mean --fleet?)"},
           {{"--fail-onn", "warning", "x.tar"}, "imagelint: scan: unknown flag --fail-onn (did you mean --fail-on?)"},
           {{"facts", "x.tar", "--platfrom", "linux/arm64"}, "imagelint: facts: unknown flag --platfrom (did you mean --platform?)"},
           {{"fleet", "import", "--from-k8", "n.json"}, "imagelint: fleet import: unknown flag --from-k8 (did you mean --from-k8s?)"},
           {{"expain", "IL003"}, "imagelint: unknown command 'expain' (did you mean 'explain'?)"},
           {{"rule"}, "imagelint: unknown command 'rule' (did you mean 'rules'?)"},
           {{"fleet", "impot", "--from-k8s", "n.json"}, "imagelint: fleet: unknown command 'impot' (did you mean 'import'?)"},
           {{"explain", "IL0003"}, "imagelint: IL0003: no such rule (did you mean IL003?)"},
           {{"explain", "forward-compat-unsuported-gpu"},
            "imagelint: forward-compat-unsuported-gpu: no such rule (did you mean forward-compat-unsupported-gpu?)"},
           {{"scan", "x.tar", "--fail-on", "fatal"}, "imagelint: scan: --fail-on: fatal not in {error,warning,note,none}"},
       }) {
    CAPTURE(c.args);
    auto result = FlagsImagelint(c.args);
    CHECK(result.exit_code == 2);
    CHECK(result.out == "");
    CHECK_MESSAGE(result.err.rfind(c.expected, 0) == 0, result.err);
  }
  CHECK(OneLine(FlagsImagelint({"scan", "--flet", "x"}).err));
  CHECK(OneLine(FlagsImagelint({"expain", "IL003"}).err));
  // `help` is help, not an image called help.
  auto help = FlagsImagelint({"help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Subcommands:") != std::string::npos);
  auto help_scan = FlagsImagelint({"help", "scan"});
  CHECK(help_scan.exit_code == 0);
  CHECK(help_scan.out.find("--fleet") != std::string::npos);
}

TEST_CASE("- reads a Dockerfile from standard input") {
  auto piped = FlagsImagelint({"-", "--no-config", "-f", "json"}, kDockerfile);
  REQUIRE_MESSAGE(piped.exit_code == 0, piped.err);
  auto report = nlohmann::json::parse(piped.out);
  REQUIRE(report["images"].size() == 1);
  CHECK(report["images"][0]["ref"] == "-");
  CHECK_FALSE(report["images"][0]["findings"].empty());
  TempDir dir;
  WriteFileText(dir / "Dockerfile", kDockerfile);
  auto from_file = FlagsImagelint({(dir / "Dockerfile").string(), "--no-config", "-f", "json"});
  CHECK(RulesIn(from_file.out) == RulesIn(piped.out));
  auto empty = FlagsImagelint({"scan", "-", "--no-config"}, "");
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.rfind("imagelint: -", 0) == 0);
}

TEST_CASE("--quiet and --no-progress: nothing on a terminal's stderr but errors") {
  if (!NeedExternal("script", HaveProgram("script"), "util-linux `script` gives the command a terminal")) return;
  TempDir dir;
  WriteImage(CudaImage(), ImageKind::kOciArchive, dir / "app.tar");
  auto on_terminal = [&](const std::string& flags) {
    std::string command = ImagelintBinary().string() + " facts " + (dir / "app.tar").string() + " --no-cache " + flags +
                          " >/dev/null";
    return RunCommand({"script", "-qec", command, "/dev/null"}, "", 120, {"HOME=", "XDG_CACHE_HOME="});
  };
  auto plain = on_terminal("");
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("imagelint: layers 2/2") != std::string::npos);
  auto no_progress = on_terminal("--no-progress");
  CHECK(no_progress.out.find("imagelint: layers") == std::string::npos);
  // Without a cache directory imagelint warns; --quiet silences that too.
  auto cacheless = RunImagelint({"facts", (dir / "app.tar").string()}, "", {"HOME=", "XDG_CACHE_HOME="});
  CHECK(cacheless.err.find("warning: layer cache not used") != std::string::npos);
  auto quiet = RunImagelint({"facts", (dir / "app.tar").string(), "--quiet"}, "", {"HOME=", "XDG_CACHE_HOME="});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err == "");
  auto quiet_terminal = on_terminal("-q");
  CHECK(quiet_terminal.out.find("imagelint:") == std::string::npos);
}

TEST_CASE("directories: not an image is exit 2 saying what was expected; --rootfs and rootfs: read any") {
  TempDir dir;
  fs::create_directories(dir / "empty");
  fs::create_directories(dir / "repo" / "src");
  WriteFileText(dir / "repo" / "README.md", "# a project\n");
  WriteFileText(dir / "repo" / "src" / "main.cpp", "int main() {}\n");
  for (const char* name : {"empty", "repo"}) {
    CAPTURE(name);
    for (const std::vector<std::string>& prefix : std::vector<std::vector<std::string>>{{}, {"facts"}, {"ls"}}) {
      std::vector<std::string> args = prefix;
      args.push_back((dir / name).string());
      auto result = FlagsImagelint(args);
      CHECK(result.exit_code == 2);
      CHECK(result.out == "");
      CHECK(result.err.rfind("imagelint: " + (dir / name).string() + ": not an image: expected an OCI layout", 0) == 0);
      CHECK(OneLine(result.err));
    }
  }
  // `imagelint .` in a repository.
  auto dot = RunCommand({"sh", "-c", "cd '" + (dir / "repo").string() + "' && exec '" + ImagelintBinary().string() + "' ."});
  CHECK(dot.exit_code == 2);
  CHECK(dot.err.find("not an image") != std::string::npos);

  auto scan = FlagsImagelint({"--rootfs", (dir / "repo").string(), "--no-config"});
  CHECK_MESSAGE(scan.exit_code == 0, scan.err);
  CHECK(scan.out.find("IMAGE " + (dir / "repo").string()) != std::string::npos);
  auto prefixed = FlagsImagelint({"scan", "rootfs:" + (dir / "repo").string(), "--no-config", "-f", "json"});
  CHECK(prefixed.exit_code == 0);
  auto ls = FlagsImagelint({"ls", "--rootfs", (dir / "repo").string(), "src/*"});
  CHECK(ls.exit_code == 0);
  CHECK(ls.out == "file 0644 14 L0 /src/main.cpp\n");
  auto both = FlagsImagelint({"facts", "x.tar", "--rootfs", (dir / "repo").string()});
  CHECK(both.exit_code == 2);
  CHECK(both.err == "imagelint: --rootfs: give IMAGE or --rootfs DIR, not both\n");

  // A missing path is "no such file" at once, never a registry lookup.
  for (const char* missing : {"nothere.json", "build/app.tar", "./out/image", "train.Dockerfile"}) {
    CAPTURE(missing);
    auto result = FlagsImagelint({missing});
    CHECK(result.exit_code == 2);
    CHECK(result.err == "imagelint: " + std::string(missing) + ": no such file or directory\n");
  }
}

TEST_CASE("-o json warns that it names a file; --color always|never|auto and NO_COLOR") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile", kDockerfile);
  const std::string dockerfile = (dir / "Dockerfile").string();
  // kubectl's -o json: the report goes to a file named "json", and imagelint says so.
  auto typed = RunCommand({"env", "-C", dir.path().string(), ImagelintBinary().string(), dockerfile, "--no-config", "-o",
                           "json"},
                          "", 120, {"IMAGELINT_BASE_FROM=knowledge", "XDG_CACHE_HOME=" + (dir / "cache").string()});
  CHECK_MESSAGE(typed.exit_code == 0, typed.err);
  CHECK(fs::exists(dir / "json"));
  CHECK(typed.err.find("-o/--output json writes the text report to a file named \"json\"") != std::string::npos);
  CHECK(typed.err.find("use -f json") != std::string::npos);
  auto named = FlagsImagelint({dockerfile, "--no-config", "-o", (dir / "report.txt").string()});
  CHECK(named.err.find("writes the") == std::string::npos);

  // A finding's severity is painted with --color always, even when piped and with NO_COLOR.
  const std::string escape = "\x1b[";
  auto always = RunImagelint({dockerfile, "--no-config", "--color", "always"}, "", {"NO_COLOR=1"});
  CHECK(always.out.find(escape) != std::string::npos);
  auto never = RunImagelint({dockerfile, "--no-config", "--color", "never"});
  CHECK(never.out.find(escape) == std::string::npos);
  auto no_color = RunImagelint({dockerfile, "--no-config", "--no-color"});
  CHECK(no_color.out.find(escape) == std::string::npos);
  auto piped = RunImagelint({dockerfile, "--no-config"});  // auto: not a terminal
  CHECK(piped.out.find(escape) == std::string::npos);
  CHECK(piped.out == never.out);
  auto bad = FlagsImagelint({dockerfile, "--no-config", "--color", "sometimes"});
  CHECK(bad.exit_code == 2);
}

TEST_CASE("--help: grouped by task, the flags most runs need first") {
  for (const std::vector<std::string>& command : {std::vector<std::string>{"scan", "--help"},
                                                  std::vector<std::string>{"--help"}}) {
    auto help = RunImagelint(command);
    REQUIRE(help.exit_code == 0);
    CAPTURE(help.out);
    if (command.size() == 1) {  // the root: the commands, and how to see scan's flags
      CHECK(help.out.find("Subcommands:") != std::string::npos);
      continue;
    }
    size_t first = help.out.find("\nOptions most runs need:\n");
    REQUIRE(first != std::string::npos);
    std::string group = help.out.substr(first, help.out.find("\n\n", first + 1) - first);
    for (const char* flag : {"--fleet", "-f,--format", "-o,--output", "--fail-on", "--config"})
      CHECK_MESSAGE(group.find(flag) != std::string::npos, flag);
    // Then the groups by task, each after the one before it.
    size_t at = first;
    for (const char* title : {"\nReport:\n", "\nRules:\n", "\nImages and registries:\n", "\nDockerfile inputs:\n",
                              "\nCache:\n", "\nLimits and verification:\n"}) {
      size_t next = help.out.find(title);
      CHECK_MESSAGE(next != std::string::npos, title);
      CHECK_MESSAGE(next > at, title);
      at = next;
    }
    CHECK(help.out.find("--cache-backend") > help.out.find("\nCache:\n"));
  }
}

TEST_CASE("facts and scan take the same cache and verification flags") {
  auto scan = RunImagelint({"scan", "--help"});
  auto facts = RunImagelint({"facts", "--help"});
  for (const char* flag : {"--cache-dir", "--no-cache", "--cache-backend", "--cache-ttl", "--redis-ca", "--redis-cert",
                           "--redis-key", "--no-verify", "--verify-diff-ids"}) {
    CAPTURE(flag);
    CHECK(scan.out.find(std::string(flag) + " ") != std::string::npos);
    CHECK(facts.out.find(std::string(flag) + " ") != std::string::npos);
  }
  // And use them: a bad backend URL is the same error for both.
  TempDir dir;
  WriteImage(CudaImage(), ImageKind::kOciArchive, dir / "app.tar");
  for (const char* command : {"scan", "facts"}) {
    auto bad = FlagsImagelint({command, (dir / "app.tar").string(), "--cache-backend", "memcached://x"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--cache-backend") != std::string::npos);
  }
}

TEST_CASE("facts --format text: every section readable, none as a raw JSON block") {
  TempDir dir;
  WriteFileText(dir / "Dockerfile",
                "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch==2.3.0\nCMD [\"python3\"]\n");
  auto json = FlagsImagelint({"facts", (dir / "Dockerfile").string()});
  REQUIRE_MESSAGE(json.exit_code == 0, json.err);
  auto text = FlagsImagelint({"facts", (dir / "Dockerfile").string(), "--format", "text"});
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CAPTURE(text.out);
  CHECK(text.out.find("{\n") == std::string::npos);
  CHECK(text.out.find("\": ") == std::string::npos);  // no quoted JSON keys
  // The Dockerfile's own section is there, as an outline.
  CHECK(nlohmann::json::parse(json.out).contains("dockerfile"));
  CHECK(text.out.find("\ndockerfile:") != std::string::npos);
}
