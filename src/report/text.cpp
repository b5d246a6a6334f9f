// The text report for people: per image, the verdict of each pool with the
// predicted error, then every finding with message, prediction, evidence, fix
// and docs; then suppressions and a summary line. Fits RenderOptions::width
// (80 columns); ANSI colour (in the summary's headings) only when asked.
#include <algorithm>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

// ANSI colour for headings, only when asked (RenderOptions::color).
class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string operator()(const std::string& text, const char* code) const {
    if (!color_ || text.empty()) return text;
    return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
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

std::string SuppressionSource(const json& by) {
  std::string source = Str(by, "file");
  if (source.empty()) source = Str(by, "origin", "?");
  if (by.contains("line") && by["line"].is_number_integer() && by["line"].get<int64_t>() > 0)
    source += ":" + std::to_string(by["line"].get<int64_t>());
  return source;
}

// One line, cut to `width` ("~" marks the cut).
std::string Cut(const std::string& line, size_t width) {
  return line.size() > width ? line.substr(0, width - 1) + "~" : line;
}

// The PREDICTED ERROR cell of a pool's row.
std::string Cell(const json& verdict) {
  const json& predicted = verdict.contains("predicted_error") ? verdict["predicted_error"] : json();
  if (predicted.is_object()) return PredictedText(predicted) + " (" + Str(predicted, "stage") + ")";
  if (Str(verdict, "status") == "pass" && !Arr(verdict, "undetermined").empty()) return "- (some checks undetermined)";
  return "-";
}

void RenderVerdicts(std::string& out, const json& image, size_t width) {
  const json& verdicts = Arr(image, "verdicts");
  if (verdicts.empty()) {
    out += "  (no pools: image-level checks only; pass --fleet FILE for verdicts)\n";
    return;
  }
  size_t pool_width = 4;
  for (const auto& verdict : verdicts) pool_width = std::max(pool_width, Str(verdict, "pool").size());
  pool_width = std::min<size_t>(pool_width, 24);
  out += "  " + Pad("POOL", pool_width) + "  VERDICT  PREDICTED ERROR\n";
  for (const auto& verdict : verdicts) {
    std::string line = "  " + Pad(Str(verdict, "pool"), pool_width) + "  " + Pad(Str(verdict, "status"), 7) + "  " +
                       Cell(verdict);
    out += Cut(line, width) + "\n";
  }
}

void RenderFinding(std::string& out, const json& finding, size_t width) {
  std::string head = Str(finding, "severity") + " " + Str(finding, "rule") + " " + Str(finding, "name");
  std::string pools = PoolList(finding);
  if (Str(finding, "scope") == "image") {
    head += " [image]";
  } else if (!pools.empty()) {
    head += " [" + pools + "]";
  }
  out += Wrap(head, "", "    ", width);
  out += Wrap(Str(finding, "message"), "  ", "  ", width);
  const json& predicted = finding.contains("predicted_error") ? finding["predicted_error"] : json();
  if (predicted.is_object()) {
    std::string text = "predicts: " + PredictedText(predicted) + " at " + Str(predicted, "stage");
    if (predicted.contains("message")) text += ": " + Str(predicted, "message");
    out += Wrap(text, "  ", "    ", width);
  }
  for (const auto& item : Arr(finding, "evidence")) out += Wrap(EvidenceText(item), "  evidence: ", "    ", width);
  if (finding.contains("fix")) out += Wrap(Str(finding, "fix"), "  fix: ", "    ", width);
  out += Wrap(Str(finding, "docs"), "  docs: ", "    ", width);
  out += "\n";
}

// The tail: suppressed findings, expired/rejected/unused ignores and the
// summary line (suppressions are never silent).
std::string RenderSummary(const json& report, const RenderOptions& options) {
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

}  // namespace

std::string RenderText(const json& report, const RenderOptions& options) {
  size_t width = std::max<size_t>(options.width, 40);
  std::string out;
  for (const auto& image : Arr(report, "images")) {
    std::string header = "IMAGE " + Str(image, "ref");
    std::string digest = Str(image, "digest");
    if (!digest.empty()) header += " (" + digest.substr(0, std::min<size_t>(digest.size(), 19)) + ")";
    out += Cut(header, width) + "\n";
    RenderVerdicts(out, image, width);
    const json& findings = Arr(image, "findings");
    if (findings.empty()) {
      out += "\n  No findings.\n\n";
      continue;
    }
    out += "\n";
    for (const auto& finding : findings) RenderFinding(out, finding, width);
  }
  return out + "\n" + RenderSummary(report, options);
}

}  // namespace imagelint::report
