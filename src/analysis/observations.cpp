// Observations of the fleet file (`observed:`, docs/probe.md) in verdicts:
// what a host of the pool really returned replaces the prediction, and a
// prediction it contradicts is marked so.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "imagelint/analysis.h"

namespace imagelint::analysis {


std::string FactKey(const Finding& finding) {
  std::string key = finding.rule;
  for (const std::string& where : LogicalLocation(finding)) key += " " + where;
  return key;
}

void AttachObservations(ImageReport& image, const Fleet& fleet) {
  std::unordered_map<std::string, const Pool*> observing;  // pools with observations, by name
  for (const Pool& pool : fleet.pools)
    if (!pool.observed.empty()) observing.try_emplace(pool.name, &pool);
  if (observing.empty()) return;
  for (Verdict& verdict : image.verdicts) {
    auto found = observing.find(verdict.pool);
    if (found == observing.end()) continue;
    auto fact_holds = [&](const std::string& fact) {
      return std::any_of(image.findings.begin(), image.findings.end(), [&](const Finding& f) {
        return std::find(f.pools.begin(), f.pools.end(), verdict.pool) != f.pools.end() && FactKey(f) == fact;
      });
    };
    const Observation* chosen = nullptr;
    // The image's own observation first, then one about a fact its verdict rests on.
    for (const auto& seen : found->second->observed)
      if (!image.digest.empty() && seen.image == image.digest && (seen.fact.empty() || fact_holds(seen.fact))) {
        chosen = &seen;
        break;
      }
    if (chosen == nullptr)
      for (const auto& seen : found->second->observed)
        if (seen.image.empty() && fact_holds(seen.fact)) {
          chosen = &seen;
          break;
        }
    if (chosen == nullptr) continue;
    Observed entry;
    entry.code = chosen->code;
    entry.host = chosen->host;
    entry.date = chosen->date;
    entry.key = chosen->image.empty() ? "fact" : "image";
    if (chosen->line > 0) entry.line = chosen->line;
    auto set = [](std::optional<std::string>& field, const std::string& value) {
      if (!value.empty()) field = value;
    };
    set(entry.image, chosen->image);
    set(entry.fact, chosen->fact);
    set(entry.name, chosen->name);
    set(entry.api, chosen->api);
    verdict.observed = std::move(entry);
  }
}

void ApplyObservation(Verdict& verdict) {
  if (!verdict.observed) return;
  const Observed& seen = *verdict.observed;
  const Outcome status = verdict.status;
  verdict.prediction = Prediction{status, verdict.predicted_error};
  const int64_t code = seen.code;
  if (status == Outcome::kUndecided) {
    verdict.observation = "settles";  // the tables could not tell
  } else {
    // A refused container (requirement-unsatisfied, code 0) is never "ran".
    const bool predicted_runs = !verdict.predicted_error;
    const bool agrees = predicted_runs ? code == 0 : verdict.predicted_error->code == code && code != 0;
    verdict.observation = agrees ? "agrees" : "contradicts";
  }
  if (code == 0) {
    verdict.status = status == Outcome::kWarn ? Outcome::kWarn : Outcome::kPass;
    verdict.predicted_error = std::nullopt;
  } else {
    verdict.status = Outcome::kFail;
    PredictedError error;
    error.code = code;
    error.name = seen.name.value_or("").empty() ? "cuda-error-" + std::to_string(code) : *seen.name;
    if (seen.api) error.message = "returned by " + *seen.api;
    error.observed = true;
    verdict.predicted_error = std::move(error);
  }
}

}  // namespace imagelint::analysis
