// Verdicts read out of a finalised report (its one reader for plan), and
// what changed between two fleets.
#include <algorithm>
#include <set>

#include "common/json.h"
#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The message of the finding behind `rule` on `pool`.
std::string MessageOf(const json& image, const std::string& rule, const std::string& pool) {
  auto findings = image.find("findings");
  if (findings == image.end() || !findings->is_array()) return "";
  for (const json& finding : *findings) {
    if (Text(finding, "rule") != rule) continue;
    auto pools = finding.find("pools");
    bool on_pool = pools == finding.end() || !pools->is_array() || pools->empty() ||
                   std::find(pools->begin(), pools->end(), json(pool)) != pools->end();
    if (on_pool) return Text(finding, "message");
  }
  return "";
}

ChangeKind KindOf(const Outcome& before, const Outcome& after) {
  if (!Fails(before) && Fails(after)) return ChangeKind::kNewlyFailing;
  if (Fails(before) && !Fails(after)) return ChangeKind::kNewlyPassing;
  if (Fails(before) && Fails(after)) return ChangeKind::kChangedError;
  return ChangeKind::kChangedStatus;
}

}  // namespace

bool Fails(const Outcome& outcome) { return outcome.status == "fail"; }
bool Runs(const Outcome& outcome) { return outcome.status == "pass" || outcome.status == "warn"; }

Outcome OutcomeOf(const json& image, const std::string& pool) {
  Outcome out;
  auto verdicts = image.find("verdicts");
  if (verdicts == image.end() || !verdicts->is_array()) return out;
  for (const json& verdict : *verdicts) {
    if (Text(verdict, "pool") != pool) continue;
    out.status = Text(verdict, "status");
    if (auto error = verdict.find("predicted_error"); error != verdict.end() && error->is_object()) {
      if (auto code = error->find("code"); code != error->end() && code->is_number_integer()) out.error_code = *code;
      out.error_name = Text(*error, "name");
      out.rule = Text(*error, "rule");
    }
    if (out.rule.empty())  // undecided: the first finding that could not decide
      if (auto undetermined = verdict.find("undetermined"); undetermined != verdict.end() &&
                                                             undetermined->is_array() && !undetermined->empty() &&
                                                             undetermined->front().is_string())
        out.rule = undetermined->front().get<std::string>();
    if (!out.rule.empty()) out.message = MessageOf(image, out.rule, pool);
    return out;
  }
  return out;
}

std::vector<VerdictChange> CompareVerdicts(const json& before_image, const Fleet& before, const json& after_image,
                                           const Fleet& after) {
  std::vector<VerdictChange> out;
  std::set<std::string> after_names;
  for (const Pool& pool : after.pools) {
    after_names.insert(pool.name);
    Outcome now = OutcomeOf(after_image, pool.name);
    bool existed = std::any_of(before.pools.begin(), before.pools.end(),
                               [&](const Pool& p) { return p.name == pool.name; });
    if (!existed) {
      out.push_back({pool.name, ChangeKind::kPoolAdded, {}, now});
      continue;
    }
    Outcome then = OutcomeOf(before_image, pool.name);
    if (then == now) continue;
    out.push_back({pool.name, KindOf(then, now), then, now});
  }
  for (const Pool& pool : before.pools)
    if (!after_names.count(pool.name))
      out.push_back({pool.name, ChangeKind::kPoolRemoved, OutcomeOf(before_image, pool.name), {}});
  return out;
}

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kNewlyFailing: return "newly-failing";
    case ChangeKind::kNewlyPassing: return "newly-passing";
    case ChangeKind::kChangedError: return "changed-error";
    case ChangeKind::kChangedStatus: return "changed-status";
    case ChangeKind::kPoolAdded: return "pool-added";
    case ChangeKind::kPoolRemoved: return "pool-removed";
  }
  return "changed-status";
}

}  // namespace imagelint::plan
