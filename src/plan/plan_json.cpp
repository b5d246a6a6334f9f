// imagelint.plan/v1: the one writer and the one reader of a plan (shards
// written on several CI runners merge through them), the estate floor and
// the counts every renderer and the exit code use.
#include <algorithm>
#include <map>

#include "common/version.h"
#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

using nlohmann::json;

json OutcomeJson(const Outcome& outcome) {
  if (outcome.status.empty()) return nullptr;
  json out = {{"status", outcome.status}};
  if (outcome.error_code != 0 || !outcome.error_name.empty())
    out["predicted_error"] = {{"code", outcome.error_code == 0 ? json(nullptr) : json(outcome.error_code)},
                              {"name", outcome.error_name}};
  if (!outcome.rule.empty()) out["rule"] = outcome.rule;
  if (!outcome.message.empty()) out["message"] = outcome.message;
  return out;
}

json MinimumJson(const MinimumDriver& minimum) {
  json out = {{"pool", minimum.pool}, {"gpu", minimum.gpu}};
  out["driver"] = minimum.driver.empty() ? json(nullptr) : json(minimum.driver);
  out["branch"] = minimum.branch == 0 ? json(nullptr) : json(minimum.branch);
  if (!minimum.below_driver.empty()) out["below"] = {{"driver", minimum.below_driver}, {"verdict", OutcomeJson(minimum.deciding)}};
  if (!minimum.failing_above.empty()) out["failing_above"] = minimum.failing_above;
  return out;
}

json FixJson(const Fix& fix) {
  json out = {{"kind", fix.kind}, {"description", fix.description}, {"pools", fix.pools}, {"assumes", fix.assumes}};
  if (!fix.diff.empty()) out["diff"] = fix.diff;
  if (!fix.fleet_changes.empty()) out["fleet_changes"] = fix.fleet_changes;
  return out;
}

// The reader: every field checked, with the document and field named.
class PlanReader {
 public:
  explicit PlanReader(std::string source) : source_(std::move(source)) {}

  Result<PlanReport> Read(const json& document) {
    if (!document.is_object() || document.value("schema", "") != kPlanSchema)
      return Bad(std::string("not an ") + kPlanSchema + " document");
    PlanReport out;
    IMAGELINT_TRY(Text(document, "fleet", out.fleet_source));
    IMAGELINT_TRY(Texts(document, "changes", out.changes));
    IMAGELINT_TRY(Texts(document, "pools_before", out.pools_before));
    IMAGELINT_TRY(Texts(document, "pools_after", out.pools_after));
    if (document.contains("shard")) IMAGELINT_TRY(Text(document, "shard", out.shard));
    for (const json& floor : document.value("floor", json::array())) {
      MinimumDriver one;
      IMAGELINT_TRY(Text(floor, "pool", one.pool));
      IMAGELINT_TRY(Text(floor, "gpu", one.gpu));
      IMAGELINT_TRY(Text(floor, "set_by", one.set_by));
      if (floor.contains("driver") && !floor["driver"].is_null()) IMAGELINT_TRY(Text(floor, "driver", one.driver));
      if (floor.contains("branch") && floor["branch"].is_number_integer()) one.branch = floor["branch"].get<int>();
      out.floor.push_back(std::move(one));
    }
    const json* images = Field(document, "images", json::value_t::array);
    if (images == nullptr) return Bad("'images' must be a list");
    for (const json& image : *images) {
      auto one = ReadImage(image);
      if (!one.ok()) return one.error();
      out.images.push_back(std::move(*one));
    }
    return out;
  }

 private:
  Error Bad(const std::string& why) const { return MakeError(source_, why); }

  const json* Field(const json& object, const char* key, json::value_t type) const {
    auto it = object.find(key);
    if (it == object.end() || it->type() != type) return nullptr;
    return &*it;
  }
  Status Text(const json& object, const char* key, std::string& out) const {
    const json* value = Field(object, key, json::value_t::string);
    if (value == nullptr) return Bad(std::string("'") + key + "' must be a string");
    out = value->get<std::string>();
    return OkStatus();
  }
  Status Texts(const json& object, const char* key, std::vector<std::string>& out) const {
    const json* list = Field(object, key, json::value_t::array);
    if (list == nullptr) return Bad(std::string("'") + key + "' must be a list of strings");
    for (const json& item : *list) {
      if (!item.is_string()) return Bad(std::string("'") + key + "' must be a list of strings");
      out.push_back(item.get<std::string>());
    }
    return OkStatus();
  }
  Result<Outcome> ReadOutcome(const json& value) const {
    Outcome out;
    if (value.is_null()) return out;
    if (!value.is_object()) return Bad("a verdict must be an object or null");
    IMAGELINT_TRY(Text(value, "status", out.status));
    if (value.contains("rule")) IMAGELINT_TRY(Text(value, "rule", out.rule));
    if (value.contains("message")) IMAGELINT_TRY(Text(value, "message", out.message));
    if (auto error = value.find("predicted_error"); error != value.end()) {
      if (!error->is_object() || !error->contains("code") ||
          !((*error)["code"].is_number_integer() || (*error)["code"].is_null()))
        return Bad("'predicted_error' must hold an integer code or null");
      out.error_code = (*error)["code"].is_null() ? 0 : (*error)["code"].get<int>();
      IMAGELINT_TRY(Text(*error, "name", out.error_name));
    }
    return out;
  }
  Result<ImagePlan> ReadImage(const json& image) const {
    if (!image.is_object()) return Bad("each image must be an object");
    ImagePlan out;
    IMAGELINT_TRY(Text(image, "ref", out.ref));
    if (image.contains("error")) {
      IMAGELINT_TRY(Text(image, "error", out.error));
      return out;
    }
    IMAGELINT_TRY(Text(image, "digest", out.digest));
    for (const json& change : image.value("changes", json::array())) {
      VerdictChange one;
      IMAGELINT_TRY(Text(change, "pool", one.pool));
      std::string kind;
      IMAGELINT_TRY(Text(change, "change", kind));
      bool known = false;
      for (ChangeKind candidate : {ChangeKind::kNewlyFailing, ChangeKind::kNewlyPassing, ChangeKind::kChangedError,
                                   ChangeKind::kChangedStatus, ChangeKind::kPoolAdded, ChangeKind::kPoolRemoved})
        if (kind == ChangeKindName(candidate)) one.kind = candidate, known = true;
      if (!known) return Bad("unknown change '" + kind + "'");
      auto before = ReadOutcome(change.value("before", json()));
      if (!before.ok()) return before.error();
      auto after = ReadOutcome(change.value("after", json()));
      if (!after.ok()) return after.error();
      one.before = *before;
      one.after = *after;
      out.changes.push_back(std::move(one));
    }
    for (const json& minimum : image.value("minimum_driver", json::array())) {
      MinimumDriver one;
      IMAGELINT_TRY(Text(minimum, "pool", one.pool));
      IMAGELINT_TRY(Text(minimum, "gpu", one.gpu));
      if (minimum.contains("driver") && !minimum["driver"].is_null()) IMAGELINT_TRY(Text(minimum, "driver", one.driver));
      if (minimum.contains("branch") && minimum["branch"].is_number_integer()) one.branch = minimum["branch"].get<int>();
      if (auto below = minimum.find("below"); below != minimum.end() && below->is_object()) {
        IMAGELINT_TRY(Text(*below, "driver", one.below_driver));
        auto verdict = ReadOutcome(below->value("verdict", json()));
        if (!verdict.ok()) return verdict.error();
        one.deciding = *verdict;
      }
      if (minimum.contains("failing_above")) IMAGELINT_TRY(Texts(minimum, "failing_above", one.failing_above));
      out.minimum_drivers.push_back(std::move(one));
    }
    for (const json& fix : image.value("fixes", json::array())) {
      Fix one;
      IMAGELINT_TRY(Text(fix, "kind", one.kind));
      IMAGELINT_TRY(Text(fix, "description", one.description));
      IMAGELINT_TRY(Texts(fix, "pools", one.pools));
      IMAGELINT_TRY(Texts(fix, "assumes", one.assumes));
      if (fix.contains("diff")) IMAGELINT_TRY(Text(fix, "diff", one.diff));
      if (fix.contains("fleet_changes")) IMAGELINT_TRY(Texts(fix, "fleet_changes", one.fleet_changes));
      out.fixes.push_back(std::move(one));
    }
    if (image.contains("failing_pools")) IMAGELINT_TRY(Texts(image, "failing_pools", out.failing_pools));
    if (image.contains("no_fix")) IMAGELINT_TRY(Text(image, "no_fix", out.no_fix));
    return out;
  }

  std::string source_;
};

}  // namespace

PlanCounts CountPlan(const PlanReport& report) {
  PlanCounts counts;
  for (const ImagePlan& image : report.images) {
    ++counts.images;
    if (!image.error.empty()) ++counts.unreadable;
    counts.fixes += image.fixes.size();
    for (const VerdictChange& change : image.changes) {
      switch (change.kind) {
        case ChangeKind::kNewlyFailing: ++counts.newly_failing; break;
        case ChangeKind::kNewlyPassing: ++counts.newly_passing; break;
        case ChangeKind::kChangedError: ++counts.changed_error; break;
        case ChangeKind::kChangedStatus: ++counts.changed_status; break;
        case ChangeKind::kPoolAdded: ++counts.pools_added; break;
        case ChangeKind::kPoolRemoved: ++counts.pools_removed; break;
      }
    }
  }
  return counts;
}

std::vector<MinimumDriver> EstateFloor(const std::vector<ImagePlan>& images) {
  std::vector<MinimumDriver> out;
  for (const ImagePlan& image : images) {
    for (const MinimumDriver& minimum : image.minimum_drivers) {
      auto found = std::find_if(out.begin(), out.end(), [&](const MinimumDriver& m) { return m.pool == minimum.pool; });
      if (found == out.end()) {
        out.push_back(minimum);
        out.back().below_driver.clear();
        out.back().failing_above.clear();
        out.back().deciding = {};
        out.back().set_by = image.ref;
        continue;
      }
      if (found->driver.empty()) continue;  // an image runs on no candidate: the pool has no floor
      if (minimum.driver.empty() || CompareVersions(minimum.driver, found->driver).value_or(0) > 0) {
        found->driver = minimum.driver;
        found->branch = minimum.branch;
        found->set_by = image.ref;
      }
    }
  }
  return out;
}

json WritePlanJson(const PlanReport& report) {
  json out = {{"schema", kPlanSchema},
              {"fleet", report.fleet_source},
              {"changes", report.changes},
              {"pools_before", report.pools_before},
              {"pools_after", report.pools_after}};
  if (!report.shard.empty()) out["shard"] = report.shard;
  json images = json::array();
  for (const ImagePlan& image : report.images) {
    json one = {{"ref", image.ref}};
    if (!image.error.empty()) {
      one["error"] = image.error;
      images.push_back(std::move(one));
      continue;
    }
    one["digest"] = image.digest;
    json changes = json::array();
    for (const VerdictChange& change : image.changes)
      changes.push_back({{"pool", change.pool},
                         {"change", ChangeKindName(change.kind)},
                         {"before", OutcomeJson(change.before)},
                         {"after", OutcomeJson(change.after)}});
    one["changes"] = std::move(changes);
    if (!image.minimum_drivers.empty()) {
      one["minimum_driver"] = json::array();
      for (const MinimumDriver& minimum : image.minimum_drivers) one["minimum_driver"].push_back(MinimumJson(minimum));
    }
    if (!image.failing_pools.empty()) one["failing_pools"] = image.failing_pools;
    if (!image.fixes.empty()) {
      one["fixes"] = json::array();
      for (const Fix& fix : image.fixes) one["fixes"].push_back(FixJson(fix));
    }
    if (!image.no_fix.empty()) one["no_fix"] = image.no_fix;
    images.push_back(std::move(one));
  }
  out["images"] = std::move(images);
  if (!report.floor.empty()) {
    out["floor"] = json::array();
    for (const MinimumDriver& floor : report.floor)
      out["floor"].push_back({{"pool", floor.pool},
                              {"gpu", floor.gpu},
                              {"driver", floor.driver.empty() ? json(nullptr) : json(floor.driver)},
                              {"branch", floor.branch == 0 ? json(nullptr) : json(floor.branch)},
                              {"set_by", floor.set_by}});
  }
  PlanCounts counts = CountPlan(report);
  out["summary"] = {{"images", counts.images},
                    {"unreadable", counts.unreadable},
                    {"newly_failing", counts.newly_failing},
                    {"newly_passing", counts.newly_passing},
                    {"changed_error", counts.changed_error},
                    {"changed_status", counts.changed_status},
                    {"pools_added", counts.pools_added},
                    {"pools_removed", counts.pools_removed},
                    {"fixes", counts.fixes}};
  return out;
}

Result<PlanReport> ReadPlanJson(const json& document, const std::string& source) {
  return PlanReader(source).Read(document);
}

Result<PlanReport> MergePlans(const std::vector<PlanReport>& shards) {
  if (shards.empty()) return MakeError("plan merge", "no plan to merge");
  PlanReport out = shards.front();
  out.images.clear();
  out.shard.clear();
  for (const PlanReport& shard : shards) {
    if (shard.fleet_source != out.fleet_source || shard.changes != out.changes ||
        shard.pools_after != out.pools_after)
      return MakeError("plan merge", "the plans were made for different fleets or changes");
    out.images.insert(out.images.end(), shard.images.begin(), shard.images.end());
  }
  bool minimum = std::any_of(out.images.begin(), out.images.end(),
                             [](const ImagePlan& image) { return !image.minimum_drivers.empty(); });
  if (minimum) out.floor = EstateFloor(out.images);
  return out;
}

}  // namespace imagelint::plan
