// imagelint.plan/v1: the one writer and the one reader of a plan (shards
// written on several CI runners merge through them), the estate floor and
// the counts every renderer and the exit code use.
#include <algorithm>
#include <map>

#include "common/json.h"
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
  if (!minimum.driver.empty()) out["verdict"] = OutcomeJson(minimum.at);
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

// The reader: every field checked through JsonFields, errors naming the
// document and the field ("plan.json: images[2].changes[0].pool ...").
class PlanReader {
 public:
  explicit PlanReader(std::string source) : source_(std::move(source)) {}

  Result<PlanReport> Read(const json& document) const {
    if (!document.is_object() || StringField(document, "schema") != kPlanSchema)
      return MakeError(source_, std::string("not an ") + kPlanSchema + " document");
    JsonFields top(document, source_);
    PlanReport out;
    IMAGELINT_TRY(Required(top, "fleet", out.fleet_source));
    IMAGELINT_TRY(Strings(top, "changes", out.changes));
    IMAGELINT_TRY(Strings(top, "pools_before", out.pools_before));
    IMAGELINT_TRY(Strings(top, "pools_after", out.pools_after));
    IMAGELINT_TRY(Optional(top, "shard", out.shard));
    IMAGELINT_TRY(Append(top, "floor", out.floor, [](const JsonFields& floor, MinimumDriver& one) -> Status {
      IMAGELINT_TRY(ReadDriver(floor, one));
      return Required(floor, "set_by", one.set_by);
    }));
    auto images = top.Array("images");
    if (!images.ok()) return images.error();
    if (*images == nullptr) return top.FieldError("images", "is missing");
    IMAGELINT_TRY(Append(top, "images", out.images, ReadImage));
    return out;
  }

 private:
  static Status Required(const JsonFields& fields, const char* key, std::string& out) {
    auto value = fields.RequiredString(key);
    if (!value.ok()) return value.error();
    out = std::move(*value);
    return OkStatus();
  }
  static Status Optional(const JsonFields& fields, const char* key, std::string& out) {
    auto value = fields.String(key);
    if (!value.ok()) return value.error();
    out = value->value_or("");
    return OkStatus();
  }
  static Status Strings(const JsonFields& fields, const char* key, std::vector<std::string>& out) {
    auto values = StringArray(fields.Find(key), fields.subject(), fields.Name(key));
    if (!values.ok()) return values.error();
    out = std::move(*values);
    return OkStatus();
  }
  // Each object of the list `key` (absent = none), as fields named key[i].
  template <typename Visit>
  static Status Each(const JsonFields& fields, const char* key, Visit visit) {
    auto list = fields.Array(key);
    if (!list.ok()) return list.error();
    if (*list == nullptr) return OkStatus();
    for (size_t i = 0; i < (*list)->size(); ++i) {
      const json& item = (**list)[i];
      std::string where = fields.Name(key) + "[" + std::to_string(i) + "]";
      if (!item.is_object()) return MakeError(fields.subject(), where + " must be an object");
      IMAGELINT_TRY(visit(JsonFields(item, fields.subject(), where)));
    }
    return OkStatus();
  }
  // Each object of the list `key` read by `read` into one more item of `out`.
  template <typename T, typename ReadOne>
  static Status Append(const JsonFields& fields, const char* key, std::vector<T>& out, ReadOne read) {
    return Each(fields, key, [&](const JsonFields& item) -> Status {
      T one;
      IMAGELINT_TRY(read(item, one));
      out.push_back(std::move(one));
      return OkStatus();
    });
  }

  static Result<Outcome> ReadOutcome(const JsonFields& fields, const char* key) {
    Outcome out;
    auto object = fields.Object(key);
    if (!object.ok()) return object.error();
    if (*object == nullptr) return out;  // null: no such pool on that side
    JsonFields verdict(**object, fields.subject(), fields.Name(key));
    IMAGELINT_TRY(Required(verdict, "status", out.status));
    IMAGELINT_TRY(Optional(verdict, "rule", out.rule));
    IMAGELINT_TRY(Optional(verdict, "message", out.message));
    auto error = verdict.Object("predicted_error");
    if (!error.ok()) return error.error();
    if (*error != nullptr) {
      JsonFields predicted(**error, fields.subject(), verdict.Name("predicted_error"));
      auto code = predicted.Integer("code");  // null: a refusal before CUDA runs
      if (!code.ok()) return code.error();
      if (*code && (**code < 0 || **code > 1'000'000)) return predicted.FieldError("code", "is not a CUDA error code");
      out.error_code = static_cast<int>(code->value_or(0));
      IMAGELINT_TRY(Required(predicted, "name", out.error_name));
    }
    return out;
  }

  static Status ReadDriver(const JsonFields& fields, MinimumDriver& out) {
    IMAGELINT_TRY(Required(fields, "pool", out.pool));
    IMAGELINT_TRY(Required(fields, "gpu", out.gpu));
    IMAGELINT_TRY(Optional(fields, "driver", out.driver));
    auto branch = fields.Integer("branch");
    if (!branch.ok()) return branch.error();
    if (*branch && (**branch < 0 || **branch > 100'000)) return fields.FieldError("branch", "is not a driver branch");
    out.branch = static_cast<int>(branch->value_or(0));
    return OkStatus();
  }

  static Status ReadImage(const JsonFields& image, ImagePlan& out) {
    IMAGELINT_TRY(Required(image, "ref", out.ref));
    IMAGELINT_TRY(Optional(image, "error", out.error));
    if (!out.error.empty()) return OkStatus();
    IMAGELINT_TRY(Required(image, "digest", out.digest));
    IMAGELINT_TRY(Append(image, "changes", out.changes, [](const JsonFields& change, VerdictChange& one) -> Status {
      IMAGELINT_TRY(Required(change, "pool", one.pool));
      std::string kind;
      IMAGELINT_TRY(Required(change, "change", kind));
      auto known = ChangeKindFromName(kind);
      if (!known) return change.FieldError("change", "is not a plan change ('" + kind + "')");
      one.kind = *known;
      auto before = ReadOutcome(change, "before");
      if (!before.ok()) return before.error();
      auto after = ReadOutcome(change, "after");
      if (!after.ok()) return after.error();
      one.before = std::move(*before);
      one.after = std::move(*after);
      return OkStatus();
    }));
    auto read_minimum = [](const JsonFields& minimum, MinimumDriver& one) -> Status {
      IMAGELINT_TRY(ReadDriver(minimum, one));
      IMAGELINT_TRY(Strings(minimum, "failing_above", one.failing_above));
      auto at = ReadOutcome(minimum, "verdict");
      if (!at.ok()) return at.error();
      one.at = std::move(*at);
      auto below = minimum.Object("below");
      if (!below.ok()) return below.error();
      if (*below != nullptr) {
        JsonFields under(**below, minimum.subject(), minimum.Name("below"));
        IMAGELINT_TRY(Required(under, "driver", one.below_driver));
        auto verdict = ReadOutcome(under, "verdict");
        if (!verdict.ok()) return verdict.error();
        one.deciding = std::move(*verdict);
      }
      return OkStatus();
    };
    IMAGELINT_TRY(Append(image, "minimum_driver", out.minimum_drivers, read_minimum));
    IMAGELINT_TRY(Append(image, "fixes", out.fixes, [](const JsonFields& fix, Fix& one) -> Status {
      IMAGELINT_TRY(Required(fix, "kind", one.kind));
      IMAGELINT_TRY(Required(fix, "description", one.description));
      IMAGELINT_TRY(Strings(fix, "pools", one.pools));
      IMAGELINT_TRY(Strings(fix, "assumes", one.assumes));
      IMAGELINT_TRY(Optional(fix, "diff", one.diff));
      return Strings(fix, "fleet_changes", one.fleet_changes);
    }));
    IMAGELINT_TRY(Strings(image, "failing_pools", out.failing_pools));
    return Optional(image, "no_fix", out.no_fix);
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
        out.back().at = {};
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
