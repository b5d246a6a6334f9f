// GitHub Actions workflow commands (`::error file=Dockerfile,line=12,title=
// IL003 ...::message`): one per rule and location, with the pools and images
// it covers; findings without a Dockerfile line are annotated without a file
// (shown on the run). GitHub shows 10 annotations per step, so at most 10
// are written, file-located ones first, plus a line saying how many more.
#include <algorithm>

#include "common/text.h"
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using namespace internal;

namespace {

// Escaping of workflow command data and properties (actions/toolkit command.ts).
std::string EscapeData(const std::string& text) {
  return ReplaceChars(text, {{'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}});
}

std::string EscapeProperty(const std::string& text) {
  return ReplaceChars(EscapeData(text), {{':', "%3A"}, {',', "%2C"}});
}

}  // namespace

namespace {

struct Annotation {
  std::string command;     // error | warning | notice
  int order = 0;           // error 3, warning 2, undecided 1, note 0
  std::string file;        // "" = not located in a file
  int line = 0;
  std::string where;       // without a file: the image and the path in it
  std::string rule, name;
  std::vector<const ImageReport*> images;
  std::vector<std::vector<std::string>> pools;  // per image
  const Finding* first = nullptr;                // the finding whose text is shown
};

std::string FirstPath(const Finding& finding) {
  for (const auto& item : finding.evidence) {
    std::string path = TextOr(item.path);
    if (!path.empty()) return path;
  }
  return "";
}

std::string Command(const Finding& finding) {
  if (Undecided(finding)) return "notice";
  Severity severity = SeverityOf(finding);
  return severity == Severity::kError ? "error" : severity == Severity::kWarning ? "warning" : "notice";
}

int AnnotationOrder(const Finding& finding) {
  if (Undecided(finding)) return 1;
  Severity severity = SeverityOf(finding);
  return severity == Severity::kError ? 3 : severity == Severity::kWarning ? 2 : 0;
}

std::string Line(const Annotation& a) {
  std::string properties;
  if (!a.file.empty()) properties = "file=" + EscapeProperty(a.file) + ",line=" + std::to_string(a.line) + ",";
  std::string title = a.rule + (a.name.empty() ? "" : " " + a.name);
  if (Undecided(*a.first)) title += " undecided";
  std::string refs;
  for (size_t i = 0; i < a.images.size() && i < 2; ++i) refs += (i ? ", " : "") + a.images[i]->ref;
  if (a.images.size() > 2) refs += " +" + std::to_string(a.images.size() - 2);
  properties += "title=" + EscapeProperty(title + " (" + refs + ")");
  const Finding& finding = *a.first;
  std::string message = ShortenRequirements(finding.message, finding.message);
  if (!ImageScoped(finding)) {
    if (a.images.size() == 1) {
      std::string pools;
      for (const auto& pool : a.pools[0]) pools += (pools.empty() ? "" : ", ") + pool;
      if (!pools.empty()) message += "\nPools: " + pools;
    } else {
      message += "\nImages and pools:";
      for (size_t i = 0; i < a.images.size(); ++i) {
        std::string pools;
        for (const auto& pool : a.pools[i]) pools += (pools.empty() ? "" : ", ") + pool;
        message += " " + a.images[i]->ref + " (" + pools + ")" + (i + 1 < a.images.size() ? ";" : "");
      }
    }
  } else if (a.images.size() > 1) {
    message += "\nImages:";
    for (size_t i = 0; i < a.images.size(); ++i) message += (i ? ", " : " ") + a.images[i]->ref;
  }
  if (finding.predicted_error) message += "\nPredicted error: " + PredictedText(*finding.predicted_error);
  for (const auto& item : finding.evidence)
    message += "\nEvidence: " + ShortenRequirements(EvidenceText(item), finding.message);
  std::string fix = TextOr(finding.fix);
  if (!fix.empty()) message += "\nFix: " + ShortenRequirements(fix, finding.message);
  return "::" + a.command + " " + properties + "::" + EscapeData(message);
}

}  // namespace

std::string RenderGithub(const Report& report, const RenderOptions& options) {
  // One annotation per rule and location: the same rule at the same
  // Dockerfile line (or, without a file, anywhere) across pools and images.
  std::vector<Annotation> annotations;
  for (const auto& image : report.images) {
    for (const auto& finding : image.findings) {
      std::string file;
      int line = DockerfileLine(finding);
      std::string dockerfile = DockerfileFor(image, options);
      if (line > 0 && !dockerfile.empty()) {
        file = dockerfile;
        while (file.rfind("./", 0) == 0) file = file.substr(2);
      } else {
        line = 0;
      }
      const std::string& rule = finding.rule;
      // Without a Dockerfile line the location is the image and the file in it.
      std::string where = file.empty() ? image.ref + "\n" + FirstPath(finding) : "";
      auto it = std::find_if(annotations.begin(), annotations.end(), [&](const Annotation& a) {
        return a.rule == rule && a.file == file && a.line == line && a.where == where &&
               Undecided(*a.first) == Undecided(finding);
      });
      if (it == annotations.end()) {
        Annotation a;
        a.file = file;
        a.line = line;
        a.rule = rule;
        a.where = where;
        a.name = finding.name;
        annotations.push_back(a);
        it = annotations.end() - 1;
      }
      if (!it->first || AnnotationOrder(finding) > it->order) {
        it->first = &finding;
        it->order = AnnotationOrder(finding);
        it->command = Command(finding);
      }
      auto at = std::find(it->images.begin(), it->images.end(), &image);
      if (at == it->images.end()) {
        it->images.push_back(&image);
        it->pools.emplace_back();
        at = it->images.end() - 1;
      }
      auto& pools = it->pools[static_cast<size_t>(at - it->images.begin())];
      for (const auto& pool : finding.pools) {
        if (std::find(pools.begin(), pools.end(), pool) == pools.end()) pools.push_back(pool);
      }
    }
  }
  // File-located first (GitHub shows them on the diff), then by severity.
  std::stable_sort(annotations.begin(), annotations.end(), [](const Annotation& a, const Annotation& b) {
    if (a.file.empty() != b.file.empty()) return !a.file.empty();
    return a.order > b.order;
  });
  std::vector<std::string> lines;
  for (const auto& image : report.images) {  // --images-from, --all-tags: unreadable images first
    if (image.status == analysis::Outcome::kError)
      lines.push_back("::error title=imagelint could not read an image::" +
                      EscapeData(image.ref + ": " + TextOr(image.error)));
  }
  for (const auto& a : annotations) lines.push_back(Line(a));
  if (report.ignores && report.ignores->expired) {
    for (const auto& [entry, problem] : *report.ignores->expired) {
      std::string properties;
      std::string file = TextOr(entry.file);
      if (!file.empty() && entry.line.value_or(0) > 0)
        properties = "file=" + EscapeProperty(file) + ",line=" + std::to_string(*entry.line) + ",";
      lines.push_back("::warning " + properties + "title=imagelint expired ignore::" +
                      EscapeData("ignore of " + entry.rule + " expired on " + TextOr(entry.expires) + ": " + entry.reason));
    }
  }
  if (report.summary && report.summary->suppressed > 0)
    lines.push_back("::notice title=imagelint::" + std::to_string(report.summary->suppressed) +
                    " finding(s) suppressed by ignore entries (see the text or JSON report)");
  std::string out;
  for (size_t i = 0; i < lines.size() && i < kGithubMaxAnnotations; ++i) out += lines[i] + "\n";
  if (lines.size() > kGithubMaxAnnotations) {
    size_t more = lines.size() - kGithubMaxAnnotations;
    out += "::notice title=imagelint::" + std::to_string(more) + " more annotation" + (more == 1 ? "" : "s") +
           " not shown (GitHub shows " + std::to_string(kGithubMaxAnnotations) +
           " per step); see the text, SARIF or HTML report\n";
  }
  return out;
}

}  // namespace imagelint::report
