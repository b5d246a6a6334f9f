// Formats, output planning and file output.
#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

#include "common/text.h"
#include "imagelint/analysis.h"
#include "imagelint/digest.h"
#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using nlohmann::json;

namespace internal {

std::string Joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string PredictedText(const PredictedError& predicted) {
  std::string text;
  if (predicted.code != 0) text = std::to_string(predicted.code) + " ";
  return text + predicted.name;
}

std::string EscapeMarkup(const std::string& text, const char* apostrophe, char control, bool keep_cr) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += apostrophe; break;
      default:
        const bool allowed = c >= 0x20 || c == '\n' || c == '\t' || (keep_cr && c == '\r');
        out += allowed ? static_cast<char>(c) : control;
    }
  }
  return out;
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

std::string EvidenceText(const Evidence& item) {
  std::string text = item.path ? *item.path : TextOr(item.detail, "?");
  if (item.path && item.detail) text += " — " + *item.detail;
  if (item.layer) {
    text += " (layer " + std::to_string(*item.layer);
    std::string created_by = CleanCreatedBy(TextOr(item.created_by));
    if (created_by.size() > 60) created_by = created_by.substr(0, 57) + "...";
    if (!created_by.empty()) text += ": " + created_by;
    text += ")";
  }
  if (item.dockerfile_line) text += " [Dockerfile:" + std::to_string(*item.dockerfile_line) + "]";
  return text;
}

int DockerfileLine(const Finding& finding) {
  for (const auto& item : finding.evidence) {
    if (item.dockerfile_line && *item.dockerfile_line >= 1 && *item.dockerfile_line < (1 << 30))
      return static_cast<int>(*item.dockerfile_line);
  }
  return 0;
}

std::string DockerfileFor(const ImageReport& image, const RenderOptions& options) {
  std::string dockerfile = TextOr(image.dockerfile);
  return dockerfile.empty() ? options.dockerfile : dockerfile;
}

std::string PoolList(const Finding& finding) { return Joined(finding.pools); }

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
  if (base.empty()) return "";
  std::string path = docs.empty() ? "docs/rules/" + rule_id + ".md" : docs;
  return base + path;
}

// Text inside a table cell or list item: no line breaks, no raw HTML, no
// column separators, and no link, image or emphasis made from a name in the
// image (CommonMark backslash escapes). Backticks stay: imagelint's own
// sentences quote names in code spans, and a code span shows its text as is.
std::string MarkdownText(const std::string& text) {
  return ReplaceChars(text, {{'|', "\\|"}, {'\\', "\\\\"}, {'[', "\\["}, {']', "\\]"}, {'*', "\\*"},
                             {'\n', " "}, {'\r', " "}, {'<', "&lt;"}, {'>', "&gt;"}});
}

// A code span: backslash escapes do not apply inside, so only what could
// end the span, the line or the table cell is replaced.
std::string MarkdownCode(const std::string& text) {
  return "`" + ReplaceChars(text, {{'|', "\\|"}, {'\n', " "}, {'\r', " "}, {'<', "&lt;"}, {'>', "&gt;"}, {'`', "'"}}) +
         "`";
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
    case Format::kGitlab: return "gitlab";
    case Format::kHtml: return "html";
  }
  return "text";
}

std::vector<std::string> FormatNames() {
  return {"text", "json", "sarif", "junit", "github", "markdown", "gitlab", "html", "k8s"};
}

Result<Format> ParseFormat(std::string_view name) {
  for (Format format : {Format::kText, Format::kJson, Format::kSarif, Format::kJunit, Format::kGithub,
                        Format::kMarkdown, Format::kGitlab, Format::kHtml, Format::kK8s}) {
    if (name == FormatName(format)) return format;
  }
  return MakeError("--format", "unknown format '" + std::string(name) +
                                   "' (expected text, json, sarif, junit, github, markdown, gitlab, html or k8s)");
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

namespace {

// The rule-table columns of a rule row: the engine's RuleInfo and the
// report's own ReportRule carry the same ones.
template <class Row>
RuleMeta MetaOf(const Row& rule) {
  return {.id = rule.id,
          .name = rule.name,
          .title = rule.title,
          .summary = rule.summary,
          .severity = rule.severity,
          .docs = rule.docs,
          .enabled = rule.enabled};
}

}  // namespace

RuleMeta FromRuleInfo(const rules::RuleInfo& info) { return MetaOf(info); }

std::vector<RuleMeta> FromRuleInfos(const std::vector<rules::RuleInfo>& infos) {
  std::vector<RuleMeta> out;
  for (const auto& info : infos) out.push_back(MetaOf(info));
  return out;
}

std::vector<RuleMeta> RulesFromReport(const Report& report) {
  std::vector<RuleMeta> out;
  if (!report.rules) return out;
  for (const auto& rule : *report.rules) {
    if (rule.id.empty()) continue;
    out.push_back(MetaOf(rule));
  }
  return out;
}

std::string RenderJson(const Report& report) { return WriteJson(analysis::WriteReport(report), 2) + "\n"; }

namespace {

// The report with every string (map keys too) through DisplayText: the
// document's own field lists walk every field, so none is missed.
Report Displayed(const Report& report) { return analysis::MapReportStrings(report, &DisplayText); }

}  // namespace

std::string Render(const Report& report, Format format, const std::vector<RuleMeta>& rules,
                   const RenderOptions& options) {
  // Outputs read by people, terminals and CI logs get the report's strings
  // (names from images and Dockerfiles among them) with control characters
  // as escapes, before each format escapes for its own syntax; JSON formats
  // escape them as JSON does.
  auto for_people = [&](auto render) -> std::string {
    return DisplayBytes(render(Displayed(report)));
  };
  switch (format) {
    case Format::kText: break;
    case Format::kJson: return RenderJson(report);
    case Format::kSarif: return RenderSarif(report, rules, options);
    case Format::kJunit: return for_people([&](const Report& shown) { return RenderJunit(shown); });
    case Format::kGithub: return for_people([&](const Report& shown) { return RenderGithub(shown, options); });
    case Format::kMarkdown: return for_people([&](const Report& shown) { return RenderMarkdown(shown, rules, options); });
    case Format::kGitlab: return RenderGitlab(report, options);
    case Format::kHtml: return for_people([&](const Report& shown) { return RenderHtml(shown, rules, options); });
    case Format::kK8s: {
      if (!options.placement) return "# --format k8s needs a fleet (--fleet FILE)\n";
      auto advice = options.placement(report);
      return DisplayBytes(advice.ok() ? *advice : "# " + advice.error().ToString() + "\n");
    }
  }
  return for_people([&](const Report& shown) { return RenderText(shown, options); });
}

Result<OutputPlan> PlanOutputs(const config::Config& config) {
  OutputPlan plan;
  for (const auto& spec : config.formats) {
    auto request = ParseFormatRequest(spec);
    if (!request.ok()) return request.error();
    plan.requests.push_back(*request);
  }
  if (plan.requests.empty()) plan.requests.push_back({Format::kText, ""});
  size_t to_stdout = 0;
  for (const auto& request : plan.requests) to_stdout += request.path.empty() || request.path == "-" ? 1 : 0;
  if (config.output) {
    if (plan.requests.size() != 1 || to_stdout != 1)
      return MakeError("--output", "works with a single --format; give each format its own file instead (--format sarif=FILE)");
    plan.requests[0].path = *config.output;
    // kubectl and helm spell the format -o json; here -o is a file (as for
    // hadolint and trivy), so the text report would land in a file "json".
    if (ParseFormat(*config.output).ok())
      plan.warnings.push_back("-o/--output " + *config.output + " writes the " +
                              std::string(FormatName(plan.requests[0].format)) + " report to a file named \"" +
                              *config.output + "\"; for the " + *config.output + " format use -f " +
                              *config.output + " (or -f " + *config.output + "=FILE)");
  } else if (to_stdout > 1) {
    return MakeError("--format", "only one format can go to standard output; give the others a file (FORMAT=FILE)");
  }
  if (config.docs_url) {
    plan.render.docs_base_uri = *config.docs_url;
    if (!plan.render.docs_base_uri.empty() && plan.render.docs_base_uri.back() != '/') plan.render.docs_base_uri += '/';
  }
  if (config.dockerfile) plan.render.dockerfile = *config.dockerfile;
  return plan;
}

Status WriteReports(const Report& report, const std::vector<RuleMeta>& rules,
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

std::string FindingFingerprint(const ImageReport& image, const Finding& finding) {
  // Identity = what the finding is about, not how it is worded or where the
  // bytes sit: rule, the image's name (tags and digests change with every
  // build), the pools and the logical location.
  std::string key = "imagelint/v2\n" + finding.rule + "\n" + ImageName(image.ref) + "\n";
  std::vector<std::string> pools = finding.pools;
  std::sort(pools.begin(), pools.end());
  for (const auto& pool : pools) key += "pool:" + pool + "\n";
  const std::vector<std::string> where = analysis::LogicalLocation(finding);
  for (const auto& part : where) key += part + "\n";
  if (where.empty())
    key += "scope:" + std::string(analysis::ScopeName(finding.scope.value_or(analysis::Scope::kPool))) + "\n";
  std::string digest = Sha256Digest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  return digest.substr(digest.find(':') + 1);
}

}  // namespace imagelint::report
