// A small POSIX-shell reader for RUN commands: splits a script into simple
// commands (at &&, ||, ;, |, &, newlines, parentheses), words (quotes,
// backslashes) and redirections, expanding $VAR / ${VAR...} from the build's
// ARG and ENV values. It does not run anything and does not try to be bash:
// a word whose value it cannot compute (command substitution, an unset
// variable, $@) is marked inexact so the facts builder leaves it unknown.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace imagelint {
struct CommandKnowledge;  // include/imagelint/image_knowledge.h
}

namespace imagelint::dockerfile {

struct ShellWord {
  std::string value;
  bool exact = true;    // false: part of the value could not be computed
  bool quoted = false;  // some part was quoted (globs inside are literal)
};

struct ShellRedirect {
  std::string op;  // ">", ">>", "<", "2>", "&>"...
  ShellWord target;
};

struct ShellCommand {
  std::vector<ShellWord> words;  // assignments and wrappers (sudo, env) already removed
  std::vector<ShellRedirect> redirects;
  bool inexact_structure = false;  // control flow the reader does not follow (if/for/case bodies)
  // The sync a runner does before its command (`uv run` -> `uv sync`): where
  // no project is found it syncs nothing, where `uv sync` would fail.
  bool runner_sync = false;
  // What the script adds to the command's environment (exact values only):
  // variables it exported so far and the command's own `NAME=value` prefix.
  // ARG and ENV values come on top of these from the image.
  std::map<std::string, std::string> env;
};

struct ShellScript {
  std::vector<ShellCommand> commands;
  bool truncated = false;  // hit a limit; later commands are missing
};

// `commands`: the shells and command runners the reader follows
// (Knowledge::commands(), rules/knowledge/commands.yaml).
ShellScript ParseShell(std::string_view script, const std::map<std::string, std::string>& vars,
                       const CommandKnowledge& commands, size_t max_commands = 4096, int depth = 0);

}  // namespace imagelint::dockerfile
