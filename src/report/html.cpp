// One self-contained HTML page for people and CI artifacts: inline CSS, no
// script, no font, image or link that leaves the file (links to rule pages
// only when --docs-url names them). The images x pools matrix (a colour per
// verdict, the predicted error in each cell, undecided cells apart), the
// findings of each image by root cause with evidence, fix and the rule's
// page, the suppressions and the fleet.
#include <algorithm>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using namespace internal;

namespace {

std::string Html(const std::string& text) { return EscapeMarkup(text, "&#39;", ' ', false); }

// Only http(s) links, and only those the user configured (--docs-url).
std::string Link(const std::string& uri, const std::string& text) {
  if (uri.rfind("https://", 0) != 0 && uri.rfind("http://", 0) != 0) return Html(text);
  return "<a href=\"" + Html(uri) + "\">" + Html(text) + "</a>";
}

constexpr const char* kStyle = R"CSS(
:root { --fail:#b3261e; --fail-bg:#fde7e4; --warn:#9a5b00; --warn-bg:#fff1d6; --pass:#1e6b34; --pass-bg:#e3f4e6;
        --undecided:#5b3a9c; --undecided-bg:#efe9fa; --note:#1f5f99; --note-bg:#e5eff9; --line:#d9dce1; --ink:#1d2129; --muted:#5f6672; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: #f6f7f9; }
header { background: #1d2129; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 20px; font-weight: 600; }
header .summary { color: #c9ced6; }
header .gate { display: inline-block; margin-top: 8px; padding: 2px 10px; border-radius: 12px; font-weight: 600; }
header .gate.failed { background: var(--fail); } header .gate.passed { background: var(--pass); }
main { padding: 20px 28px 40px; max-width: 1400px; }
h2 { font-size: 17px; margin: 22px 0 10px; }
h3 { font-size: 15px; margin: 22px 0 8px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 6px 9px; text-align: left; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; }
.pool-detail { font-weight: 400; font-size: 12px; }
.matrix-wrap { overflow-x: auto; }
table.matrix td.verdict { min-width: 128px; }
td.verdict .status { display: block; font-weight: 700; text-transform: uppercase; font-size: 12px; letter-spacing: .04em; }
td.verdict .error { display: block; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; word-break: break-word; }
td.verdict .rule { color: var(--muted); font-size: 11.5px; }
td.verdict-fail { background: var(--fail-bg); color: var(--fail); border-left: 4px solid var(--fail); }
td.verdict-warn { background: var(--warn-bg); color: var(--warn); border-left: 4px solid var(--warn); }
td.verdict-pass { background: var(--pass-bg); color: var(--pass); border-left: 4px solid var(--pass); }
td.verdict-undecided { color: var(--undecided); border-left: 4px dashed var(--undecided);
  background: repeating-linear-gradient(135deg, var(--undecided-bg) 0 8px, #f8f5fd 8px 16px); }
.legend span { display: inline-block; margin-right: 14px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; }
.card { background: #fff; border: 1px solid var(--line); border-left: 5px solid var(--note); border-radius: 4px; padding: 10px 14px; margin: 10px 0; }
.card.error { border-left-color: var(--fail); } .card.warning { border-left-color: var(--warn); }
.card.undecided { border-left: 5px dashed var(--undecided); } .card.note { border-left-color: var(--note); }
.card .head { font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 11.5px; font-weight: 700; text-transform: uppercase; margin-right: 6px; }
.badge.error { background: var(--fail-bg); color: var(--fail); } .badge.warning { background: var(--warn-bg); color: var(--warn); }
.badge.undecided { background: var(--undecided-bg); color: var(--undecided); } .badge.note { background: var(--note-bg); color: var(--note); }
.pool { display: inline-block; background: #eef0f3; border-radius: 3px; padding: 0 6px; margin: 2px 3px 0 0; font-size: 12px; }
.card p { margin: 6px 0; }
.card .label { color: var(--muted); font-weight: 600; margin-right: 4px; }
.card ul { margin: 4px 0 4px 20px; padding: 0; }
details { margin-top: 6px; } summary { cursor: pointer; color: var(--muted); }
pre.help { white-space: pre-wrap; background: #f6f7f9; border: 1px solid var(--line); padding: 8px 10px; margin: 6px 0 0; font-size: 12.5px; }
.muted { color: var(--muted); }
footer { color: var(--muted); padding: 0 28px 24px; font-size: 12px; }
)CSS";

std::string VerdictCell(const ImageReport& image, const Verdict& verdict) {
  std::string status = StatusText(verdict.status);
  std::string cell = "<td class=\"verdict verdict-" + Html(status) + "\" data-image=\"" + Html(image.ref) +
                     "\" data-pool=\"" + Html(verdict.pool) + "\" data-status=\"" + Html(status) + "\">";
  cell += "<span class=\"status\">" + Html(status == "undecided" ? "undecided" : status) + "</span>";
  if (verdict.predicted_error) {
    const PredictedError& predicted = *verdict.predicted_error;
    cell += "<span class=\"error\">" + Html(PredictedText(predicted)) + "</span>";
    std::string rule = TextOr(predicted.rule);
    cell += "<span class=\"rule\">" + Html(StageText(predicted)) + (rule.empty() ? "" : " · " + Html(rule)) + "</span>";
  } else if (status == "undecided" || !verdict.undetermined.empty()) {
    const std::vector<std::string>& undetermined = verdict.undetermined;
    std::vector<std::string> some(undetermined.begin(), undetermined.begin() + std::min<size_t>(3, undetermined.size()));
    std::string ids = Joined(some);
    if (undetermined.size() > 3) ids += " +" + std::to_string(undetermined.size() - 3);
    cell += "<span class=\"rule\">cannot tell: " + Html(ids) + "</span>";
  } else if (status == "warn") {
    cell += "<span class=\"rule\">" + Html(Joined(verdict.rules)) + "</span>";
  }
  return cell + "</td>";
}

void Matrix(std::string& out, const Report& report) {
  const std::vector<ImageReport>& images = report.images;
  std::vector<std::string> pools;
  const std::vector<analysis::ReportPool> no_pools;
  const std::vector<analysis::ReportPool>& fleet_pools = report.fleet ? report.fleet->pools : no_pools;
  for (const auto& pool : fleet_pools) pools.push_back(pool.name);
  for (const auto& image : images) {
    for (const auto& verdict : image.verdicts) {
      if (std::find(pools.begin(), pools.end(), verdict.pool) == pools.end()) pools.push_back(verdict.pool);
    }
  }
  out += "<h2>Images × pools</h2>\n";
  out += "<p class=\"legend\"><span><i class=\"swatch\" style=\"background:var(--fail)\"></i>fail: the predicted error "
         "stops the workload</span><span><i class=\"swatch\" style=\"background:var(--undecided)\"></i>undecided: "
         "imagelint cannot tell (a fact is unknown)</span><span><i class=\"swatch\" style=\"background:var(--warn)\"></i>"
         "warn</span><span><i class=\"swatch\" style=\"background:var(--pass)\"></i>pass</span></p>\n";
  out += "<div class=\"matrix-wrap\"><table class=\"matrix\">\n<thead><tr><th>image</th>";
  if (pools.empty()) out += "<th>image checks</th>";
  for (const auto& pool : pools) {
    std::string detail;
    for (const auto& entry : fleet_pools) {
      if (entry.name != pool) continue;
      detail = TextOr(entry.gpu);
      std::string driver = TextOr(entry.driver);
      if (!driver.empty()) detail += (detail.empty() ? "driver " : " · ") + driver;
    }
    out += "<th class=\"pool-head\">" + Html(pool) +
           (detail.empty() ? "" : "<br><span class=\"muted pool-detail\">" + Html(detail) + "</span>") + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& image : images) {
    out += "<tr><th class=\"image-head\"><code>" + Html(image.ref) + "</code>";
    const std::string& digest = image.digest;
    if (!digest.empty()) out += "<br><span class=\"muted mono\">" + Html(digest.substr(0, 19)) + "</span>";
    out += "</th>";
    if (image.status == analysis::Outcome::kError) {  // --images-from, --all-tags: an image that could not be read
      out += "<td class=\"cell unreadable\" colspan=\"" + std::to_string(std::max<size_t>(pools.size(), 1)) +
             "\"><b>could not be read</b>: " + Html(TextOr(image.error)) + "</td></tr>\n";
      continue;
    }
    if (pools.empty()) {
      Verdict pseudo;
      pseudo.pool = "image";
      pseudo.status = image.status;
      out += VerdictCell(image, pseudo);
    }
    for (const auto& pool : pools) {
      const Verdict* found = nullptr;
      for (const auto& verdict : image.verdicts) {
        if (verdict.pool == pool) found = &verdict;
      }
      out += found ? VerdictCell(image, *found) : "<td class=\"muted\">–</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

std::string HelpBlock(const std::string& rule_id, const RenderOptions& options, const std::string& docs) {
  std::string page = RuleDocs(options.docs_dir, rule_id);
  std::string uri = HelpUri(options.docs_base_uri, rule_id, docs);
  std::string out;
  if (!page.empty())
    out += "<details><summary>Rule " + Html(rule_id) + " help</summary><pre class=\"help\">" + Html(page) + "</pre></details>";
  if (!uri.empty()) out += "<p class=\"muted\">" + Link(uri, "Rule page") + "</p>";
  if (page.empty() && uri.empty()) out += "<p class=\"muted\"><code>imagelint explain " + Html(rule_id) + "</code></p>";
  return out;
}

void Card(std::string& out, const RootCause& cause, const RenderOptions& options) {
  const Finding& finding = *cause.findings.front();
  std::string kind = cause.kind;
  out += "<div class=\"card " + Html(kind) + "\" data-kind=\"" + Html(kind) + "\" data-rules=\"";
  for (size_t i = 0; i < cause.rules.size(); ++i) out += (i ? " " : "") + Html(cause.rules[i]);
  const std::string baseline = BaselineState(cause);  // --baseline: new or unchanged
  if (!baseline.empty()) out += "\" data-baseline=\"" + Html(baseline);
  out += "\">\n<div class=\"head\"><span class=\"badge " + Html(kind) + "\">" + Html(kind) + "</span>";
  if (baseline == "new")
    out += "<span class=\"badge new\" style=\"background:var(--ink);color:#fff;margin-right:.4em\">new since the "
           "baseline</span>";
  if (kind == "undecided") {
    for (size_t i = 0; i < cause.rules.size(); ++i) out += (i ? ", " : "") + Html(cause.rules[i]);
  } else {
    out += Html(finding.rule) + " " + Html(finding.name) + " <span class=\"muted\">" + Html(finding.title) + "</span>";
  }
  out += "</div>\n<div>";
  if (ImageScoped(finding)) {
    out += "<span class=\"pool\">whole image</span>";
  } else {
    for (const auto& pool : cause.pools) out += "<span class=\"pool\">" + Html(pool) + "</span>";
  }
  out += "</div>\n";
  const std::string& message = finding.message;
  if (kind == "undecided") {
    std::vector<std::string> missing = MissingSentences(cause.findings);
    out += "<p><span class=\"label\">Cannot tell:</span>";
    for (size_t i = 0; i < missing.size(); ++i) out += (i ? "; " : " ") + Html(missing[i]);
    if (missing.empty()) out += " " + Html(message);
    out += "</p>\n";
    for (const auto& reason : MissingReasons(finding)) out += "<p><span class=\"label\">Why:</span>" + Html(reason) + "</p>\n";
    out += "<ul>";
    std::vector<std::string> seen;
    for (const Finding* one : cause.findings) {
      const std::string& rule = one->rule;
      if (std::find(seen.begin(), seen.end(), rule) != seen.end()) continue;
      seen.push_back(rule);
      out += "<li>" + Html(rule) + " " + Html(one->title) + "</li>";
    }
    out += "</ul>\n";
  } else {
    out += "<p>" + Html(ShortenRequirements(message, message)) + "</p>\n";
    if (finding.predicted_error)
      out += "<p><span class=\"label\">Predicted error:</span><code>" + Html(PredictedText(*finding.predicted_error)) +
             "</code> at " + Html(StageText(*finding.predicted_error)) + "</p>\n";
    const std::vector<Evidence>& evidence = finding.evidence;
    if (!evidence.empty()) {
      out += "<p><span class=\"label\">Evidence:</span></p><ul class=\"evidence\">";
      for (const auto& item : evidence) out += "<li><code>" + Html(ShortenRequirements(EvidenceText(item), message)) + "</code></li>";
      out += "</ul>\n";
    }
  }
  std::string fix = TextOr(finding.fix);
  if (!fix.empty()) out += "<p><span class=\"label\">Fix:</span>" + Html(ShortenRequirements(fix, message)) + "</p>\n";
  if (cause.rules.size() == 1) out += HelpBlock(cause.rules.front(), options, finding.docs);
  out += "</div>\n";
}

void Fleet(std::string& out, const Report& report) {
  out += "<h2>Fleet</h2>\n";
  if (!report.fleet || report.fleet->pools.empty()) {
    out += "<p class=\"muted\">No fleet: image-level checks only (pass <code>--fleet FILE</code> for verdicts).</p>\n";
    return;
  }
  const std::vector<analysis::ReportPool>& pools = report.fleet->pools;
  const std::string& source = report.fleet->source;
  if (!source.empty()) out += "<p class=\"muted\">From <code>" + Html(source) + "</code></p>\n";
  out += "<table class=\"fleet\"><thead><tr><th>pool</th><th>GPU</th><th>compute capability</th><th>driver</th>"
         "<th>container toolkit</th><th>runtime</th><th>platform</th><th>hosts</th></tr></thead><tbody>\n";
  auto cell = [](const std::optional<std::string>& value) {
    return value ? "<td>" + Html(*value) + "</td>" : std::string("<td class=\"muted\">–</td>");
  };
  for (const auto& pool : pools) {
    std::optional<std::string> count, platform;
    if (pool.count) count = std::to_string(*pool.count);
    if (pool.platform) platform = pool.platform->ToString();
    out += "<tr><th>" + Html(pool.name) + "</th>" + cell(pool.gpu) + cell(pool.compute_capability) + cell(pool.driver) +
           cell(pool.container_toolkit) + cell(pool.runtime) + cell(platform) + cell(count) + "</tr>\n";
  }
  out += "</tbody></table>\n";
}

}  // namespace

std::string RenderHtml(const Report& report, const std::vector<RuleMeta>& rules, const RenderOptions& options) {
  (void)rules;
  const analysis::Summary summary = report.summary.value_or(analysis::Summary{});
  const analysis::VerdictCounts& verdicts = summary.verdicts;
  const analysis::SeverityCounts& counts = summary.findings;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Nothing may be fetched: no script, no remote style, font or image.
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  out += "<title>imagelint report</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<header><h1>imagelint: will these images run on the fleet?</h1><div class=\"summary\">";
  out += Plural(summary.images, "image", "images");
  if (summary.pools > 0) {
    out += " × " + Plural(summary.pools, "pool", "pools") + ": " + std::to_string(verdicts.fail) + " fail, " +
           std::to_string(verdicts.undecided) + " undecided, " + std::to_string(verdicts.warn) + " warn, " +
           std::to_string(verdicts.pass) + " pass";
  }
  out += " · findings: " + Plural(counts.error, "error", "errors") + ", " + std::to_string(counts.undecided) +
         " undecided, " + Plural(counts.warning, "warning", "warnings") + ", " + Plural(counts.note, "note", "notes") +
         " · " + std::to_string(summary.suppressed) + " suppressed</div>";
  if (summary.gate) {
    const analysis::GateSummary& gate = *summary.gate;
    bool failed = gate.failed;
    std::string rule = "--fail-on " + gate.fail_on;
    if (gate.fail_on_undecided) rule += " --fail-on-undecided";
    out += "<span class=\"gate " + std::string(failed ? "failed" : "passed") + "\">gate (" + Html(rule) + "): " +
           (failed ? "failed" : "passed") + "</span>";
  }
  out += "</header>\n<main>\n";
  Matrix(out, report);

  out += "<h2>Findings by root cause</h2>\n";
  for (const auto& image : report.images) {
    auto causes = RootCauses(image);
    out += "<section class=\"image\" data-image=\"" + Html(image.ref) + "\"><h3><code>" + Html(image.ref) +
           "</code></h3>\n";
    if (image.fixed && !image.fixed->empty()) {  // --baseline
      out += "<details class=\"fixed\" open><summary>" + std::to_string(image.fixed->size()) +
             " fixed since the baseline</summary><ul>\n";
      for (const auto& finding : *image.fixed) {
        std::string pools = Joined(finding.pools);
        out += "<li data-baseline=\"absent\"><b>" + Html(finding.rule) + " " + Html(finding.name) + "</b>" +
               (pools.empty() ? "" : " <span class=\"muted\">[" + Html(pools) + "]</span>") + ": " +
               Html(finding.message) + "</li>\n";
      }
      out += "</ul></details>\n";
    }
    if (image.status == analysis::Outcome::kError) {
      out += "<p class=\"unreadable\"><b>Could not be read</b>: " + Html(TextOr(image.error)) + "</p>\n";
    } else if (causes.empty()) {
      out += "<p class=\"muted\">No findings.</p>\n";
    }
    for (const auto& cause : causes) {
      Card(out, cause, options);
    }
    if (image.suppressed && !image.suppressed->empty()) {
      out += "<details class=\"suppressed\"><summary>" + std::to_string(image.suppressed->size()) +
             " suppressed finding(s)</summary><ul>";
      for (const auto& finding : *image.suppressed) {
        const analysis::SuppressedBy by = finding.suppressed_by.value_or(analysis::SuppressedBy{});
        out += "<li>" + Html(finding.rule) + " " + Html(Kind(finding)) + ": " + Html(by.reason) +
               " <span class=\"muted\">(" + Html(TextOr(by.file, by.origin)) + ")</span></li>";
      }
      out += "</ul></details>\n";
    }
    out += "</section>\n";
  }
  const analysis::Ignores ignores = report.ignores.value_or(analysis::Ignores{});
  for (const auto& [list, entries] : {std::pair{"expired", &ignores.expired}, std::pair{"invalid", &ignores.invalid},
                                      std::pair{"unused", &ignores.unused}}) {
    if (!*entries || (*entries)->empty()) continue;
    out += "<h3>" + std::string(list) + " ignores</h3><ul>";
    for (const auto& [entry, problem] : **entries) {
      out += "<li>" + Html(entry.rule) + " <span class=\"muted\">" + Html(TextOr(entry.file, entry.origin)) +
             "</span>: " + Html(TextOr(problem, entry.reason)) + "</li>";
    }
    out += "</ul>\n";
  }
  Fleet(out, report);
  if (std::string note = KnowledgeNote(report); !note.empty()) out += "<p class=\"muted\">Note: " + Html(note) + "</p>\n";
  std::string knowledge = KnowledgeLabel(report);
  if (!knowledge.empty()) knowledge = " · " + knowledge + " (" + report.knowledge->digest.substr(0, 19) + ")";
  out += "</main>\n<footer>imagelint " + Html(report.tool ? report.tool->version : "") + " · report schema " +
         Html(report.schema) + Html(knowledge) + "</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace imagelint::report
