// `cmake --install`: the binary, its data, the completions and the man page
// land where docs/DESIGN.md says; the installed binary works from a copy of
// the prefix (the build tree out of the picture) and says where its data is;
// completions and the man page parse and name every command and flag.
#include <doctest/doctest.h>

#include <cctype>
#include <set>
#include <sstream>

#include "support/image_builder.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// The commands and flags `imagelint [COMMAND] --help` lists: what the
// generated files must cover, read independently of how they are made.
struct Surface {
  std::vector<std::string> commands;  // "scan", ..., "fleet import"
  std::set<std::string> flags;        // "--fleet", "-f", ...
};

std::vector<std::string> Section(const std::string& help, const std::string& title) {
  std::vector<std::string> lines;
  size_t at = help.find("\n" + title + ":\n");
  if (at == std::string::npos) return lines;
  std::istringstream in(help.substr(at + title.size() + 3));
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  return lines;
}

// The flags of every option group ("Options most runs need:", "Report:", ...).
std::vector<std::string> OptionLines(const std::string& help) {
  std::vector<std::string> lines;
  std::istringstream in(help);
  bool options = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.back() == ':') {
      options = !line.empty() && line[0] != ' ' && line != "Positionals:" && line != "Subcommands:";
      continue;
    }
    if (options) lines.push_back(line);
  }
  return lines;
}

void AddFlags(const std::string& help, Surface& surface) {
  for (const std::string& line : OptionLines(help)) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || start > 4 || line[start] != '-') continue;
    std::string names = line.substr(start, line.find(' ', start) - start);
    std::istringstream parts(names);
    for (std::string name; std::getline(parts, name, ',');) surface.flags.insert(name);
  }
}

Surface ReadSurface(const fs::path& binary) {
  Surface surface;
  auto root = RunCommand({binary.string(), "--help"});
  REQUIRE(root.exit_code == 0);
  AddFlags(root.out, surface);
  std::vector<std::string> pending;
  for (const std::string& line : Section(root.out, "Subcommands")) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    pending.push_back(name);
  }
  while (!pending.empty()) {
    std::string command = pending.front();
    pending.erase(pending.begin());
    surface.commands.push_back(command);
    std::vector<std::string> argv = {binary.string()};
    std::istringstream words(command);
    for (std::string word; words >> word;) argv.push_back(word);
    argv.push_back("--help");
    auto help = RunCommand(argv);
    REQUIRE_MESSAGE(help.exit_code == 0, command);
    AddFlags(help.out, surface);
    for (const std::string& line : Section(help.out, "Subcommands")) {
      std::istringstream sub(line);
      std::string name;
      sub >> name;
      pending.push_back(command + " " + name);
    }
  }
  return surface;
}

// Whether `text` holds `word` as a whole word (not inside a longer flag).
bool HasWord(const std::string& text, const std::string& word) {
  auto boundary = [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'); };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    bool left = at == 0 || boundary(text[at - 1]);
    bool right = at + word.size() >= text.size() || boundary(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// The man page spells a dash \-.
std::string RoffDashes(const std::string& flag) {
  std::string out;
  for (char c : flag) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

}  // namespace

TEST_CASE("cmake --install: bin, share/imagelint, completions and the man page; runs from a copy of the prefix") {
  if (!NeedExternal("cmake", HaveProgram("cmake"), "cmake --install")) return;
  TempDir dir;
  fs::path prefix = dir / "prefix";
  auto installed = RunCommand({"cmake", "--install", BinaryDir().string(), "--prefix", prefix.string()}, "", 300);
  REQUIRE_MESSAGE(installed.exit_code == 0, (installed.out + installed.err));
  for (const char* file : {"bin/imagelint", "share/imagelint/rules/cuda.yaml", "share/imagelint/rules/knowledge/gpus.yaml",
                           "share/imagelint/rules/knowledge/sources.yaml", "share/imagelint/docs/rules/IL003.md",
                           "share/imagelint/docs/cli.md", "share/imagelint/docs/report-schema.json",
                           "share/bash-completion/completions/imagelint", "share/zsh/site-functions/_imagelint",
                           "share/fish/vendor_completions.d/imagelint.fish", "share/man/man1/imagelint.1"}) {
    CAPTURE(file);
    CHECK(fs::is_regular_file(prefix / file));
  }

  // A copy of the prefix elsewhere: the binary finds its data beside itself,
  // whatever happens to the build tree, and --version says so.
  fs::path moved = dir / "elsewhere";
  fs::copy(prefix, moved, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(prefix);
  const std::string binary = (moved / "bin" / "imagelint").string();
  std::vector<std::string> clean_env = {"IMAGELINT_RULES_DIR=", "IMAGELINT_KNOWLEDGE_DIR=", "IMAGELINT_DOCS_DIR=",
                                        "XDG_CACHE_HOME=" + (dir / "cache").string()};
  auto version = RunCommand({binary, "--version"}, "", 60, clean_env);
  REQUIRE(version.exit_code == 0);
  CAPTURE(version.out);
  CHECK(version.out.rfind("imagelint 0.", 0) == 0);
  CHECK(version.out.find("commit    ") != std::string::npos);
  CHECK(version.out.find("knowledge ") != std::string::npos);
  CHECK(version.out.find("(" + (moved / "share/imagelint/rules/knowledge").string() + ")") != std::string::npos);
  CHECK(version.out.find("built with") == std::string::npos);  // the tables it was built with
  CHECK(version.out.find("docs      " + (moved / "share/imagelint/docs").string()) != std::string::npos);

  TestImage image;
  image.env = {"NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
  image.Layer().Dir("etc").File("etc/os-release", "ID=debian\n");
  WriteImage(image, ImageKind::kOciArchive, dir / "app.tar");
  WriteFileText(dir / "fleet.yaml",
                "pools:\n  - name: old-470\n    gpu: Tesla T4\n    driver: \"470.256.02\"\n    runtime: docker-gpus\n"
                "  - name: new-550\n    gpu: NVIDIA A100-SXM4-80GB\n    driver: \"550.54.15\"\n");
  auto scan = RunCommand({binary, (dir / "app.tar").string(), "--fleet", (dir / "fleet.yaml").string(), "--no-config"},
                         "", 120, clean_env);
  CHECK_MESSAGE(scan.exit_code == 1, (scan.out + scan.err));
  CHECK(scan.out.find("requirement-unsatisfied") != std::string::npos);
  auto explain = RunCommand({binary, "explain", "IL003"}, "", 60, clean_env);
  CHECK(explain.exit_code == 0);
  CHECK(explain.out.find("IL003") != std::string::npos);

  // An edited table shows in --version as a revision other than the build's.
  fs::path tables = moved / "share/imagelint/rules/knowledge";
  WriteFileText(tables / "gpus.yaml", ReadFileText(tables / "gpus.yaml") + "\n# edited\n");
  auto edited = RunCommand({binary, "--version"}, "", 60, clean_env);
  CHECK(edited.out.find("built with") != std::string::npos);
}

TEST_CASE("completions and the man page: they parse, and list every command and flag") {
  fs::path share = BinaryDir() / "share";
  fs::path bash = share / "bash-completion/completions/imagelint";
  fs::path zsh = share / "zsh/site-functions/_imagelint";
  fs::path fish = share / "fish/vendor_completions.d/imagelint.fish";
  fs::path man = share / "man/man1/imagelint.1";
  Surface surface = ReadSurface(ImagelintBinary());
  REQUIRE(surface.commands.size() >= 9);
  REQUIRE(surface.flags.count("--fleet"));
  REQUIRE(surface.flags.count("--from-k8s"));
  // What the build installed is what the binary prints now.
  CHECK(ReadFileText(bash) == RunCommand({ImagelintBinary().string(), "completion", "bash"}).out);
  CHECK(ReadFileText(man) == RunCommand({ImagelintBinary().string(), "completion", "man"}).out);

  for (const fs::path& file : {bash, zsh, fish}) {
    CAPTURE(file);
    std::string text = ReadFileText(file);
    for (const std::string& command : surface.commands) {
      std::string last = command.substr(command.rfind(' ') + 1);
      CHECK_MESSAGE(HasWord(text, last), command);
    }
    for (const std::string& flag : surface.flags) {
      // fish spells flags as -l NAME / -s N.
      std::string fish_form = flag.rfind("--", 0) == 0 ? "-l " + flag.substr(2) : "-s " + flag.substr(1);
      CHECK_MESSAGE((HasWord(text, flag) || (file == fish && HasWord(text, fish_form))), flag);
    }
  }
  std::string page = ReadFileText(man);
  for (const std::string& command : surface.commands) CHECK_MESSAGE(page.find("imagelint " + command) != std::string::npos, command);
  for (const std::string& flag : surface.flags) CHECK_MESSAGE(HasWord(page, "\\fB" + RoffDashes(flag) + "\\fR") , flag);

  CHECK(RunCommand({"bash", "-n", bash.string()}).exit_code == 0);
  // Completion at work: bash after `imagelint scan --fail-on `, fish after `imagelint scan --fl`.
  auto bash_menu = RunCommand({"bash", "-c",
                               "source '" + bash.string() +
                                   "'; COMP_WORDS=(imagelint scan --fail-on ''); COMP_CWORD=3; _imagelint; "
                                   "echo \"${COMPREPLY[*]}\""});
  CHECK(bash_menu.out == "error warning note none\n");
  auto bash_flags = RunCommand({"bash", "-c",
                                "source '" + bash.string() +
                                    "'; COMP_WORDS=(imagelint fleet import --from-k); COMP_CWORD=3; _imagelint; "
                                    "echo \"${COMPREPLY[*]}\""});
  CHECK(bash_flags.out == "--from-k8s\n");
  if (NeedExternal("zsh", HaveProgram("zsh"), "zsh -n on the zsh completion")) {
    auto parsed = RunCommand({"zsh", "-n", zsh.string()});
    CHECK_MESSAGE(parsed.exit_code == 0, parsed.err);
  }
  if (NeedExternal("fish", HaveProgram("fish"), "fish -n on the fish completion")) {
    auto parsed = RunCommand({"fish", "-n", fish.string()});
    CHECK_MESSAGE(parsed.exit_code == 0, parsed.err);
    auto menu = RunCommand({"fish", "--no-config", "-c", "source '" + fish.string() + "'; complete -C 'imagelint scan --fle'"});
    CHECK(menu.out.rfind("--fleet", 0) == 0);
    auto formats = RunCommand({"fish", "--no-config", "-c", "source '" + fish.string() + "'; complete -C 'imagelint facts -f '"});
    CHECK(formats.out.find("json") != std::string::npos);
  }
  if (NeedExternal("groff", HaveProgram("groff"), "groff renders the man page")) {
    auto rendered = RunCommand({"groff", "-man", "-Tutf8", "-ww", "-P-cbou", man.string()});
    CHECK(rendered.exit_code == 0);
    CHECK_MESSAGE(rendered.err == "", rendered.err);
    CHECK(rendered.out.find("EXIT STATUS") != std::string::npos);
  }
}
