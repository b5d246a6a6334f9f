// Applying ignore entries and Dockerfile pragmas to a report: matching
// findings move to `suppressed[]`, verdicts are recomputed from what is left,
// expired and unused entries are listed. Nothing disappears silently.
#include <algorithm>

#include "imagelint/config.h"

namespace imagelint::config {

using nlohmann::json;

namespace {

std::string Str(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int SeverityRank(const json& finding) {
  std::string severity = Str(finding, "severity");
  if (severity == "error") return 2;
  if (severity == "warning") return 1;
  if (severity == "note") return 0;
  return -1;
}

int StageRank(const json& predicted) {
  std::string stage = Str(predicted, "stage");
  if (stage == "container-start") return 0;
  if (stage == "cuInit") return 1;
  if (stage == "kernel-load") return 2;
  if (stage == "runtime") return 3;
  return 99;
}

std::string StripSlash(std::string path) {
  while (!path.empty() && path[0] == '/') path = path.substr(1);
  return path;
}

bool RuleMatches(const Suppression& s, const json& finding) {
  return s.rule == Str(finding, "rule") || (!Str(finding, "name").empty() && s.rule == Str(finding, "name"));
}

bool EvidenceMatches(const Suppression& s, const json& finding) {
  const json& evidence = finding.contains("evidence") && finding["evidence"].is_array() ? finding["evidence"] : json::array();
  if (!s.path.empty()) {
    bool any = false;
    for (const auto& item : evidence) {
      if (GlobMatch(StripSlash(s.path), StripSlash(Str(item, "path")))) any = true;
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

bool OnPool(const json& finding, const std::string& pool) {
  if (!finding.contains("pools") || !finding["pools"].is_array()) return false;
  for (const auto& name : finding["pools"]) {
    if (name.is_string() && name.get<std::string>() == pool) return true;
  }
  return false;
}

// Same derivation as analysis::Analyze: worst severity on the pool decides
// the status; the earliest-stage error with a predicted error is shown.
void RecomputeVerdicts(json& image) {
  if (!image.contains("verdicts") || !image["verdicts"].is_array()) return;
  const json& findings = image.contains("findings") && image["findings"].is_array() ? image["findings"] : json::array();
  std::string worst = "pass";
  for (auto& verdict : image["verdicts"]) {
    std::string pool = Str(verdict, "pool");
    int worst_rank = -1;
    const json* deciding = nullptr;
    json rule_ids = json::array();
    json undetermined = json::array();
    for (const auto& finding : findings) {
      if (!OnPool(finding, pool)) continue;
      int rank = SeverityRank(finding);
      bool unknown = finding.contains("unknown") && finding["unknown"].is_boolean() && finding["unknown"].get<bool>();
      json id = finding.contains("rule") ? finding["rule"] : json();
      if (unknown) {
        if (std::find(undetermined.begin(), undetermined.end(), id) == undetermined.end()) undetermined.push_back(id);
      } else if (std::find(rule_ids.begin(), rule_ids.end(), id) == rule_ids.end()) {
        rule_ids.push_back(id);
      }
      worst_rank = std::max(worst_rank, rank);
      if (rank == 2 && finding.contains("predicted_error") && finding["predicted_error"].is_object()) {
        if (!deciding || StageRank(finding["predicted_error"]) < StageRank((*deciding)["predicted_error"]))
          deciding = &finding;
      }
    }
    std::string status = worst_rank >= 2 ? "fail" : worst_rank == 1 ? "warn" : "pass";
    verdict["status"] = status;
    if (deciding) {
      json predicted = (*deciding)["predicted_error"];
      predicted["rule"] = (*deciding)["rule"];
      verdict["predicted_error"] = predicted;
    } else {
      verdict["predicted_error"] = nullptr;
    }
    verdict["rules"] = rule_ids;
    verdict["undetermined"] = undetermined;
    if (status == "fail") worst = "fail";
    else if (status == "warn" && worst == "pass") worst = "warn";
  }
  if (!image["verdicts"].empty()) {
    image["status"] = worst;
  } else {
    int worst_rank = -1;
    for (const auto& finding : findings) worst_rank = std::max(worst_rank, SeverityRank(finding));
    image["status"] = worst_rank >= 2 ? "fail" : worst_rank == 1 ? "warn" : "pass";
  }
}

}  // namespace

json ApplySuppressions(const json& input, const std::vector<Suppression>& suppressions, const std::string& today) {
  json report = input;
  json expired = json::array();
  json invalid = json::array();
  std::vector<const Suppression*> active;
  for (const auto& s : suppressions) {
    if (s.reason.find_first_not_of(" \t") == std::string::npos || s.rule.empty() || s.rule == "*") {
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
      std::string ref = Str(image, "ref");
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
        RecomputeVerdicts(image);
      }
    }
  }
  json unused = json::array();
  for (size_t i = 0; i < active.size(); ++i) {
    if (!used[i]) unused.push_back(Describe(*active[i]));
  }
  json ignores = report.contains("ignores") && report["ignores"].is_object() ? report["ignores"] : json::object();
  json all_expired = ignores.contains("expired") && ignores["expired"].is_array() ? ignores["expired"] : json::array();
  for (auto& entry : expired) all_expired.push_back(entry);
  json all_unused = ignores.contains("unused") && ignores["unused"].is_array() ? ignores["unused"] : json::array();
  for (auto& entry : unused) all_unused.push_back(entry);
  json all_invalid = ignores.contains("invalid") && ignores["invalid"].is_array() ? ignores["invalid"] : json::array();
  for (auto& entry : invalid) all_invalid.push_back(entry);
  ignores["invalid"] = all_invalid;
  ignores["expired"] = all_expired;
  ignores["unused"] = all_unused;
  report["ignores"] = ignores;
  return report;
}

}  // namespace imagelint::config
