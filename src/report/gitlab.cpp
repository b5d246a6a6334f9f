// GitLab Code Quality: the JSON array GitLab reads from
// `artifacts: reports: codequality:` (GitLab documentation, "Code Quality",
// section "Code Quality report format",
// https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format):
// per issue `description`, `check_name`, `fingerprint` (unique within the
// report), `severity` (info | minor | major | critical | blocker) and
// `location.path` + `location.lines.begin`. A finding with a Dockerfile line
// points there; others point at the Dockerfile (line 1) when there is one,
// else at the scanned image as given.
#include <set>

#include "imagelint/digest.h"
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

// Errors stop the workload (critical); warnings need work (major); notes are
// minor; an undecided finding is information to act on, not a defect.
std::string GitlabSeverity(const Finding& finding) {
  if (Undecided(finding)) return "info";
  Severity severity = SeverityOf(finding);
  return severity == Severity::kError ? "critical" : severity == Severity::kWarning ? "major" : "minor";
}

std::string Description(const ImageReport& image, const Finding& finding) {
  const std::string& message = finding.message;
  std::string text = (Undecided(finding) ? "Undecided: " : "") + ShortenRequirements(message, message);
  text += " [" + finding.rule + " " + finding.name + "; image " + image.ref;
  std::string pools = PoolList(finding);
  if (!ImageScoped(finding) && !pools.empty()) text += "; pools " + pools;
  text += "]";
  if (finding.predicted_error) text += " Predicted error: " + PredictedText(*finding.predicted_error) + ".";
  return text;
}

std::string Relative(std::string path) {
  while (path.rfind("./", 0) == 0) path = path.substr(2);
  return path;
}

}  // namespace

std::string RenderGitlab(const Report& report, const RenderOptions& options) {
  json issues = json::array();
  std::set<std::string> fingerprints;
  for (const auto& image : report.images) {
    if (image.status == analysis::Outcome::kError) {  // --images-from, --all-tags: an image that could not be read
      std::string key = "unreadable\n" + image.ref;
      std::string digest =
          Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
      issues.push_back({{"type", "issue"},
                        {"description", "could not read image " + image.ref + ": " + TextOr(image.error)},
                        {"check_name", "imagelint-unreadable-image"},
                        {"fingerprint", digest.substr(digest.find(':') + 1, 32)},
                        {"severity", "blocker"},
                        {"location", {{"path", Relative(image.ref)}, {"lines", {{"begin", 1}}}}},
                        {"categories", json::array({"Bug Risk"})}});
      continue;
    }
    for (const auto& finding : image.findings) {
      std::string dockerfile = DockerfileFor(image, options);
      int line = DockerfileLine(finding);
      std::string path = Relative(dockerfile.empty() ? image.ref : dockerfile);
      if (dockerfile.empty() || line <= 0) line = 1;
      // GitLab keeps one issue per fingerprint: two images of one name (two
      // tags) get distinct ones, each stable across runs.
      std::string fingerprint = FindingFingerprint(image, finding).substr(0, 32);
      for (int n = 2; fingerprints.count(fingerprint); ++n) {
        std::string key = fingerprint + "#" + std::to_string(n) + image.ref;
        std::string digest =
            Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
        fingerprint = digest.substr(digest.find(':') + 1, 32);
      }
      fingerprints.insert(fingerprint);
      json issue = {{"type", "issue"},
                    {"description", Description(image, finding)},
                    {"check_name", finding.rule},
                    {"fingerprint", fingerprint},
                    {"severity", GitlabSeverity(finding)},
                    {"location", {{"path", path}, {"lines", {{"begin", line}}}}}};
      std::string fix = TextOr(finding.fix);
      if (!fix.empty()) issue["content"] = {{"body", ShortenRequirements(fix, finding.message)}};
      issue["categories"] = json::array({Undecided(finding) ? "Clarity" : "Bug Risk"});
      issues.push_back(std::move(issue));
    }
  }
  return WriteJson(issues, 2) + "\n";
}

}  // namespace imagelint::report
