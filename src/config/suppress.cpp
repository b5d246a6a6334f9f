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

bool RuleMatches(const Suppression& s, const json& finding) {
  return s.rule == StringField(finding, "rule") || (!StringField(finding, "name").empty() && s.rule == StringField(finding, "name"));
}

bool EvidenceMatches(const Suppression& s, const json& finding) {
  const json& evidence = finding.contains("evidence") && finding["evidence"].is_array() ? finding["evidence"] : json::array();
  if (!s.path.empty()) {
    bool any = false;
    for (const auto& item : evidence) {
      if (GlobMatch(StripSlash(s.path), StripSlash(StringField(item, "path")))) any = true;
    }
    if (!any) return false;
  }
  if (s.dockerfile_line > 0) {
    bool any = false;
    for (const auto& item : evidence) {
      if (item.is_object() && item.contains("dockerfile_line") && item["dockerfile_line"].is_number_integer() &&
          item["dockerfile_line"].get<int64_t>() == s.dockerfile_line)
        any = true;
    }
    if (!any) return false;
  }
  return true;
}

json Describe(const Suppression& s) {
  json j = {{"rule", s.rule}, {"reason", s.reason}, {"origin", s.origin.empty() ? "config" : s.origin}};
  if (!s.file.empty()) j["file"] = s.file;
  if (s.line > 0) j["line"] = s.line;
  if (!s.expires.empty()) j["expires"] = s.expires;
  if (!s.image.empty()) j["image"] = s.image;
  if (!s.pool.empty()) j["pool"] = s.pool;
  if (!s.path.empty()) j["path"] = s.path;
  if (s.dockerfile_line > 0) j["dockerfile_line"] = s.dockerfile_line;
  return j;
}

// ignores[key] with `entries` appended: a list an earlier pass wrote (a
// report suppressed twice) is kept, anything else under the key replaced.
void AppendToList(json& ignores, const char* key, const json& entries) {
  json list = ignores.contains(key) && ignores[key].is_array() ? ignores[key] : json::array();
  for (const auto& entry : entries) list.push_back(entry);
  ignores[key] = std::move(list);
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

json ApplySuppressions(const json& input, const std::vector<Suppression>& suppressions, const std::string& today) {
  json report = input;
  json expired = json::array();
  json invalid = json::array();
  std::vector<const Suppression*> active;
  for (const auto& s : suppressions) {
    if (!s.problem.empty()) {
      json entry = Describe(s);
      entry["problem"] = s.problem;
      invalid.push_back(entry);
    } else if (s.reason.find_first_not_of(" \t") == std::string::npos || s.rule.empty() || s.rule == "*") {
      // Every suppression must say why (Dockerfile pragmas can omit it).
      json entry = Describe(s);
      entry["problem"] = s.rule.empty() || s.rule == "*" ? "names no single rule" : "has no reason";
      invalid.push_back(entry);
    } else if (!s.expires.empty() && s.expires < today) {
      expired.push_back(Describe(s));
    } else {
      active.push_back(&s);
    }
  }
  std::vector<bool> used(active.size(), false);
  if (report.contains("images") && report["images"].is_array()) {
    for (auto& image : report["images"]) {
      if (!image.is_object() || !image.contains("findings") || !image["findings"].is_array()) continue;
      json kept = json::array();
      json suppressed = image.contains("suppressed") && image["suppressed"].is_array() ? image["suppressed"] : json::array();
      size_t before = suppressed.size();
      std::string ref = StringField(image, "ref");
      for (const auto& original : image["findings"]) {
        json finding = original;
        bool gone = false;
        for (size_t i = 0; i < active.size() && !gone; ++i) {
          const Suppression& s = *active[i];
          if (!RuleMatches(s, finding) || !EvidenceMatches(s, finding)) continue;
          if (!s.image.empty() && !GlobMatch(s.image, ref)) continue;
          if (s.pool.empty()) {
            finding["suppressed_by"] = Describe(s);
            suppressed.push_back(finding);
            used[i] = true;
            gone = true;
            break;
          }
          // Narrowed to some pools: split the finding.
          json on = json::array(), off = json::array();
          for (const auto& pool : finding.value("pools", json::array())) {
            bool match = pool.is_string() && GlobMatch(s.pool, pool.get<std::string>());
            (match ? on : off).push_back(pool);
          }
          if (on.empty()) continue;
          used[i] = true;
          json part = finding;
          part["pools"] = on;
          part["suppressed_by"] = Describe(s);
          suppressed.push_back(part);
          if (off.empty()) {
            gone = true;
          } else {
            finding["pools"] = off;
          }
        }
        if (!gone) kept.push_back(finding);
      }
      if (suppressed.size() != before) {
        image["findings"] = kept;
        image["suppressed"] = suppressed;
        analysis::DeriveVerdicts(image);
      }
    }
  }
  json unused = json::array();
  for (size_t i = 0; i < active.size(); ++i) {
    if (!used[i]) unused.push_back(Describe(*active[i]));
  }
  json ignores = report.contains("ignores") && report["ignores"].is_object() ? report["ignores"] : json::object();
  AppendToList(ignores, "invalid", invalid);
  AppendToList(ignores, "expired", expired);
  AppendToList(ignores, "unused", unused);
  report["ignores"] = ignores;
  return report;
}

}  // namespace imagelint::config
