// JUnit XML for CI test views: a test suite per image, a test case per pool;
// a `fail` verdict is a failure, warnings go to the case's system-out.
// Without a fleet, each image gets one case ("image") that fails on errors.
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

std::string Xml(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

bool OnPool(const json& finding, const std::string& pool) {
  if (Str(finding, "scope") == "image" && Arr(finding, "pools").empty()) return true;
  for (const auto& name : Arr(finding, "pools")) {
    if (name.is_string() && name.get<std::string>() == pool) return true;
  }
  return false;
}

std::string FindingBlock(const json& finding) {
  std::string text = Str(finding, "severity") + " " + Str(finding, "rule") + ": " + Str(finding, "message") + "\n";
  for (const auto& item : Arr(finding, "evidence")) text += "  evidence: " + EvidenceText(item) + "\n";
  std::string fix = Str(finding, "fix");
  if (!fix.empty()) text += "  fix: " + fix + "\n";
  return text;
}

struct Case {
  std::string name;
  bool failed = false;
  std::string failure_message;
  std::string failure_text;
  std::string out_text;
};

}  // namespace

std::string RenderJunit(const json& report) {
  std::vector<std::pair<const json*, std::vector<Case>>> suites;
  size_t total = 0, failures = 0;
  for (const auto& image : Arr(report, "images")) {
    std::vector<Case> cases;
    const json& verdicts = Arr(image, "verdicts");
    if (verdicts.empty()) {
      Case c;
      c.name = "image";
      for (const auto& finding : Arr(image, "findings")) {
        if (SeverityOf(finding) == Severity::kError) {
          c.failed = true;
          if (c.failure_message.empty()) c.failure_message = Str(finding, "rule") + ": " + Str(finding, "message");
          c.failure_text += FindingBlock(finding);
        } else {
          c.out_text += FindingBlock(finding);
        }
      }
      cases.push_back(std::move(c));
    }
    for (const auto& verdict : verdicts) {
      Case c;
      c.name = Str(verdict, "pool", "?");
      c.failed = Str(verdict, "status") == "fail";
      const json& predicted = verdict.contains("predicted_error") ? verdict["predicted_error"] : json();
      if (c.failed) {
        c.failure_message = predicted.is_object() ? PredictedText(predicted) : std::string("fail");
        std::string rule = Str(predicted, "rule");
        if (!rule.empty()) c.failure_message += " (" + rule + ")";
      }
      for (const auto& finding : Arr(image, "findings")) {
        if (!OnPool(finding, c.name)) continue;
        if (c.failed && SeverityOf(finding) == Severity::kError) {
          c.failure_text += FindingBlock(finding);
        } else {
          c.out_text += FindingBlock(finding);
        }
      }
      for (const auto& finding : Arr(image, "suppressed")) {
        if (!OnPool(finding, c.name)) continue;
        const json& by = finding.contains("suppressed_by") ? finding["suppressed_by"] : json::object();
        c.out_text += "suppressed " + Str(finding, "rule") + ": " + Str(by, "reason") + "\n";
      }
      cases.push_back(std::move(c));
    }
    suites.emplace_back(&image, std::move(cases));
  }
  for (const auto& [image, cases] : suites) {
    total += cases.size();
    for (const auto& c : cases) failures += c.failed ? 1 : 0;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"imagelint\" tests=\"" + std::to_string(total) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\">\n";
  for (const auto& [image, cases] : suites) {
    size_t suite_failures = 0;
    for (const auto& c : cases) suite_failures += c.failed ? 1 : 0;
    std::string ref = Str(*image, "ref", "image");
    out += "  <testsuite name=\"" + Xml(ref) + "\" tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
           std::to_string(suite_failures) + "\" errors=\"0\" skipped=\"0\">\n";
    std::string digest = Str(*image, "digest");
    if (!digest.empty())
      out += "    <properties>\n      <property name=\"digest\" value=\"" + Xml(digest) + "\"/>\n    </properties>\n";
    for (const auto& c : cases) {
      out += "    <testcase classname=\"" + Xml("imagelint." + ref) + "\" name=\"" + Xml(c.name) + "\"";
      if (!c.failed && c.out_text.empty()) {
        out += "/>\n";
        continue;
      }
      out += ">\n";
      if (c.failed)
        out += "      <failure message=\"" + Xml(c.failure_message) + "\" type=\"fail\">" + Xml(c.failure_text) +
               "</failure>\n";
      if (!c.out_text.empty()) out += "      <system-out>" + Xml(c.out_text) + "</system-out>\n";
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace imagelint::report
