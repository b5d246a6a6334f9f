// RUN: the shell commands of an instruction, dispatched by concern.
//
// A RUN is a shell script (BuildKit runs the shell form with `/bin/sh -c`, the
// exec form as argv, a heredoc as a script file: https://docs.docker.com/reference/dockerfile/#run).
// shell.cpp splits it into simple commands with ARG/ENV values expanded; this
// file decides what each command is: a package manager (pip.cpp, conda.cpp,
// apt.cpp), a file operation (file_ops.cpp), a write into ld.so.conf
// (echo/printf/tee), or a CUDA installer whose effect cannot be read. Anything
// else changes no fact. Under a SHELL that is not a POSIX shell the commands
// are not read at all.
#include "dockerfile/run.h"
#include "dockerfile/requirements_export.h"

#include <cctype>

#include "common/text.h"
#include "dockerfile/apt.h"
#include "dockerfile/build_code.h"
#include "dockerfile/build_context.h"
#include "dockerfile/conda.h"
#include "dockerfile/file_ops.h"
#include "dockerfile/pip.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {

// A RUN, or part of one, that is not read (defined below).
void Unread(const Context& ctx, const Instruction& inst, ImageModel& image, const std::string& reason);
namespace {

// What the last echo/printf of the script printed: the text a following
// `| tee FILE` writes.
struct Printed {
  std::string text;
  bool exact = true;
};

void Echo(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
          const std::string& tool, Printed& printed) {
  const auto& w = command.words;
  printed = {};
  for (size_t i = 1; i < w.size(); ++i) {
    if (tool == "echo" && i == 1 && (w[i].value == "-e" || w[i].value == "-n")) continue;
    printed.text += (printed.text.empty() ? "" : " ") + w[i].value;
    printed.exact = printed.exact && w[i].exact;
  }
  if (tool == "printf") {
    std::string expanded;
    for (size_t i = 0; i < printed.text.size(); ++i) {
      if (printed.text[i] == '\\' && i + 1 < printed.text.size() && printed.text[i + 1] == 'n') {
        expanded.push_back('\n');
        ++i;
      } else {
        expanded.push_back(printed.text[i]);
      }
    }
    printed.text = std::move(expanded);
  }
  for (const ShellRedirect& r : command.redirects)
    if (r.op == ">" || r.op == ">>") WriteLdSoConf(ctx, inst, image, r.target, printed.text, printed.exact, r.op == ">");
}

void Tee(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
         const Printed& printed) {
  const auto& w = command.words;
  bool append = false;
  for (size_t i = 1; i < w.size(); ++i) {
    if (w[i].value == "-a" || w[i].value == "--append") append = true;
    else if (!StartsWith(w[i].value, "-")) WriteLdSoConf(ctx, inst, image, w[i], printed.text, printed.exact, !append);
  }
}

void Installer(const Context& ctx, const Instruction& inst, ImageModel& image, const std::string& file) {
  ctx.Unknown(image, inst, "cuda.drivers", "runs installer " + file + ": what it installs is not read");
  ctx.Unknown(image, inst, "cuda.runtimes", "runs installer " + file + ": what it installs is not read");
  ctx.Unknown(image, inst, "binaries", "runs installer " + file + ": what it installs is not read");
}

// A command none of the readers above took that still runs a Python package
// installer (`pip install` behind a wrapper nothing here knows): what it
// installs is unknown, never "nothing".
bool RunsPackageInstall(const ShellCommand& command) {
  bool installer = false;
  for (const ShellWord& word : command.words) {
    const std::string base = BaseName(word.value);
    if (StartsWith(base, "pip") || base == "uv" || base == "conda" || base == "mamba" || base == "micromamba")
      installer = true;
    else if (installer && (word.value == "install" || word.value == "sync")) return true;
  }
  return false;
}

std::string CommandText(const ShellCommand& command) {
  std::string text;
  for (const ShellWord& word : command.words) text += (text.empty() ? "" : " ") + word.value;
  return text;
}

// One simple command.
Status Command(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
               Printed& printed) {
  const auto& w = command.words;
  std::string tool = BaseName(w[0].value);
  // `poetry export -o requirements.txt`, `pip-compile`: a file a later `pip install -r` reads.
  if (ApplyRequirementsExport(ctx, inst, image, command)) return OkStatus();
  // python -m pip / uv pip / pip3... Only a Python interpreter runs `-m pip`,
  // whatever it is called ($PYTHON, /opt/py/bin/python3.11, py).
  if (w.size() > 2 && w[1].value == "-m" && (w[2].value == "pip" || w[2].value == "pip3"))
    return ApplyPip(ctx, inst, image, command, 3, false);
  if (tool == "uv" && w.size() > 1 && w[1].value == "pip") return ApplyPip(ctx, inst, image, command, 2, true);
  if (StartsWith(tool, "pip") && tool != "pipenv") return ApplyPip(ctx, inst, image, command, 1, false);
  if (ApplyLockedInstall(ctx, inst, image, command)) return OkStatus();
  if (tool == "conda" || tool == "mamba" || tool == "micromamba") return ApplyConda(ctx, inst, image, command);
  if (IsSystemPackageManager(tool)) return ApplyApt(ctx, inst, image, command);
  if (tool == "dpkg") return ApplyDpkg(ctx, inst, image, command);
  if (tool == "cd" && w.size() == 2 && w[1].exact && w[1].value != "-") {
    // Where a later pip of this RUN reads `-r file` and `.` from.
    const std::string& dir = w[1].value;
    image.run_cwd = NormalPath(StartsWith(dir, "/") ? dir : image.run_cwd + "/" + dir);
    return OkStatus();
  }
  if (tool == "rm") return ApplyRemove(ctx, inst, image, command);
  if (tool == "ln") return ApplyLink(ctx, inst, image, command);
  if (tool == "mv") return ApplyMove(ctx, inst, image, command);
  if (tool == "cp" || tool == "rsync") {
    // Copies of CUDA libraries are not followed: where they land, the loader may find them.
    for (size_t i = 1; i < w.size(); ++i)
      if (w[i].value.find("libcuda") != std::string::npos || StartsWith(w[i].value, "/usr/local/cuda")) {
        std::string what = tool + " copies " + w[i].value.substr(0, 200) + ": the copies are not followed";
        ctx.Unknown(image, inst, "cuda.drivers", what);
        ctx.Unknown(image, inst, "cuda.runtimes", what);
        break;
      }
    return OkStatus();
  }
  if (tool == "echo" || tool == "printf") {
    Echo(ctx, inst, image, command, tool, printed);
    return OkStatus();
  }
  if (tool == "tee") {
    Tee(ctx, inst, image, command, printed);
    return OkStatus();
  }
  if (ApplyBuildCode(ctx, inst, image, command)) return OkStatus();
  if (tool == "curl" || tool == "wget") {
    for (const auto& word : w)
      if (EndsWith(word.value, ".run") || word.value.find("cuda-repo") != std::string::npos)
        ctx.AddNote(image, inst, "downloads " + word.value.substr(0, 400) + ": installers run from it are not read");
    return OkStatus();
  }
  if (ctx.knowledge.commands().IsPosixShell(tool) && w.size() > 1 && EndsWith(w[1].value, ".run")) Installer(ctx, inst, image, w[1].value.substr(0, 400));
  else if (EndsWith(tool, ".run")) Installer(ctx, inst, image, tool.substr(0, 400));
  else if (RunsPackageInstall(command))
    Unread(ctx, inst, image, "`" + CommandText(command).substr(0, 200) + "` installs Python packages in a way imagelint does not read");
  return OkStatus();
}

}  // namespace

std::string StripHeredocMarkers(std::string_view line) {
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; };
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line.compare(i, 2, "<<") == 0) {
      size_t j = i + 2;
      if (j < line.size() && line[j] == '-') ++j;
      else
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;  // `<< 'EOF'` (parser.cpp FindHeredocs)
      if (j < line.size() && (line[j] == '"' || line[j] == '\'')) ++j;
      size_t name = j;
      while (j < line.size() && name_char(line[j])) ++j;
      if (j > name) {
        if (j < line.size() && (line[j] == '"' || line[j] == '\'')) ++j;
        i = j;
        continue;
      }
    }
    out.push_back(line[i++]);
  }
  return out;
}

RunScripts ScriptsOf(const Instruction& inst, char escape, const CommandKnowledge& commands) {
  RunScripts out;
  if (inst.json_form) {
    // ["/bin/sh", "-c", "..."] or ["pip", "install", ...]: quoted back into one command.
    std::string joined;
    for (const std::string& arg : inst.json_arguments) {
      std::string quoted = "'";
      for (char c : arg) {
        if (c == '\'') quoted += "'\\''";
        else quoted.push_back(c);
      }
      joined += quoted + "' ";
    }
    out.scripts.push_back(joined);
    return out;
  }
  if (inst.heredocs.empty()) {
    out.scripts.push_back(inst.arguments);
    return out;
  }
  // `RUN <<EOF` runs the body as a script; `RUN bash <<EOF` feeds it to a shell.
  std::string without = StripHeredocMarkers(inst.arguments);
  auto words = SplitKeepingQuotes(without, escape);
  bool shell_body = words.empty() || commands.IsPosixShell(BaseName(words[0]));
  if (!words.empty() && !shell_body) out.scripts.push_back(without);
  for (const Heredoc& doc : inst.heredocs) {
    if (shell_body) out.scripts.push_back(doc.body);
    // `cat > app.py <<EOF`: the body is a file's content, not commands.
    else if (!commands.IsDataWriter(BaseName(words[0]))) out.unread.push_back(words[0]);
  }
  return out;
}

// A RUN (or part of one) that is not read may install anything: the lists it
// could change are no longer complete, so "no CUDA runtime" is not decided.
void Unread(const Context& ctx, const Instruction& inst, ImageModel& image, const std::string& reason) {
  ctx.Unknown(image, inst, "RUN", reason);
  ctx.Unknown(image, inst, "cuda.runtimes", reason + ": a CUDA runtime it installs would not be seen");
  ctx.Unknown(image, inst, "frameworks", reason);
  ctx.Unknown(image, inst, "binaries", reason);
  image.frameworks_partial = true;
}

Status ApplyStartCommand(const Context& ctx, const Instruction& inst, ImageModel& image) {
  if (image.non_posix_shell && !inst.json_form) return OkStatus();
  image.run_cwd = image.workdir;
  RunScripts run = ScriptsOf(inst, ctx.file.escape, ctx.knowledge.commands());
  auto vars = image.Vars();
  for (const std::string& script : run.scripts)
    for (const ShellCommand& command : ParseShell(script, vars, ctx.knowledge.commands()).commands) {
      if (command.words.empty()) continue;
      // What a runner installs for its command (`uv run --with X`) happens at start too.
      if (command.runner_sync && command.words.size() > 2 && command.words[1].value == "pip")
        IMAGELINT_TRY(ApplyPip(ctx, inst, image, command, 2, BaseName(command.words[0].value) == "uv"));
      else
        (void)ApplyLockedInstall(ctx, inst, image, command);
    }
  return OkStatus();
}

Status ApplyRun(const Context& ctx, const Instruction& inst, ImageModel& image) {
  if (image.non_posix_shell && !inst.json_form) {
    Unread(ctx, inst, image, "command for a non-POSIX SHELL not read");
    return OkStatus();
  }
  image.run_cwd = image.workdir;
  StartRun(image);
  RunScripts run = ScriptsOf(inst, ctx.file.escape, ctx.knowledge.commands());
  for (const std::string& program : run.unread) Unread(ctx, inst, image, "heredoc fed to " + program.substr(0, 200) + " not read");
  auto vars = image.Vars();
  for (const std::string& script : run.scripts) {
    ShellScript parsed = ParseShell(script, vars, ctx.knowledge.commands());
    if (parsed.truncated) Unread(ctx, inst, image, "script over the command limit; the rest was not read");
    Printed printed;
    for (const ShellCommand& command : parsed.commands) {
      if (command.words.empty()) continue;
      IMAGELINT_TRY(Command(ctx, inst, image, command, printed));
    }
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
