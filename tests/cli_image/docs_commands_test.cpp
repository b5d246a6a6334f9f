// Every imagelint command that README.md, docs/*.md, docs/rules/*.md and the
// --help output show is run (several named rules that do not
// exist). Commands are taken from code blocks and `inline code`, and from the
// help's examples and "e.g." fragments; each runs through sh in a sandbox
// whose files carry the names the docs use (app.tar, fleet.yaml, nodes.json,
// Dockerfile, ...), made by the test fixtures. It passes when imagelint did
// its job (exit 0 or 1): an unknown flag, command or rule, a bad value or a
// file the docs name wrongly is exit 2 and fails it. Registry references are
// read from a local copy of the image (the same flags, no network).
// Synopses (IMAGE..., [--flag VALUE]) cannot run; their commands and flags
// must exist.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/image_builder.h"
#include "support/test_pki.h"
#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

struct Token {
  std::string text;
  bool quoted = false;
};

struct Shown {
  std::string where;    // "docs/cli.md:42" or "imagelint scan --help"
  std::string command;  // from "imagelint" on, comments removed
  std::string stdin_text;
  // A transcript's documented error ("$ imagelint ..." then "imagelint: ..."):
  // the command must fail with exactly that message.
  std::string expected_error = "";
};

// Shell-like words: quotes, backslashes; |, > and < stay words of their own.
std::vector<Token> Split(const std::string& line) {
  std::vector<Token> tokens;
  Token current;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else current.text += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      current.quoted = in_token = true;
    } else if (c == ' ' || c == '\t') {
      if (in_token) tokens.push_back(current);
      current = Token{};
      in_token = false;
    } else {
      current.text += c;
      in_token = true;
    }
  }
  if (in_token) tokens.push_back(current);
  return tokens;
}

std::string Quote(const Token& token) {
  if (!token.quoted) return token.text;
  std::string out = "'";
  for (char c : token.text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The commands a piece of text shows: "imagelint ..." at the start of a line
// or code span, after "$ ", after a pipe or after /usr/bin/time; never
// inside a word (--imagelint, .../cli/imagelint) or a comment.
void Collect(const std::string& text, const std::string& where, std::vector<Shown>& out) {
  for (size_t at = text.find("imagelint "); at != std::string::npos; at = text.find("imagelint ", at + 1)) {
    std::string before = text.substr(0, at);
    while (!before.empty() && before.back() == ' ') before.pop_back();
    bool starts = before.empty() || before.back() == '|' || before.ends_with("$") || before.ends_with("time");
    if (!starts) continue;
    std::string command = text.substr(at);
    for (const char* end : {"  #", " # ", " | "}) {  // a comment; a pipe into a pager or the next command
      if (size_t hash = command.find(end); hash != std::string::npos) command.resize(hash);
    }
    while (!command.empty() && (command.back() == ' ' || command.back() == '.')) command.pop_back();
    std::string stdin_text = before.find("echo") != std::string::npos ? "a-token\n" : "";
    out.push_back({where, command, stdin_text});
  }
}

std::vector<Shown> FromMarkdown(const fs::path& file) {
  std::vector<Shown> shown;
  std::ifstream in(file);
  bool fenced = false;
  int number = 0;
  std::string relative = fs::relative(file, SourceDir()).string();
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::string where = relative + ":" + std::to_string(number);
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      size_t start = line.find_first_not_of(' ');
      if (start != std::string::npos) Collect(line.substr(start), where, shown);
      if (line.rfind("imagelint: ", 0) == 0 && !shown.empty() && shown.back().where == relative + ":" + std::to_string(number - 1))
        shown.back().expected_error = line;
      continue;
    }
    for (size_t open = line.find('`'); open != std::string::npos; open = line.find('`', open + 1)) {
      size_t close = line.find('`', open + 1);
      if (close == std::string::npos) break;
      Collect(line.substr(open + 1, close - open - 1), where, shown);
      open = close;
    }
  }
  return shown;
}

// Per command ("scan", "fleet import"): its flags and whether each takes a value.
using FlagTable = std::map<std::string, std::map<std::string, bool>>;

std::string Help(const std::vector<std::string>& command) {
  std::vector<std::string> args = command;
  args.push_back("--help");
  auto help = RunImagelint(args);
  REQUIRE(help.exit_code == 0);
  return help.out;
}

FlagTable ReadFlags(const std::vector<std::string>& commands) {
  FlagTable table;
  for (const std::string& command : commands) {
    std::vector<std::string> words;
    std::istringstream split(command);
    for (std::string word; split >> word;) words.push_back(word);
    std::istringstream in(Help(words));
    bool options = false;
    for (std::string line; std::getline(in, line);) {
      // Flags come in groups by task ("Options most runs need:", "Report:", ...).
      if (line.empty() || line.back() == ':') {
        options = !line.empty() && line[0] != ' ' && line != "Positionals:" && line != "Subcommands:";
        continue;
      }
      size_t start = line.find_first_not_of(' ');
      if (!options || start == std::string::npos || start > 4 || line[start] != '-') continue;
      std::vector<Token> parts = Split(line.substr(start));
      bool takes_value = parts.size() > 1 && !parts[1].text.empty() && std::isupper(static_cast<unsigned char>(parts[1].text[0]));
      std::istringstream names(parts[0].text);
      for (std::string name; std::getline(names, name, ',');) table[command][name] = takes_value;
    }
  }
  return table;
}

const std::set<std::string> kPlaceholders = {"IMAGE", "IMAGE...", "FILE", "RULE", "RULE_ID", "DIR", "SIZE",
                                             "DURATION", "NAME", "GLOB", "COMMAND", "REF", "FORMAT", "KIND"};

struct Checked {
  std::string command_name = "scan";  // "scan", "fleet import", ...
  std::vector<std::string> unknown_flags;
  bool synopsis = false;
  bool has_input = false;
};

// Finds the command, checks each flag, and substitutes registry references
// and placeholders the sandbox can stand in for.
Checked Check(std::vector<Token>& tokens, const FlagTable& flags) {
  Checked checked;
  size_t i = 1;
  if (i < tokens.size() && flags.count(tokens[i].text)) {
    checked.command_name = tokens[i].text;
    ++i;
    if (i < tokens.size() && flags.count(checked.command_name + " " + tokens[i].text)) {
      checked.command_name += " " + tokens[i++].text;
    }
  } else if (i < tokens.size() && tokens[i].text == "[scan]") {
    ++i;
    checked.synopsis = true;
  }
  const auto& known = flags.at(checked.command_name);
  for (; i < tokens.size(); ++i) {
    std::string word = tokens[i].text;
    if (word == "|" || word == ">" || word == "<") break;
    if (word.find("...") != std::string::npos || word.find('[') != std::string::npos || word.find('|') != std::string::npos) {
      checked.synopsis = true;
    }
    std::string flag = word;
    while (!flag.empty() && (flag.front() == '[')) flag.erase(0, 1);
    if (flag.size() > 1 && flag[0] == '-' && !tokens[i].quoted) {
      std::string name = flag.substr(0, flag.find_first_of("=]"));
      if (size_t bar = name.find('|'); bar != std::string::npos) {  // [-f|--format ...]: both must exist
        std::string first = name.substr(0, bar);
        if (!known.count(first) && !flags.at("").count(first)) checked.unknown_flags.push_back(first);
        name = name.substr(bar + 1);
      }
      auto found = known.find(name);
      if (found == known.end() && !flags.at("").count(name)) {
        checked.unknown_flags.push_back(name);
      } else if (found != known.end() && found->second && flag.find('=') == std::string::npos) {
        ++i;  // its value
        if (i < tokens.size() && kPlaceholders.count(tokens[i].text)) checked.synopsis = true;
      }
      continue;
    }
    if (word == "IMAGE") tokens[i].text = "app.tar";
    else if (word == "RULE" || word == "RULE_ID") tokens[i].text = "IL003";
    else if (kPlaceholders.count(word) || word == "...") checked.synopsis = true;
    bool local = word.find('/') == std::string::npos || word.ends_with(".tar") || word.ends_with(".tar.gz") ||
                 word.ends_with("Dockerfile") || word.find('*') != std::string::npos || word.rfind("./", 0) == 0;
    if (!local && word.find_first_of("/:") != std::string::npos && !checked.synopsis) {
      tokens[i].text = "app.tar";  // a registry reference: its local copy
    }
    if (word.rfind("/tmp/", 0) == 0) tokens[i].text = fs::path(word).filename().string();
    checked.has_input = true;
  }
  return checked;
}

// The files the docs name, made on demand in the sandbox.
void MakeSandbox(const fs::path& dir) {
  TestImage amd;
  amd.ref = "registry.example.com/team/train:1.4";
  amd.env = {"PATH=/usr/local/cuda/bin:/usr/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470",
             "CUDA_VERSION=12.4.1"};
  amd.Layer(Compression::kGzip)
      .Dir("etc").File("etc/os-release", "ID=ubuntu\n")
      .Dir("usr").Dir("usr/local").Dir("usr/local/cuda-12.4").Dir("usr/local/cuda-12.4/compat")
      .File("usr/local/cuda-12.4/compat/libcuda.so.550.54.15", std::string("\x7f" "ELF", 4) + std::string(60, '\1'))
      .Symlink("usr/local/cuda-12.4/compat/libcuda.so.1", "libcuda.so.550.54.15")
      .Symlink("usr/local/cuda", "cuda-12.4");
  TestImage arm = amd;
  arm.architecture = "arm64";
  for (const char* name : {"app.tar", "bad.tar", "train.tar"}) WriteMultiPlatform({amd, arm}, ImageKind::kOciArchive, dir / name);
  WriteImage(amd, ImageKind::kDockerArchive, dir / "bench-save.tar.gz", {.gzip_outer = true});
  fs::create_directories(dir / "build");
  WriteImage(amd, ImageKind::kDockerArchive, dir / "build" / "example-image.tar");
  TestImage train = amd;
  train.ref = "team/train:1.4";
  TestImage other = amd;
  other.ref = "nvidia/cuda:12.4.1-base-ubuntu22.04";
  WriteImages({train, other}, ImageKind::kDockerArchive, dir / "saved.tar");
  for (const char* fleet : {"fleet.yaml", "host.yaml"}) fs::copy_file(SourceDir() / "examples/fleet.yaml", dir / fleet);
  fs::path imports = SourceDir() / "tests/fleet_import/fixtures";
  fs::copy_file(imports / "nodes-mixed.json", dir / "nodes.json");
  fs::copy_file(imports / "nvidia-smi-hosts.xml", dir / "smi.xml");
  fs::copy_file(imports / "container-cli-hosts.csv", dir / "info.csv");
  const std::string dockerfile = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN echo build\n";
  for (const char* path : {"Dockerfile", "services/api/Dockerfile", "services/train/Dockerfile"})
    WriteFileText(dir / path, dockerfile);
  const std::string rules =
      "version: 1\nrules:\n  - id: TEAM001\n    name: team-example\n    title: A team rule\n"
      "    summary: A team's own rule (docs/rule-language.md).\n    severity: note\n    scope: image\n"
      "    condition: \"false\"\n    message: never shown\n    fix: nothing to do\n";
  WriteFileText(dir / "team-rules.yaml", rules);
  WriteFileText(dir / "ci" / "team-rules.yaml", rules);
  WriteFileText(dir / "ci" / "imagelint.yaml", "version: 1\nfleet: ../fleet.yaml\n");
  fs::create_directories(dir / "docs");
  fs::create_directories(dir / "unpacked" / "etc");
  WriteFileText(dir / "unpacked" / "etc" / "os-release", "ID=debian\n");
  fs::create_directories(dir / "cache");
  // Knowledge bundles (docs/knowledge.md): the tables as a directory and as a packed file.
  fs::create_directories(dir / "rules");
  fs::copy(SourceDir() / "rules" / "knowledge", dir / "rules" / "knowledge", fs::copy_options::recursive);
  RunCommand({ImagelintBinary().string(), "knowledge", "pack", (dir / "rules" / "knowledge").string(), "-o",
              (dir / "knowledge.tar").string()});
  fs::create_directories(dir / ".local/share/bash-completion/completions");
  // rediss:// with a private CA and a client certificate (docs/cli.md "Shared cache on Redis").
  std::string why;
  if (auto pki = MakeTestPki(dir / "pki", &why)) {
    fs::copy_file(pki->ca, dir / "ci-ca.pem");
    fs::copy_file(pki->client_cert, dir / "runner.pem");
    fs::copy_file(pki->client_key, dir / "runner.key");
  }
}

struct Outcome {
  std::string where;
  std::string command;
  std::string problem;
};

void Run(const Shown& shown, const FlagTable& flags, const fs::path& sandbox, std::vector<Outcome>& failures,
         int& ran, int& synopses) {
  std::vector<Token> tokens = Split(shown.command);
  Checked checked = Check(tokens, flags);
  for (const std::string& flag : shown.expected_error.empty() ? checked.unknown_flags : std::vector<std::string>{})
    failures.push_back({shown.where, shown.command, "no such flag " + flag + " for `imagelint " + checked.command_name + "`"});
  static const std::set<std::string> kNeedInput = {"scan", "facts", "ls", "explain", "completion"};
  bool bare = tokens.size() <= 1 + static_cast<size_t>(std::count(checked.command_name.begin(), checked.command_name.end(), ' ') + 1);
  bool mention = (kNeedInput.count(checked.command_name) && !checked.has_input) ||
                 ((checked.command_name == "fleet" || checked.command_name == "fleet import") && bare);
  // `probe` runs CUDA on a GPU host: shown commands are checked for their
  // flags only (tests/probe runs it, without a GPU).
  static const std::set<std::string> kNeedGpu = {"probe"};
  // `knowledge update` and `push` need a registry holding a bundle, which
  // tests/registry/knowledge_bundle_test.cpp runs on loopback: here they are mentions.
  bool registry_only = checked.command_name == "knowledge" && tokens.size() > 2 &&
                       (tokens[2].text == "update" || tokens[2].text == "push");
  if (checked.synopsis || mention || registry_only || kNeedGpu.count(checked.command_name)) {
    ++synopses;
    return;
  }
  std::string line;
  for (const Token& token : tokens) line += (line.empty() ? "" : " ") + Quote(token);
  std::string stdin_text = shown.stdin_text;
  if (line.find("--from-k8s -") != std::string::npos) stdin_text = ReadFileText(sandbox / "nodes.json");
  auto result = RunCommand({"sh", "-c", "cd '" + sandbox.string() + "' && " + line}, stdin_text, 300,
                           {"PATH=" + ImagelintBinary().parent_path().string() + ":/usr/bin:/bin",
                            "HOME=" + sandbox.string(), "XDG_CACHE_HOME=" + (sandbox / "cache").string(),
                            "XDG_CONFIG_HOME=" + (sandbox / "config").string(), "PAGER=cat"});
  ++ran;
  if (!shown.expected_error.empty()) {
    if (result.exit_code != 2 || result.err != shown.expected_error + "\n")
      failures.push_back({shown.where, line, "documented to fail with \"" + shown.expected_error + "\", got exit " +
                                                 std::to_string(result.exit_code) + ": " + result.err});
  } else if (result.exit_code != 0 && result.exit_code != 1) {
    failures.push_back({shown.where, line, "exit " + std::to_string(result.exit_code) + ": " + result.err});
  }
}

}  // namespace

TEST_CASE("every command README.md, docs/*.md and --help show runs (or, for synopses, names what exists)") {
  std::vector<Shown> shown;
  std::vector<fs::path> files = {SourceDir() / "README.md"};
  for (const char* dir : {"docs", "docs/rules"})
    for (const auto& entry : fs::directory_iterator(SourceDir() / dir))
      if (entry.path().extension() == ".md") files.push_back(entry.path());
  for (const fs::path& file : files) {
    auto found = FromMarkdown(file);
    shown.insert(shown.end(), found.begin(), found.end());
  }
  std::vector<std::string> commands = {""};
  {
    std::istringstream in(Help({}));
    bool listing = false;
    for (std::string line; std::getline(in, line);) {
      if (line == "Subcommands:") listing = true;
      else if (line.empty()) listing = false;
      else if (listing) commands.push_back(Split(line)[0].text);
    }
  }
  commands.push_back("fleet import");
  FlagTable flags = ReadFlags(commands);

  // The help's own examples, and its "e.g." fragments as flags of a command.
  std::map<std::string, std::string> inputs = {{"scan", "app.tar"}, {"facts", "app.tar"}, {"ls", "app.tar"},
                                               {"explain", "IL003"}, {"fleet import", "--from-k8s nodes.json"},
                                               {"completion", "bash"}, {"plan", "app.tar --fleet fleet.yaml --fixes"}};
  for (const std::string& command : commands) {
    std::vector<std::string> words;
    std::istringstream split(command);
    for (std::string word; split >> word;) words.push_back(word);
    std::string help = Help(words);
    std::string where = "imagelint " + (command.empty() ? "" : command + " ") + "--help";
    std::istringstream in(help);
    for (std::string line; std::getline(in, line);) {
      Collect(line.substr(std::min(line.size(), line.find_first_not_of(' '))), where, shown);
      if (size_t example = line.find("Example: "); example != std::string::npos)
        Collect(line.substr(example + 9), where, shown);
    }
    for (size_t eg = help.find("e.g. "); eg != std::string::npos; eg = help.find("e.g. ", eg + 1)) {
      std::string fragment = help.substr(eg + 5);
      fragment.resize(std::min<size_t>({fragment.find('\n'), fragment.find(';'), fragment.find(")"),
                                        fragment.find(" ("), fragment.size()}));
      if (fragment.rfind("-", 0) != 0) continue;
      std::string prefix = "imagelint " + (command.empty() ? "" : command + " ") +
                           (inputs.count(command) ? inputs[command] + " " : "");
      shown.push_back({where, prefix + fragment, ""});
    }
  }

  TempDir sandbox;
  MakeSandbox(sandbox.path());
  std::vector<Outcome> failures;
  int ran = 0;
  int synopses = 0;
  for (const Shown& one : shown) Run(one, flags, sandbox.path(), failures, ran, synopses);
  for (const Outcome& failure : failures) {
    const std::string text = failure.where + ": `" + failure.command + "`: " + failure.problem;
    FAIL_CHECK(text);
  }
  MESSAGE(ran << " commands run, " << synopses << " synopses and mentions checked, " << failures.size() << " failed");
  CHECK(ran >= 40);
}
