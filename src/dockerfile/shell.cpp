#include "dockerfile/shell.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "common/text.h"
#include "imagelint/dockerfile.h"
#include "imagelint/image_knowledge.h"

namespace imagelint::dockerfile {
namespace {

// Programs that run the rest of their words as a command (`conda run -n env
// pip install ...`, `gosu app pip ...`, `xargs pip install`) are rows of
// commands.yaml's command_runners; the command they run is read as if it
// stood alone. `words[start]` is the runner when FindRunner says so.
const CommandRunner* FindRunner(const CommandKnowledge& commands, const std::vector<ShellWord>& words, size_t start) {
  return commands.FindRunner(BaseName(words[start].value), start + 1 < words.size() ? words[start + 1].value : "");
}

// Where the command a runner starts begins (words.size() when it names none).
size_t CommandAfter(const CommandRunner& runner, const std::vector<ShellWord>& words, size_t start) {
  size_t k = start + (runner.subcommand.empty() ? 1 : 2);
  while (k < words.size()) {
    const std::string& word = words[k].value;
    if (word == "--") return k + 1;
    if (word.size() < 2 || word[0] != '-') break;
    bool valued = word.find('=') == std::string::npos &&
                  std::find(runner.valued_options.begin(), runner.valued_options.end(), word) != runner.valued_options.end();
    k += valued ? 2 : 1;
  }
  return std::min(words.size(), k + static_cast<size_t>(runner.positionals));
}



class Reader {
 public:
  Reader(std::string_view text, const std::map<std::string, std::string>& vars, const CommandKnowledge& commands)
      : text_(text), vars_(vars), commands_(commands) {}

  // Reads the whole script into `out`.
  void Run(ShellScript& out, size_t max_commands, int depth) {
    ShellCommand current;
    bool pending_redirect = false;
    std::string redirect_op;
    auto finish = [&]() {
      Normalize(current, out, max_commands, depth);
      current = ShellCommand{};
    };
    while (pos_ < text_.size()) {
      if (out.commands.size() >= max_commands) {
        out.truncated = true;
        return;
      }
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
        pos_ += 2;
        continue;
      }
      if (c == '#') {  // comment at a word start
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
        // `2>&1`, `>&2` are read as redirections below; here only separators.
        ++pos_;
        if ((c == '&' || c == '|' || c == ';') && pos_ < text_.size() && text_[pos_] == c) ++pos_;
        finish();
        continue;
      }
      // Redirections: [n]>, >>, <, &>, >&n, <<< word.
      size_t save = pos_;
      size_t digits = pos_;
      while (digits < text_.size() && std::isdigit(static_cast<unsigned char>(text_[digits]))) ++digits;
      if (digits < text_.size() && (text_[digits] == '>' || text_[digits] == '<')) {
        pos_ = digits;
        std::string op(text_.substr(save, digits - save));
        while (pos_ < text_.size() && (text_[pos_] == '>' || text_[pos_] == '<' || text_[pos_] == '|')) {
          op.push_back(text_[pos_]);
          ++pos_;
        }
        if (pos_ < text_.size() && text_[pos_] == '&') {  // >&2
          ++pos_;
          while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-'))
            ++pos_;
          continue;
        }
        pending_redirect = true;
        redirect_op = op;
        continue;
      }
      if (c == '&' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
        pos_ += 2;
        pending_redirect = true;
        redirect_op = "&>";
        continue;
      }
      ShellWord word = ReadWord();
      if (pending_redirect) {
        current.redirects.push_back({redirect_op, std::move(word)});
        pending_redirect = false;
      } else {
        current.words.push_back(std::move(word));
      }
    }
    finish();
  }

 private:
  // `V='torch=='$X'.*'` or `export V=...` alone on a command sets V for the
  // rest of the script (the words after it are read once this returns). An
  // inexact value forgets V, so later uses of it are inexact too.
  void Assign(const std::vector<ShellWord>& words) {
    size_t first = !words.empty() && !words[0].quoted && words[0].value == "export" ? 1 : 0;
    if (first >= words.size()) return;
    std::vector<std::pair<std::string, const ShellWord*>> assignments;
    for (size_t k = first; k < words.size(); ++k) {
      const std::string& w = words[k].value;
      size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0 || !IsVariableNameStart(w[0])) return;  // a command, not assignments
      for (size_t n = 0; n < eq; ++n)
        if (!IsVariableNameChar(w[n])) return;
      assignments.emplace_back(w.substr(0, eq), &words[k]);
    }
    for (const auto& [name, word] : assignments) {
      if (word->exact) vars_[name] = word->value.substr(name.size() + 1);
      else vars_.erase(name);
      if (first == 1 && word->exact) exports_[name] = word->value.substr(name.size() + 1);
      else if (first == 1) exports_.erase(name);
    }
  }

  // `uv run --project P cmd`: `uv sync --project P` first (flagged as a
  // runner's sync: no project there means nothing is synced), unless an
  // option says it syncs nothing.
  static void SyncFirst(const CommandRunner& runner, const std::vector<ShellWord>& words, size_t start, size_t after,
                        const ShellCommand& command, ShellScript& out) {
    ShellCommand sync;
    sync.env = command.env;
    sync.runner_sync = true;
    sync.words.push_back(words[start]);
    sync.words.push_back(ShellWord{runner.syncs_with, true, false});
    for (size_t k = start + 2; k < after && k < words.size(); ++k) {
      const std::string option = words[k].value.substr(0, words[k].value.find('='));
      if (std::find(runner.no_sync_options.begin(), runner.no_sync_options.end(), option) != runner.no_sync_options.end())
        return;
      sync.words.push_back(words[k]);
    }
    out.commands.push_back(std::move(sync));
  }

  // `uv run --with torch==2.4,numpy cmd`: the packages are installed for the
  // command, read as `uv pip install torch==2.4 numpy` (runner_sync: in CMD
  // it happens at container start, as the sync does).
  static void InstallsWith(const CommandRunner& runner, const std::vector<ShellWord>& words, size_t start, size_t after,
                           const ShellCommand& command, ShellScript& out) {
    if (runner.installs_with.empty()) return;
    ShellCommand install;
    install.env = command.env;
    install.runner_sync = true;
    install.words.push_back(words[start]);
    install.words.push_back(ShellWord{"pip", true, false});
    install.words.push_back(ShellWord{"install", true, false});
    const size_t base = install.words.size();
    for (size_t k = start + 2; k < after && k < words.size(); ++k) {
      const std::string& word = words[k].value;
      const std::string option = word.substr(0, word.find('='));
      if (std::find(runner.installs_with.begin(), runner.installs_with.end(), option) == runner.installs_with.end())
        continue;
      ShellWord value = word.find('=') != std::string::npos ? ShellWord{word.substr(word.find('=') + 1), words[k].exact, words[k].quoted}
                        : k + 1 < after && k + 1 < words.size() ? words[++k] : ShellWord{"", false, false};
      for (const std::string& requirement : SplitOn(value.value, ','))
        if (!Trim(requirement).empty()) install.words.push_back(ShellWord{Trim(requirement), value.exact, true});
    }
    if (install.words.size() > base) out.commands.push_back(std::move(install));
  }

  // Strips assignments, wrappers and reserved words; expands `sh -c SCRIPT`.
  void Normalize(ShellCommand& command, ShellScript& out, size_t max_commands, int depth) {
    auto& words = command.words;
    Assign(words);
    command.env = exports_;
    size_t start = 0;
    static const char* kReserved[] = {"then", "do", "else", "elif", "{", "!", "if", "while", "until", "}"};
    for (;;) {
      if (start >= words.size()) break;
      const std::string& w = words[start].value;
      bool reserved = false;
      for (const char* r : kReserved) reserved = reserved || (!words[start].quoted && w == r);
      if (reserved) {
        if (w != "{" && w != "}" && w != "!") command.inexact_structure = true;
        ++start;
        continue;
      }
      size_t eq = w.find('=');
      if (eq != std::string::npos && eq > 0 && IsVariableNameStart(w[0])) {
        bool name = true;
        for (size_t k = 0; k < eq; ++k) name = name && IsVariableNameChar(w[k]);
        if (name) {
          if (words[start].exact) command.env[w.substr(0, eq)] = w.substr(eq + 1);
          else command.env.erase(w.substr(0, eq));
          ++start;
          continue;
        }
      }
      std::string base = BaseName(w);
      // The shell's own prefixes (builtins and the `time` reserved word): grammar, not table rows.
      if (base == "time" || base == "exec" || base == "command") {
        ++start;
        while (start < words.size() && words[start].value.size() > 1 && words[start].value[0] == '-') ++start;
        continue;
      }
      if (base == "env") {
        ++start;
        while (start < words.size() && !words[start].value.empty() && words[start].value[0] == '-') ++start;
        continue;
      }
      if (const CommandRunner* runner = FindRunner(commands_, words, start)) {
        const size_t after = CommandAfter(*runner, words, start);
        if (!runner->syncs_with.empty()) SyncFirst(*runner, words, start, after, command, out);
        InstallsWith(*runner, words, start, after, command, out);
        start = after;
        // Arguments from standard input: one more word nothing can read.
        if (runner->input_arguments) words.push_back(ShellWord{"", false, false});
        continue;
      }
      // `su [USER] -c SCRIPT`, `runuser -u USER -- COMMAND`: the script or command.
      if ((base == "su" || base == "runuser") && depth < 4) {
        for (size_t k = start + 1; k < words.size(); ++k) {
          if ((words[k].value == "-c" || words[k].value == "--command") && k + 1 < words.size()) {
            Nested(words[k + 1], out, max_commands, depth);
            return;
          }
          if (words[k].value == "--") {
            start = k + 1;
            break;
          }
        }
        if (start < words.size() && BaseName(words[start].value) == base) start = words.size();
        continue;
      }
      break;
    }
    words.erase(words.begin(), words.begin() + static_cast<long>(start));
    if (words.empty()) return;
    std::string base = BaseName(words[0].value);
    if (commands_.IsPosixShell(base) && depth < 4) {  // posix_shells (commands.yaml)
      for (size_t k = 1; k + 1 < words.size(); ++k) {
        const std::string& flag = words[k].value;
        if (flag.size() >= 2 && flag[0] == '-' && flag.find('c') != std::string::npos) {
          Nested(words[k + 1], out, max_commands, depth);
          return;
        }
      }
    }
    out.commands.push_back(std::move(command));
  }

  // The commands of a script given as one word (`sh -c SCRIPT`, `su -c SCRIPT`).
  void Nested(const ShellWord& script, ShellScript& out, size_t max_commands, int depth) {
    ShellScript nested = ParseShell(script.value, vars_, commands_, max_commands, depth + 1);
    for (auto& inner : nested.commands) {
      if (!script.exact)
        for (auto& w : inner.words) w.exact = false;
      out.commands.push_back(std::move(inner));
    }
    out.truncated = out.truncated || nested.truncated;
  }

  // A `$` or a backquote at pos_ starts an expansion: read into `word`
  // (true), or any other character is not one (false).
  bool Expansion(char c, ShellWord& word) {
    if (c == '`') SkipCommandSubstitution(word);
    else if (c == '$') Variable(word);
    else return false;
    return true;
  }

  // Skips a balanced $( ... ) or `...`; the word becomes inexact.
  void SkipCommandSubstitution(ShellWord& word) {
    word.exact = false;
    if (text_[pos_] == '`') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '`') pos_ += text_[pos_] == '\\' ? 2 : 1;
      if (pos_ < text_.size()) ++pos_;
      return;
    }
    pos_ += 2;  // "$("
    int depth = 1;
    while (pos_ < text_.size() && depth > 0) {
      char c = text_[pos_];
      if (c == '\\') {
        pos_ += 2;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')') --depth;
      ++pos_;
    }
  }

  void Variable(ShellWord& word) {
    // pos_ at '$'
    if (pos_ + 1 >= text_.size()) {
      word.value.push_back('$');
      ++pos_;
      return;
    }
    char next = text_[pos_ + 1];
    if (next == '(' || next == '`') {
      SkipCommandSubstitution(word);
      return;
    }
    if (next == '{') {
      size_t end = pos_ + 2;
      int depth = 1;
      while (end < text_.size() && depth > 0) {
        if (text_[end] == '{') ++depth;
        if (text_[end] == '}') --depth;
        ++end;
      }
      std::string_view expr = text_.substr(pos_, end - pos_);
      pos_ = end;
      auto expanded = ExpandWord(expr, vars_, '\\');
      if (!expanded.ok() || !expanded->exact || !expanded->unresolved.empty()) {
        word.exact = false;
        if (expanded.ok()) word.value += expanded->value;
        return;
      }
      word.value += expanded->value;
      return;
    }
    if (IsVariableNameStart(next)) {
      size_t end = pos_ + 1;
      while (end < text_.size() && IsVariableNameChar(text_[end])) ++end;
      std::string name(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end;
      auto it = vars_.find(name);
      if (it == vars_.end()) word.exact = false;
      else word.value += it->second;
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(next)) || next == '@' || next == '*' || next == '#' || next == '?' ||
        next == '$' || next == '!' || next == '-') {
      word.exact = false;
      pos_ += 2;
      return;
    }
    word.value.push_back('$');
    ++pos_;
  }

  ShellWord ReadWord() {
    ShellWord word;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
          c == ')' || c == '<' || c == '>')
        break;
      if (c == '\\') {
        if (pos_ + 1 < text_.size()) {
          if (text_[pos_ + 1] != '\n') word.value.push_back(text_[pos_ + 1]);
          pos_ += 2;
        } else {
          ++pos_;
        }
        continue;
      }
      if (c == '\'') {
        word.quoted = true;
        size_t end = text_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) {
          word.exact = false;
          word.value.append(text_.substr(pos_ + 1));
          pos_ = text_.size();
          break;
        }
        word.value.append(text_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
        continue;
      }
      if (c == '"') {
        word.quoted = true;
        ++pos_;
        bool closed = false;
        while (pos_ < text_.size()) {
          char d = text_[pos_];
          if (d == '"') {
            ++pos_;
            closed = true;
            break;
          }
          if (d == '\\' && pos_ + 1 < text_.size()) {
            char e = text_[pos_ + 1];
            if (e == '$' || e == '"' || e == '\\' || e == '`') word.value.push_back(e);
            else if (e != '\n') {
              word.value.push_back('\\');
              word.value.push_back(e);
            }
            pos_ += 2;
            continue;
          }
          if (Expansion(d, word)) continue;
          word.value.push_back(d);
          ++pos_;
        }
        if (!closed) word.exact = false;
        continue;
      }
      if (Expansion(c, word)) continue;
      word.value.push_back(c);
      ++pos_;
    }
    return word;
  }

  std::string_view text_;
  // The build's ARG/ENV values, then the script's own assignments as it goes.
  std::map<std::string, std::string> vars_;
  std::map<std::string, std::string> exports_;  // exported by the script so far
  const CommandKnowledge& commands_;            // posix_shells, command_runners (commands.yaml)
  size_t pos_ = 0;
};

}  // namespace

ShellScript ParseShell(std::string_view script, const std::map<std::string, std::string>& vars,
                       const CommandKnowledge& commands, size_t max_commands, int depth) {
  ShellScript out;
  Reader reader(script, vars, commands);
  reader.Run(out, max_commands, depth);
  return out;
}

}  // namespace imagelint::dockerfile
