// Rule files (rules/*.yaml, --rules FILE): loading with file:line:column
// errors, overrides from configuration, and the rule table.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <type_traits>

#include <utility>

#include "common/enum_names.h"
#include "common/file_text.h"
#include "common/marked_yaml.h"
#include "imagelint/rules.h"

namespace imagelint::rules {

namespace {

// Each enum's names, once: both directions read the same table.
constexpr std::array<std::pair<Severity, std::string_view>, 3> kSeverityNames{{
    {Severity::kNote, "note"}, {Severity::kWarning, "warning"}, {Severity::kError, "error"}}};
constexpr std::array<std::pair<Stage, std::string_view>, 5> kStageNames{{{Stage::kContainerStart, "container-start"},
                                                                          {Stage::kProcessStart, "process-start"},
                                                                          {Stage::kCuInit, "cuInit"},
                                                                          {Stage::kKernelLoad, "kernel-load"},
                                                                          {Stage::kRuntime, "runtime"}}};
constexpr std::array<std::pair<Scope, std::string_view>, 2> kScopeNames{
    {{Scope::kImage, "image"}, {Scope::kPool, "pool"}}};
constexpr std::array<std::pair<OnUnknown, std::string_view>, 3> kOnUnknownNames{
    {{OnUnknown::kIgnore, "ignore"}, {OnUnknown::kNote, "note"}, {OnUnknown::kWarning, "warning"}}};

// Small scanners for the names a rule file gives (no std::regex on rule
// files: its backtracking recursion overflows the stack on long input).
bool IsAsciiAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsIdentifierChar(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '_'; }

// "IL001": a letter, then up to 63 letters, digits, '_' or '-'.
bool IsRuleId(std::string_view s) {
  if (s.empty() || s.size() > 64 || !IsAsciiAlpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return IsIdentifierChar(c) || c == '-'; });
}

// "requirement-unsatisfied": lower-case words of [a-z0-9] joined by single '-', at most 16 words.
bool IsKebabCase(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-' || s.find("--") != std::string_view::npos) return false;
  if (std::count(s.begin(), s.end(), '-') > 15) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || IsAsciiDigit(c) || c == '-'; });
}

// "start", "_x1": a letter or '_', then letters, digits or '_'.
bool IsVariableName(std::string_view s) {
  if (s.empty() || !(IsAsciiAlpha(s[0]) || s[0] == '_')) return false;
  return std::all_of(s.begin() + 1, s.end(), IsIdentifierChar);
}

// "  b in facts.binaries": the variable ("b") and the length of the head up to
// the list expression; nullopt unless it is `name in <expression>`.
std::optional<std::pair<std::string, size_t>> ForeachHead(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size() && IsAsciiSpace(text[pos])) ++pos;
  size_t start = pos;
  while (pos < text.size() && IsIdentifierChar(text[pos])) ++pos;
  std::string_view name = text.substr(start, pos - start);
  if (!IsVariableName(name) || pos == text.size() || !IsAsciiSpace(text[pos])) return std::nullopt;
  while (pos < text.size() && IsAsciiSpace(text[pos])) ++pos;
  if (text.substr(pos, 2) != "in") return std::nullopt;
  pos += 2;
  if (pos == text.size() || !IsAsciiSpace(text[pos])) return std::nullopt;
  while (pos < text.size() && IsAsciiSpace(text[pos])) ++pos;
  return std::make_pair(std::string(name), pos);
}

}  // namespace

std::string_view SeverityName(Severity severity) { return NameIn(kSeverityNames, severity); }
std::optional<Severity> ParseSeverity(std::string_view text) { return ValueIn(kSeverityNames, text); }

std::string_view ScopeName(Scope scope) { return NameIn(kScopeNames, scope); }
std::optional<Scope> ParseScope(std::string_view text) { return ValueIn(kScopeNames, text); }

std::string_view StageName(Stage stage) { return NameIn(kStageNames, stage); }
std::optional<Stage> ParseStage(std::string_view text) { return ValueIn(kStageNames, text); }

namespace {

class RuleFileReader {
 public:
  RuleFileReader(std::string_view text, std::string file, const RuleFileLimits& limits, YamlCheckMemo memo)
      : text_(text), file_(std::move(file)), limits_(limits), memo_(std::move(memo)) {
    size_t start = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      lines_.push_back(text_.substr(start, end - start));
      if (end == text_.size()) break;
      start = end + 1;
    }
  }

  Result<std::vector<Rule>> Read() {
    if (text_.size() > limits_.max_file_bytes)
      return MakeError(file_, "rule file larger than " + std::to_string(limits_.max_file_bytes) + " bytes");
    auto loaded = LoadMarkedYaml(text_, file_, {}, memo_);
    if (!loaded.ok()) return loaded.error();
    const MarkedNode& root = *loaded;
    std::vector<Rule> rules;
    if (!root.IsMap() || !root["rules"]) return MakeError(file_, "a rule file is a map with a 'rules:' list");
    for (const auto& [key_node, value] : root.Entries()) {
      auto key = Key(key_node);
      if (!key.ok()) return key.error();
      if (*key != "rules" && *key != "version")
        return At(key_node, "unknown top-level key '" + *key + "' (expected 'rules')");
    }
    const MarkedNode& list = root["rules"];
    if (!list.IsSequence()) return At(list, "'rules' must be a list");
    if (list.size() > limits_.max_rules)
      return At(list, "more than " + std::to_string(limits_.max_rules) + " rules in one file");
    for (const auto& entry : list.Items()) {
      auto rule = ReadRule(entry);
      if (!rule.ok()) return rule.error();
      rules.push_back(std::move(*rule));
    }
    return rules;
  }

 private:
  Error At(const MarkedNode& node, const std::string& message) const {
    MarkedNode::Mark mark = node.mark();
    if (mark.line < 0) return MakeError(file_, message);
    return MakeErrorAtLine(file_, mark.line + 1, mark.column + 1, message);
  }

  // Where the scalar's text starts in the file, by looking at its style.
  SourceLocation Locate(const MarkedNode& node) const {
    SourceLocation where;
    where.file = file_;
    MarkedNode::Mark mark = node.mark();
    if (mark.line < 0 || static_cast<size_t>(mark.line) >= lines_.size()) return where;
    std::string_view line = lines_[mark.line];
    char first = static_cast<size_t>(mark.column) < line.size() ? line[mark.column] : ' ';
    if (first == '|' || first == '>') {
      // Block scalar: content starts on the next non-blank line at its indentation.
      size_t next = mark.line + 1;
      while (next < lines_.size() && lines_[next].find_first_not_of(" \t\r") == std::string_view::npos) ++next;
      int indent = 0;
      if (next < lines_.size()) indent = static_cast<int>(lines_[next].find_first_not_of(' '));
      where.line = static_cast<int>(next) + 1;
      where.column = indent + 1;
      where.continuation_column = indent + 1;
    } else {
      where.line = mark.line + 1;
      where.column = mark.column + 1 + ((first == '"' || first == '\'') ? 1 : 0);
      // Folded plain/quoted scalars lose their line structure; continuation
      // lines are reported at the scalar's indentation.
      where.continuation_column = mark.column + 1;
    }
    return where;
  }

  Result<std::string> Scalar(const MarkedNode& node, const std::string& field) const {
    if (!node.IsScalar()) return At(node, "'" + field + "' must be a string");
    return node.Scalar();
  }

  // A map key: yaml-cpp reads only scalar keys as strings.
  Result<std::string> Key(const MarkedNode& node) const {
    if (!node.IsScalar()) return At(node, "a key must be a string");
    return node.Scalar();
  }

  Result<Expression> ParseExpression(const MarkedNode& node, const std::string& field) const {
    auto text = Scalar(node, field);
    if (!text.ok()) return text.error();
    if (text->size() > limits_.max_expression_bytes) return At(node, "'" + field + "' is too long");
    if (text->find_first_not_of(" \t\r\n") == std::string::npos) return At(node, "'" + field + "' is empty");
    return Expression::Parse(*text, Locate(node));
  }

  Result<Template> ParseTemplate(const MarkedNode& node, const std::string& field) const {
    auto text = Scalar(node, field);
    if (!text.ok()) return text.error();
    if (text->size() > limits_.max_expression_bytes) return At(node, "'" + field + "' is too long");
    std::string trimmed = *text;
    while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
    return Template::Parse(trimmed, Locate(node));
  }

  // A scalar `field` naming one value of the enum's name table; `expected`
  // lists the names for the message.
  template <class E, size_t N>
  Result<E> ReadChoice(const MarkedNode& node, const char* field,
                       const std::array<std::pair<E, std::string_view>, N>& names, const char* expected) const {
    auto text = Scalar(node, field);
    if (!text.ok()) return text.error();
    auto value = ValueIn(names, *text);
    if (!value) return At(node, std::string(field) + " must be " + expected);
    return *value;
  }
  Result<Severity> ReadSeverity(const MarkedNode& node) const {
    return ReadChoice(node, "severity", kSeverityNames, "error, warning or note");
  }

  // `key` when the node has it, as an expression or a template, into `out`
  // (left empty when the key is absent).
  template <class T>
  Status ParseOptional(const MarkedNode& node, const char* key, std::optional<T>& out) const {
    if (!node[key]) return OkStatus();
    auto value = [&] {
      if constexpr (std::is_same_v<T, Template>) {
        return ParseTemplate(node[key], key);
      } else {
        return ParseExpression(node[key], key);
      }
    }();
    if (!value.ok()) return value.error();
    out = std::move(*value);
    return OkStatus();
  }

  Result<Prediction> ReadPrediction(const MarkedNode& node) const {
    if (!node.IsMap()) return At(node, "a prediction is a map with code, name and stage");
    static const std::set<std::string> kKeys = {"when", "code", "name", "stage", "message", "severity"};
    Prediction prediction;
    for (const auto& [key_node, value] : node.Entries()) {
      auto key = Key(key_node);
      if (!key.ok()) return key.error();
      if (!kKeys.count(*key)) return At(key_node, "unknown key '" + *key + "' in a prediction");
    }
    if (!node["name"] || !node["stage"]) return At(node, "a prediction needs 'name' and 'stage'");
    auto name = Scalar(node["name"], "name");
    if (!name.ok()) return name.error();
    prediction.name = *name;
    if (node["code"]) {
      auto code = node["code"].AsInt();
      if (!code) return At(node["code"], "'code' must be a CUDA error number");
      prediction.code = *code;
    }
    auto stage = ReadChoice(node["stage"], "stage", kStageNames,
                            "container-start, process-start, cuInit, kernel-load or runtime");
    if (!stage.ok()) return stage.error();
    prediction.stage = *stage;
    IMAGELINT_TRY(ParseOptional(node, "when", prediction.when));
    IMAGELINT_TRY(ParseOptional(node, "message", prediction.message));
    if (node["severity"]) {
      auto severity = ReadSeverity(node["severity"]);
      if (!severity.ok()) return severity.error();
      prediction.severity = *severity;
    }
    return prediction;
  }

  Result<Rule> ReadRule(const MarkedNode& node) const {
    if (!node.IsMap()) return At(node, "a rule is a map");
    static const std::set<std::string> kKeys = {"id", "name", "title", "summary", "severity", "scope", "docs",
                                                "let", "foreach", "condition", "message", "fix", "predicts",
                                                "demote", "evidence", "on_unknown", "enabled", "priority",
                                                "workloads"};
    for (const auto& [key_node, value] : node.Entries()) {
      auto key = Key(key_node);
      if (!key.ok()) return key.error();
      if (!kKeys.count(*key)) return At(key_node, "unknown key '" + *key + "' in a rule");
    }
    for (const char* required : {"id", "name", "title", "severity", "scope", "condition", "message"}) {
      if (!node[required]) return At(node, std::string("a rule needs '") + required + "'");
    }
    Rule rule;
    rule.file = file_;
    rule.line = node.mark().line + 1;
    auto id = Scalar(node["id"], "id");
    if (!id.ok()) return id.error();
    if (!IsRuleId(*id)) return At(node["id"], "rule id '" + *id + "' must look like IL001");
    rule.id = *id;
    auto name = Scalar(node["name"], "name");
    if (!name.ok()) return name.error();
    if (name->size() > 100 || !IsKebabCase(*name))
      return At(node["name"], "rule name '" + *name + "' must be kebab-case");
    rule.name = *name;
    auto title = Scalar(node["title"], "title");
    if (!title.ok()) return title.error();
    rule.title = *title;
    if (node["summary"]) {
      auto summary = Scalar(node["summary"], "summary");
      if (!summary.ok()) return summary.error();
      rule.summary = *summary;
      while (!rule.summary.empty() && rule.summary.back() == '\n') rule.summary.pop_back();
    }
    auto severity = ReadSeverity(node["severity"]);
    if (!severity.ok()) return severity.error();
    rule.severity = *severity;
    auto scope = ReadChoice(node["scope"], "scope", kScopeNames, "image or pool");
    if (!scope.ok()) return scope.error();
    rule.scope = *scope;
    rule.docs = "docs/rules/" + rule.id + ".md";
    if (node["docs"]) {
      auto docs = Scalar(node["docs"], "docs");
      if (!docs.ok()) return docs.error();
      rule.docs = *docs;
    }
    if (node["let"]) {
      const MarkedNode& lets = node["let"];
      if (!lets.IsMap()) return At(lets, "'let' is a map of name: expression");
      if (lets.size() > 64) return At(lets, "too many 'let' bindings");
      for (const auto& [var_node, value] : lets.Entries()) {
        auto var = Key(var_node);
        if (!var.ok()) return var.error();
        if (!IsVariableName(*var)) return At(var_node, "'" + *var + "' is not a variable name");
        auto expression = ParseExpression(value, "let " + *var);
        if (!expression.ok()) return expression.error();
        rule.lets.emplace_back(*var, std::move(*expression));
      }
    }
    if (node["foreach"]) {
      auto text = Scalar(node["foreach"], "foreach");
      if (!text.ok()) return text.error();
      auto head = ForeachHead(*text);
      if (!head) return At(node["foreach"], "'foreach' is written 'name in list-expression'");
      SourceLocation where = Locate(node["foreach"]);
      where.column += static_cast<int>(head->second);
      auto list = Expression::Parse(std::string_view(*text).substr(head->second), where);
      if (!list.ok()) return list.error();
      rule.foreach = std::make_pair(head->first, std::move(*list));
    }
    auto condition = ParseExpression(node["condition"], "condition");
    if (!condition.ok()) return condition.error();
    rule.condition = std::move(*condition);
    auto message = ParseTemplate(node["message"], "message");
    if (!message.ok()) return message.error();
    rule.message = std::move(*message);
    IMAGELINT_TRY(ParseOptional(node, "fix", rule.fix));
    if (node["predicts"]) {
      const MarkedNode& predicts = node["predicts"];
      if (predicts.IsSequence()) {
        if (predicts.size() > 32) return At(predicts, "too many predictions");
        for (const auto& entry : predicts.Items()) {
          auto prediction = ReadPrediction(entry);
          if (!prediction.ok()) return prediction.error();
          rule.predicts.push_back(std::move(*prediction));
        }
      } else {
        auto prediction = ReadPrediction(predicts);
        if (!prediction.ok()) return prediction.error();
        rule.predicts.push_back(std::move(*prediction));
      }
    }
    if (node["demote"]) {
      const MarkedNode& demote = node["demote"];
      if (!demote.IsMap() || !demote["when"] || !demote["severity"] || demote.size() != 2)
        return At(demote, "demote is a map with 'when' and 'severity'");
      auto when = ParseExpression(demote["when"], "demote.when");
      if (!when.ok()) return when.error();
      auto severity = ReadSeverity(demote["severity"]);
      if (!severity.ok()) return severity.error();
      rule.demote = Rule::Demotion{std::move(*when), *severity};
    }
    IMAGELINT_TRY(ParseOptional(node, "evidence", rule.evidence));
    if (node["on_unknown"]) {
      auto on_unknown = ReadChoice(node["on_unknown"], "on_unknown", kOnUnknownNames, "ignore, note or warning");
      if (!on_unknown.ok()) return on_unknown.error();
      rule.on_unknown = *on_unknown;
    }
    rule.any_workload = true;  // `workloads: any` unless the rule says gpu (as before the setting existed)
    if (node["workloads"]) {
      auto text = Scalar(node["workloads"], "workloads");
      if (!text.ok()) return text.error();
      if (*text == "any") rule.any_workload = true;
      else if (*text == "gpu") rule.any_workload = false;
      else return At(node["workloads"], "workloads must be gpu or any");
    }
    if (node["priority"]) {
      auto priority = node["priority"].AsInt();
      if (!priority) return At(node["priority"], "'priority' must be a number");
      rule.priority = *priority;
    }
    if (node["enabled"]) {
      auto enabled = node["enabled"].AsBool();
      if (!enabled) return At(node["enabled"], "'enabled' must be true or false");
      rule.enabled = *enabled;
    }
    return rule;
  }

  std::string_view text_;
  std::string file_;
  RuleFileLimits limits_;
  YamlCheckMemo memo_;
  std::vector<std::string_view> lines_;
};

}  // namespace

Result<std::vector<Rule>> ParseRuleFile(std::string_view text, const std::string& file,
                                        const RuleFileLimits& limits, const std::string& cache_dir) {
  RuleFileReader reader(text, file, limits, YamlCheckMemo{cache_dir});
  return reader.Read();
}

Result<std::vector<Rule>> LoadRuleFile(const std::string& path, const RuleFileLimits& limits,
                                       const std::string& cache_dir) {
  auto text = ReadBoundedFile(path, limits.max_file_bytes, "rule file", FileKinds::kRegularOnly);
  if (!text.ok()) return text.error();
  return ParseRuleFile(*text, path, limits, cache_dir);
}

std::string BuiltinRulesDir(const std::filesystem::path& data_dir) { return (data_dir / "rules").string(); }

Result<RuleSet> LoadRuleSet(const std::filesystem::path& builtin_dir, const std::vector<std::string>& extra_files,
                            const std::string& cache_dir) {
  RuleSet set;
  std::vector<std::string> files;
  std::error_code ec;
  std::string dir = builtin_dir.string();
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  if (ec) return MakeError(dir, "cannot list the built-in rules: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) return MakeError(dir, "no built-in rule files (*.yaml)");
  files.insert(files.end(), extra_files.begin(), extra_files.end());
  for (const auto& file : files) {
    auto rules = LoadRuleFile(file, {}, cache_dir);
    if (!rules.ok()) return rules.error();
    IMAGELINT_TRY(set.Add(std::move(*rules)));
  }
  return set;
}

const Rule* RuleSet::Find(std::string_view id_or_name) const {
  for (const auto& rule : rules_) {
    if (rule.id == id_or_name || rule.name == id_or_name) return &rule;
  }
  return nullptr;
}

Status RuleSet::Add(std::vector<Rule> rules) {
  for (auto& rule : rules) {
    for (const auto& existing : rules_) {
      if (existing.id == rule.id || existing.name == rule.name) {
        return MakeErrorAtLine(rule.file, rule.line, 0,
                               "rule " + rule.id + " (" + rule.name + ") is already defined at " + existing.file +
                                   ":" + std::to_string(existing.line));
      }
    }
    rules_.push_back(std::move(rule));
  }
  return OkStatus();
}

Status RuleSet::ApplyOverrides(const std::vector<RuleOverride>& overrides) {
  for (const auto& change : overrides) {
    Rule* target = nullptr;
    for (auto& rule : rules_) {
      if (rule.id == change.rule || rule.name == change.rule) target = &rule;
    }
    if (!target) {
      std::string known;
      for (const auto& rule : rules_) known += (known.empty() ? "" : ", ") + rule.id;
      return MakeError("rule override", "no rule named '" + change.rule + "' (known: " + known + ")");
    }
    if (change.disabled) target->enabled = false;
    if (change.severity) {
      target->severity = *change.severity;
      // A severity chosen by the user is absolute: predictions keep their
      // CUDA error but no longer raise the severity on their own.
      for (auto& prediction : target->predicts) prediction.severity.reset();
    }
  }
  return OkStatus();
}

Status RuleSet::CheckFunctions(const FunctionRegistry& functions) const {
  for (const auto& rule : rules_) {
    std::vector<Expression::Call> calls;
    auto add = [&](const std::vector<Expression::Call>& more) { calls.insert(calls.end(), more.begin(), more.end()); };
    for (const auto& [name, expression] : rule.lets) add(expression.Calls());
    if (rule.foreach) add(rule.foreach->second.Calls());
    add(rule.condition.Calls());
    add(rule.message.Calls());
    if (rule.fix) add(rule.fix->Calls());
    if (rule.evidence) add(rule.evidence->Calls());
    for (const auto& prediction : rule.predicts) {
      if (prediction.when) add(prediction.when->Calls());
      if (prediction.message) add(prediction.message->Calls());
    }
    for (const auto& call : calls) {
      if (!functions.Find(call.name)) {
        return MakeErrorAtLine(rule.file, call.line, call.column,
                               "rule " + rule.id + ": unknown function '" + call.name + "'");
      }
    }
  }
  return OkStatus();
}

std::vector<RuleInfo> RuleSet::List() const {
  std::vector<RuleInfo> infos;
  for (const auto& rule : rules_) {
    RuleInfo info;
    info.id = rule.id;
    info.name = rule.name;
    info.title = rule.title;
    info.summary = rule.summary.empty() ? rule.title : rule.summary;
    info.docs = rule.docs;
    info.file = rule.file;
    info.severity = rule.severity;
    info.scope = rule.scope;
    info.enabled = rule.enabled;
    for (const auto& prediction : rule.predicts) {
      info.error_codes.push_back(prediction.code);
      info.error_names.push_back(prediction.name);
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

nlohmann::json RuleInfoToJson(const RuleInfo& info) {
  return {{"id", info.id},
          {"name", info.name},
          {"title", info.title},
          {"summary", info.summary},
          {"severity", std::string(SeverityName(info.severity))},
          {"scope", std::string(ScopeName(info.scope))},
          {"enabled", info.enabled},
          {"docs", info.docs}};
}

}  // namespace imagelint::rules
