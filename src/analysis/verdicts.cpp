// Verdicts from findings: per pool, the worst decided finding, an undecided
// one that matters, and the error a workload meets first.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "imagelint/analysis.h"

namespace imagelint::analysis {

using rules::Severity;

namespace {

int SeverityRank(const Finding& finding) { return static_cast<int>(finding.severity); }

// The order workloads meet errors in: the stage, then the rule's priority.
std::pair<int, int64_t> ErrorOrder(const Finding& finding) {
  const rules::Stage stage = finding.predicted_error->stage.value_or(rules::Stage::kRuntime);
  return {static_cast<int>(stage), finding.priority.value_or(100)};
}

// A real error fails; a rule that could not decide (at warning level: its
// rule says not knowing matters) makes the verdict undecided, which a real
// warning does not hide; then warnings; notes pass.
Outcome OutcomeOf(int rank, bool undecided) {
  return rank >= static_cast<int>(Severity::kError)     ? Outcome::kFail
         : undecided                                    ? Outcome::kUndecided
         : rank >= static_cast<int>(Severity::kWarning) ? Outcome::kWarn
                                                        : Outcome::kPass;
}

bool Blocks(const Finding& finding) {
  return finding.unknown && SeverityRank(finding) >= static_cast<int>(Severity::kWarning);
}

void AddOnce(std::vector<std::string>& list, const std::string& id) {
  if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
}

}  // namespace

void DeriveVerdicts(ImageReport& image) {
  int image_rank = -1;
  bool image_undecided = false;
  if (image.verdicts.empty()) {
    for (const Finding& finding : image.findings) {
      if (finding.unknown) {
        image_undecided = image_undecided || Blocks(finding);
      } else {
        image_rank = std::max(image_rank, SeverityRank(finding));
      }
    }
    image.status = OutcomeOf(image_rank, image_undecided);
    return;
  }
  // Each pool's findings, in report order, found once (not per verdict).
  std::unordered_map<std::string, std::vector<const Finding*>> by_pool;
  for (const Finding& finding : image.findings) {
    std::set<std::string> seen;
    for (const std::string& pool : finding.pools)
      if (seen.insert(pool).second) by_pool[pool].push_back(&finding);
  }
  for (Verdict& verdict : image.verdicts) {
    int worst_rank = -1;
    bool undecided = false;
    const Finding* deciding = nullptr;
    verdict.rules.clear();
    verdict.undetermined.clear();
    for (const Finding* finding : by_pool[verdict.pool]) {
      if (finding->unknown) {
        AddOnce(verdict.undetermined, finding->rule);
        undecided = undecided || Blocks(*finding);
        continue;
      }
      AddOnce(verdict.rules, finding->rule);
      const int rank = SeverityRank(*finding);
      worst_rank = std::max(worst_rank, rank);
      if (rank == static_cast<int>(Severity::kError) && finding->predicted_error &&
          (!deciding || ErrorOrder(*finding) < ErrorOrder(*deciding)))
        deciding = finding;
    }
    verdict.status = OutcomeOf(worst_rank, undecided);
    verdict.predicted_error = std::nullopt;
    if (deciding) {
      PredictedError predicted = *deciding->predicted_error;
      predicted.rule = deciding->rule;
      verdict.predicted_error = std::move(predicted);
    }
    ApplyObservation(verdict);
    if (verdict.observed) {  // what the host showed counts for the image too
      worst_rank = verdict.status == Outcome::kFail ? static_cast<int>(Severity::kError)
                                                   : std::min(worst_rank, static_cast<int>(Severity::kWarning));
      undecided = false;
    }
    image_rank = std::max(image_rank, worst_rank);
    image_undecided = image_undecided || undecided;
  }
  image.status = OutcomeOf(image_rank, image_undecided);
}

}  // namespace imagelint::analysis
