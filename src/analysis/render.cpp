// The default text report: plain ASCII, 80 columns. One small function the
// report module can replace (src/report/ owns the other formats).
#include <sstream>

#include "imagelint/analysis.h"

namespace imagelint::analysis {

using nlohmann::json;

namespace {

constexpr size_t kWidth = 80;

// Greedy word wrap; words longer than the line are broken.
void Wrap(std::ostringstream& out, const std::string& text, const std::string& first_prefix,
          const std::string& prefix) {
  std::string line = first_prefix;
  size_t line_start_size = first_prefix.size();
  std::istringstream words(text);
  std::string word;
  bool any = false;
  while (words >> word) {
    while (word.size() > kWidth - prefix.size()) {
      if (line.size() > line_start_size) {
        out << line << "\n";
        line = prefix;
        line_start_size = prefix.size();
      }
      size_t room = kWidth - line.size();
      out << line << word.substr(0, room) << "\n";
      word = word.substr(room);
      line = prefix;
      line_start_size = prefix.size();
    }
    if (line.size() > line_start_size && line.size() + 1 + word.size() > kWidth) {
      out << line << "\n";
      line = prefix;
      line_start_size = prefix.size();
    }
    if (line.size() > line_start_size) line += " ";
    line += word;
    any = true;
  }
  if (any || line.size() > 0) out << line << "\n";
}

std::string Fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text + std::string(width - text.size(), ' ');
  return text.substr(0, width - 1) + "~";
}

std::string Cell(const json& verdict) {
  const json& predicted = verdict["predicted_error"];
  if (predicted.is_object()) {
    std::string name = predicted.value("name", "");
    int code = predicted.value("code", 0);
    return (code != 0 ? std::to_string(code) + " " : std::string()) + name + " (" + predicted.value("stage", "") + ")";
  }
  std::string status = verdict.value("status", "");
  if (status == "pass") return verdict["undetermined"].empty() ? "-" : "- (some checks undetermined)";
  return "-";
}

std::string EvidenceLine(const json& item) {
  std::string text = item.value("path", item.value("detail", std::string("?")));
  if (item.contains("layer")) {
    text += " (layer " + item["layer"].dump();
    if (item.contains("created_by") && item["created_by"].is_string()) {
      std::string created_by = item["created_by"];
      const std::string nop = "/bin/sh -c #(nop) ";
      if (created_by.rfind(nop, 0) == 0) created_by = created_by.substr(nop.size());
      const std::string shell = "/bin/sh -c ";
      if (created_by.rfind(shell, 0) == 0) created_by = "RUN " + created_by.substr(shell.size());
      if (created_by.size() > 60) created_by = created_by.substr(0, 57) + "...";
      text += ": " + created_by;
    }
    text += ")";
  }
  if (item.contains("dockerfile_line")) text += " [Dockerfile:" + item["dockerfile_line"].dump() + "]";
  return text;
}

}  // namespace

std::string RenderText(const json& report) {
  std::ostringstream out;
  for (const auto& image : report.value("images", json::array())) {
    std::string header = "IMAGE " + image.value("ref", std::string());
    std::string digest = image.value("digest", std::string());
    if (!digest.empty()) header += " (" + digest.substr(0, std::min<size_t>(digest.size(), 19)) + ")";
    if (header.size() > kWidth) header = header.substr(0, kWidth - 1) + "~";
    out << header << "\n";
    const json& verdicts = image["verdicts"];
    if (!verdicts.empty()) {
      size_t pool_width = 4;
      for (const auto& verdict : verdicts) pool_width = std::max(pool_width, verdict.value("pool", std::string()).size());
      pool_width = std::min<size_t>(pool_width, 24);
      out << "  " << Fit("POOL", pool_width) << "  VERDICT  PREDICTED ERROR\n";
      for (const auto& verdict : verdicts) {
        std::string line = "  " + Fit(verdict.value("pool", std::string()), pool_width) + "  " +
                           Fit(verdict.value("status", std::string()), 7) + "  " + Cell(verdict);
        if (line.size() > kWidth) line = line.substr(0, kWidth - 1) + "~";
        out << line << "\n";
      }
    } else {
      out << "  (no pools: image-level checks only; pass --fleet FILE for verdicts)\n";
    }
    const json& findings = image["findings"];
    if (findings.empty()) {
      out << "\n  No findings.\n\n";
      continue;
    }
    out << "\n";
    for (const auto& finding : findings) {
      std::string head = finding.value("severity", std::string()) + " " + finding.value("rule", std::string()) + " " +
                         finding.value("name", std::string());
      std::string pools;
      for (const auto& pool : finding.value("pools", json::array())) pools += (pools.empty() ? "" : ", ") + pool.get<std::string>();
      if (finding.value("scope", std::string()) == "image") {
        head += " [image]";
      } else if (!pools.empty()) {
        head += " [" + pools + "]";
      }
      Wrap(out, head, "", "    ");
      Wrap(out, finding.value("message", std::string()), "  ", "  ");
      const json& predicted = finding["predicted_error"];
      if (predicted.is_object()) {
        std::string text = "predicts: ";
        if (predicted.value("code", 0) != 0) text += std::to_string(predicted.value("code", 0)) + " ";
        text += predicted.value("name", std::string()) + " at " + predicted.value("stage", std::string());
        if (predicted.contains("message")) text += ": " + predicted.value("message", std::string());
        Wrap(out, text, "  ", "    ");
      }
      for (const auto& item : finding.value("evidence", json::array())) Wrap(out, EvidenceLine(item), "  evidence: ", "    ");
      if (finding.contains("fix")) Wrap(out, finding.value("fix", std::string()), "  fix: ", "    ");
      Wrap(out, finding.value("docs", std::string()), "  docs: ", "    ");
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace imagelint::analysis
