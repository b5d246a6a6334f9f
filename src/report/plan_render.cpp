// `imagelint plan` for people: text (a terminal or a CI log), Markdown (a
// pull-request comment) and one self-contained HTML page. All three read the
// typed plan (imagelint/plan.h) and show the same things in the same order:
// per image, what the change does to each pool, the oldest driver, the
// fixes; then the estate floor and the counts. JSON is plan::WritePlanJson.
#include "imagelint/plan_render.h"

#include "common/text.h"
#include "util.h"

namespace imagelint::report {
namespace {

using namespace internal;
using plan::ChangeKind;
using plan::ImagePlan;
using plan::MinimumDriver;
using plan::Outcome;
using plan::PlanReport;

std::string OutcomeText(const Outcome& outcome) {
  if (outcome.status.empty()) return "-";
  std::string out = outcome.status;
  if (outcome.error_code != 0)
    out += " (" + std::to_string(outcome.error_code) + " " + outcome.error_name + ")";
  else if (!outcome.error_name.empty())  // a refusal before CUDA runs: no CUDA error code
    out += " (" + outcome.error_name + ")";
  if (!outcome.rule.empty()) out += " [" + outcome.rule + "]";
  return out;
}

std::string ChangeTitle(const plan::VerdictChange& change) {
  switch (change.kind) {
    case ChangeKind::kNewlyFailing: return "newly failing";
    case ChangeKind::kNewlyPassing: return "newly passing";
    case ChangeKind::kChangedError: return "another error";
    case ChangeKind::kChangedStatus: return "changed";
    case ChangeKind::kPoolAdded: return "new pool";
    case ChangeKind::kPoolRemoved: return "pool removed";
  }
  return "changed";
}

std::string MinimumText(const MinimumDriver& minimum) {
  if (minimum.driver.empty())
    return "an error is predicted on every driver tried" +
           (minimum.below_driver.empty() ? std::string()
                                         : " (on " + minimum.below_driver + ": " + OutcomeText(minimum.deciding) + ")");
  std::string out = minimum.driver + " (R" + std::to_string(minimum.branch) + ")";
  if (minimum.at.status == "undecided")  // no error predicted, but a rule could not tell
    out += ", undecided there [" + minimum.at.rule + "]";
  if (!minimum.below_driver.empty()) out += "; on " + minimum.below_driver + ": " + OutcomeText(minimum.deciding);
  if (!minimum.failing_above.empty()) {
    out += "; fails again on";
    for (const std::string& driver : minimum.failing_above) out += " " + driver;
  }
  return out;
}

std::string CountsLine(const PlanReport& report) {
  plan::PlanCounts counts = plan::CountPlan(report);
  std::string out = Plural(static_cast<int64_t>(counts.images), "image", "images");
  auto add = [&](size_t n, const char* what) {
    if (n > 0) out += ", " + std::to_string(n) + " " + what;
  };
  add(counts.newly_failing, "newly failing");
  add(counts.newly_passing, "newly passing");
  add(counts.changed_error, "with another error");
  add(counts.changed_status, "otherwise changed");
  add(counts.pools_added, "verdicts on new pools");
  add(counts.pools_removed, "verdicts on removed pools");
  add(counts.fixes, "fixes proven");
  add(counts.unreadable, "unreadable");
  if (counts.newly_failing + counts.newly_passing + counts.changed_error + counts.changed_status + counts.pools_added +
          counts.pools_removed ==
      0 && !report.changes.empty())
    out += "; the change alters no verdict";
  return out;
}

std::string ChangesHeading(const PlanReport& report) {
  std::string out;
  for (const std::string& change : report.changes) out += (out.empty() ? "" : "; ") + change;
  return out.empty() ? "no fleet change" : out;
}

}  // namespace

std::string RenderPlanText(const PlanReport& report) {
  std::string out = "plan on " + report.fleet_source + ": " + ChangesHeading(report) + "\n";
  if (!report.shard.empty()) out += "shard " + report.shard + "\n";
  for (const ImagePlan& image : report.images) {
    out += "\n" + image.ref + "\n";
    if (!image.error.empty()) {
      out += "  cannot be read: " + image.error + "\n";
      continue;
    }
    for (const plan::VerdictChange& change : image.changes) {
      out += "  " + Pad(change.pool, 16) + " " + ChangeTitle(change) + ": " + OutcomeText(change.before) + " -> " +
             OutcomeText(change.after) + "\n";
      const Outcome& shown = change.kind == ChangeKind::kPoolRemoved ? change.before : change.after;
      if (!shown.message.empty() && (change.kind == ChangeKind::kNewlyFailing || change.kind == ChangeKind::kChangedError ||
                                     change.kind == ChangeKind::kPoolAdded))
        out += Wrap(shown.message, "      ", "      ", 100);
    }
    if (image.changes.empty() && !report.changes.empty()) out += "  no verdict changes\n";
    for (const MinimumDriver& minimum : image.minimum_drivers)
      out += "  oldest driver on " + minimum.pool + " (" + minimum.gpu + "): " + MinimumText(minimum) + "\n";
    if (!image.failing_pools.empty() && image.fixes.empty() && image.no_fix.empty())
      out += "  no fix found\n";
    for (const plan::Fix& fix : image.fixes) {
      out += "  fix (" + fix.kind + "): " + fix.description + "\n";
      std::string pools;
      for (const std::string& pool : fix.pools) pools += (pools.empty() ? "" : ", ") + pool;
      out += "      runs on " + pools + " once applied";
      for (const std::string& assumed : fix.assumes) out += "; assumes " + assumed;
      out += "\n";
      for (const std::string& line : SplitOn(fix.diff, '\n'))
        if (!line.empty()) out += "      " + line + "\n";
    }
    if (!image.no_fix.empty()) out += "  " + image.no_fix + "\n";
  }
  if (!report.floor.empty()) {
    out += "\noldest driver per pool for every image\n";
    for (const MinimumDriver& floor : report.floor)
      out += "  " + Pad(floor.pool, 16) + " " +
             (floor.driver.empty() ? std::string("none: ") + floor.set_by + " has an error on every driver tried"
                                   : floor.driver + " (R" + std::to_string(floor.branch) + "), set by " + floor.set_by) +
             "\n";
  }
  out += "\n" + CountsLine(report) + "\n";
  return out;
}

std::string RenderPlanMarkdown(const PlanReport& report) {
  auto cell = MarkdownText;
  std::string out = "## imagelint plan: " + cell(ChangesHeading(report)) + "\n\n" + cell(CountsLine(report)) + "\n";
  for (const ImagePlan& image : report.images) {
    out += "\n### " + MarkdownCode(image.ref) + "\n\n";
    if (!image.error.empty()) {
      out += "Cannot be read: " + cell(image.error) + "\n";
      continue;
    }
    if (!image.changes.empty()) {
      out += "| Pool | Change | Before | After | Why |\n|---|---|---|---|---|\n";
      for (const plan::VerdictChange& change : image.changes) {
        const Outcome& shown = change.kind == ChangeKind::kPoolRemoved ? change.before : change.after;
        out += "| " + cell(change.pool) + " | " + ChangeTitle(change) + " | " + cell(OutcomeText(change.before)) +
               " | " + cell(OutcomeText(change.after)) + " | " + cell(shown.message) + " |\n";
      }
    } else if (!report.changes.empty()) {
      out += "No verdict changes.\n";
    }
    if (!image.minimum_drivers.empty()) {
      out += "\n| Pool | GPU | Oldest driver |\n|---|---|---|\n";
      for (const MinimumDriver& minimum : image.minimum_drivers)
        out += "| " + cell(minimum.pool) + " | " + cell(minimum.gpu) + " | " + cell(MinimumText(minimum)) + " |\n";
    }
    for (const plan::Fix& fix : image.fixes) {
      out += "\n**Fix (" + fix.kind + "):** " + cell(fix.description) + "\n";
      if (!fix.diff.empty()) out += "\n```diff\n" + fix.diff + "```\n";
      for (const std::string& assumed : fix.assumes) out += "\n- assumes " + cell(assumed);
      out += "\n";
    }
    if (!image.no_fix.empty()) out += "\n" + cell(image.no_fix) + "\n";
  }
  if (!report.floor.empty()) {
    out += "\n### Oldest driver per pool for every image\n\n| Pool | Driver | Set by |\n|---|---|---|\n";
    for (const MinimumDriver& floor : report.floor)
      out += "| " + cell(floor.pool) + " | " + (floor.driver.empty() ? "none" : floor.driver) + " | " + MarkdownCode(floor.set_by) + " |\n";
  }
  return out;
}

std::string RenderPlanHtml(const PlanReport& report) {
  auto html = [](const std::string& text) { return EscapeMarkup(text, "&#39;", ' ', false); };
  auto status_class = [](const Outcome& outcome) {
    return outcome.status.empty() ? std::string("none") : outcome.status;
  };
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>imagelint plan</title><style>"
      "body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2129}"
      "header{background:#1d2129;color:#fff;padding:16px 24px}main{padding:16px 24px;max-width:1300px}"
      "table{border-collapse:collapse;background:#fff;margin:8px 0}th,td{border:1px solid #d9dce1;padding:5px 8px;"
      "text-align:left;vertical-align:top}th{background:#eef0f3}.fail{background:#fde7e4;color:#b3261e}"
      ".pass{background:#e3f4e6;color:#1e6b34}.warn{background:#fff1d6;color:#9a5b00}.undecided{background:#efe9fa;"
      "color:#5b3a9c}pre{background:#fff;border:1px solid #d9dce1;padding:8px;overflow-x:auto}"
      "</style></head><body>\n<header><h1>imagelint plan</h1><div>" +
      html(ChangesHeading(report)) + "</div><div>" + html(CountsLine(report)) + "</div></header>\n<main>\n";
  for (const ImagePlan& image : report.images) {
    out += "<h2><code>" + html(image.ref) + "</code></h2>\n";
    if (!image.error.empty()) {
      out += "<p class=\"fail\">Cannot be read: " + html(image.error) + "</p>\n";
      continue;
    }
    if (!image.changes.empty()) {
      out += "<table><tr><th>Pool</th><th>Change</th><th>Before</th><th>After</th><th>Why</th></tr>\n";
      for (const plan::VerdictChange& change : image.changes) {
        const Outcome& shown = change.kind == ChangeKind::kPoolRemoved ? change.before : change.after;
        out += "<tr><td>" + html(change.pool) + "</td><td>" + ChangeTitle(change) + "</td><td class=\"" +
               status_class(change.before) + "\">" + html(OutcomeText(change.before)) + "</td><td class=\"" +
               status_class(change.after) + "\">" + html(OutcomeText(change.after)) + "</td><td>" +
               html(shown.message) + "</td></tr>\n";
      }
      out += "</table>\n";
    } else if (!report.changes.empty()) {
      out += "<p>No verdict changes.</p>\n";
    }
    if (!image.minimum_drivers.empty()) {
      out += "<table><tr><th>Pool</th><th>GPU</th><th>Oldest driver</th></tr>\n";
      for (const MinimumDriver& minimum : image.minimum_drivers)
        out += "<tr><td>" + html(minimum.pool) + "</td><td>" + html(minimum.gpu) + "</td><td>" +
               html(MinimumText(minimum)) + "</td></tr>\n";
      out += "</table>\n";
    }
    for (const plan::Fix& fix : image.fixes) {
      out += "<p><b>Fix (" + html(fix.kind) + "):</b> " + html(fix.description) + "</p>\n";
      if (!fix.diff.empty()) out += "<pre>" + html(fix.diff) + "</pre>\n";
      for (const std::string& assumed : fix.assumes) out += "<p>assumes " + html(assumed) + "</p>\n";
    }
    if (!image.no_fix.empty()) out += "<p>" + html(image.no_fix) + "</p>\n";
  }
  if (!report.floor.empty()) {
    out += "<h2>Oldest driver per pool for every image</h2>\n<table><tr><th>Pool</th><th>Driver</th><th>Set by</th></tr>\n";
    for (const MinimumDriver& floor : report.floor)
      out += "<tr><td>" + html(floor.pool) + "</td><td>" + html(floor.driver.empty() ? "none" : floor.driver) +
             "</td><td><code>" + html(floor.set_by) + "</code></td></tr>\n";
    out += "</table>\n";
  }
  out += "</main></body></html>\n";
  return out;
}

}  // namespace imagelint::report
