// GPU code a RUN compiles, and the scripts and archives it runs or unpacks
// (see build_code.h for the grammars).
#include "dockerfile/build_code.h"

#include <cctype>
#include <optional>
#include <set>
#include <vector>

#include "common/text.h"
#include "dockerfile/build_context.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

constexpr size_t kMaxDownloads = 256;

// The arch list a build applies: SASS and PTX architectures, as the facts write them.
struct ArchList {
  std::set<std::string> sass;  // "sm_86", "sm_90a"
  std::set<std::string> ptx;   // "compute_86"
  std::string unreadable;      // why the list is not known ("" when it is)
};

// The value of NAME in the command's environment: its own prefix or the
// script's exports, then ENV, then ARG (BuildKit gives RUN both).
std::optional<std::string> EnvOf(const ImageModel& image, const ShellCommand& command, const std::string& name) {
  if (auto it = command.env.find(name); it != command.env.end()) return it->second;
  if (auto it = image.env.find(name); it != image.env.end()) return it->second;
  if (auto it = image.args.find(name); it != image.args.end()) return it->second;
  return std::nullopt;
}

// "86", "90a", "100f": a compute capability without its dot, optional suffix letter.
bool IsArchNumber(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits < 2 || digits > 3) return false;
  return digits == text.size() || (digits + 1 == text.size() && std::isalpha(static_cast<unsigned char>(text[digits])));
}

// One nvcc architecture name into the list: sm_XY is SASS, compute_XY PTX.
bool AddNvccCode(std::string_view code, ArchList& out) {
  if (StartsWith(code, "sm_") && IsArchNumber(code.substr(3))) {
    out.sass.insert(std::string(code));
    return true;
  }
  if (StartsWith(code, "compute_") && IsArchNumber(code.substr(8))) {
    out.ptx.insert(std::string(code));
    return true;
  }
  return false;
}

// `arch=compute_80,code=[sm_80,compute_80]` (the brackets and quotes optional).
void AddGencode(std::string_view value, ArchList& out) {
  std::string text;
  for (char c : value)
    if (c != '[' && c != ']' && c != '"' && c != '\'') text.push_back(c);
  size_t code_at = text.find("code=");
  if (text.rfind("arch=", 0) != 0 || code_at == std::string::npos) {
    out.unreadable = "nvcc -gencode \"" + std::string(value.substr(0, 100)) + "\" is not arch=...,code=...";
    return;
  }
  for (const std::string& code : SplitOn(text.substr(code_at + 5), ','))
    if (!AddNvccCode(Trim(code), out))
      out.unreadable = "nvcc code \"" + code.substr(0, 60) + "\" is not an sm_XY or compute_XY architecture";
}

ArchList NvccArchs(const ShellCommand& command) {
  ArchList out;
  std::string arch, code;
  bool gencode = false;
  const auto& w = command.words;
  for (size_t i = 1; i < w.size(); ++i) {
    std::string word = w[i].value, option = word, value;
    size_t eq = word.find('=');
    if (StartsWith(word, "-") && eq != std::string::npos) {
      option = word.substr(0, eq);
      value = word.substr(eq + 1);
    }
    bool takes = option == "-arch" || option == "--gpu-architecture" || option == "-code" || option == "--gpu-code" ||
                 option == "-gencode" || option == "--generate-code";
    if (!takes) continue;
    if (value.empty() && eq == std::string::npos && i + 1 < w.size()) value = w[++i].value;
    if (!w[i].exact) out.unreadable = "nvcc " + option + " has a value the build computes";
    if (option == "-arch" || option == "--gpu-architecture") arch = value;
    else if (option == "-code" || option == "--gpu-code") code = value;
    else {
      gencode = true;
      AddGencode(value, out);
    }
  }
  if (!arch.empty()) {
    if (arch == "native" || arch == "all" || arch == "all-major")
      out.unreadable = "nvcc -arch=" + arch + " (the architectures of the toolkit or of the build machine's GPU)";
    else if (!code.empty())
      for (const std::string& c : SplitOn(code, ',')) {
        if (!AddNvccCode(Trim(c), out)) out.unreadable = "nvcc -code \"" + c.substr(0, 60) + "\" is not sm_XY or compute_XY";
      }
    else if (StartsWith(arch, "sm_") && IsArchNumber(arch.substr(3))) {
      out.sass.insert(arch);
      out.ptx.insert("compute_" + arch.substr(3));
    } else if (!AddNvccCode(arch, out)) {
      out.unreadable = "nvcc -arch \"" + arch.substr(0, 60) + "\" is not sm_XY or compute_XY";
    }
  }
  if (arch.empty() && !gencode && out.unreadable.empty())
    out.unreadable = "nvcc without -arch or -gencode builds for its toolkit's default architecture, which the tables do not hold";
  return out;
}

// CMAKE_CUDA_ARCHITECTURES / CUDAARCHS: "80;86-real;90-virtual".
ArchList CmakeArchs(const std::string& value, const std::string& name) {
  ArchList out;
  for (std::string item : SplitOn(value, ';')) {
    item = Trim(item);
    if (item.empty()) continue;
    bool real = EndsWith(item, "-real"), virt = EndsWith(item, "-virtual");
    std::string number = real ? item.substr(0, item.size() - 5) : virt ? item.substr(0, item.size() - 8) : item;
    if (!IsArchNumber(number)) {
      out.unreadable = name + "=" + value.substr(0, 100) + ": \"" + item.substr(0, 40) +
                       "\" is not an architecture number (all, all-major and native depend on the toolkit or the build machine)";
      return out;
    }
    if (!virt) out.sass.insert("sm_" + number);
    if (!real) out.ptx.insert("compute_" + number);
  }
  if (out.sass.empty() && out.ptx.empty() && out.unreadable.empty()) out.unreadable = name + " is empty";
  return out;
}

// TORCH_CUDA_ARCH_LIST: "7.0 8.0;8.6+PTX" (numbers only; named families are
// torch-release dependent and left unread).
ArchList TorchArchs(std::string value) {
  ArchList out;
  for (char& c : value)
    if (c == ' ' || c == '\t' || c == ',') c = ';';
  for (std::string item : SplitOn(value, ';')) {
    if (item.empty()) continue;
    bool plus_ptx = EndsWith(item, "+PTX");
    if (plus_ptx) item = item.substr(0, item.size() - 4);
    size_t dot = item.find('.');
    std::string number = dot == std::string::npos ? "" : item.substr(0, dot) + item.substr(dot + 1);
    if (!IsArchNumber(number)) {
      out.unreadable = "TORCH_CUDA_ARCH_LIST entry \"" + item.substr(0, 40) + "\" is not a compute capability X.Y";
      return out;
    }
    out.sass.insert("sm_" + number);
    if (plus_ptx) out.ptx.insert("compute_" + number);
  }
  if (out.sass.empty() && out.unreadable.empty()) out.unreadable = "TORCH_CUDA_ARCH_LIST is empty";
  return out;
}

// The code a RUN built with `archs`, as a binary of the facts.
void Built(const Context& ctx, const Instruction& inst, ImageModel& image, const std::string& tool,
           const std::string& list_name, const ArchList& archs) {
  if (!archs.unreadable.empty()) {
    ctx.Unknown(image, inst, "binaries", "builds GPU code with " + tool + ": " + archs.unreadable,
                "give the build an explicit arch list, or scan the built image");
    return;
  }
  if (image.built_binaries.size() >= kMaxBuiltBinaries) {
    ctx.Unknown(image, inst, "binaries", "over " + std::to_string(kMaxBuiltBinaries) + " builds of GPU code");
    return;
  }
  facts::Binary row;
  row.provenance = ctx.Where(inst, image, "instruction");
  row.path = "<GPU code built at line " + std::to_string(inst.line) + " by " + tool + ">";
  row.needed = std::vector<std::string>{};
  row.sass = std::vector<std::string>(archs.sass.begin(), archs.sass.end());
  row.ptx = std::vector<facts::Ptx>{};
  for (const std::string& ptx : archs.ptx) row.ptx->push_back({ptx, std::nullopt});
  std::string list;
  for (const std::string& s : archs.sass) list += (list.empty() ? "" : " ") + s;
  for (const std::string& p : archs.ptx) list += (list.empty() ? "" : " ") + p;
  row.arch_list = list;
  row.arch_list_source = list_name + " at Dockerfile line " + std::to_string(inst.line);
  row.source = "build: " + tool + " with " + list_name;
  image.built_binaries.push_back(std::move(row));
}

bool IsValueOption(const std::string& tool, const std::string& option) {
  static const std::set<std::string> curl = {"-o", "--output", "-H", "--header", "-d", "--data", "-u", "--user", "-X",
                                             "--request", "-A", "--user-agent", "-e", "--referer", "-w", "--write-out",
                                             "-m", "--max-time", "--retry", "--connect-timeout", "-C", "-x", "--proxy",
                                             "-b", "-c", "-K", "--config", "-r", "--range", "--output-dir", "-T"};
  static const std::set<std::string> wget = {"-O", "--output-document", "-P", "--directory-prefix", "-o",
                                             "--output-file", "-t", "--tries", "-T", "--timeout", "-U",
                                             "--user-agent", "--header", "-e"};
  return (tool == "curl" ? curl : wget).count(option) > 0;
}

// `curl -o FILE URL` / `wget -O FILE URL`: remembered, so that running FILE
// later (or piping the download into sh) is matched with its installer row.
void Download(ImageModel& image, const ShellCommand& command, const std::string& tool) {
  const auto& w = command.words;
  std::string url, output, dir;
  bool remote_name = false;
  for (size_t i = 1; i < w.size(); ++i) {
    std::string word = w[i].value, option = word, value;
    if (StartsWith(word, "-")) {
      size_t eq = word.find('=');
      if (StartsWith(word, "--") && eq != std::string::npos) {
        option = word.substr(0, eq);
        value = word.substr(eq + 1);
      } else if (!StartsWith(word, "--") && word.size() > 2 && IsValueOption(tool, word.substr(0, 2))) {
        option = word.substr(0, 2);
        value = word.substr(2);
      } else if (IsValueOption(tool, option) && i + 1 < w.size()) {
        value = w[++i].value;
      }
      if ((tool == "curl" && (option == "-o" || option == "--output")) ||
          (tool == "wget" && (option == "-O" || option == "--output-document")))
        output = value;
      if ((tool == "curl" && option == "--output-dir") || (tool == "wget" && (option == "-P" || option == "--directory-prefix")))
        dir = value;
      if (tool == "curl" && (option == "-O" || option == "--remote-name")) remote_name = true;
      continue;
    }
    if (url.empty() && w[i].exact) url = word;
  }
  if (url.empty() || image.downloads.size() >= kMaxDownloads) return;
  std::string path_part = url.substr(0, url.find('?'));
  std::string name = path_part.substr(path_part.rfind('/') + 1);
  if (tool == "wget" && output.empty()) output = name;
  if (tool == "curl" && output.empty() && remote_name) output = name;
  if (output.empty() || output == "-") {
    image.downloads["-"] = url;  // to standard output: a pipe into sh reads it
    return;
  }
  if (!dir.empty() && !StartsWith(output, "/")) output = dir + "/" + output;
  image.downloads[InRun(image, output)] = url;
}

// Running a script: a known installer adds what its row says; anything else is not read.
void RunsScript(const Context& ctx, const Instruction& inst, ImageModel& image, const std::string& script) {
  std::string key = script == "-" ? "-" : InRun(image, script);
  auto it = image.downloads.find(key);
  std::string url = it == image.downloads.end() ? "" : it->second;
  const InstallerScript* row = url.empty() ? nullptr : ctx.packages.FindInstallerScript(url);
  std::string what = script == "-" ? "a script piped from " + (url.empty() ? std::string("a command") : url.substr(0, 300))
                                   : script.substr(0, 200) + (url.empty() ? "" : " (from " + url.substr(0, 300) + ")");
  if (row && !row->gpu_code) {
    ctx.AddNote(image, inst, "runs " + what + ": installs " + row->installs + ", no GPU code (" +
                                 ctx.knowledge.DescribeSource(row->source) + ")");
    return;
  }
  ctx.Unknown(image, inst, "binaries", "runs " + what + ", which is not read: GPU code it installs would not be seen",
              "scan the built image");
}

bool Extracts(const std::string& tool, const ShellCommand& command) {
  if (tool == "unzip" || tool == "7z" || tool == "bsdtar") return true;
  if (tool != "tar" || command.words.size() < 2) return false;
  for (size_t i = 1; i < command.words.size(); ++i) {
    const std::string& word = command.words[i].value;
    if (word == "--extract" || word == "--get") return true;
    bool cluster = (word.size() > 1 && word[0] == '-' && word[1] != '-') || (i == 1 && word[0] != '-');
    if (cluster && word.find('x') != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void StartRun(ImageModel& image) { image.downloads.erase("-"); }

void BuildsPythonProject(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                         const std::string& what) {
  if (auto list = EnvOf(image, command, "TORCH_CUDA_ARCH_LIST")) {
    Built(ctx, inst, image, what, "TORCH_CUDA_ARCH_LIST", TorchArchs(*list));
    return;
  }
  ctx.Unknown(image, inst, "binaries",
              "builds " + what + " from source without TORCH_CUDA_ARCH_LIST: the GPU code of its extensions, if any, "
              "is for the GPUs the build machine sees",
              "set TORCH_CUDA_ARCH_LIST for the build, or scan the built image");
}

bool ApplyBuildCode(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  std::string tool = BaseName(w[0].value);
  if (tool == "nvcc") {
    Built(ctx, inst, image, "nvcc", "nvcc architecture flags", NvccArchs(command));
    return true;
  }
  if (tool == "cmake") {
    if (w.size() > 1 && (w[1].value == "--build" || w[1].value == "--install" || w[1].value == "-E" ||
                         w[1].value == "--version" || w[1].value == "-P"))
      return true;
    for (size_t i = 1; i < w.size(); ++i) {
      const std::string& word = w[i].value;
      std::string define = word == "-D" && i + 1 < w.size() ? w[i + 1].value : StartsWith(word, "-D") ? word.substr(2) : "";
      size_t eq = define.find('=');
      if (eq == std::string::npos) continue;
      std::string name = define.substr(0, define.find(':') < eq ? define.find(':') : eq);
      if (name != "CMAKE_CUDA_ARCHITECTURES") continue;
      ArchList archs = CmakeArchs(define.substr(eq + 1), name);
      if (!w[i].exact || (word == "-D" && !w[i + 1].exact)) archs.unreadable = "CMAKE_CUDA_ARCHITECTURES has a value the build computes";
      Built(ctx, inst, image, "cmake", "CMAKE_CUDA_ARCHITECTURES", archs);
      return true;
    }
    if (auto env = EnvOf(image, command, "CUDAARCHS")) {
      Built(ctx, inst, image, "cmake", "CUDAARCHS", CmakeArchs(*env, "CUDAARCHS"));
      return true;
    }
    ctx.Unknown(image, inst, "binaries",
                "configures a CMake build without CMAKE_CUDA_ARCHITECTURES: GPU code it builds is for the project's or the "
                "compiler's default architectures",
                "pass -DCMAKE_CUDA_ARCHITECTURES, or scan the built image");
    return true;
  }
  if (tool == "make" || tool == "ninja" || tool == "bazel" || tool == "meson" || tool == "scons") {
    ctx.Unknown(image, inst, "binaries", "builds with " + tool + ": the GPU architectures are in the project's build files",
                "scan the built image");
    return true;
  }
  if (StartsWith(tool, "python") && w.size() > 2 && EndsWith(w[1].value, "setup.py")) {
    static const std::set<std::string> builds = {"install", "develop", "build", "build_ext", "bdist_wheel", "bdist_egg"};
    for (size_t i = 2; i < w.size(); ++i)
      if (builds.count(w[i].value)) {
        BuildsPythonProject(ctx, inst, image, command, "setup.py");
        break;
      }
    return true;
  }
  if (tool == "curl" || tool == "wget") {
    Download(image, command, tool);
    return false;  // run.cpp notes CUDA installers downloaded
  }
  if (ctx.knowledge.commands().IsPosixShell(tool)) {  // posix_shells (commands.yaml)
    std::string script;
    size_t i = 1;
    while (i < w.size() && StartsWith(w[i].value, "-")) ++i;
    if (i < w.size()) script = w[i].value;
    if (script.empty()) script = "-";
    if (EndsWith(script, ".run")) return false;  // run.cpp: CUDA installers
    RunsScript(ctx, inst, image, script);
    return true;
  }
  if (Extracts(tool, command)) {
    ctx.Unknown(image, inst, "binaries", "unpacks an archive with " + tool + ": the files it holds are not read",
                "scan the built image");
    return true;
  }
  bool path_like = w[0].value.find('/') != std::string::npos;
  if (path_like && !EndsWith(tool, ".run") && (EndsWith(tool, ".sh") || StartsWith(w[0].value, "./") || image.downloads.count(InRun(image, w[0].value)))) {
    RunsScript(ctx, inst, image, w[0].value);
    return true;
  }
  return false;
}

}  // namespace imagelint::dockerfile
