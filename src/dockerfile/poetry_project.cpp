// Poetry's dependency tables (poetry_project.h). The file is untrusted text
// already bounded by ReadContextFile; every scan here is linear in it.
#include "dockerfile/poetry_project.h"

#include <algorithm>
#include <map>

#include "common/text.h"

namespace imagelint::dockerfile {
namespace {

// One release segment list: "2.1.3" -> {2, 1, 3}; empty when not dotted digits.
std::vector<long> PoetrySegments(std::string_view version) {
  std::vector<long> out;
  for (const std::string& part : SplitOn(std::string(version), '.')) {
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return {};
    out.push_back(std::stol(part));
  }
  return out;
}

std::string JoinSegments(const std::vector<long>& segments) {
  std::string out;
  for (long s : segments) out += (out.empty() ? "" : ".") + std::to_string(s);
  return out;
}

// The exclusive upper bound of a caret or tilde: the segment at `index`
// raised by one, the ones after it dropped.
std::string BumpAt(std::vector<long> segments, size_t index) {
  segments.resize(index + 1);
  ++segments[index];
  return JoinSegments(segments);
}

// One comma-free term of a constraint.
std::optional<std::string> PoetryTerm(std::string term) {
  term = Trim(term);
  if (term.empty() || term == "*") return std::string();
  if (term[0] == '^' || term[0] == '~') {
    bool caret = term[0] == '^';
    std::string version = Trim(term.substr(term[0] == '~' && term.size() > 1 && term[1] == '=' ? 2 : 1));
    if (!caret && term.size() > 1 && term[1] == '=') return "~=" + version;  // PEP 440's own operator
    std::vector<long> segments = PoetrySegments(version);
    if (segments.empty()) return std::nullopt;
    size_t index = 0;
    if (caret) {  // the first non-zero segment stays; ^0.0 and ^0 keep the last given
      while (index + 1 < segments.size() && segments[index] == 0) ++index;
    } else {  // ~1.2.3 and ~1.2: the minor moves; ~1: the major
      index = segments.size() > 1 ? 1 : 0;
    }
    return ">=" + version + ",<" + BumpAt(segments, index);
  }
  for (std::string_view op : {"==", "!=", ">=", "<=", ">", "<", "==="})
    if (StartsWith(term, op)) return term;
  if (term[0] == '@') term = Trim(term.substr(1));  // Poetry's old exact operator
  if (term.find('*') != std::string::npos || !PoetrySegments(term).empty() || isdigit(static_cast<unsigned char>(term[0])))
    return "==" + term;
  return std::nullopt;
}

// The inline table `{ key = value, ... }` of one dependency: its keys and
// their values as written (strings unquoted, arrays and booleans raw).
std::map<std::string, std::string> InlineTable(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t i = text.find('{');
  if (i == std::string_view::npos) return out;
  ++i;
  while (i < text.size() && out.size() < 64) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t' || text[i] == '\n')) ++i;
    if (i >= text.size() || text[i] == '}') break;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string key = Trim(std::string(text.substr(i, eq - i)));
    if (key.size() >= 2 && (key[0] == '"' || key[0] == '\'')) key = key.substr(1, key.size() - 2);
    i = eq + 1;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    std::string value;
    if (text[i] == '"' || text[i] == '\'') {
      size_t close = text.find(text[i], i + 1);
      if (close == std::string_view::npos) break;
      value = std::string(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (text[i] == '[') {
      size_t close = text.find(']', i);
      if (close == std::string_view::npos) break;
      value = std::string(text.substr(i, close - i + 1));
      i = close + 1;
    } else {
      size_t end = text.find_first_of(",}", i);
      if (end == std::string_view::npos) end = text.size();
      value = Trim(std::string(text.substr(i, end - i)));
      i = end;
    }
    out[key] = value;
  }
  return out;
}

// The strings of a raw TOML array ("[\"cuda\", 'x']").
std::vector<std::string> ArrayStrings(std::string_view raw) {
  std::vector<std::string> out;
  for (size_t i = 0; i < raw.size(); ++i)
    if (raw[i] == '"' || raw[i] == '\'') {
      size_t close = raw.find(raw[i], i + 1);
      if (close == std::string_view::npos) break;
      out.emplace_back(raw.substr(i + 1, close - i - 1));
      i = close;
    }
  return out;
}

// Whether a constraint's `markers` / `platform` hold on Linux: true, false,
// or nullopt when they name something else (a Python version, a machine).
std::optional<bool> HoldsOnLinux(const std::map<std::string, std::string>& table) {
  if (auto platform = table.find("platform"); platform != table.end()) return ToLower(platform->second) == "linux";
  auto markers = table.find("markers");
  if (markers == table.end()) return true;
  std::string text = ToLower(markers->second);
  for (const char* key : {"sys_platform", "platform_system"}) {
    size_t at = text.find(key);
    if (at == std::string::npos) continue;
    bool equal = text.find("==", at) != std::string::npos && text.find("==", at) < at + 24;
    bool linux = text.find("linux", at) != std::string::npos && text.find("linux", at) < at + 32;
    if (text.find(" or ") != std::string::npos) return std::nullopt;
    return equal == linux;
  }
  return std::nullopt;
}

// The `[[tool.poetry.source]]` entries: name -> url.
std::map<std::string, std::string> PoetrySources(const std::vector<std::string>& lines) {
  std::map<std::string, std::string> out;
  std::string name, url;
  bool in_source = false;
  auto flush = [&] {
    if (in_source && !name.empty() && !url.empty()) out[name] = url;
    name.clear();
    url.clear();
  };
  for (const std::string& raw : lines) {
    std::string line = Trim(raw);
    if (StartsWith(line, "[")) {
      flush();
      in_source = line == "[[tool.poetry.source]]";
      continue;
    }
    if (!in_source) continue;
    auto quoted = [&](const std::string& value) {
      size_t open = value.find_first_of("\"'");
      size_t close = open == std::string::npos ? open : value.find(value[open], open + 1);
      return close == std::string::npos ? std::string() : value.substr(open + 1, close - open - 1);
    };
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = Trim(line.substr(0, eq));
    if (key == "name") name = quoted(line.substr(eq + 1));
    if (key == "url") url = quoted(line.substr(eq + 1));
  }
  flush();
  return out;
}

// The `key = value` entries of `[table]`, values possibly over several lines
// (an array of inline tables), with the line each starts on.
struct PoetryEntry {
  std::string name, value;
  size_t line = 0;
};
std::optional<std::vector<PoetryEntry>> PoetryTable(const std::vector<std::string>& lines, const std::string& table) {
  size_t i = 0;
  while (i < lines.size() && Trim(lines[i]) != "[" + table + "]") ++i;
  if (i == lines.size()) return std::nullopt;
  std::vector<PoetryEntry> out;
  for (++i; i < lines.size() && out.size() < 10000; ++i) {
    std::string line = Trim(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') break;  // the next table
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    PoetryEntry entry{Trim(line.substr(0, eq)), Trim(line.substr(eq + 1)), i + 1};
    if (!entry.name.empty() && (entry.name[0] == '"' || entry.name[0] == '\'') && entry.name.size() >= 2)
      entry.name = entry.name.substr(1, entry.name.size() - 2);
    // An array or inline table continues to its closing bracket.
    int depth = 0;
    auto balance = [&](const std::string& text) {
      for (char c : text) depth += (c == '[' || c == '{') ? 1 : (c == ']' || c == '}') ? -1 : 0;
    };
    balance(entry.value);
    const size_t start = i;
    for (size_t k = start + 1; depth > 0 && k < lines.size() && k < start + 200; ++k) {
      entry.value += "\n" + lines[k];
      balance(lines[k]);
      i = k;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// The inline tables of an array value ("[{...}, {...}]").
std::vector<std::string> InlineTables(const std::string& value) {
  std::vector<std::string> out;
  for (size_t open = value.find('{'); open != std::string::npos && out.size() < 32; open = value.find('{', open + 1)) {
    size_t close = value.find('}', open);
    if (close == std::string::npos) break;
    out.push_back(value.substr(open, close - open + 1));
    open = close;
  }
  return out;
}

void AddPoetryEntry(const PoetryEntry& entry, const std::string& origin,
                    const std::map<std::string, std::string>& sources, RequirementsRead& out) {
  if (ToLower(entry.name) == "python") return;  // the interpreter's range, not a package
  std::map<std::string, std::string> table;
  if (StartsWith(entry.value, "\"") || StartsWith(entry.value, "'")) {
    table["version"] = ArrayStrings(entry.value).empty() ? "" : ArrayStrings(entry.value).front();
  } else if (StartsWith(entry.value, "{")) {
    table = InlineTable(entry.value);
  } else if (StartsWith(entry.value, "[")) {  // several constraints: the one that holds on Linux
    std::vector<std::map<std::string, std::string>> linux;
    bool unclear = false;
    for (const std::string& one : InlineTables(entry.value)) {
      auto candidate = InlineTable(one);
      auto holds = HoldsOnLinux(candidate);
      if (!holds) unclear = true;
      else if (*holds) linux.push_back(std::move(candidate));
    }
    if (unclear || linux.size() != 1) {
      out.unread.push_back(origin + ": " + entry.name.substr(0, 100) +
                           " has several constraints whose markers do not pick one for Linux");
      return;
    }
    table = std::move(linux.front());
  } else {
    out.unread.push_back(origin + ": " + entry.name.substr(0, 100) + " = " + entry.value.substr(0, 80) + " is not read");
    return;
  }
  if (table.count("optional") && table["optional"] == "true") return;  // only with an extra that asks for it
  for (const char* direct : {"git", "path", "url", "file"})
    if (table.count(direct)) {
      out.unread.push_back(origin + ": " + entry.name.substr(0, 100) + " comes from a " + direct + " source, which is not read");
      return;
    }
  if (auto holds = HoldsOnLinux(table); !holds.value_or(true)) return;
  auto specifier = PoetryConstraint(table.count("version") ? table["version"] : "*");
  if (!specifier) {
    out.unread.push_back(origin + ": " + entry.name.substr(0, 100) + "'s constraint \"" + table["version"].substr(0, 80) +
                         "\" is not read");
    return;
  }
  std::string extras;
  if (table.count("extras"))
    for (const std::string& extra : ArrayStrings(table["extras"])) extras += (extras.empty() ? "" : ",") + extra;
  std::string text = entry.name + (extras.empty() ? "" : "[" + extras + "]") + *specifier;
  size_t before = out.requirements.size();
  AddRequirement(text, origin, false, out);
  if (out.requirements.size() > before && table.count("source")) {
    auto url = sources.find(table["source"]);
    if (url != sources.end()) out.requirements.back().index_url = url->second;
    else if (ToLower(table["source"]) != "pypi")
      out.unread.push_back(origin + ": " + entry.name.substr(0, 100) + " names the source \"" +
                           table["source"].substr(0, 80) + "\", which no [[tool.poetry.source]] defines");
  }
}

}  // namespace

std::optional<std::string> PoetryConstraint(std::string_view constraint) {
  std::string text(constraint);
  if (text.find("||") != std::string::npos || text.find('|') != std::string::npos) return std::nullopt;
  std::string out;
  // Poetry separates terms with commas or blanks (">= 1.2 < 1.5").
  std::vector<std::string> terms;
  for (const std::string& part : SplitOn(text, ',')) {
    std::string rest = Trim(part);
    // "<op> <version>" with a blank after the operator is one term.
    while (!rest.empty()) {
      size_t start = 0;
      while (start < rest.size() && std::string_view("<>=!~^@").find(rest[start]) != std::string_view::npos) ++start;
      while (start < rest.size() && rest[start] == ' ') ++start;
      size_t end = rest.find(' ', start);
      terms.push_back(rest.substr(0, end));
      rest = end == std::string::npos ? "" : Trim(rest.substr(end));
    }
  }
  for (std::string& term : terms) {
    std::erase(term, ' ');
    auto pep440 = PoetryTerm(term);
    if (!pep440) return std::nullopt;
    if (!pep440->empty()) out += (out.empty() ? "" : ",") + *pep440;
  }
  return out;
}

bool ReadPoetryDependencies(const std::string& text, const std::string& file, const std::vector<std::string>& groups,
                            RequirementsRead& out) {
  std::vector<std::string> lines = SplitOn(text, '\n');
  auto main = PoetryTable(lines, "tool.poetry.dependencies");
  if (!main) return false;
  out.files.push_back(file);
  const auto sources = PoetrySources(lines);
  for (const PoetryEntry& entry : *main) AddPoetryEntry(entry, file + ":" + std::to_string(entry.line), sources, out);
  std::vector<std::string> wanted = groups;
  if (std::find(groups.begin(), groups.end(), "*") != groups.end()) {
    // Every [tool.poetry.group.<name>] not marked `optional = true`, and the legacy dev table.
    wanted = {"dev"};
    std::vector<std::string> optional;
    std::string group;
    for (const std::string& raw : lines) {
      std::string line = Trim(raw);
      if (StartsWith(line, "[tool.poetry.group.") && EndsWith(line, ".dependencies]")) {
        std::string name = line.substr(19, line.size() - 19 - 14);
        if (std::find(wanted.begin(), wanted.end(), name) == wanted.end() && wanted.size() < 64) wanted.push_back(name);
      } else if (StartsWith(line, "[tool.poetry.group.") && EndsWith(line, "]")) {
        group = line.substr(19, line.size() - 20);
      } else if (StartsWith(line, "[")) {
        group.clear();
      } else if (!group.empty() && StartsWith(line, "optional") && line.find("true") != std::string::npos) {
        optional.push_back(group);
      }
    }
    for (const std::string& name : optional) std::erase(wanted, name);
  }
  for (const std::string& group : wanted) {
    auto table = PoetryTable(lines, "tool.poetry.group." + group + ".dependencies");
    if (!table && group == "dev") table = PoetryTable(lines, "tool.poetry.dev-dependencies");
    if (!table) continue;
    for (const PoetryEntry& entry : *table) AddPoetryEntry(entry, file + ":" + std::to_string(entry.line), sources, out);
  }
  return true;
}

}  // namespace imagelint::dockerfile
