// imagelint::Plan: read each input once, judge it on the fleet before and
// after the change, and (when asked) on copies of each pool with other
// drivers and with patched Dockerfiles. Inputs go through in chunks, so an
// estate of thousands of images holds only one chunk's facts at a time.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "common/file_text.h"
#include "common/json.h"
#include "imagelint/analysis.h"
#include "imagelint/knowledge.h"
#include "plan/plan_steps.h"

namespace imagelint {
namespace {

using nlohmann::json;
using plan::Fix;
using plan::ImagePlan;
using plan::Outcome;

constexpr size_t kMaxDockerfileBytes = 16u << 20;

// A Dockerfile read as such (not a facts document written from one): its
// text can be patched.
bool IsDockerfileFacts(const ImageFacts& image) {
  bool facts_document = image.input.size() >= 5 && image.input.compare(image.input.size() - 5, 5, ".json") == 0;
  return !facts_document && image.facts.is_object() && image.facts.contains("image") &&
                             StringField(image.facts["image"], "kind") == "dockerfile";
}

// The text of a Dockerfile input, as the scan read it.
Result<std::string> DockerfileText(const std::string& input, const ScanRequest& request) {
  if (auto text = request.dockerfile_texts.find(input); text != request.dockerfile_texts.end()) return text->second;
  return ReadBoundedFile(input, kMaxDockerfileBytes, "Dockerfile");
}

// The pools of `fleet` on which `image` (a report image) fails, and theirs
// compute capabilities (for architecture-list patches).
std::vector<std::string> FailingPools(const analysis::ImageReport& image, const Fleet& fleet) {
  std::vector<std::string> out;
  for (const Pool& pool : fleet.pools)
    if (plan::Fails(plan::OutcomeOf(image, pool.name))) out.push_back(pool.name);
  return out;
}

std::vector<std::string> CapabilitiesOf(const std::vector<std::string>& pools, const Fleet& fleet) {
  std::vector<std::string> out;
  for (const Pool& pool : fleet.pools)
    if (std::find(pools.begin(), pools.end(), pool.name) != pools.end() && pool.compute_capability &&
        std::find(out.begin(), out.end(), *pool.compute_capability) == out.end())
      out.push_back(*pool.compute_capability);
  return out;
}

// The pools of `fleet` that `other` does not hold unchanged (same name, every
// field equal). A pool's verdict is a function of the image and that pool
// alone, so a pool the change leaves as it was cannot change verdict: only
// the others need judging to tell what changes.
Fleet PoolsNotIn(const Fleet& fleet, const Fleet& other) {
  std::map<std::string, json> others;
  for (const Pool& pool : other.pools) others.emplace(pool.name, analysis::PoolToJson(pool));
  Fleet out;
  out.source = fleet.source;
  for (const Pool& pool : fleet.pools) {
    auto same = others.find(pool.name);
    if (same == others.end() || same->second != analysis::PoolToJson(pool)) out.pools.push_back(pool);
  }
  return out;
}

class Planner {
 public:
  Planner(const PlanRequest& request, const Context& context, Evaluator& evaluator, Fleet before, Fleet after)
      : request_(request), context_(context), evaluator_(evaluator), before_(std::move(before)), after_(std::move(after)) {
    for (const auto& fleet : {&before_, &after_})
      for (const Platform& platform : GroupPoolsByPlatform(*fleet).Platforms())
        if (std::find(platforms_.begin(), platforms_.end(), platform) == platforms_.end()) platforms_.push_back(platform);
    // The fix search reads every pool's verdict after the change; without
    // it, only the pools the change touches are judged.
    if (!request_.fixes) {
      changed_before_ = PoolsNotIn(before_, after_);
      changed_after_ = PoolsNotIn(after_, before_);
    }
  }

  Status PlanChunk(const std::vector<std::string>& inputs, std::vector<ImagePlan>& out) {
    std::vector<Result<ImageFacts>> read = evaluator_.ReadAll(inputs, platforms_);
    std::vector<const ImageFacts*> images;
    for (size_t i = 0; i < read.size(); ++i) {
      if (read[i].ok()) {
        images.push_back(&*read[i]);
      } else if (!request_.scan.keep_going) {
        return read[i].error();
      }
    }
    const Fleet& judged_before = request_.fixes ? before_ : changed_before_;
    const Fleet& judged_after = request_.fixes ? after_ : changed_after_;
    auto before = evaluator_.Evaluate(images, judged_before);
    if (!before.ok()) return before.error();
    auto after = evaluator_.Evaluate(images, judged_after);
    if (!after.ok()) return after.error();
    size_t next = 0;
    for (size_t i = 0; i < read.size(); ++i) {
      ImagePlan one;
      one.ref = inputs[i];
      if (!read[i].ok()) {
        one.error = read[i].error().ToString();
        out.push_back(std::move(one));
        continue;
      }
      const analysis::ImageReport& then = before->images[next];
      const analysis::ImageReport& now = after->images[next];
      ++next;
      one.digest = then.digest;
      if (!request_.changes.empty() || !request_.fleet_after.empty())
        one.changes = plan::CompareVerdicts(then, judged_before, now, judged_after);
      if (request_.minimum_driver) {
        auto minimum = plan::FindMinimumDrivers(*read[i], after_, evaluator_.knowledge(), Evaluate());
        if (!minimum.ok()) return minimum.error();
        one.minimum_drivers = std::move(*minimum);
      }
      if (request_.fixes) IMAGELINT_TRY(SearchFixes(*read[i], now, one));
      out.push_back(std::move(one));
    }
    return OkStatus();
  }

 private:
  plan::EvaluateImage Evaluate() const { return EvaluateWith(evaluator_); }
  static plan::EvaluateImage EvaluateWith(const Evaluator& evaluator) {
    return [&evaluator](const ImageFacts& image, const Fleet& fleet) -> Result<analysis::ImageReport> {
      auto report = evaluator.Evaluate({&image}, fleet);
      if (!report.ok()) return report.error();
      if (report->images.empty()) return MakeError(image.input, "the evaluation gave no image report");
      return std::move(report->images[0]);
    };
  }

  // A patched Dockerfile that changes FROM is resolved from the knowledge
  // tables only: a fix search must not pull a dozen images.
  Result<const Evaluator*> TablesOnlyEvaluator() {
    if (!tables_only_) {
      tables_only_request_ = request_.scan;
      tables_only_request_.read.base.from = "knowledge";
      auto made = Evaluator::Create(tables_only_request_, context_);
      if (!made.ok()) return made.error();
      tables_only_ = std::move(*made);
    }
    return tables_only_.get();
  }

  // The failing pools on which `patched` (a report image) runs, or nullopt
  // when it fails on a pool where the image did not.
  std::optional<std::vector<std::string>> PoolsFixed(const analysis::ImageReport& patched,
                                                     const std::vector<std::string>& failing) const {
    std::vector<std::string> fixed;
    for (const Pool& pool : after_.pools) {
      Outcome outcome = plan::OutcomeOf(patched, pool.name);
      bool was_failing = std::find(failing.begin(), failing.end(), pool.name) != failing.end();
      if (!was_failing && plan::Fails(outcome)) return std::nullopt;
      if (was_failing && plan::Runs(outcome)) fixed.push_back(pool.name);
    }
    return fixed;
  }

  // Dockerfile changes, smallest kind first: those that make every failing
  // pool run (one per kind, at most three); else the one that makes the most
  // of them run. Returns the failing pools no offered change covers.
  Result<std::vector<std::string>> SearchDockerfileFixes(const ImageFacts& image, ImagePlan& one) {
    auto text = DockerfileText(image.input, request_.scan);
    if (!text.ok()) return text.error();
    std::set<std::string> families_offered;
    std::optional<plan::Fix> best_partial;
    for (const plan::DockerfilePatch& patch :
         plan::DockerfilePatches(*text, CapabilitiesOf(one.failing_pools, after_), evaluator_.knowledge())) {
      if (families_offered.count(patch.family) || one.fixes.size() >= 3) continue;
      const Evaluator* evaluator = &evaluator_;
      if (patch.family == "base") {
        auto tables_only = TablesOnlyEvaluator();
        if (!tables_only.ok()) return tables_only.error();
        evaluator = *tables_only;
      }
      auto patched = evaluator->ReadDockerfileText(image.input, patch.text, platforms_);
      if (!patched.ok()) continue;  // a patch the analysis rejects is no fix
      auto report = EvaluateWith(*evaluator)(*patched, after_);
      if (!report.ok()) return report.error();
      auto fixed = PoolsFixed(*report, one.failing_pools);
      if (!fixed || fixed->empty()) continue;
      plan::Fix fix;
      fix.kind = "dockerfile";
      fix.description = patch.description;
      fix.diff = plan::UnifiedDiff(std::filesystem::path(image.input).filename().string(), *text, patch.text);
      fix.pools = *fixed;
      fix.assumes = patch.assumes;
      if (fixed->size() == one.failing_pools.size()) {
        families_offered.insert(patch.family);
        one.fixes.push_back(std::move(fix));
      } else if (!best_partial || fixed->size() > best_partial->pools.size()) {
        best_partial = std::move(fix);
      }
    }
    if (!one.fixes.empty()) return std::vector<std::string>();
    std::vector<std::string> unfixed;
    for (const std::string& pool : one.failing_pools)
      if (!best_partial || std::find(best_partial->pools.begin(), best_partial->pools.end(), pool) ==
                               best_partial->pools.end())
        unfixed.push_back(pool);
    if (best_partial) one.fixes.push_back(std::move(*best_partial));
    return unfixed;
  }

  Status SearchFixes(const ImageFacts& image, const analysis::ImageReport& now, ImagePlan& one) {
    one.failing_pools = FailingPools(now, after_);
    if (one.failing_pools.empty()) return OkStatus();
    std::vector<std::string> unfixed = one.failing_pools;
    if (IsDockerfileFacts(image)) {
      auto left = SearchDockerfileFixes(image, one);
      if (!left.ok()) return left.error();
      unfixed = std::move(*left);
      if (unfixed.empty()) return OkStatus();
    }
    auto fleet_fixes = plan::FindFleetFixes(image, after_, unfixed, evaluator_.knowledge(), Evaluate());
    if (!fleet_fixes.ok()) return fleet_fixes.error();
    std::set<std::string> covered;
    for (Fix& fix : *fleet_fixes) {
      covered.insert(fix.pools.begin(), fix.pools.end());
      one.fixes.push_back(std::move(fix));
    }
    std::string left;
    for (const std::string& pool : unfixed)
      if (!covered.count(pool)) left += (left.empty() ? "" : ", ") + pool;
    if (!left.empty())
      one.no_fix = "no single change tried makes it run on " + left +
                   (IsDockerfileFacts(image) ? " (Dockerfile changes, newer drivers and toolkits)"
                                             : " (newer drivers and toolkits)");
    return OkStatus();
  }

  const PlanRequest& request_;
  const Context& context_;
  Evaluator& evaluator_;
  Fleet before_, after_;
  Fleet changed_before_, changed_after_;  // the pools a change touches (PoolsNotIn)
  std::vector<Platform> platforms_;  // of the pools before and after the change, each once
  ScanRequest tables_only_request_;
  std::unique_ptr<Evaluator> tables_only_;
};

}  // namespace

Result<plan::PlanReport> Plan(const PlanRequest& request, const Context& context) {
  if (request.scan.fleet_file.empty()) return MakeError("plan", "give the fleet to plan on (--fleet FILE)");
  if (request.changes.empty() && request.fleet_after.empty() && !request.minimum_driver && !request.fixes)
    return MakeError("plan", "give a --change, --fleet-after FILE, --minimum-driver or --fixes");
  if (!request.changes.empty() && !request.fleet_after.empty())
    return MakeError("--fleet-after", "give either --change values or --fleet-after, not both");
  if (request.shard_count < 0 || request.shard_index < 0 || request.shard_index > request.shard_count ||
      (request.shard_count > 0 && request.shard_index == 0))
    return MakeError("--shard", "K/N with 1 <= K <= N");
  std::vector<plan::FleetChange> changes;
  for (const std::string& text : request.changes) {
    auto change = plan::ParseFleetChange(text);
    if (!change.ok()) return change.error();
    changes.push_back(std::move(*change));
  }
  IMAGELINT_TRY(CheckLocalInputs(request.scan));
  auto evaluator = Evaluator::Create(request.scan, context);
  if (!evaluator.ok()) return evaluator.error();
  auto before = (*evaluator)->LoadFleet(request.scan.fleet_file);
  if (!before.ok()) return before.error();
  Result<Fleet> after = request.fleet_after.empty() ? plan::ApplyFleetChanges(*before, changes, (*evaluator)->knowledge())
                                                     : (*evaluator)->LoadFleet(request.fleet_after);
  if (!after.ok()) return after.error();

  plan::PlanReport report;
  report.fleet_source = request.scan.fleet_file;
  report.changes = request.changes;
  if (!request.fleet_after.empty()) report.changes = {"fleet " + request.fleet_after};
  for (const Pool& pool : before->pools) report.pools_before.push_back(pool.name);
  for (const Pool& pool : after->pools) report.pools_after.push_back(pool.name);
  if (request.shard_count > 0)
    report.shard = std::to_string(request.shard_index) + "/" + std::to_string(request.shard_count);

  std::vector<std::string> inputs;
  for (size_t i = 0; i < request.scan.inputs.size(); ++i)
    if (request.shard_count == 0 || i % static_cast<size_t>(request.shard_count) == static_cast<size_t>(request.shard_index - 1))
      inputs.push_back(request.scan.inputs[i]);
  Planner planner(request, context, **evaluator, std::move(*before), std::move(*after));
  const size_t chunk = std::max<size_t>(request.chunk, 1);
  for (size_t start = 0; start < inputs.size(); start += chunk) {
    std::vector<std::string> part(inputs.begin() + static_cast<std::ptrdiff_t>(start),
                                  inputs.begin() + static_cast<std::ptrdiff_t>(std::min(inputs.size(), start + chunk)));
    IMAGELINT_TRY(planner.PlanChunk(part, report.images));
  }
  if (context.warn)
    if (std::string summary = (*evaluator)->ResolverSummary(); !summary.empty()) context.warn(summary);
  if (request.minimum_driver) report.floor = plan::EstateFloor(report.images);
  return report;
}

}  // namespace imagelint
