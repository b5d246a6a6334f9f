// JUnit XML for CI test views: a test suite per image, a test case per pool.
// A pool that fails the gate (summary.gate: a fail verdict, a warning under
// --fail-on warning, an undecided verdict under --fail-on-undecided) is a
// <failure>; an undecided pool that does not fail it is <skipped> (JUnit's
// "not decided"), never a pass; other findings go to system-out. Without a
// fleet, each image gets one case ("image").
#include <algorithm>
#include <optional>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using namespace internal;

namespace {

// XML 1.0 forbids most control characters, even escaped: they become '?'.
std::string Xml(const std::string& text) { return EscapeMarkup(text, "&apos;", '?', true); }

bool OnPool(const Finding& finding, const std::string& pool) {
  if (ImageScoped(finding) && finding.pools.empty()) return true;
  return std::find(finding.pools.begin(), finding.pools.end(), pool) != finding.pools.end();
}

std::string FindingBlock(const Finding& finding) {
  std::string text = Kind(finding) + " " + finding.rule + ": " + finding.message + "\n";
  for (const auto& item : finding.evidence) text += "  evidence: " + EvidenceText(item) + "\n";
  std::string fix = TextOr(finding.fix);
  if (!fix.empty()) text += "  fix: " + fix + "\n";
  return text;
}

struct Case {
  std::string name;
  bool failed = false;
  bool skipped = false;
  std::string failure_message;
  std::string failure_text;
  std::string skipped_message;
  std::string out_text;
};

// The gate the report was finalised with (analysis::Finalize: summary.gate).
struct Gate {
  std::optional<Severity> fail_on = Severity::kError;
  bool fail_on_undecided = false;
  bool known = false;  // false: a report without summary.gate (only fail verdicts fail)
  std::string fail_on_text = "error";
  bool Fails(const Finding& finding) const {
    if (Undecided(finding)) return fail_on_undecided && SeverityOf(finding) >= Severity::kWarning;
    return fail_on && SeverityOf(finding) >= *fail_on;
  }
};

Gate GateOf(const Report& report) {
  Gate gate;
  if (!report.summary || !report.summary->gate) return gate;
  const analysis::GateSummary& g = *report.summary->gate;
  gate.known = true;
  gate.fail_on_text = g.fail_on;
  gate.fail_on = g.fail_on == "none" ? std::nullopt : rules::ParseSeverity(g.fail_on);
  gate.fail_on_undecided = g.fail_on_undecided;
  return gate;
}

std::string UndeterminedText(const Verdict& verdict) { return Joined(verdict.undetermined); }

}  // namespace

std::string RenderJunit(const Report& report) {
  std::vector<std::pair<const ImageReport*, std::vector<Case>>> suites;
  size_t total = 0, failures = 0, skipped = 0;
  const Gate gate = GateOf(report);
  for (const auto& image : report.images) {
    std::vector<Case> cases;
    const std::vector<Verdict>& verdicts = image.verdicts;
    if (verdicts.empty()) {
      Case c;
      c.name = "image";
      c.failed = gate.known ? image.gate == "fail" : image.status == analysis::Outcome::kFail;
      for (const auto& finding : image.findings) {
        bool fails = gate.known ? gate.Fails(finding) : (!Undecided(finding) && SeverityOf(finding) == Severity::kError);
        if (c.failed && fails) {
          if (c.failure_message.empty()) c.failure_message = finding.rule + ": " + finding.message;
          c.failure_text += FindingBlock(finding);
        } else {
          c.out_text += FindingBlock(finding);
        }
      }
      if (image.status == analysis::Outcome::kError) {  // --images-from, --all-tags: an image that could not be read
        c.failed = true;
        c.failure_message = "could not be read: " + TextOr(image.error);
      }
      c.skipped = !c.failed && image.status == analysis::Outcome::kUndecided;
      if (c.skipped) c.skipped_message = "undecided: imagelint cannot tell whether the image runs";
      cases.push_back(std::move(c));
    }
    for (const auto& verdict : verdicts) {
      Case c;
      c.name = verdict.pool;
      std::string status = StatusText(verdict.status);
      // The gate decides what fails the build: a warn pool fails under
      // --fail-on warning, an undecided one under --fail-on-undecided.
      c.failed = gate.known && verdict.gate ? *verdict.gate == "fail" : status == "fail";
      if (c.failed && verdict.predicted_error) {
        const PredictedError& predicted = *verdict.predicted_error;
        c.failure_message = PredictedText(predicted);
        std::string rule = TextOr(predicted.rule);
        if (!rule.empty()) c.failure_message += " (" + rule + ")";
      } else if (c.failed && status == "undecided") {
        c.failure_message = "undecided: cannot tell (" + UndeterminedText(verdict) + "); --fail-on-undecided";
      } else if (c.failed) {
        c.failure_message = status + " (--fail-on " + gate.fail_on_text + ")";
      }
      for (const auto& finding : image.findings) {
        if (!OnPool(finding, c.name)) continue;
        bool fails = gate.known ? gate.Fails(finding) : (!Undecided(finding) && SeverityOf(finding) == Severity::kError);
        if (c.failed && fails) {
          c.failure_text += FindingBlock(finding);
        } else {
          c.out_text += FindingBlock(finding);
        }
      }
      c.skipped = !c.failed && status == "undecided";
      if (c.skipped) c.skipped_message = "undecided: imagelint cannot tell (" + UndeterminedText(verdict) + ")";
      for (const auto& finding : image.suppressed.value_or(std::vector<Finding>{})) {
        if (!OnPool(finding, c.name)) continue;
        std::string reason = finding.suppressed_by ? finding.suppressed_by->reason : "";
        c.out_text += "suppressed " + finding.rule + ": " + reason + "\n";
      }
      cases.push_back(std::move(c));
    }
    suites.emplace_back(&image, std::move(cases));
  }
  for (const auto& [image, cases] : suites) {
    total += cases.size();
    for (const auto& c : cases) {
      failures += c.failed ? 1 : 0;
      skipped += c.skipped ? 1 : 0;
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"imagelint\" tests=\"" + std::to_string(total) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\"" + (skipped ? " skipped=\"" + std::to_string(skipped) + "\"" : "") +
         ">\n";
  for (const auto& [image, cases] : suites) {
    size_t suite_failures = 0, suite_skipped = 0;
    for (const auto& c : cases) {
      suite_failures += c.failed ? 1 : 0;
      suite_skipped += c.skipped ? 1 : 0;
    }
    const std::string& ref = image->ref;
    out += "  <testsuite name=\"" + Xml(ref) + "\" tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
           std::to_string(suite_failures) + "\" errors=\"0\" skipped=\"" + std::to_string(suite_skipped) + "\">\n";
    const std::string& digest = image->digest;
    if (!digest.empty())
      out += "    <properties>\n      <property name=\"digest\" value=\"" + Xml(digest) + "\"/>\n    </properties>\n";
    for (const auto& c : cases) {
      out += "    <testcase classname=\"" + Xml("imagelint." + ref) + "\" name=\"" + Xml(c.name) + "\"";
      if (!c.failed && !c.skipped && c.out_text.empty()) {
        out += "/>\n";
        continue;
      }
      out += ">\n";
      if (c.failed)
        out += "      <failure message=\"" + Xml(c.failure_message) + "\" type=\"fail\">" + Xml(c.failure_text) +
               "</failure>\n";
      if (c.skipped) out += "      <skipped message=\"" + Xml(c.skipped_message) + "\"/>\n";
      if (!c.out_text.empty()) out += "      <system-out>" + Xml(c.out_text) + "</system-out>\n";
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace imagelint::report
