// Verdicts read out of a finalised report (its one reader for plan), and
// what changed between two fleets.
#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "common/json.h"
#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

using nlohmann::json;

// The message of the finding behind `rule` on `pool`.
std::string MessageOf(const json& image, const std::string& rule, const std::string& pool) {
  auto findings = image.find("findings");
  if (findings == image.end() || !findings->is_array()) return "";
  for (const json& finding : *findings) {
    if (StringField(finding, "rule") != rule) continue;
    auto pools = finding.find("pools");
    bool on_pool = pools == finding.end() || !pools->is_array() || pools->empty() ||
                   std::find(pools->begin(), pools->end(), json(pool)) != pools->end();
    if (on_pool) return StringField(finding, "message");
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
    if (StringField(verdict, "pool") != pool) continue;
    out.status = StringField(verdict, "status");
    if (auto error = verdict.find("predicted_error"); error != verdict.end() && error->is_object()) {
      if (auto code = error->find("code"); code != error->end() && code->is_number_integer()) out.error_code = *code;
      out.error_name = StringField(*error, "name");
      out.rule = StringField(*error, "rule");
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

namespace {

constexpr std::pair<ChangeKind, const char*> kChangeKindNames[] = {
    {ChangeKind::kNewlyFailing, "newly-failing"}, {ChangeKind::kNewlyPassing, "newly-passing"},
    {ChangeKind::kChangedError, "changed-error"}, {ChangeKind::kChangedStatus, "changed-status"},
    {ChangeKind::kPoolAdded, "pool-added"},       {ChangeKind::kPoolRemoved, "pool-removed"},
};

}  // namespace

const char* ChangeKindName(ChangeKind kind) {
  for (const auto& [one, name] : kChangeKindNames)
    if (one == kind) return name;
  return "changed-status";
}

std::optional<ChangeKind> ChangeKindFromName(std::string_view name) {
  for (const auto& [kind, one] : kChangeKindNames)
    if (name == one) return kind;
  return std::nullopt;
}

}  // namespace imagelint::plan
