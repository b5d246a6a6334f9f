// Observations of the fleet file (`observed:`, docs/probe.md) in verdicts:
// what a host of the pool really returned replaces the prediction, and a
// prediction it contradicts is marked so.
#include <algorithm>

#include "imagelint/analysis.h"

namespace imagelint::analysis {
namespace {

using nlohmann::json;

const Pool* FindPool(const Fleet& fleet, const json& name) {
  if (!name.is_string()) return nullptr;
  for (const auto& pool : fleet.pools)
    if (pool.name == name.get<std::string>()) return &pool;
  return nullptr;
}

bool OnPool(const json& finding, const json& pool) {
  if (!finding.contains("pools") || !finding["pools"].is_array()) return false;
  return std::find(finding["pools"].begin(), finding["pools"].end(), pool) != finding["pools"].end();
}

}  // namespace

std::string FactKey(const json& finding) {
  std::string key = finding.contains("rule") && finding["rule"].is_string() ? finding["rule"].get<std::string>() : "";
  for (const std::string& where : LogicalLocation(finding)) key += " " + where;
  return key;
}

void AttachObservations(json& image, const Fleet& fleet) {
  if (!image.contains("verdicts") || !image["verdicts"].is_array()) return;
  const std::string digest = image.value("digest", "");
  static const json kNone = json::array();
  const json& findings = image.contains("findings") && image["findings"].is_array() ? image["findings"] : kNone;
  for (auto& verdict : image["verdicts"]) {
    const json pool = verdict.value("pool", json());
    const Pool* found = FindPool(fleet, pool);
    if (found == nullptr || found->observed.empty()) continue;
    auto fact_holds = [&](const std::string& fact) {
      return std::any_of(findings.begin(), findings.end(),
                         [&](const json& f) { return OnPool(f, pool) && FactKey(f) == fact; });
    };
    const Observation* chosen = nullptr;
    // The image's own observation first, then one about a fact its verdict rests on.
    for (const auto& seen : found->observed)
      if (!digest.empty() && seen.image == digest && (seen.fact.empty() || fact_holds(seen.fact))) {
        chosen = &seen;
        break;
      }
    if (chosen == nullptr)
      for (const auto& seen : found->observed)
        if (seen.image.empty() && fact_holds(seen.fact)) {
          chosen = &seen;
          break;
        }
    if (chosen == nullptr) continue;
    json entry = {{"code", chosen->code}, {"host", chosen->host}, {"date", chosen->date},
                  {"key", chosen->image.empty() ? "fact" : "image"}};
    if (chosen->line > 0) entry["line"] = chosen->line;
    for (const auto& [field, value] : {std::pair{"image", &chosen->image}, std::pair{"fact", &chosen->fact},
                                       std::pair{"name", &chosen->name}, std::pair{"api", &chosen->api}})
      if (!value->empty()) entry[field] = *value;
    verdict["observed"] = entry;
  }
}

void ApplyObservation(json& verdict) {
  if (!verdict.contains("observed") || !verdict["observed"].is_object()) return;
  const json& seen = verdict["observed"];
  const std::string status = verdict.value("status", "");
  json prediction = {{"status", status}, {"predicted_error", verdict.value("predicted_error", json())}};
  verdict["prediction"] = prediction;
  const int code = seen.value("code", 0);
  const json& predicted = verdict["predicted_error"];
  if (status == "undecided") {
    verdict["observation"] = "settles";  // the tables could not tell
  } else {
    int predicted_code = predicted.is_object() ? predicted.value("code", 0) : 0;
    // A refused container (requirement-unsatisfied, code 0) is never "ran".
    bool predicted_runs = !predicted.is_object();
    verdict["observation"] = (predicted_runs ? code == 0 : predicted_code == code && code != 0) ? "agrees" : "contradicts";
  }
  if (code == 0) {
    verdict["status"] = status == "warn" ? "warn" : "pass";
    verdict["predicted_error"] = nullptr;
  } else {
    verdict["status"] = "fail";
    const std::string name = seen.value("name", "");
    json error = {{"code", code}, {"name", name.empty() ? "cuda-error-" + std::to_string(code) : name}};
    if (seen.contains("api")) error["message"] = "returned by " + seen["api"].get<std::string>();
    error["observed"] = true;
    verdict["predicted_error"] = error;
  }
}

}  // namespace imagelint::analysis
