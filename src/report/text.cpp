// The text report for people: per image, the verdict of each pool with the
// predicted error; then the findings grouped by severity (errors, undecided,
// warnings, notes), one block per root cause with the pools it hits (not a
// copy per pool), long requirement lists shortened; then suppressions and a
// summary line. Fits RenderOptions::width; ANSI colour only when asked.
#include <algorithm>

#include "imagelint/report.h"
#include "util.h"

namespace imagelint::report {

using namespace internal;

namespace {

// ANSI colour, only when asked (RenderOptions::color).
class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string operator()(const std::string& text, const char* code) const {
    if (!color_ || text.empty()) return text;
    return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
  }

 private:
  bool color_;
};

const char* ColorOf(const std::string& kind) {
  if (kind == "fail" || kind == "error") return "1;31";
  if (kind == "warn" || kind == "warning") return "33";
  if (kind == "undecided") return "35";
  if (kind == "pass") return "32";
  return "36";  // note
}

std::string SuppressionSource(const analysis::SuppressedBy& by) {
  std::string source = TextOr(by.file);
  if (source.empty()) source = by.origin;
  if (by.line && *by.line > 0) source += ":" + std::to_string(*by.line);
  return source;
}

// Columns of a line: UTF-8 continuation bytes take none.
size_t Columns(const std::string& text) {
  size_t columns = 0;
  for (unsigned char c : text) columns += (c & 0xC0) != 0x80;
  return columns;
}

// One line, cut to `width` ("~" marks the cut).
std::string Cut(const std::string& line, size_t width) {
  if (Columns(line) <= width) return line;
  std::string out;
  size_t columns = 0;
  for (unsigned char c : line) {
    bool starts = (c & 0xC0) != 0x80;
    if (starts && columns + 1 >= width) break;
    out += static_cast<char>(c);
    columns += starts;
  }
  return out + "~";
}

// The PREDICTED ERROR cell of a pool's row; `undetermined` is empty for a
// prediction an observation replaced (it keeps only status and error).
std::string PredictionCell(analysis::Outcome status, const Nullable<PredictedError>& predicted,
                           const std::vector<std::string>& undetermined) {
  if (predicted) return PredictedText(*predicted) + " (" + StageText(*predicted) + ")";
  if (status == analysis::Outcome::kUndecided) {
    std::vector<std::string> some(undetermined.begin(), undetermined.begin() + std::min<size_t>(3, undetermined.size()));
    std::string more = undetermined.size() > 3 ? " +" + std::to_string(undetermined.size() - 3) : "";
    return "cannot tell: " + Joined(some) + more;
  }
  if (status == analysis::Outcome::kPass && !undetermined.empty()) return "- (some checks undetermined)";
  return "-";
}

// The PREDICTED ERROR cell: an observed verdict shows what the host returned.
std::string Cell(const Verdict& verdict) {
  if (!verdict.observed) return PredictionCell(verdict.status, verdict.predicted_error, verdict.undetermined);
  return (verdict.predicted_error ? PredictedText(*verdict.predicted_error) : std::string("runs")) + " (observed)";
}

// The line under an observed verdict: where and when, and the prediction an
// observation contradicts.
std::string ObservedLine(const Verdict& verdict) {
  const analysis::Observed& seen = *verdict.observed;
  std::string text = "observed on " + seen.host + ", " + seen.date;
  const std::string observation = TextOr(verdict.observation);
  if (observation == "contradicts" && verdict.prediction) {
    const analysis::Prediction& before = *verdict.prediction;
    text += "; CONTRADICTS the prediction " + StatusText(before.status) + " " +
            PredictionCell(before.status, before.predicted_error, {});
  } else if (!observation.empty()) {
    text += " (" + observation + " with the prediction)";
  }
  return text;
}

// A Dockerfile's base image (report images[].base): where it was read from.
// A base the knowledge tables answered gets no line:
// why its lookup failed is said once per scan on standard error (the
// resolver's summary) and in full in the JSON report (`base.note`).
std::string BaseLine(const std::optional<analysis::BaseImage>& base) {
  if (!base || !base->resolved_from || !ReadFromImage(*base->resolved_from)) return "";
  std::string line = "base " + TextOr(base->ref) + ": ";
  line += "read from " + std::string(BaseSourceName(*base->resolved_from));
  std::string digest = TextOr(base->digest);
  if (!digest.empty()) line += " (" + digest.substr(0, std::min<size_t>(digest.size(), 19)) + ", " + (base->platform ? base->platform->ToString() : "") + ")";
  return line;
}

void RenderVerdicts(std::string& out, const ImageReport& image, size_t width, const Painter& paint) {
  const std::vector<Verdict>& verdicts = image.verdicts;
  if (verdicts.empty()) {
    out += "  (no pools: image-level checks only; pass --fleet FILE for verdicts)\n";
    return;
  }
  size_t pool_width = 4;
  size_t status_width = 7;
  for (const auto& verdict : verdicts) {
    pool_width = std::max(pool_width, verdict.pool.size());
    status_width = std::max(status_width, StatusText(verdict.status).size());
  }
  pool_width = std::min<size_t>(pool_width, 24);
  out += "  " + Pad("POOL", pool_width) + "  " + Pad("VERDICT", status_width) + "  PREDICTED ERROR\n";
  for (const auto& verdict : verdicts) {
    std::string status = StatusText(verdict.status);
    std::string rest = Cell(verdict);
    std::string plain = "  " + Pad(verdict.pool, pool_width) + "  " + Pad(status, status_width) + "  " + rest;
    std::string line = Cut(plain, width);
    // Colour the verdict word only (after cutting, so widths stay right).
    size_t at = 2 + pool_width + 2;
    if (line.size() >= at + status.size() && line.compare(at, status.size(), status) == 0)
      line = line.substr(0, at) + paint(status, ColorOf(status)) + line.substr(at + status.size());
    out += line + "\n";
    if (verdict.observed) out += Cut("    " + ObservedLine(verdict), width) + "\n";
  }
}

std::string PoolsText(const RootCause& cause, const ImageReport& image) {
  const Finding& first = *cause.findings.front();
  if (ImageScoped(first)) return "image";
  size_t all = image.verdicts.size();
  if (cause.pools.empty()) return "";
  if (all > 1 && cause.pools.size() == all) return "all " + std::to_string(all) + " pools";
  return Joined(cause.pools);
}

std::string HelpLine(const Finding& finding, const RenderOptions& options) {
  const std::string& rule = finding.rule;
  std::string uri = HelpUri(options.docs_base_uri, rule, finding.docs);
  return uri.empty() ? "imagelint explain " + rule : uri;
}

void RenderDecided(std::string& out, const RootCause& cause, const ImageReport& image, const RenderOptions& options,
                   const Painter& paint, size_t width) {
  const Finding& finding = *cause.findings.front();
  std::string kind = Kind(finding);
  std::string pools = PoolsText(cause, image);
  // Wrap without the colour codes, then paint the first word.
  std::string plain_head = kind + " " + finding.rule + " " + finding.name +
                           (pools.empty() ? "" : " [" + pools + "]") +
                           (BaselineState(cause) == "new" ? " (new since the baseline)" : "");
  std::string wrapped = Wrap(plain_head, "", "    ", width);
  out += paint(kind, ColorOf(kind)) + wrapped.substr(kind.size());
  const std::string& message = finding.message;
  out += Wrap(ShortenRequirements(message, message), "  ", "  ", width);
  if (cause.findings.size() > 1 && !cause.pools.empty()) {
    std::string first_pool = finding.pools.empty() ? "" : finding.pools.front();
    std::vector<std::string> others;
    for (const auto& pool : cause.pools) {
      if (pool != first_pool) others.push_back(pool);
    }
    if (!others.empty() && !first_pool.empty())
      out += Wrap("(shown for " + first_pool + "; the same cause on " + Joined(others) + ")", "  ", "  ", width);
  }
  if (finding.predicted_error) {
    const PredictedError& predicted = *finding.predicted_error;
    std::string text = "predicts: " + PredictedText(predicted) + " at " + StageText(predicted);
    std::string said = TextOr(predicted.message);
    if (!said.empty() && message.find(said) == std::string::npos) text += ": " + said;
    out += Wrap(text, "  ", "    ", width);
  }
  for (const auto& item : finding.evidence)
    out += Wrap(ShortenRequirements(EvidenceText(item), message), "  evidence: ", "    ", width);
  if (finding.fix) out += Wrap(ShortenRequirements(*finding.fix, message), "  fix: ", "    ", width);
  out += Wrap(HelpLine(finding, options), "  help: ", "    ", width);
  out += "\n";
}

void RenderUndecided(std::string& out, const RootCause& cause, const ImageReport& image, const RenderOptions& options,
                     const Painter& paint, size_t width) {
  const Finding& first = *cause.findings.front();
  std::string pools = PoolsText(cause, image);
  std::string plain_head = "undecided " + Joined(cause.rules) + (pools.empty() ? "" : " [" + pools + "]") +
                           (BaselineState(cause) == "new" ? " (new since the baseline)" : "");
  std::string wrapped = Wrap(plain_head, "", "    ", width);
  out += paint("undecided", ColorOf("undecided")) + wrapped.substr(9);
  // What is unknown, once for the whole cause.
  std::vector<std::string> missing = MissingSentences(cause.findings);
  if (missing.empty()) missing.push_back(first.message);
  out += Wrap("cannot tell: " + Joined(missing, "; "), "  ", "    ", width);
  for (const auto& reason : MissingReasons(first)) out += Wrap(reason, "  why: ", "    ", width);
  // What could not be decided: one line per rule.
  std::vector<std::string> seen;
  for (const Finding* finding : cause.findings) {
    const std::string& rule = finding->rule;
    if (std::find(seen.begin(), seen.end(), rule) != seen.end()) continue;
    seen.push_back(rule);
    out += Wrap(rule + " " + finding->title, "  - ", "    ", width);
  }
  if (first.fix) out += Wrap(*first.fix, "  ", "    ", width);
  if (cause.rules.size() == 1) out += Wrap(HelpLine(first, options), "  help: ", "    ", width);
  out += "\n";
}

// The count is of findings, as in the summary line; blocks are root causes,
// so when several findings share one the heading says both.
std::string Heading(const std::string& kind, const Counts& counts) {
  int64_t findings = counts.Of(counts.findings, kind);
  int64_t causes = counts.Of(counts.causes, kind);
  std::string count = " (" + std::to_string(findings) +
                      (causes == findings ? "" : " findings, " + Plural(causes, "root cause", "root causes")) + ")";
  if (kind == "error") return "ERRORS" + count;
  if (kind == "undecided") return "UNDECIDED" + count + ": imagelint cannot tell; these are not warnings";
  if (kind == "warning") return "WARNINGS" + count;
  return "NOTES" + count;
}

// The tail: suppressed findings, expired/rejected/unused ignores and the
// summary line (suppressions are never silent).
std::string RenderSummary(const Report& report, const RenderOptions& options) {
  Painter paint(options.color);
  size_t width = std::max<size_t>(options.width, 40);
  std::string out;
  const std::vector<ImageReport>& images = report.images;
  std::vector<std::pair<size_t, const Finding*>> suppressed;
  for (size_t i = 0; i < images.size(); ++i) {
    if (!images[i].suppressed) continue;
    for (const auto& finding : *images[i].suppressed) suppressed.emplace_back(i, &finding);
  }
  if (!suppressed.empty()) {
    out += "\n" + paint("SUPPRESSED (" + std::to_string(suppressed.size()) + ")", "1") + "\n";
    for (const auto& [index, finding] : suppressed) {
      analysis::SuppressedBy by;
      by.origin = "?";  // a suppressed finding that does not say by what
      if (finding->suppressed_by) by = *finding->suppressed_by;
      std::string text = finding->rule + " " + Kind(*finding) + " [#" + std::to_string(index + 1) + "] by " +
                         SuppressionSource(by) + ": " + by.reason;
      std::string expires = TextOr(by.expires);
      if (!expires.empty()) text += " (until " + expires + ")";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  const analysis::Ignores ignores = report.ignores.value_or(analysis::Ignores{});
  const std::vector<analysis::IgnoreEntry> none;
  const auto& expired = ignores.expired ? *ignores.expired : none;
  const auto& invalid = ignores.invalid ? *ignores.invalid : none;
  const auto& unused = ignores.unused ? *ignores.unused : none;
  if (!expired.empty()) {
    out += "\n" + paint("EXPIRED IGNORES (" + std::to_string(expired.size()) + ")", "33") + "\n";
    for (const auto& [entry, problem] : expired) {
      std::string text = entry.rule + " expired " + TextOr(entry.expires) + " (" + SuppressionSource(entry) +
                         "): " + entry.reason + "; its findings are reported again";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  if (!invalid.empty()) {
    out += "\n" + paint("REJECTED IGNORES (" + std::to_string(invalid.size()) + ")", "33") + "\n";
    for (const auto& [entry, problem] : invalid) {
      std::string text = entry.rule + " (" + SuppressionSource(entry) + "): " + TextOr(problem) + "; not applied";
      out += Wrap(text, "  ", "      ", width);
    }
  }
  if (!unused.empty()) {
    out += "\n" + paint("UNUSED IGNORES (" + std::to_string(unused.size()) + ")", "1") + "\n";
    for (const auto& [entry, problem] : unused) {
      std::string text = entry.rule + " (" + SuppressionSource(entry) + "): matched no finding";
      out += Wrap(text, "  ", "      ", width);
    }
  }

  const analysis::Summary summary = report.summary.value_or(analysis::Summary{});
  const analysis::SeverityCounts& hidden = summary.hidden;
  const Counts counts = CountReport(report);
  const auto& verdicts = counts.verdicts;
  const auto& findings = counts.findings;
  std::string line = "imagelint: " + Plural(summary.images, "image", "images");
  if (summary.pools > 0) {
    line += " x " + Plural(summary.pools, "pool", "pools") + ": " +
            std::to_string(counts.Of(verdicts, "fail")) + " fail, ";
    if (counts.Of(verdicts, "undecided") > 0) line += std::to_string(counts.Of(verdicts, "undecided")) + " undecided, ";
    line += std::to_string(counts.Of(verdicts, "warn")) + " warn, " + std::to_string(counts.Of(verdicts, "pass")) +
            " pass; ";
  } else {
    line += ", no fleet; ";
  }
  line += Plural(counts.Of(findings, "error"), "error", "errors") + ", ";
  if (counts.Of(findings, "undecided") > 0) line += std::to_string(counts.Of(findings, "undecided")) + " undecided, ";
  line += Plural(counts.Of(findings, "warning"), "warning", "warnings") + ", " +
          Plural(counts.Of(findings, "note"), "note", "notes");
  int64_t hidden_total = hidden.error + hidden.warning + hidden.note + hidden.undecided;
  line += "; " + std::to_string(summary.suppressed) + " suppressed";
  if (hidden_total > 0)
    line += "; " + std::to_string(hidden_total) + " below --min-severity " +
            (summary.min_severity ? std::string(rules::SeverityName(*summary.min_severity)) : "");
  if (summary.expired_ignores.value_or(0) > 0)
    line += "; " + Plural(*summary.expired_ignores, "expired ignore", "expired ignores");
  if (summary.invalid_ignores.value_or(0) > 0)
    line += "; " + Plural(*summary.invalid_ignores, "rejected ignore", "rejected ignores");
  if (summary.baseline) {
    const analysis::BaselineSummary& baseline = *summary.baseline;
    line += "; since the baseline: " + std::to_string(baseline.added) + " new, " + std::to_string(baseline.fixed) +
            " fixed, " + std::to_string(baseline.unchanged) + " unchanged";
  }
  if (summary.unreadable.value_or(0) > 0)
    line += "; " + Plural(*summary.unreadable, "image", "images") + " could not be read";
  if (std::string knowledge = KnowledgeLabel(report); !knowledge.empty()) line += "; " + knowledge;
  if (std::string note = KnowledgeNote(report); !note.empty()) out += "\n" + Wrap("NOTE: " + note, "", "  ", width);
  if (std::string assumed = FleetAssumptions(report); !assumed.empty())
    out += "\n" + Wrap("ASSUMED: " + assumed, "", "  ", width);
  out += "\n" + Wrap(line, "", "  ", width);
  // A scan without pools passes whatever the hosts are: say so (a pre-commit
  // hook or CI job set up without a fleet would otherwise look like a pass).
  if (summary.pools == 0 && summary.images > 0)
    out += Wrap("no fleet: nothing pool-specific (driver, GPU, container toolkit) was checked; add pools with "
                "--fleet FILE or `fleet: FILE` in .imagelint.yaml (docs/fleet.md; `imagelint fleet import` "
                "writes one from nvidia-smi or kubectl)",
                "", "  ", width);
  return out;
}

}  // namespace

std::string RenderText(const Report& report, const RenderOptions& options) {
  size_t width = std::max<size_t>(options.width, 40);
  Painter paint(options.color);
  std::string out;
  for (const auto& image : report.images) {
    std::string header = "IMAGE " + image.ref;
    const std::string& digest = image.digest;
    if (!digest.empty()) header += " (" + digest.substr(0, std::min<size_t>(digest.size(), 19)) + ")";
    out += paint(Cut(header, width), "1") + "\n";
    if (image.status == analysis::Outcome::kError) {  // --images-from, --all-tags: an image that could not be read
      out += Wrap(paint("could not be read", "31") + ": " + TextOr(image.error), "  ", "    ", width) + "\n\n";
      continue;
    }
    // Dockerfile inputs: where FROM was read, when it was read or the reason
    // it was not; built per pool platform, which pools got which build.
    if (image.platforms) {
      for (const auto& platform : *image.platforms) {
        std::string line = "built for " + platform.platform.ToString() + " (" + Joined(platform.pools) + ")";
        std::string base = BaseLine(platform.base);
        out += Wrap(line + (base.empty() ? "" : "; " + base), "  ", "      ", width);
      }
    } else if (std::string base = BaseLine(image.base); !base.empty()) {
      out += Wrap(base, "  ", "      ", width);
    }
    RenderVerdicts(out, image, width, paint);
    auto causes = RootCauses(image);
    std::string fixed_text;
    if (image.fixed && !image.fixed->empty()) {  // --baseline
      const std::vector<Finding>& fixed = *image.fixed;
      fixed_text = paint("Fixed since the baseline (" + std::to_string(fixed.size()) + ")", "32") + "\n";
      for (const auto& finding : fixed) {
        std::string pools = Joined(finding.pools);
        fixed_text += Wrap("fixed " + finding.rule + " " + finding.name + (pools.empty() ? "" : " [" + pools + "]") +
                               ": " + finding.message,
                           "  ", "    ", width);
      }
      fixed_text += "\n";
    }
    if (causes.empty()) {
      out += "\n  No findings.\n\n" + fixed_text;
      continue;
    }
    out += "\n";
    std::string current;
    const Counts counts = CountImage(image);
    for (const auto& cause : causes) {
      if (cause.kind != current) {
        current = cause.kind;
        out += paint(Heading(current, counts), ColorOf(current)) + "\n";
      }
      if (cause.kind == "undecided") {
        RenderUndecided(out, cause, image, options, paint, width);
      } else {
        RenderDecided(out, cause, image, options, paint, width);
      }
    }
    out += fixed_text;
  }
  // One blank line between the last block and the tail.
  while (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0) out.pop_back();
  return out + RenderSummary(report, options);
}

}  // namespace imagelint::report
