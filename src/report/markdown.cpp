// Markdown for pull-request comments: the verdict matrix and the top
// findings (one per root cause), errors first, then undecided, warnings and
// notes; each linked to its rule's page when --docs-url names where the
// pages are (no link otherwise: imagelint has no public home).
#include <algorithm>
#include <map>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using namespace internal;

namespace {

std::string Icon(const std::string& status) {
  if (status == "fail" || status == "error") return "❌";
  if (status == "warn" || status == "warning") return "⚠️";
  if (status == "pass") return "✅";
  if (status == "undecided") return "❔";
  return "ℹ️";
}

std::string PluralWord(int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

std::string RenderMarkdown(const Report& report, const std::vector<RuleMeta>& rules, const RenderOptions& options) {
  std::map<std::string, const RuleMeta*> by_id;
  for (const auto& rule : rules) by_id[rule.id] = &rule;
  const std::vector<ImageReport>& images = report.images;
  const analysis::Summary summary = report.summary.value_or(analysis::Summary{});
  const Counts tally = CountReport(report);
  const auto& verdict_counts = tally.verdicts;
  // Every combination, undecided ones included: "2 of 7 fail, 5 undecided".
  int64_t cells = tally.Cells();

  std::string out = "### imagelint: ";
  if (cells > 0) {
    out += std::to_string(tally.Of(verdict_counts, "fail")) + " of " + std::to_string(cells) +
           " image × pool combinations fail";
    if (tally.Of(verdict_counts, "undecided") > 0)
      out += ", " + std::to_string(tally.Of(verdict_counts, "undecided")) + " undecided";
    if (tally.Of(verdict_counts, "warn") > 0) out += ", " + std::to_string(tally.Of(verdict_counts, "warn")) + " warn";
  } else {
    int64_t errors = 0;
    for (const auto& image : images) errors += image.status == analysis::Outcome::kFail ? 1 : 0;
    out += std::to_string(errors) + " of " + std::to_string(images.size()) + " images fail";
  }
  out += "\n\n";

  // Matrix: pools down, images across.
  std::vector<std::string> pools;
  for (const auto& image : images) {
    for (const auto& verdict : image.verdicts) {
      if (std::find(pools.begin(), pools.end(), verdict.pool) == pools.end()) pools.push_back(verdict.pool);
    }
  }
  if (!images.empty()) {
    out += "| Pool |";
    for (const auto& image : images) out += " " + MarkdownCode(image.ref) + " |";
    out += "\n|---|";
    for (size_t i = 0; i < images.size(); ++i) out += "---|";
    out += "\n";
    if (pools.empty()) {
      out += "| *(image checks)* |";
      for (const auto& image : images) {
        std::string status = StatusText(image.status);
        out += " " + Icon(status) + " " + status + " |";
      }
      out += "\n";
    }
    for (const auto& pool : pools) {
      out += "| " + MarkdownText(pool) + " |";
      for (const auto& image : images) {
        std::string cell = image.status == analysis::Outcome::kError ? "⛔ **could not be read**" : "–";
        for (const auto& verdict : image.verdicts) {
          if (verdict.pool != pool) continue;
          std::string status = StatusText(verdict.status);
          cell = Icon(status) + " " + (status == "fail" ? "**fail**" : status);
          if (verdict.predicted_error) cell += ": " + MarkdownCode(PredictedText(*verdict.predicted_error));
          if (verdict.status == analysis::Outcome::kUndecided) cell += " (cannot tell: " + MarkdownText(Joined(verdict.undetermined)) + ")";
        }
        out += " " + cell + " |";
      }
      out += "\n";
    }
  }

  for (const auto& image : images) {  // --images-from, --all-tags: images that could not be read
    if (image.status == analysis::Outcome::kError)
      out += "\n⛔ " + MarkdownCode(image.ref) + " **could not be read**: " + MarkdownText(TextOr(image.error)) + "\n";
  }

  // One item per root cause: errors, undecided, warnings, notes.
  std::vector<std::pair<const ImageReport*, RootCause>> all;  // image, cause
  for (int order = 3; order >= 0; --order) {
    for (const auto& image : images) {
      for (auto& cause : RootCauses(image)) {
        if (Order(*cause.findings.front()) == order) all.emplace_back(&image, std::move(cause));
      }
    }
  }
  const auto& counts = tally.findings;
  out += "\n**Findings**: " + PluralWord(tally.Of(counts, "error"), "error") + ", ";
  if (tally.Of(counts, "undecided") > 0) out += std::to_string(tally.Of(counts, "undecided")) + " undecided, ";
  out += PluralWord(tally.Of(counts, "warning"), "warning") + ", " + PluralWord(tally.Of(counts, "note"), "note");
  if (summary.suppressed > 0) out += "; " + std::to_string(summary.suppressed) + " suppressed";
  if (summary.expired_ignores.value_or(0) > 0) out += "; " + PluralWord(*summary.expired_ignores, "expired ignore");
  if (summary.baseline) {
    const analysis::BaselineSummary& baseline = *summary.baseline;
    out += "; since the baseline: " + std::to_string(baseline.added) + " new, " + std::to_string(baseline.fixed) +
           " fixed, " + std::to_string(baseline.unchanged) + " unchanged";
  }
  if (std::string knowledge = KnowledgeLabel(report); !knowledge.empty()) out += "; " + knowledge;
  if (std::string note = KnowledgeNote(report); !note.empty()) out += "\n\n> **Note**: " + note;
  if (std::string assumed = FleetAssumptions(report); !assumed.empty())
    out += "\n\n> **Assumed**: " + MarkdownText(assumed);
  out += "\n\n";
  size_t shown = 0;
  for (const auto& [image, cause] : all) {
    if (shown == options.markdown_top_findings) break;
    ++shown;
    const Finding* finding = cause.findings.front();
    const std::string& id = finding->rule;
    auto rule = by_id.find(id);
    std::string docs = rule != by_id.end() ? rule->second->docs : finding->docs;
    std::string name = finding->name;
    if (name.empty() && rule != by_id.end()) name = rule->second->name;
    std::string uri = HelpUri(options.docs_base_uri, id, docs);
    std::string kind = Kind(*finding);
    if (BaselineState(cause) == "new") out += "- 🆕 **new since the baseline** ";
    if (kind == "undecided") {
      std::string ids;
      for (const auto& rule_id : cause.rules) ids += (ids.empty() ? "" : ", ") + MarkdownText(rule_id);
      out += (BaselineState(cause) == "new" ? "" : "- ") + Icon(kind) + " **undecided " + ids + "** (" +
             MarkdownCode(image->ref);
    } else {
      std::string label = uri.empty() ? MarkdownText(id) : "[" + MarkdownText(id) + "](" + uri + ")";
      out += (BaselineState(cause) == "new" ? "" : "- ") + Icon(kind) + " **" + label +
             (name.empty() ? "" : " " + MarkdownText(name)) + "** (" + MarkdownCode(image->ref);
    }
    std::string pools_text;
    for (const auto& pool : cause.pools) pools_text += (pools_text.empty() ? "" : ", ") + pool;
    if (!ImageScoped(*finding) && !pools_text.empty()) out += "; pools: " + MarkdownText(pools_text);
    const std::string& message = finding->message;
    if (kind == "undecided") {
      std::string missing;
      for (const auto& text : MissingSentences(cause.findings)) missing += (missing.empty() ? "" : "; ") + text;
      out += "): cannot tell: " + MarkdownText(missing.empty() ? message : missing);
    } else {
      out += "): " + MarkdownText(ShortenRequirements(message, message));
    }
    // Markdown hard line breaks ("  \n") keep these lines inside the list item.
    if (finding->predicted_error)
      out += "  \n  Predicted error: " + MarkdownCode(PredictedText(*finding->predicted_error));
    std::string fix = TextOr(finding->fix);
    if (!fix.empty()) out += "  \n  **Fix:** " + MarkdownText(ShortenRequirements(fix, message));
    out += "\n";
  }
  if (all.size() > shown)
    out += "\n… and " + std::to_string(all.size() - shown) + " more findings (see the full report).\n";
  if (all.empty()) out += "No findings.\n";
  // --baseline: what is gone since the earlier report.
  std::string fixed;
  for (const auto& image : images) {
    if (!image.fixed) continue;
    for (const auto& finding : *image.fixed) {
      std::string pools = Joined(finding.pools);
      fixed += "- ✅ **" + MarkdownText(finding.rule) + " " + MarkdownText(finding.name) + "** (" + MarkdownCode(image.ref) +
               (pools.empty() ? "" : "; pools: " + MarkdownText(pools)) + "): " + MarkdownText(finding.message) + "\n";
    }
  }
  if (!fixed.empty()) out += "\n**Fixed since the baseline**\n\n" + fixed;
  if (options.docs_base_uri.empty() && !all.empty())
    out += "\n`imagelint explain RULE` prints a rule's page.\n";
  return out;
}

}  // namespace imagelint::report
