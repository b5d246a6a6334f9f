// .imagelint.yaml: discovery, parsing (file:line:column errors), merging with flags.
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "imagelint/config.h"

#include "common/file_text.h"
#include "common/text.h"
#include "common/yaml.h"

namespace imagelint::config {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;
constexpr size_t kMaxListEntries = 10000;

Error At(const std::string& file, const YAML::Node& node, const std::string& message) {
  return ErrorAtNode(file, node, message);
}

Result<std::string> Scalar(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) return At(file, node, "'" + key + "' must be a string");
  std::string value = node.as<std::string>();
  if (value.empty()) return At(file, node, "'" + key + "' must not be empty");
  return value;
}

Result<std::vector<std::string>> ScalarList(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    auto value = Scalar(file, node, key);
    if (!value.ok()) return value.error();
    out.push_back(*value);
    return out;
  }
  if (!node.IsSequence()) return At(file, node, "'" + key + "' must be a string or a list of strings");
  if (node.size() > kMaxListEntries) return At(file, node, "'" + key + "' has too many entries");
  for (const auto& item : node) {
    auto value = Scalar(file, item, key + "[]");
    if (!value.ok()) return value.error();
    out.push_back(*value);
  }
  return out;
}

// Paths in a config file are relative to the file's directory.
std::string Resolve(const std::string& config_file, const std::string& path) {
  if (path.empty() || path == "-" || fs::path(path).is_absolute()) return path;
  fs::path dir = fs::path(config_file).parent_path();
  if (dir.empty()) return path;
  return (dir / path).lexically_normal().string();
}

bool IsThreshold(const std::string& value, bool allow_none) {
  return rules::ParseSeverity(value).has_value() || (allow_none && value == "none");
}

Result<Suppression> ParseIgnoreEntry(const std::string& file, const YAML::Node& node) {
  if (!node.IsMap()) return At(file, node, "each 'ignore' entry must be a map with 'rule' and 'reason'");
  Suppression suppression;
  suppression.origin = "config";
  suppression.file = file;
  suppression.line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  static const std::set<std::string> known = {"rule", "reason", "expires", "image", "pool", "path"};
  for (const auto& entry : node) {
    std::string key = entry.first.as<std::string>();
    if (!known.count(key))
      return At(file, entry.first, "unknown key '" + key + "' in an ignore entry (expected rule, reason, expires, image, pool, path)");
    auto value = Scalar(file, entry.second, key);
    if (!value.ok()) return value.error();
    if (key == "rule") suppression.rule = *value;
    if (key == "reason") suppression.reason = *value;
    if (key == "image") suppression.image = *value;
    if (key == "pool") suppression.pool = *value;
    if (key == "path") suppression.path = *value;
    if (key == "expires") {
      if (!IsDate(*value)) return At(file, entry.second, "'expires' must be a date YYYY-MM-DD, got '" + *value + "'");
      suppression.expires = *value;
    }
  }
  if (suppression.rule.empty()) return At(file, node, "an ignore entry needs 'rule'");
  if (suppression.rule == "*") return At(file, node, "an ignore entry must name one rule, not '*'");
  if (suppression.reason.find_first_not_of(" \t") == std::string::npos)
    return At(file, node, "the ignore entry for " + suppression.rule + " needs a 'reason' (why is this acceptable?)");
  return suppression;
}

}  // namespace

bool IsDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  int year = std::stoi(std::string(text.substr(0, 4)));
  int month = std::stoi(std::string(text.substr(5, 2)));
  int day = std::stoi(std::string(text.substr(8, 2)));
  if (month < 1 || month > 12 || day < 1) return false;
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int limit = days[month - 1];
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && leap) limit = 29;
  return day <= limit;
}

bool GlobMatch(std::string_view pattern, std::string_view text) { return StarMatch(pattern, text); }

Result<Config> ParseConfig(std::string_view text, const std::string& file) {
  if (text.size() > kMaxConfigBytes) return MakeError(file, "config file is larger than 1 MiB");
  // Aliases are counted before a graph is built: 10,000 `reason: *r` would
  // otherwise be copied once per use.
  auto loaded = LoadYaml(text, file);
  if (!loaded.ok()) return loaded.error();
  YAML::Node root = std::move(*loaded);
  Config config;
  config.file = file;
  if (root.IsNull()) return config;  // an empty file is a valid, empty config
  if (!root.IsMap()) return At(file, root, "the config file must be a map of settings");
  try {
    for (const auto& entry : root) {
      if (!entry.first.IsScalar()) return At(file, entry.first, "setting names must be strings");
      std::string key = entry.first.as<std::string>();
      const YAML::Node& value = entry.second;
      if (key == "version") {
        if (!value.IsScalar() || value.as<std::string>() != "1")
          return At(file, value, "'version' must be 1");
      } else if (key == "fleet") {
        auto path = Scalar(file, value, key);
        if (!path.ok()) return path.error();
        config.fleet = Resolve(file, *path);
      } else if (key == "rules") {
        auto paths = ScalarList(file, value, key);
        if (!paths.ok()) return paths.error();
        for (const auto& path : *paths) config.rule_files.push_back(Resolve(file, path));
      } else if (key == "severity") {
        if (!value.IsMap()) return At(file, value, "'severity' must map rule ids to error|warning|note|off");
        for (const auto& item : value) {
          std::string rule = item.first.as<std::string>();
          auto level = Scalar(file, item.second, "severity." + rule);
          if (!level.ok()) return level.error();
          rules::RuleOverride override_entry;
          override_entry.rule = rule;
          if (*level == "off" || *level == "false") {  // YAML 1.1 readers turn off into false
            override_entry.disabled = true;
          } else if (auto severity = rules::ParseSeverity(*level)) {
            override_entry.severity = severity;
          } else {
            return At(file, item.second, "severity of " + rule + " must be error, warning, note or off, got '" + *level + "'");
          }
          config.overrides.push_back(override_entry);
        }
      } else if (key == "disable") {
        auto ids = ScalarList(file, value, key);
        if (!ids.ok()) return ids.error();
        for (const auto& id : *ids) {
          rules::RuleOverride override_entry;
          override_entry.rule = id;
          override_entry.disabled = true;
          config.overrides.push_back(override_entry);
        }
      } else if (key == "ignore") {
        if (!value.IsSequence()) return At(file, value, "'ignore' must be a list of {rule, reason, expires} entries");
        if (value.size() > kMaxListEntries) return At(file, value, "'ignore' has too many entries");
        for (const auto& item : value) {
          auto suppression = ParseIgnoreEntry(file, item);
          if (!suppression.ok()) return suppression.error();
          config.ignores.push_back(*suppression);
        }
      } else if (key == "fail-on" || key == "min-severity") {
        auto level = Scalar(file, value, key);
        if (!level.ok()) return level.error();
        bool fail_on = key == "fail-on";
        if (!IsThreshold(*level, fail_on))
          return At(file, value, "'" + key + "' must be " + (fail_on ? "error, warning, note or none" : "error, warning or note") +
                                     ", got '" + *level + "'");
        (fail_on ? config.fail_on : config.min_severity) = *level;
      } else if (key == "format") {
        auto formats = ScalarList(file, value, key);
        if (!formats.ok()) return formats.error();
        for (const auto& spec : *formats) {
          size_t equals = spec.find('=');
          std::string name = spec.substr(0, equals);
          static const std::set<std::string> kFormats = {"text",     "json",   "sarif", "junit", "github",
                                                         "markdown", "gitlab", "html",  "k8s"};
          if (!kFormats.count(name))
            return At(file, value,
                      "unknown format '" + name + "' (expected text, json, sarif, junit, github, markdown, gitlab, html or k8s)");
          if (equals == std::string::npos) {
            config.formats.push_back(spec);
          } else {
            config.formats.push_back(name + "=" + Resolve(file, spec.substr(equals + 1)));
          }
        }
      } else if (key == "output" || key == "platform" || key == "dockerfile" || key == "docs-url") {
        auto text_value = Scalar(file, value, key);
        if (!text_value.ok()) return text_value.error();
        if (key == "output") config.output = Resolve(file, *text_value);
        if (key == "platform") config.platform = *text_value;
        if (key == "dockerfile") config.dockerfile = Resolve(file, *text_value);
        if (key == "docs-url") config.docs_url = *text_value;
      } else if (key == "inline-ignores" || key == "fail-on-undecided") {
        if (!value.IsScalar()) return At(file, value, "'" + key + "' must be true or false");
        std::string flag = value.as<std::string>();
        std::optional<bool>& setting = key == "inline-ignores" ? config.inline_ignores : config.fail_on_undecided;
        if (flag == "true") setting = true;
        else if (flag == "false") setting = false;
        else return At(file, value, "'" + key + "' must be true or false");
      } else {
        return At(file, entry.first,
                  "unknown setting '" + key +
                      "' (expected fleet, rules, severity, disable, ignore, fail-on, fail-on-undecided, min-severity, "
                      "format, output, platform, dockerfile, docs-url, inline-ignores)");
      }
    }
  } catch (const YAML::Exception& e) {
    if (e.mark.line >= 0) return MakeErrorAtLine(file, e.mark.line + 1, e.mark.column + 1, e.msg);
    return MakeError(file, e.msg);
  }
  return config;
}

Result<Config> LoadConfig(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxConfigBytes, "config file", FileKinds::kRegularOnly);
  if (!text.ok()) return text.error();
  return ParseConfig(*text, path);
}

Result<std::optional<std::string>> FindConfigFile(const std::string& explicit_path,
                                                  const std::string& working_directory,
                                                  const std::string& user_config_dir) {
  std::error_code ec;
  if (!explicit_path.empty()) {
    if (!fs::is_regular_file(explicit_path, ec)) return MakeError(explicit_path, "--config: no such file");
    return std::optional<std::string>(explicit_path);
  }
  fs::path local = fs::path(working_directory) / ".imagelint.yaml";
  if (fs::is_regular_file(local, ec)) {
    return std::optional<std::string>(working_directory == "." ? std::string(".imagelint.yaml") : local.string());
  }
  fs::path xdg(user_config_dir);
  if (!xdg.empty()) {
    for (const char* name : {"config.yaml", ".imagelint.yaml"}) {
      if (fs::is_regular_file(xdg / name, ec)) return std::optional<std::string>((xdg / name).string());
    }
  }
  return std::optional<std::string>();
}

Config Merge(const Config& base, const Config& overlay) {
  Config out = base;
  if (!overlay.file.empty()) out.file = overlay.file;
  if (overlay.fleet) out.fleet = overlay.fleet;
  out.rule_files.insert(out.rule_files.end(), overlay.rule_files.begin(), overlay.rule_files.end());
  out.overrides.insert(out.overrides.end(), overlay.overrides.begin(), overlay.overrides.end());
  out.ignores.insert(out.ignores.end(), overlay.ignores.begin(), overlay.ignores.end());
  if (overlay.fail_on) out.fail_on = overlay.fail_on;
  if (overlay.fail_on_undecided) out.fail_on_undecided = overlay.fail_on_undecided;
  if (overlay.min_severity) out.min_severity = overlay.min_severity;
  if (!overlay.formats.empty()) out.formats = overlay.formats;
  if (overlay.output) out.output = overlay.output;
  if (overlay.platform) out.platform = overlay.platform;
  if (overlay.dockerfile) out.dockerfile = overlay.dockerfile;
  if (overlay.docs_url) out.docs_url = overlay.docs_url;
  if (overlay.inline_ignores) out.inline_ignores = overlay.inline_ignores;
  return out;
}

Result<rules::RuleOverride> ParseSeverityFlag(std::string_view spec) {
  size_t equals = spec.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return MakeError("--severity", "'" + std::string(spec) + "': expected RULE=error|warning|note|off");
  rules::RuleOverride override_entry;
  override_entry.rule = std::string(spec.substr(0, equals));
  std::string level(spec.substr(equals + 1));
  if (level == "off") {
    override_entry.disabled = true;
  } else if (auto severity = rules::ParseSeverity(level)) {
    override_entry.severity = severity;
  } else {
    return MakeError("--severity", "'" + std::string(spec) + "': level must be error, warning, note or off");
  }
  return override_entry;
}

Result<Suppression> ParseIgnoreFlag(std::string_view spec) {
  size_t equals = spec.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return MakeError("--ignore", "'" + std::string(spec) + "': expected RULE[:YYYY-MM-DD]=REASON (a reason is required)");
  Suppression suppression;
  suppression.origin = "flag";
  std::string head(spec.substr(0, equals));
  suppression.reason = std::string(spec.substr(equals + 1));
  size_t colon = head.find(':');
  suppression.rule = head.substr(0, colon);
  if (colon != std::string::npos) {
    suppression.expires = head.substr(colon + 1);
    if (!IsDate(suppression.expires))
      return MakeError("--ignore", "'" + std::string(spec) + "': the expiry must be a date YYYY-MM-DD");
  }
  if (suppression.rule.empty() || suppression.rule == "*")
    return MakeError("--ignore", "'" + std::string(spec) + "': name one rule");
  if (suppression.reason.find_first_not_of(" \t") == std::string::npos)
    return MakeError("--ignore", "'" + std::string(spec) + "': a reason is required after '='");
  return suppression;
}

}  // namespace imagelint::config
