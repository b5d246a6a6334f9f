// GitHub Actions workflow commands: one annotation per finding
// (`::error file=Dockerfile,line=12,title=IL003 ...::message`). Findings
// without a Dockerfile line are annotated without a file (shown on the run).
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;
using namespace internal;

namespace {

// Escaping of workflow command data and properties (actions/toolkit command.ts).
std::string EscapeData(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string EscapeProperty(const std::string& text) {
  std::string out;
  for (char c : EscapeData(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

}  // namespace

std::string RenderGithub(const json& report, const RenderOptions& options) {
  std::string out;
  for (const auto& image : Arr(report, "images")) {
    for (const json* finding : SortedFindings(image)) {
      Severity severity = SeverityOf(*finding);
      std::string command = severity == Severity::kError ? "error" : severity == Severity::kWarning ? "warning" : "notice";
      std::string properties;
      int line = DockerfileLine(*finding);
      std::string dockerfile = DockerfileFor(image, options);
      if (line > 0 && !dockerfile.empty()) {
        std::string file = dockerfile;
        while (file.rfind("./", 0) == 0) file = file.substr(2);
        properties = "file=" + EscapeProperty(file) + ",line=" + std::to_string(line) + ",";
      }
      std::string title = Str(*finding, "rule");
      std::string name = Str(*finding, "name");
      if (!name.empty()) title += " " + name;
      properties += "title=" + EscapeProperty(title + " (" + Str(image, "ref", "image") + ")");
      std::string message = Str(*finding, "message");
      std::string pools = PoolList(*finding);
      if (Str(*finding, "scope") != "image" && !pools.empty()) message += "\nPools: " + pools;
      const json& predicted = finding->contains("predicted_error") ? (*finding)["predicted_error"] : json();
      if (predicted.is_object()) message += "\nPredicted error: " + PredictedText(predicted);
      for (const auto& item : Arr(*finding, "evidence")) message += "\nEvidence: " + EvidenceText(item);
      std::string fix = Str(*finding, "fix");
      if (!fix.empty()) message += "\nFix: " + fix;
      out += "::" + command + " " + properties + "::" + EscapeData(message) + "\n";
    }
  }
  const json& summary = report.contains("summary") ? report["summary"] : json::object();
  if (summary.is_object() && summary.contains("suppressed") && summary["suppressed"].is_number_integer() &&
      summary["suppressed"].get<int64_t>() > 0)
    out += "::notice title=imagelint::" + std::to_string(summary["suppressed"].get<int64_t>()) +
           " finding(s) suppressed by ignore entries (see the text or JSON report)\n";
  const json& ignores = report.contains("ignores") ? report["ignores"] : json::object();
  for (const auto& entry : Arr(ignores, "expired")) {
    std::string properties;
    std::string file = Str(entry, "file");
    if (!file.empty() && entry.contains("line") && entry["line"].is_number_integer() && entry["line"].get<int64_t>() > 0)
      properties = "file=" + EscapeProperty(file) + ",line=" + std::to_string(entry["line"].get<int64_t>()) + ",";
    out += "::warning " + properties + "title=imagelint expired ignore::" +
           EscapeData("ignore of " + Str(entry, "rule") + " expired on " + Str(entry, "expires") + ": " +
                      Str(entry, "reason")) +
           "\n";
  }
  return out;
}

}  // namespace imagelint::report
