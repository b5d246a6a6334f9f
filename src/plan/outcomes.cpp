// Verdicts read out of a finalised report image, and what changed between
// two fleets.
#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

// The message of the finding behind `rule` on `pool`.
std::string MessageOf(const analysis::ImageReport& image, const std::string& rule, const std::string& pool) {
  for (const analysis::Finding& finding : image.findings) {
    if (finding.rule != rule) continue;
    if (finding.pools.empty() || std::find(finding.pools.begin(), finding.pools.end(), pool) != finding.pools.end())
      return finding.message;
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

Outcome OutcomeOf(const analysis::ImageReport& image, const std::string& pool) {
  Outcome out;
  for (const analysis::Verdict& verdict : image.verdicts) {
    if (verdict.pool != pool) continue;
    out.status = analysis::OutcomeName(verdict.status);
    if (verdict.predicted_error) {
      out.error_code = static_cast<int>(verdict.predicted_error->code);
      out.error_name = verdict.predicted_error->name;
      out.rule = verdict.predicted_error->rule.value_or("");
    }
    if (out.rule.empty() && !verdict.undetermined.empty())  // undecided: the first finding that could not decide
      out.rule = verdict.undetermined.front();
    if (!out.rule.empty()) out.message = MessageOf(image, out.rule, pool);
    return out;
  }
  return out;
}

std::vector<VerdictChange> CompareVerdicts(const analysis::ImageReport& before_image, const Fleet& before,
                                           const analysis::ImageReport& after_image, const Fleet& after) {
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
