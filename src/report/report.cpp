// Formats, thresholds, the finalised report, the gate and file output.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "imagelint/digest.h"
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;

namespace internal {

int Rank(const json& finding) {
  if (!finding.is_object()) return -1;
  auto severity = ParseSeverityName(Str(finding, "severity"));
  return severity ? static_cast<int>(*severity) : -1;
}

std::string Str(const json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

const json& Arr(const json& j, const char* key) {
  static const json empty = json::array();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return empty;
  return *it;
}

std::string PredictedText(const json& predicted) {
  if (!predicted.is_object()) return "";
  std::string text;
  if (predicted.contains("code") && predicted["code"].is_number_integer() && predicted["code"].get<int64_t>() != 0)
    text = std::to_string(predicted["code"].get<int64_t>()) + " ";
  text += Str(predicted, "name", "?");
  return text;
}

std::string CleanCreatedBy(std::string created_by) {
  const std::string nop = "/bin/sh -c #(nop) ";
  const std::string shell = "/bin/sh -c ";
  if (created_by.rfind(nop, 0) == 0) {
    created_by = created_by.substr(nop.size());
  } else if (created_by.rfind(shell, 0) == 0) {
    created_by = "RUN " + created_by.substr(shell.size());
  }
  // BuildKit history lines end with " # buildkit".
  const std::string buildkit = " # buildkit";
  if (created_by.size() >= buildkit.size() &&
      created_by.compare(created_by.size() - buildkit.size(), buildkit.size(), buildkit) == 0)
    created_by.resize(created_by.size() - buildkit.size());
  for (char& c : created_by) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  while (!created_by.empty() && created_by.back() == ' ') created_by.pop_back();
  return created_by;
}

std::string EvidenceText(const json& item) {
  if (!item.is_object()) return item.is_string() ? item.get<std::string>() : item.dump();
  std::string text = Str(item, "path", Str(item, "detail", "?"));
  if (item.contains("path") && item.contains("detail") && item["detail"].is_string())
    text += " — " + item["detail"].get<std::string>();
  if (item.contains("layer") && item["layer"].is_number_integer()) {
    text += " (layer " + std::to_string(item["layer"].get<int64_t>());
    std::string created_by = CleanCreatedBy(Str(item, "created_by"));
    if (created_by.size() > 60) created_by = created_by.substr(0, 57) + "...";
    if (!created_by.empty()) text += ": " + created_by;
    text += ")";
  }
  if (item.contains("dockerfile_line") && item["dockerfile_line"].is_number_integer())
    text += " [Dockerfile:" + std::to_string(item["dockerfile_line"].get<int64_t>()) + "]";
  return text;
}

int DockerfileLine(const json& finding) {
  for (const auto& item : Arr(finding, "evidence")) {
    if (item.is_object() && item.contains("dockerfile_line") && item["dockerfile_line"].is_number_integer()) {
      int64_t line = item["dockerfile_line"].get<int64_t>();
      if (line >= 1 && line < (1 << 30)) return static_cast<int>(line);
    }
  }
  return 0;
}

std::string DockerfileFor(const json& image, const RenderOptions& options) {
  std::string dockerfile = Str(image, "dockerfile");
  return dockerfile.empty() ? options.dockerfile : dockerfile;
}

std::string PoolList(const json& finding) {
  std::string pools;
  for (const auto& pool : Arr(finding, "pools")) {
    if (!pool.is_string()) continue;
    if (!pools.empty()) pools += ", ";
    pools += pool.get<std::string>();
  }
  return pools;
}

std::vector<const json*> SortedFindings(const json& image) {
  std::vector<const json*> out;
  for (const auto& finding : Arr(image, "findings")) out.push_back(&finding);
  std::stable_sort(out.begin(), out.end(), [](const json* a, const json* b) { return Rank(*a) > Rank(*b); });
  return out;
}

std::string Wrap(const std::string& text, const std::string& first, const std::string& rest, size_t width) {
  std::string out;
  std::string line = first;
  size_t start = first.size();
  std::istringstream words(text);
  std::string word;
  auto flush = [&](const std::string& next_prefix) {
    out += line;
    out += "\n";
    line = next_prefix;
    start = next_prefix.size();
  };
  while (words >> word) {
    if (line.size() > start && line.size() + 1 + word.size() > width) flush(rest);
    // Words longer than a whole line (paths, digests) are cut.
    while (line.size() + word.size() > width && width > line.size() + 8) {
      size_t room = width - line.size();
      line += word.substr(0, room);
      word = word.substr(room);
      flush(rest);
    }
    if (line.size() > start) line += " ";
    line += word;
  }
  if (line.size() > start || out.empty()) flush(rest);
  return out;
}

std::string Fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width == 0) return "";
  return text.substr(0, width - 1) + "~";
}

std::string Pad(const std::string& text, size_t width) {
  std::string fitted = Fit(text, width);
  return fitted + std::string(width - fitted.size(), ' ');
}

std::string HelpUri(const std::string& base, const std::string& rule_id, const std::string& docs) {
  std::string path = docs.empty() ? "docs/rules/" + rule_id + ".md" : docs;
  return base + path;
}

}  // namespace internal

using namespace internal;

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kText: return "text";
    case Format::kJson: return "json";
    case Format::kSarif: return "sarif";
    case Format::kJunit: return "junit";
    case Format::kGithub: return "github";
    case Format::kMarkdown: return "markdown";
    case Format::kK8s: return "k8s";
  }
  return "text";
}

std::vector<std::string> FormatNames() { return {"text", "json", "sarif", "junit", "github", "markdown", "k8s"}; }

Result<Format> ParseFormat(std::string_view name) {
  for (Format format : {Format::kText, Format::kJson, Format::kSarif, Format::kJunit, Format::kGithub,
                        Format::kMarkdown, Format::kK8s}) {
    if (name == FormatName(format)) return format;
  }
  return MakeError("--format", "unknown format '" + std::string(name) +
                                   "' (expected text, json, sarif, junit, github, markdown or k8s)");
}

Result<FormatRequest> ParseFormatRequest(std::string_view spec) {
  FormatRequest request;
  size_t equals = spec.find('=');
  std::string_view name = spec.substr(0, equals);
  auto format = ParseFormat(name);
  if (!format.ok()) return format.error();
  request.format = *format;
  if (equals != std::string_view::npos) {
    request.path = std::string(spec.substr(equals + 1));
    if (request.path.empty())
      return MakeError("--format", "'" + std::string(spec) + "': a file name must follow '=' (or use '-' for stdout)");
  }
  return request;
}

std::optional<Severity> ParseSeverityName(std::string_view text) {
  if (text == "error") return Severity::kError;
  if (text == "warning") return Severity::kWarning;
  if (text == "note") return Severity::kNote;
  return std::nullopt;
}

std::string_view SeverityLabel(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "note";
}

Result<std::optional<Severity>> ParseThreshold(std::string_view text) {
  if (text == "none") return std::optional<Severity>();
  auto severity = ParseSeverityName(text);
  if (!severity) return MakeError("", "'" + std::string(text) + "' is not one of error, warning, note, none");
  return std::optional<Severity>(*severity);
}

RuleMeta FromRuleInfo(const rules::RuleInfo& info) {
  RuleMeta meta;
  meta.id = info.id;
  meta.name = info.name;
  meta.title = info.title;
  meta.summary = info.summary;
  meta.severity = info.severity;
  meta.docs = info.docs;
  meta.enabled = info.enabled;
  return meta;
}

std::vector<RuleMeta> FromRuleInfos(const std::vector<rules::RuleInfo>& infos) {
  std::vector<RuleMeta> out;
  for (const auto& info : infos) out.push_back(FromRuleInfo(info));
  return out;
}

std::vector<RuleMeta> RulesFromReport(const json& report) {
  std::vector<RuleMeta> out;
  for (const auto& rule : Arr(report, "rules")) {
    if (!rule.is_object() || Str(rule, "id").empty()) continue;
    RuleMeta meta;
    meta.id = Str(rule, "id");
    meta.name = Str(rule, "name");
    meta.title = Str(rule, "title");
    meta.summary = Str(rule, "summary");
    meta.severity = ParseSeverityName(Str(rule, "severity")).value_or(Severity::kWarning);
    meta.docs = Str(rule, "docs");
    meta.enabled = !(rule.contains("enabled") && rule["enabled"].is_boolean() && !rule["enabled"].get<bool>());
    out.push_back(std::move(meta));
  }
  return out;
}

json Finalize(const json& input, const FinalizeOptions& options) {
  json report = input.is_object() ? input : json::object();
  json hidden = {{"error", 0}, {"warning", 0}, {"note", 0}};
  if (report.contains("summary") && report["summary"].is_object() && report["summary"].contains("hidden") &&
      report["summary"]["hidden"].is_object()) {
    for (const char* key : {"error", "warning", "note"}) {
      const json& value = report["summary"]["hidden"][key];
      if (value.is_number_integer()) hidden[key] = value;
    }
  }
  json shown_counts = {{"error", 0}, {"warning", 0}, {"note", 0}};
  json verdict_counts = {{"pass", 0}, {"warn", 0}, {"fail", 0}};
  size_t suppressed = 0;
  std::map<std::string, bool> pools;
  if (!report.contains("images") || !report["images"].is_array()) report["images"] = json::array();
  for (auto& image : report["images"]) {
    if (!image.is_object()) continue;
    json kept = json::array();
    for (const auto& finding : Arr(image, "findings")) {
      int rank = Rank(finding);
      std::string severity = Str(finding, "severity");
      if (rank >= 0 && rank < static_cast<int>(options.min_severity)) {
        hidden[severity] = hidden[severity].get<int64_t>() + 1;
        continue;
      }
      if (rank >= 0) shown_counts[severity] = shown_counts[severity].get<int64_t>() + 1;
      kept.push_back(finding);
    }
    image["findings"] = kept;
    suppressed += Arr(image, "suppressed").size();
    for (const auto& verdict : Arr(image, "verdicts")) {
      std::string status = Str(verdict, "status");
      if (verdict_counts.contains(status)) verdict_counts[status] = verdict_counts[status].get<int64_t>() + 1;
      pools[Str(verdict, "pool")] = true;
    }
  }
  json summary = json::object();
  summary["images"] = report["images"].size();
  summary["pools"] = report.contains("fleet") && report["fleet"].is_object()
                         ? Arr(report["fleet"], "pools").size()
                         : pools.size();
  summary["verdicts"] = verdict_counts;
  summary["findings"] = shown_counts;
  summary["hidden"] = hidden;
  summary["min_severity"] = std::string(SeverityLabel(options.min_severity));
  summary["suppressed"] = suppressed;
  const json& ignores = report.contains("ignores") ? report["ignores"] : json::object();
  summary["expired_ignores"] = Arr(ignores, "expired").size();
  summary["unused_ignores"] = Arr(ignores, "unused").size();
  summary["invalid_ignores"] = Arr(ignores, "invalid").size();
  report["summary"] = summary;
  return report;
}

std::string RenderJson(const json& report) { return report.dump(2) + "\n"; }

std::string Render(const json& report, Format format, const std::vector<RuleMeta>& rules,
                   const RenderOptions& options) {
  switch (format) {
    case Format::kText: return options.text_renderer ? options.text_renderer(report, options) : RenderText(report, options);
    case Format::kJson: return RenderJson(report);
    case Format::kSarif: return RenderSarif(report, rules, options);
    case Format::kJunit: return RenderJunit(report);
    case Format::kGithub: return RenderGithub(report, options);
    case Format::kMarkdown: return RenderMarkdown(report, rules, options);
    case Format::kK8s: {
      if (!options.placement) return "# --format k8s needs a fleet (--fleet FILE)\n";
      auto advice = options.placement(report);
      return advice.ok() ? *advice : "# " + advice.error().ToString() + "\n";
    }
  }
  return RenderText(report, options);
}

Status WriteReports(const json& report, const std::vector<RuleMeta>& rules,
                    const std::vector<FormatRequest>& requests, const RenderOptions& options, std::ostream& out) {
  int to_stdout = 0;
  for (const auto& request : requests) {
    if (request.path.empty() || request.path == "-") ++to_stdout;
  }
  if (to_stdout > 1)
    return MakeError("--format", "only one format can go to standard output; give the others a file (FORMAT=FILE)");
  for (const auto& request : requests) {
    bool is_stdout = request.path.empty() || request.path == "-";
    RenderOptions render_options = options;
    if (!is_stdout) render_options.color = false;
    if (request.format == Format::kK8s) {  // placement advice: its errors are errors, not text
      if (!options.placement) return MakeError("--format k8s", "needs a fleet (--fleet FILE): placement is advice over pools");
      auto advice = options.placement(report);
      if (!advice.ok()) return advice.error();
    }
    std::string text = Render(report, request.format, rules, render_options);
    if (is_stdout) {
      out << text;
      out.flush();
      if (!out) return MakeError("standard output", "could not write the " + std::string(FormatName(request.format)) + " report");
      continue;
    }
    std::ofstream file(request.path, std::ios::binary | std::ios::trunc);
    if (!file) return MakeError(request.path, "cannot open for writing the " + std::string(FormatName(request.format)) + " report");
    file << text;
    file.close();
    if (!file) return MakeError(request.path, "could not write the " + std::string(FormatName(request.format)) + " report");
  }
  return OkStatus();
}

int ExitCodeFor(const json& report, std::optional<Severity> fail_on) {
  if (!fail_on) return 0;
  int threshold = static_cast<int>(*fail_on);
  for (const auto& image : Arr(report, "images")) {
    for (const auto& finding : Arr(image, "findings")) {
      if (Rank(finding) >= threshold) return 1;
    }
  }
  if (report.contains("summary") && report["summary"].is_object() && report["summary"].contains("hidden")) {
    const json& hidden = report["summary"]["hidden"];
    for (Severity severity : {Severity::kNote, Severity::kWarning, Severity::kError}) {
      if (static_cast<int>(severity) < threshold) continue;
      const json& count = hidden.is_object() && hidden.contains(SeverityLabel(severity))
                              ? hidden[std::string(SeverityLabel(severity))]
                              : json();
      if (count.is_number_integer() && count.get<int64_t>() > 0) return 1;
    }
  }
  return 0;
}

bool ColorWanted(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return isatty(fd) == 1;
}

std::string DocsDir() {
  const char* env = std::getenv("IMAGELINT_DOCS_DIR");
  if (env && *env) return env;
  return std::string(IMAGELINT_DATA_DIR) + "/docs";
}

std::string FindingFingerprint(const json& image, const json& finding) {
  // Identity = what the finding is about, not how it is worded or where the
  // bytes sit: rule, image reference, the pools and the evidence paths.
  std::string key = "imagelint/v1\n" + Str(finding, "rule") + "\n" + Str(image, "ref") + "\n";
  std::vector<std::string> pools;
  for (const auto& pool : Arr(finding, "pools")) {
    if (pool.is_string()) pools.push_back(pool.get<std::string>());
  }
  std::sort(pools.begin(), pools.end());
  for (const auto& pool : pools) key += "pool:" + pool + "\n";
  std::vector<std::string> paths;
  for (const auto& item : Arr(finding, "evidence")) {
    std::string path = Str(item, "path");
    if (!path.empty()) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) key += "path:" + path + "\n";
  if (paths.empty()) key += "message:" + Str(finding, "message") + "\n";
  std::string digest = Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  return digest.substr(digest.find(':') + 1);
}

}  // namespace imagelint::report
