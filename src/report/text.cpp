// The text report for people: a verdict matrix (pools × images), findings
// grouped by severity with evidence and fix, suppressions, a summary line.
// Fits 80 columns; ANSI colour only when asked (ColorWanted).
#include <algorithm>
#include <map>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string operator()(const std::string& text, const char* code) const {
    if (!color_ || text.empty()) return text;
    return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
  }
  std::string Status(const std::string& padded, const std::string& status) const {
    if (status == "fail") return (*this)(padded, "1;31");
    if (status == "warn") return (*this)(padded, "33");
    if (status == "pass") return (*this)(padded, "32");
    return padded;
  }
  std::string Severity(const std::string& text, const std::string& severity) const {
    if (severity == "error") return (*this)(text, "1;31");
    if (severity == "warning") return (*this)(text, "33");
    return (*this)(text, "36");
  }

 private:
  bool color_;
};

std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

int64_t Count(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return 0;
  return j[key].get<int64_t>();
}

std::string ImageLabel(const json& image) {
  std::string label = Str(image, "ref", "?");
  std::string digest = Str(image, "digest");
  if (!digest.empty()) {
    size_t colon = digest.find(':');
    std::string hex = colon == std::string::npos ? digest : digest.substr(colon + 1);
    label += " @" + hex.substr(0, 12);
  }
  std::string platform = Str(image, "platform");
  if (!platform.empty()) label += " " + platform;
  return label;
}

std::string StatusWord(const std::string& status) {
  if (status == "fail") return "FAIL";
  if (status == "warn") return "warn";
  if (status == "pass") return "pass";
  return status.empty() ? "-" : status;
}

// Pools in fleet order (the fleet table first, then any pool a verdict names).
std::vector<std::string> PoolNames(const json& report) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (report.contains("fleet")) {
    for (const auto& pool : Arr(report["fleet"], "pools")) add(Str(pool, "name"));
  }
  for (const auto& image : Arr(report, "images")) {
    for (const auto& verdict : Arr(image, "verdicts")) add(Str(verdict, "pool"));
  }
  return names;
}

const json* VerdictFor(const json& image, const std::string& pool) {
  for (const auto& verdict : Arr(image, "verdicts")) {
    if (Str(verdict, "pool") == pool) return &verdict;
  }
  return nullptr;
}

void RenderMatrix(std::string& out, const json& report, const RenderOptions& options, const Painter& paint) {
  const json& images = Arr(report, "images");
  std::vector<std::string> pools = PoolNames(report);
  size_t width = std::max<size_t>(options.width, 40);
  for (size_t i = 0; i < images.size(); ++i) {
    std::string status = Str(images[i], "status");
    std::string line = "#" + std::to_string(i + 1) + " " + ImageLabel(images[i]);
    std::string fitted = Fit(line, width - 7);
    out += fitted + std::string(width - 6 - fitted.size(), ' ') + paint.Status(StatusWord(status), status) + "\n";
  }
  if (pools.empty()) {
    out += "(no fleet: image checks only; pass --fleet FILE for per-pool verdicts)\n";
    return;
  }
  out += "\n";
  size_t pool_width = 4;
  for (const auto& pool : pools) pool_width = std::max(pool_width, pool.size());
  pool_width = std::min<size_t>(pool_width, 30);
  const size_t cell = 6;
  size_t per_row = std::max<size_t>(1, (width - 2 - pool_width) / (cell + 1));
  for (size_t first = 0; first < images.size(); first += per_row) {
    size_t last = std::min(images.size(), first + per_row);
    std::string header = "  " + Pad("POOL", pool_width);
    for (size_t i = first; i < last; ++i) header += " " + Pad("#" + std::to_string(i + 1), cell);
    while (!header.empty() && header.back() == ' ') header.pop_back();
    out += paint(header, "1") + "\n";
    for (const auto& pool : pools) {
      std::string line = "  " + Pad(pool, pool_width);
      for (size_t i = first; i < last; ++i) {
        const json* verdict = VerdictFor(images[i], pool);
        std::string status = verdict ? Str(*verdict, "status") : "";
        line += " " + paint.Status(Pad(StatusWord(status), cell), status);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }
  // What users would meet where a pool fails or warns.
  std::string details;
  for (size_t i = 0; i < images.size(); ++i) {
    for (const auto& verdict : Arr(images[i], "verdicts")) {
      const json& predicted = verdict.contains("predicted_error") ? verdict["predicted_error"] : json();
      if (!predicted.is_object()) continue;
      std::string text = "#" + std::to_string(i + 1) + " on " + Str(verdict, "pool") + ": " + PredictedText(predicted);
      std::string stage = Str(predicted, "stage");
      if (!stage.empty()) text += " at " + stage;
      std::string rule = Str(predicted, "rule");
      if (!rule.empty()) text += " (" + rule + ")";
      details += Wrap(text, "  ", "      ", width);
    }
  }
  if (!details.empty()) out += "\nPredicted errors:\n" + details;
}

void RenderFinding(std::string& out, size_t image_index, const json& finding, const RenderOptions& options,
                   const Painter& paint) {
  size_t width = std::max<size_t>(options.width, 40);
  std::string severity = Str(finding, "severity");
  std::string head = Str(finding, "rule", "?");
  std::string name = Str(finding, "name");
  if (!name.empty()) head += " " + name;
  std::string where = "#" + std::to_string(image_index + 1);
  std::string pools = PoolList(finding);
  if (Str(finding, "scope") == "image" || pools.empty()) {
    where += ", image";
  } else {
    where += ", pools: " + pools;
  }
  std::string wrapped = Wrap(head + " [" + where + "]", "  ", "      ", width);
  // Colour the rule id only (the first word), so wrapping stays exact.
  std::string rule = Str(finding, "rule", "?");
  if (wrapped.compare(2, rule.size(), rule) == 0)
    wrapped = "  " + paint.Severity(rule, severity) + wrapped.substr(2 + rule.size());
  out += wrapped;
  out += Wrap(Str(finding, "message"), "    ", "    ", width);
  const json& predicted = finding.contains("predicted_error") ? finding["predicted_error"] : json();
  if (predicted.is_object()) {
    std::string text = PredictedText(predicted);
    std::string stage = Str(predicted, "stage");
    if (!stage.empty()) text += " at " + stage;
    std::string message = Str(predicted, "message");
    if (!message.empty()) text += ": " + message;
    out += Wrap(text, "    predicts: ", "      ", width);
  }
  const json& evidence = Arr(finding, "evidence");
  size_t shown = 0;
  for (const auto& item : evidence) {
    if (shown == 5) {
      out += "    evidence: ... and " + std::to_string(evidence.size() - shown) + " more (see --format json)\n";
      break;
    }
    out += Wrap(EvidenceText(item), "    evidence: ", "      ", width);
    ++shown;
  }
  std::string fix = Str(finding, "fix");
  if (!fix.empty()) out += Wrap(fix, "    fix: ", "      ", width);
  std::string docs = Str(finding, "docs");
  if (!docs.empty()) out += Wrap(docs, "    docs: ", "      ", width);
}

std::string SuppressionSource(const json& by) {
  std::string source = Str(by, "file");
  if (source.empty()) source = Str(by, "origin", "?");
  if (by.contains("line") && by["line"].is_number_integer() && by["line"].get<int64_t>() > 0)
    source += ":" + std::to_string(by["line"].get<int64_t>());
  return source;
}

}  // namespace

std::string RenderText(const json& report, const RenderOptions& options) {
  Painter paint(options.color);
  std::string out;
  const json& images = Arr(report, "images");
  RenderMatrix(out, report, options, paint);

  const char* severities[] = {"error", "warning", "note"};
  const char* headings[] = {"ERRORS", "WARNINGS", "NOTES"};
  for (int s = 0; s < 3; ++s) {
    std::vector<std::pair<size_t, const json*>> group;
    for (size_t i = 0; i < images.size(); ++i) {
      for (const auto& finding : Arr(images[i], "findings")) {
        if (Str(finding, "severity") == severities[s]) group.emplace_back(i, &finding);
      }
    }
    if (group.empty()) continue;
    out += "\n" + paint.Severity(std::string(headings[s]) + " (" + std::to_string(group.size()) + ")", severities[s]) + "\n";
    for (const auto& [index, finding] : group) RenderFinding(out, index, *finding, options, paint);
  }

  return out + RenderTextSummary(report, options);
}

std::string RenderTextSummary(const json& report, const RenderOptions& options) {
  Painter paint(options.color);
  size_t width = std::max<size_t>(options.width, 40);
  std::string out;
  const json& images = Arr(report, "images");
  std::vector<std::pair<size_t, const json*>> suppressed;
  for (size_t i = 0; i < images.size(); ++i) {
    for (const auto& finding : Arr(images[i], "suppressed")) suppressed.emplace_back(i, &finding);
  }
  if (!suppressed.empty()) {
    out += "\n" + paint("SUPPRESSED (" + std::to_string(suppressed.size()) + ")", "1") + "\n";
    for (const auto& [index, finding] : suppressed) {
      const json& by = finding->contains("suppressed_by") ? (*finding)["suppressed_by"] : json::object();
      std::string text = Str(*finding, "rule", "?") + " " + Str(*finding, "severity") + " [#" +
                         std::to_string(index + 1) + "] by " + SuppressionSource(by) + ": " + Str(by, "reason");
      std::string expires = Str(by, "expires");
      if (!expires.empty()) text += " (until " + expires + ")";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  const json& ignores = report.contains("ignores") ? report["ignores"] : json::object();
  if (!Arr(ignores, "expired").empty()) {
    out += "\n" + paint("EXPIRED IGNORES (" + std::to_string(Arr(ignores, "expired").size()) + ")", "33") + "\n";
    for (const auto& entry : Arr(ignores, "expired")) {
      std::string text = Str(entry, "rule", "?") + " expired " + Str(entry, "expires") + " (" +
                         SuppressionSource(entry) + "): " + Str(entry, "reason") +
                         "; its findings are reported again";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  if (!Arr(ignores, "invalid").empty()) {
    out += "\n" + paint("REJECTED IGNORES (" + std::to_string(Arr(ignores, "invalid").size()) + ")", "33") + "\n";
    for (const auto& entry : Arr(ignores, "invalid")) {
      std::string text = Str(entry, "rule", "?") + " (" + SuppressionSource(entry) + "): " + Str(entry, "problem") +
                         "; not applied";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  if (!Arr(ignores, "unused").empty()) {
    out += "\n" + paint("UNUSED IGNORES (" + std::to_string(Arr(ignores, "unused").size()) + ")", "1") + "\n";
    for (const auto& entry : Arr(ignores, "unused")) {
      std::string text = Str(entry, "rule", "?") + " (" + SuppressionSource(entry) + "): matched no finding";
      out += Wrap(text, "  ", "      ", width);
    }
  }

  const json& summary = report.contains("summary") ? report["summary"] : json::object();
  const json& verdicts = summary.contains("verdicts") ? summary["verdicts"] : json::object();
  const json& findings = summary.contains("findings") ? summary["findings"] : json::object();
  const json& hidden = summary.contains("hidden") ? summary["hidden"] : json::object();
  std::string line = "imagelint: " + Plural(Count(summary, "images"), "image", "images");
  if (Count(summary, "pools") > 0) {
    line += " x " + Plural(Count(summary, "pools"), "pool", "pools") + ": " + std::to_string(Count(verdicts, "fail")) +
            " fail, " + std::to_string(Count(verdicts, "warn")) + " warn, " + std::to_string(Count(verdicts, "pass")) +
            " pass; ";
  } else {
    line += ", no fleet; ";
  }
  line += Plural(Count(findings, "error"), "error", "errors") + ", " +
                     Plural(Count(findings, "warning"), "warning", "warnings") + ", " +
                     Plural(Count(findings, "note"), "note", "notes");
  int64_t hidden_total = Count(hidden, "error") + Count(hidden, "warning") + Count(hidden, "note");
  line += "; " + std::to_string(Count(summary, "suppressed")) + " suppressed";
  if (hidden_total > 0)
    line += "; " + std::to_string(hidden_total) + " below --min-severity " + Str(summary, "min_severity");
  if (Count(summary, "expired_ignores") > 0)
    line += "; " + Plural(Count(summary, "expired_ignores"), "expired ignore", "expired ignores");
  if (Count(summary, "invalid_ignores") > 0)
    line += "; " + Plural(Count(summary, "invalid_ignores"), "rejected ignore", "rejected ignores");
  out += "\n" + Wrap(line, "", "  ", width);
  return out;
}

}  // namespace imagelint::report
