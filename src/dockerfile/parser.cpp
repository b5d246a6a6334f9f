// Dockerfile syntax: directives, continuations, heredocs, flags, JSON form,
// stages, inline suppressions, and ARG/ENV word expansion. Follows BuildKit's
// frontend/dockerfile/parser and shell lexer where they differ from the
// legacy builder (heredocs, `# check=` directive).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <filesystem>

#include "common/file_text.h"
#include "common/json.h"
#include "common/lines.h"
#include "common/text.h"
#include "imagelint/dockerfile.h"

namespace imagelint::dockerfile {
namespace {

const std::set<std::string, std::less<>> kKeywords = {
    "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
    "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"};
const std::set<std::string, std::less<>> kNeedArguments = {"FROM", "RUN", "COPY", "ADD", "ENV", "ARG",
                                                           "WORKDIR", "USER", "LABEL", "ONBUILD",
                                                           "SHELL", "STOPSIGNAL", "MAINTAINER"};
const std::set<std::string, std::less<>> kTakesFlags = {"FROM", "RUN", "COPY", "ADD", "HEALTHCHECK"};

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
bool IsBlank(char c) { return c == ' ' || c == '\t'; }
std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (IsBlank(s.front()) || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  return s;
}
std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}
std::string_view TrimBlanks(std::string_view s) { return TrimRight(TrimLeft(s)); }

struct PhysicalLine {
  std::string_view text;
  int number = 0;
};

// `# key=value` at the very top of the file.
bool ParseDirective(std::string_view line, std::string& key, std::string& value) {
  line = TrimBlanks(line);
  if (line.empty() || line.front() != '#') return false;
  line.remove_prefix(1);
  line = TrimLeft(line);
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  std::string_view k = TrimRight(line.substr(0, eq));
  if (k.empty() || !std::all_of(k.begin(), k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
    return false;
  key = Lower(k);
  value = std::string(TrimBlanks(line.substr(eq + 1)));
  return true;
}

// Whether a physical line continues onto the next: ends with the escape
// character, possibly followed by blanks.
bool Continues(std::string_view line, char escape, std::string_view& without) {
  std::string_view t = TrimRight(line);
  if (t.empty() || t.back() != escape) return false;
  without = t.substr(0, t.size() - 1);
  return true;
}

// Heredoc markers (`<<EOF`, `<<-EOF`, `<<"EOF"`) in a RUN/COPY/ADD line,
// outside quotes. Returns {delimiter, strip_tabs, quoted} in order.
std::vector<Heredoc> FindHeredocs(std::string_view text, char escape) {
  std::vector<Heredoc> out;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == escape && quote != '\'') {
      ++i;
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c != '<' || i + 1 >= text.size() || text[i + 1] != '<') continue;
    if (i + 2 < text.size() && text[i + 2] == '<') {  // <<< here-string
      i += 2;
      continue;
    }
    size_t j = i + 2;
    Heredoc doc;
    if (j < text.size() && text[j] == '-') {
      doc.strip_tabs = true;
      ++j;
    } else {
      // BuildKit's lexer takes blanks right after `<<` into the word, so
      // `<< 'EOF'` is a heredoc too (not `<<- EOF`: the blanks must follow
      // `<<` itself; frontend/dockerfile/shell/lex.go processPossibleHeredoc).
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
    }
    char q = 0;
    if (j < text.size() && (text[j] == '"' || text[j] == '\'')) {
      q = text[j];
      doc.quoted = true;
      ++j;
    }
    size_t start = j;
    while (j < text.size() && (IsVariableNameChar(text[j]) || text[j] == '-' || text[j] == '.')) ++j;
    if (j == start) continue;
    doc.delimiter = std::string(text.substr(start, j - start));
    if (q) {
      if (j >= text.size() || text[j] != q) continue;
      ++j;
    }
    out.push_back(doc);
    i = j - 1;
  }
  return out;
}

struct Suppressions {
  std::vector<InlineSuppression> pending;
  std::vector<InlineSuppression> done;
};

// `# imagelint ignore=IL001,IL002 reason` / `# imagelint global ignore=...`.
void ParsePragma(std::string_view comment, const std::string& path, int line, Suppressions& out) {
  comment = TrimLeft(comment.substr(1));  // drop '#'
  if (comment.substr(0, 9) != "imagelint") return;
  comment = TrimLeft(comment.substr(9));
  bool global = false;
  if (comment.substr(0, 6) == "global") {
    global = true;
    comment = TrimLeft(comment.substr(6));
  }
  if (comment.substr(0, 7) != "ignore=") return;
  comment.remove_prefix(7);
  size_t end = 0;
  while (end < comment.size() && !IsBlank(comment[end])) ++end;
  InlineSuppression s;
  std::string_view list = comment.substr(0, end);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view id = TrimBlanks(list.substr(start, comma - start));
    if (!id.empty()) s.rules.emplace_back(id);
    start = comma + 1;
  }
  if (s.rules.empty()) return;
  std::string_view reason = TrimBlanks(comment.substr(end));
  // tally's `;reason=` style is accepted too.
  if (reason.substr(0, 7) == "reason=") reason.remove_prefix(7);
  s.reason = std::string(reason);
  s.file = path;
  s.line = line;
  if (global) out.done.push_back(std::move(s));
  else out.pending.push_back(std::move(s));
}

// Splits leading `--flag[=value]` words off an instruction's arguments.
std::string_view TakeFlags(std::string_view rest, std::vector<Flag>& flags) {
  rest = TrimLeft(rest);
  while (rest.substr(0, 2) == "--") {
    size_t end = 0;
    char quote = 0;
    while (end < rest.size()) {
      char c = rest[end];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (IsBlank(c)) {
        break;
      }
      ++end;
    }
    std::string_view word = rest.substr(2, end - 2);
    size_t eq = word.find('=');
    Flag flag;
    flag.name = Lower(word.substr(0, eq));
    if (eq != std::string_view::npos) flag.value = std::string(word.substr(eq + 1));
    flags.push_back(std::move(flag));
    rest = TrimLeft(rest.substr(end));
  }
  return rest;
}

std::vector<std::string> SplitBlanks(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !IsBlank(text[i])) ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

}  // namespace

Result<Dockerfile> ParseDockerfile(std::string_view text, const std::string& path, const ParseLimits& limits) {
  if (text.size() > limits.max_bytes)
    return MakeError(path, "Dockerfile is " + std::to_string(text.size()) + " bytes, over the limit of " +
                               std::to_string(limits.max_bytes));
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM

  std::vector<PhysicalLine> lines;
  {
    size_t pos = 0;
    int number = 1;
    std::string_view line;
    while (NextLine(text, pos, line)) {
      if (line.size() > limits.max_line_length)
        return MakeErrorAtLine(path, number, 1,
                               "line is " + std::to_string(line.size()) + " bytes, over the limit of " +
                                   std::to_string(limits.max_line_length));
      size_t nul = line.find('\0');
      if (nul != std::string_view::npos)
        return MakeErrorAtLine(path, number, static_cast<int>(nul) + 1, "NUL byte: not a Dockerfile");
      lines.push_back({line, number});
      ++number;
    }
  }

  Dockerfile file;
  file.path = path;
  size_t i = 0;
  // Parser directives: only before anything else, each at most once.
  std::set<std::string> seen_directives;
  for (; i < lines.size(); ++i) {
    std::string key, value;
    if (!ParseDirective(lines[i].text, key, value)) break;
    if (key != "escape" && key != "syntax" && key != "check") break;  // an ordinary comment ends directives
    if (!seen_directives.insert(key).second)
      return MakeErrorAtLine(path, lines[i].number, 1, "only one \"" + key + "\" parser directive is allowed");
    if (key == "escape") {
      if (value != "\\" && value != "`")
        return MakeErrorAtLine(path, lines[i].number, 1, "invalid escape directive \"" + value + "\": must be ` or \\");
      file.escape = value.front();
    } else if (key == "syntax") {
      file.syntax = value;
    }
  }
  const char escape = file.escape;

  Suppressions suppressions;
  bool seen_from = false;
  for (; i < lines.size(); ++i) {
    std::string_view line = TrimLeft(lines[i].text);
    if (line.empty()) continue;
    if (line.front() == '#') {
      ParsePragma(line, path, lines[i].number, suppressions);
      continue;
    }
    Instruction inst;
    inst.line = lines[i].number;
    inst.column = static_cast<int>(lines[i].text.size() - line.size()) + 1;

    // Join continuation lines; comment and empty lines inside are dropped.
    std::string logical;
    std::string_view without;
    std::string_view current = lines[i].text;
    size_t joined = 1;
    while (Continues(current, escape, without)) {
      logical.append(without);
      ++i;
      while (i < lines.size()) {
        std::string_view t = TrimLeft(lines[i].text);
        if (!t.empty() && t.front() != '#') break;
        ++i;
      }
      if (i >= lines.size()) {
        current = {};
        break;
      }
      if (++joined > limits.max_logical_lines)
        return MakeErrorAtLine(path, inst.line, inst.column,
                               "instruction continues over more than " + std::to_string(limits.max_logical_lines) +
                                   " lines");
      current = lines[i].text;
    }
    logical.append(current);
    inst.end_line = i < lines.size() ? lines[i].number : lines.back().number;

    std::string_view body = TrimLeft(std::string_view(logical));
    size_t word_end = 0;
    while (word_end < body.size() && !IsBlank(body[word_end])) ++word_end;
    std::string_view keyword_text = body.substr(0, word_end);
    inst.keyword = Upper(keyword_text);
    if (!kKeywords.count(inst.keyword)) {
      // git writes these lines around the two sides of a conflict it could
      // not merge; BuildKit stops on them as on any unknown word.
      const bool conflict_marker = keyword_text.starts_with("<<<<<<<") || keyword_text.starts_with(">>>>>>>") ||
                                   keyword_text == "=======";
      return MakeErrorAtLine(path, inst.line, inst.column,
                             "unknown instruction: " + std::string(keyword_text.substr(0, 64)) +
                                 (conflict_marker ? " (an unresolved git merge conflict: docker build stops here too)"
                                                  : ""));
    }
    std::string_view rest = TrimLeft(body.substr(word_end));
    inst.original = std::string(TrimRight(body));
    if (kTakesFlags.count(inst.keyword)) rest = TakeFlags(rest, inst.flags);
    inst.arguments = std::string(TrimRight(rest));
    if (inst.arguments.empty() && kNeedArguments.count(inst.keyword))
      return MakeErrorAtLine(path, inst.line, inst.column, inst.keyword + " requires at least one argument");

    // Exec (JSON) form; invalid JSON falls back to shell form, as in BuildKit.
    if (!inst.arguments.empty() && inst.arguments.front() == '[' &&
        (inst.keyword == "RUN" || inst.keyword == "CMD" || inst.keyword == "ENTRYPOINT" ||
         inst.keyword == "COPY" || inst.keyword == "ADD" || inst.keyword == "SHELL" || inst.keyword == "VOLUME" ||
         inst.keyword == "HEALTHCHECK")) {
      // An exec form is a flat array of strings: nesting past 2 levels is not one.
      auto read = ParseJson(inst.arguments, path, 2);
      const nlohmann::json parsed = read.ok() ? std::move(*read) : nlohmann::json();
      if (parsed.is_array() &&
          std::all_of(parsed.begin(), parsed.end(), [](const nlohmann::json& v) { return v.is_string(); })) {
        inst.json_form = true;
        for (const auto& v : parsed) inst.json_arguments.push_back(v.get<std::string>());
      } else if (inst.keyword == "SHELL") {
        return MakeErrorAtLine(path, inst.line, inst.column, "SHELL requires the arguments to be a JSON array");
      }
    }

    // Heredocs: bodies follow the instruction's last line.
    if (!inst.json_form && (inst.keyword == "RUN" || inst.keyword == "COPY" || inst.keyword == "ADD")) {
      inst.heredocs = FindHeredocs(inst.arguments, escape);
      for (Heredoc& doc : inst.heredocs) {
        int opened_at = i < lines.size() ? lines[i].number : inst.line;
        doc.line = opened_at + 1;
        bool closed = false;
        for (++i; i < lines.size(); ++i) {
          std::string_view body_line = lines[i].text;
          if (doc.strip_tabs)
            while (!body_line.empty() && body_line.front() == '\t') body_line.remove_prefix(1);
          if (body_line == doc.delimiter) {
            closed = true;
            break;
          }
          doc.body.append(body_line).push_back('\n');
          if (doc.body.size() > limits.max_heredoc_bytes)
            return MakeErrorAtLine(path, doc.line, 1, "heredoc is over the limit of " +
                                                          std::to_string(limits.max_heredoc_bytes) + " bytes");
        }
        if (!closed)
          return MakeErrorAtLine(path, opened_at, inst.column,
                                 "unterminated heredoc: no line \"" + doc.delimiter + "\" before end of file");
        inst.end_line = lines[i].number;
      }
    }

    // Stages.
    if (inst.keyword == "FROM") {
      if (file.stages.size() >= limits.max_stages)
        return MakeErrorAtLine(path, inst.line, inst.column,
                               "more than " + std::to_string(limits.max_stages) + " build stages");
      std::vector<std::string> words = SplitBlanks(inst.arguments);
      Stage stage;
      if (words.size() == 3 && Lower(words[1]) == "as") {
        stage.name = Lower(words[2]);
        bool valid = IsVariableNameStart(stage.name.front()) || std::isdigit(static_cast<unsigned char>(stage.name.front()));
        for (char c : stage.name) valid = valid && (IsVariableNameChar(c) || c == '-' || c == '.');
        if (!valid)
          return MakeErrorAtLine(path, inst.line, inst.column, "invalid stage name \"" + words[2] + "\"");
        for (const Stage& other : file.stages)
          if (other.name == stage.name)
            return MakeErrorAtLine(path, inst.line, inst.column, "duplicate stage name \"" + words[2] + "\"");
      } else if (words.size() != 1) {
        return MakeErrorAtLine(path, inst.line, inst.column,
                               "FROM takes an image and optionally \"AS name\", got \"" +
                                   inst.arguments.substr(0, 200) + "\"");
      }
      stage.base = words[0];
      for (const Flag& flag : inst.flags) {
        if (flag.name == "platform") stage.platform = flag.value;
        else
          return MakeErrorAtLine(path, inst.line, inst.column, "unknown flag for FROM: --" + flag.name);
      }
      stage.from_instruction = file.instructions.size();
      stage.line = inst.line;
      if (!file.stages.empty()) file.stages.back().end_instruction = file.instructions.size();
      file.stages.push_back(stage);
      seen_from = true;
    } else if (!seen_from && inst.keyword != "ARG") {
      return MakeErrorAtLine(path, inst.line, inst.column,
                             inst.keyword + " before the first FROM (only ARG may come before FROM)");
    }
    if (inst.keyword == "ONBUILD") {
      std::string nested = Upper(SplitBlanks(inst.arguments).front());
      if (!kKeywords.count(nested) || nested == "ONBUILD" || nested == "FROM" || nested == "MAINTAINER")
        return MakeErrorAtLine(path, inst.line, inst.column, "invalid instruction for ONBUILD: " + nested.substr(0, 64));
    }
    inst.stage = seen_from ? file.stages.size() - 1 : SIZE_MAX;

    for (InlineSuppression& s : suppressions.pending) {
      s.instruction_line = inst.line;
      s.instruction = inst.keyword;
      suppressions.done.push_back(std::move(s));
    }
    suppressions.pending.clear();

    if (file.instructions.size() >= limits.max_instructions)
      return MakeErrorAtLine(path, inst.line, inst.column,
                             "more than " + std::to_string(limits.max_instructions) + " instructions");
    file.instructions.push_back(std::move(inst));
  }
  if (file.stages.empty())
    return MakeErrorAtLine(path, lines.empty() ? 1 : lines.back().number, 1, "no FROM instruction: not a Dockerfile");
  file.stages.back().end_instruction = file.instructions.size();
  // A pragma after the last instruction applies to nothing: keep it, visibly.
  for (InlineSuppression& s : suppressions.pending) suppressions.done.push_back(std::move(s));
  file.suppressions = std::move(suppressions.done);
  return file;
}

bool LooksLikeDockerfile(ByteView bytes) {
  std::string_view text = bytes.AsString().substr(0, 64 * 1024);
  if (text.find('\0') != std::string_view::npos) return false;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t start = 0;
  bool first = true;
  bool saw_arg = false;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = TrimBlanks(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line.front() == '#') continue;
    size_t word_end = 0;
    while (word_end < line.size() && !IsBlank(line[word_end])) ++word_end;
    std::string keyword = Upper(line.substr(0, word_end));
    bool has_argument = word_end < line.size();
    if (keyword == "FROM") return has_argument;
    if (keyword == "ARG" && has_argument) {
      saw_arg = true;
      first = false;
      continue;
    }
    if (saw_arg && line.back() == '\\') continue;  // continued ARG
    (void)first;
    return false;
  }
  return false;
}

bool IsDockerfilePath(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::string head = ReadFileHead(path, 64 * 1024);
  if (LooksLikeDockerfile(ByteView(std::string_view(head)))) return true;
  // Named as a Dockerfile and text: read as one, so that what is wrong in it
  // is reported at its line (as docker build does), not as an unknown archive.
  return IsDockerfileName(std::filesystem::path(path).filename().string()) && !head.empty() &&
         head.find('\0') == std::string::npos;
}

// ---------------------------------------------------------------- expansion

namespace {

// What one word may cost: BuildKit stores every ARG value expanded, so
// `ARG A1=${A0}${A0}`, `ARG A2=${A1}${A1}`... doubles per line and a 700-byte
// file asks for gigabytes. BuildKit has no bound there (shell/lex.go); imagelint
// stops with an error naming the limit rather than following it.
constexpr size_t kMaxExpandedBytes = 1 << 20;
constexpr size_t kMaxExpansionSteps = 1 << 22;

struct Expander {
  const std::map<std::string, std::string>& vars;
  char escape;
  int depth_limit;
  Expansion out;
  size_t steps = 0;

  Status Budget(const std::string& result) {
    if (result.size() > kMaxExpandedBytes)
      return MakeError("", "variable expansion makes a word over the limit of " + std::to_string(kMaxExpandedBytes) +
                               " bytes");
    if (++steps > kMaxExpansionSteps)
      return MakeError("", "variable expansion takes over the limit of " + std::to_string(kMaxExpansionSteps) +
                               " steps");
    return OkStatus();
  }

  // Reads one ${...} word up to the matching '}', from `text` at `pos`.
  Result<std::string> BraceWord(std::string_view text, size_t& pos) {
    std::string word;
    int depth = 0;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == escape && pos + 1 < text.size()) {
        word.push_back(c);
        word.push_back(text[pos + 1]);
        pos += 2;
        continue;
      }
      if (c == '$' && pos + 1 < text.size() && text[pos + 1] == '{') {
        ++depth;
        word.append("${");
        pos += 2;
        continue;
      }
      if (c == '}') {
        if (depth == 0) {
          ++pos;
          return word;
        }
        --depth;
      }
      word.push_back(c);
      ++pos;
    }
    return MakeError("", "unterminated ${ in \"" + std::string(text.substr(0, 200)) + "\"");
  }

  // Quotes are removed in the words of ${V:-word} and ${V:+word} too, as
  // BuildKit's processStopOn does (moby/buildkit frontend/dockerfile/shell/lex.go):
  // ARG B=${V:+"nvidia/cuda:${V}-devel"} gives nvidia/cuda:12.4.1-devel.
  Result<std::string> Expand(std::string_view text, int depth) {
    if (depth > depth_limit) return MakeError("", "variable substitution nested too deeply");
    std::string result;
    char quote = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      IMAGELINT_TRY(Budget(result));
      char c = text[pos];
      if (c == escape && quote != '\'') {
        if (pos + 1 < text.size()) {
          char next = text[pos + 1];
          // Inside double quotes only $, ", the escape char itself stay special.
          if (quote == '"' && next != '$' && next != '"' && next != escape) result.push_back(c);
          result.push_back(next);
          pos += 2;
        } else {
          result.push_back(c);
          ++pos;
        }
        continue;
      }
      if (c == '\'' || c == '"') {
        if (quote == 0) {
          quote = c;
          ++pos;
          continue;
        }
        if (quote == c) {
          quote = 0;
          ++pos;
          continue;
        }
      }
      if (c == '$' && quote != '\'' && pos + 1 < text.size()) {
        char next = text[pos + 1];
        if (next == '{') {
          pos += 2;
          size_t name_start = pos;
          while (pos < text.size() && IsVariableNameChar(text[pos])) ++pos;
          std::string name(text.substr(name_start, pos - name_start));
          if (name.empty()) return MakeError("", "bad substitution: missing variable name after ${");
          if (pos >= text.size()) return MakeError("", "unterminated ${" + name);
          auto it = vars.find(name);
          bool set = it != vars.end();
          std::string value = set ? it->second : "";
          if (text[pos] == '}') {
            ++pos;
            if (!set) out.unresolved.push_back(name);
            result += value;
            continue;
          }
          std::string modifier;
          if (text[pos] == ':') {
            modifier.push_back(':');
            ++pos;
            if (pos >= text.size()) return MakeError("", "unterminated ${" + name);
          }
          modifier.push_back(text[pos]);
          ++pos;
          auto word = BraceWord(text, pos);
          if (!word.ok()) return word.error();
          if (modifier == ":-" || modifier == "-") {
            bool use_word = modifier == ":-" ? value.empty() : !set;
            if (use_word) {
              auto expanded = Expand(*word, depth + 1);
              if (!expanded.ok()) return expanded.error();
              result += *expanded;
            } else {
              result += value;
            }
          } else if (modifier == ":+" || modifier == "+") {
            bool use_word = modifier == ":+" ? !value.empty() : set;
            if (use_word) {
              auto expanded = Expand(*word, depth + 1);
              if (!expanded.ok()) return expanded.error();
              result += *expanded;
            }
            if (!set) out.unresolved.push_back(name);
          } else if (modifier == ":?" || modifier == "?") {
            bool fail = modifier == ":?" ? value.empty() : !set;
            if (fail) return MakeError("", name + ": " + (word->empty() ? "is not allowed to be unset" : *word));
            result += value;
          } else {
            // ${VAR#pat}, ${VAR%pat}, ${VAR/a/b}: not computed here.
            out.exact = false;
            if (!set) out.unresolved.push_back(name);
          }
          continue;
        }
        if (IsVariableNameStart(next)) {
          ++pos;
          size_t name_start = pos;
          while (pos < text.size() && IsVariableNameChar(text[pos])) ++pos;
          std::string name(text.substr(name_start, pos - name_start));
          auto it = vars.find(name);
          if (it == vars.end()) out.unresolved.push_back(name);
          else result += it->second;
          continue;
        }
      }
      result.push_back(c);
      ++pos;
    }
    if (quote) return MakeError("", std::string("unterminated ") + (quote == '"' ? "double" : "single") + " quote");
    IMAGELINT_TRY(Budget(result));
    return result;
  }
};

}  // namespace

Result<Expansion> ExpandWord(std::string_view word, const std::map<std::string, std::string>& vars, char escape,
                             int depth_limit) {
  Expander expander{vars, escape, depth_limit, {}};
  auto value = expander.Expand(word, 0);
  if (!value.ok()) return value.error();
  expander.out.value = std::move(*value);
  if (!expander.out.unresolved.empty()) {
    std::sort(expander.out.unresolved.begin(), expander.out.unresolved.end());
    expander.out.unresolved.erase(std::unique(expander.out.unresolved.begin(), expander.out.unresolved.end()),
                                  expander.out.unresolved.end());
  }
  return std::move(expander.out);
}

}  // namespace imagelint::dockerfile
