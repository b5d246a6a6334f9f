// Applying ignore entries and Dockerfile pragmas to a report: matching
// findings move to `suppressed[]`, verdicts are recomputed from what is left,
// expired and unused entries are listed. Nothing disappears silently.
#include <algorithm>
#include <string_view>

#include "common/json.h"
#include "common/text.h"

#include "imagelint/analysis.h"
#include "imagelint/config.h"

namespace imagelint::config {

using nlohmann::json;

namespace {

std::string StripSlash(std::string path) {
  while (!path.empty() && path[0] == '/') path = path.substr(1);
  return path;
}

bool RuleMatches(const Suppression& s, const analysis::Finding& finding) {
  return s.rule == finding.rule || (!finding.name.empty() && s.rule == finding.name);
}

bool EvidenceMatches(const Suppression& s, const analysis::Finding& finding) {
  if (!s.path.empty() && std::none_of(finding.evidence.begin(), finding.evidence.end(), [&](const auto& item) {
        return GlobMatch(StripSlash(s.path), StripSlash(item.path.value_or("")));
      }))
    return false;
  if (s.dockerfile_line > 0 && std::none_of(finding.evidence.begin(), finding.evidence.end(), [&](const auto& item) {
        return item.dockerfile_line == s.dockerfile_line;
      }))
    return false;
  return true;
}

analysis::SuppressedBy SuppressedBy(const Suppression& s) {
  analysis::SuppressedBy out;
  out.rule = s.rule;
  out.reason = s.reason;
  out.origin = s.origin.empty() ? "config" : s.origin;
  auto set = [](std::optional<std::string>& field, const std::string& value) {
    if (!value.empty()) field = value;
  };
  set(out.file, s.file);
  if (s.line > 0) out.line = s.line;
  set(out.expires, s.expires);
  set(out.image, s.image);
  set(out.pool, s.pool);
  set(out.path, s.path);
  if (s.dockerfile_line > 0) out.dockerfile_line = s.dockerfile_line;
  return out;
}

bool Names(const rules::RuleInfo& info, std::string_view rule) { return info.id == rule || info.name == rule; }

}  // namespace

std::vector<std::string> ClosestRules(std::string_view rule, const std::vector<rules::RuleInfo>& known) {
  if (rule.size() > 200) return {};
  size_t best = std::string::npos;
  std::vector<std::string> out;
  for (const auto& info : known) {
    for (const std::string* candidate : {&info.id, &info.name}) {
      if (candidate->empty()) continue;
      size_t distance = EditDistance(rule, *candidate);
      // Close means at most a third of the longer name changed.
      if (distance * 3 > std::max(rule.size(), candidate->size())) continue;
      if (distance < best) {
        best = distance;
        out.clear();
      }
      if (distance == best && std::find(out.begin(), out.end(), info.id) == out.end()) out.push_back(info.id);
    }
  }
  if (out.size() > 3) out.resize(3);
  return out;
}

Status CheckIgnoredRules(const std::vector<Suppression>& ignores, const std::vector<rules::RuleInfo>& known) {
  for (const auto& s : ignores) {
    if (s.rule.empty() || s.rule == "*") continue;  // reported as invalid (names no single rule)
    if (std::any_of(known.begin(), known.end(), [&](const rules::RuleInfo& info) { return Names(info, s.rule); }))
      continue;
    std::string message = "ignore: no rule named '" + s.rule + "'";
    auto closest = ClosestRules(s.rule, known);
    if (!closest.empty()) {
      message += " (did you mean ";
      for (size_t i = 0; i < closest.size(); ++i) message += (i ? " or " : "") + closest[i];
      message += "?)";
    } else {
      message += " (imagelint rules lists them)";
    }
    if (s.origin == "flag" || s.file.empty()) return MakeError("--ignore", message.substr(8));
    return MakeErrorAtLine(s.file, s.line, 0, message);
  }
  return OkStatus();
}

void ApplySuppressions(analysis::Report& report, const std::vector<Suppression>& suppressions,
                       const std::string& today) {
  std::vector<analysis::IgnoreEntry> expired, invalid;
  std::vector<const Suppression*> active;
  for (const auto& s : suppressions) {
    if (!s.problem.empty()) {
      invalid.push_back({SuppressedBy(s), s.problem});
    } else if (s.reason.find_first_not_of(" \t") == std::string::npos || s.rule.empty() || s.rule == "*") {
      // Every suppression must say why (Dockerfile pragmas can omit it).
      invalid.push_back({SuppressedBy(s), s.rule.empty() || s.rule == "*" ? "names no single rule" : "has no reason"});
    } else if (!s.expires.empty() && s.expires < today) {
      expired.push_back({SuppressedBy(s), std::nullopt});
    } else {
      active.push_back(&s);
    }
  }
  std::vector<bool> used(active.size(), false);
  for (analysis::ImageReport& image : report.images) {
    std::vector<analysis::Finding> kept;
    std::vector<analysis::Finding> suppressed = image.suppressed.value_or(std::vector<analysis::Finding>{});
    const size_t before = suppressed.size();
    for (analysis::Finding finding : image.findings) {
      bool gone = false;
      for (size_t i = 0; i < active.size() && !gone; ++i) {
        const Suppression& s = *active[i];
        if (!RuleMatches(s, finding) || !EvidenceMatches(s, finding)) continue;
        if (!s.image.empty() && !GlobMatch(s.image, image.ref)) continue;
        if (s.pool.empty()) {
          finding.suppressed_by = SuppressedBy(s);
          suppressed.push_back(finding);
          used[i] = true;
          gone = true;
          break;
        }
        // Narrowed to some pools: split the finding.
        std::vector<std::string> on, off;
        for (const auto& pool : finding.pools) (GlobMatch(s.pool, pool) ? on : off).push_back(pool);
        if (on.empty()) continue;
        used[i] = true;
        analysis::Finding part = finding;
        part.pools = on;
        part.suppressed_by = SuppressedBy(s);
        suppressed.push_back(std::move(part));
        if (off.empty()) {
          gone = true;
        } else {
          finding.pools = off;
        }
      }
      if (!gone) kept.push_back(std::move(finding));
    }
    if (suppressed.size() != before) {
      image.findings = std::move(kept);
      image.suppressed = std::move(suppressed);
      analysis::DeriveVerdicts(image);
    }
  }
  std::vector<analysis::IgnoreEntry> unused;
  for (size_t i = 0; i < active.size(); ++i)
    if (!used[i]) unused.push_back({SuppressedBy(*active[i]), std::nullopt});
  // A list an earlier pass wrote (a report suppressed twice) is kept.
  analysis::Ignores& ignores = report.ignores ? *report.ignores : report.ignores.emplace();
  auto append = [](std::optional<std::vector<analysis::IgnoreEntry>>& list, std::vector<analysis::IgnoreEntry>& entries) {
    if (!list) list.emplace();
    for (auto& entry : entries) list->push_back(std::move(entry));
  };
  append(ignores.invalid, invalid);
  append(ignores.expired, expired);
  append(ignores.unused, unused);
}


}  // namespace imagelint::config
