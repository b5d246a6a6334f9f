// RUN: which script a RUN instruction runs, read as POSIX shell
// (dockerfile/shell.h), and which concern each simple command belongs to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

Status ApplyRun(const Context& context, const Instruction& inst, ImageModel& image);

// CMD and ENTRYPOINT: what the container runs at start. An installer that
// syncs an environment before it runs the program (`uv run`, `pixi run`, or
// `poetry install && ...` in the shell form) changes what the process loads,
// so it is read as the same install in a RUN would be; nothing else in the
// command is.
Status ApplyStartCommand(const Context& context, const Instruction& inst, ImageModel& image);

// The scripts a RUN runs: the shell form's text; the exec form quoted back
// into one command; heredoc bodies when the command is a shell (or none),
// else the command line without the heredoc markers (a shell is a program of
// the posix_shells rows). Heredocs fed to a program that only copies its
// input to a file (data_writers: cat, tee) are file content, not commands;
// those fed to any other program are listed in `unread` (its name).
struct RunScripts {
  std::vector<std::string> scripts;
  std::vector<std::string> unread;
};
RunScripts ScriptsOf(const Instruction& inst, char escape, const CommandKnowledge& commands);

// `RUN python3 <<EOF arg` -> `RUN python3  arg`: every `<<[-]["']NAME["']` removed.
std::string StripHeredocMarkers(std::string_view line);

}  // namespace imagelint::dockerfile
