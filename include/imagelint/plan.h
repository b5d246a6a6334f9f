// `imagelint plan`: what a fleet change does to the images that run on it,
// the oldest driver each image needs, and fixes proven by the rule engine
// (docs/plan.md). Facts are read once (through the layer caches) and judged
// on every fleet variant by the same rules a scan runs.
//
//   imagelint::PlanRequest request;
//   request.scan.inputs = {"app.tar"};
//   request.scan.fleet_file = "fleet.yaml";
//   request.changes = {"a100-535: driver=580.95.05, container_toolkit=1.18.1"};
//   request.minimum_driver = true;
//   auto plan = imagelint::Plan(request, context);   // a typed PlanReport
//   std::string json = imagelint::plan::WritePlanJson(*plan).dump(2);
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/pipeline.h"
#include "imagelint/result.h"

namespace imagelint {

class Knowledge;

namespace plan {

// One `--change` value: "POOL: field=value, field=value" sets fields of an
// existing pool, or defines a new pool (it then needs `driver` and `gpu` or
// `compute_capability`); "POOL: remove" retires a pool; "*: field=value"
// sets fields of every pool. Fields are the fleet file's pool fields.
struct FleetChange {
  std::string text;  // as given, for messages and reports
  std::string pool;  // "*" = every pool
  bool remove = false;
  std::vector<std::pair<std::string, std::string>> fields;  // in the order given
};
Result<FleetChange> ParseFleetChange(const std::string& text);
// The fleet after the changes, applied in order; every value is checked as
// the fleet loader checks it (errors name the --change), and a changed GPU
// brings its own compute capability, brand and architecture.
Result<Fleet> ApplyFleetChanges(const Fleet& fleet, const std::vector<FleetChange>& changes,
                                const Knowledge& knowledge);

// A verdict as plan compares it.
struct Outcome {
  std::string status;  // pass | warn | fail | undecided; "" = no such pool
  int error_code = 0;  // the predicted CUDA error of a failing verdict (0 = none)
  std::string error_name;  // its name; a refusal to start has a name and no code
  std::string rule;     // the finding that predicts it
  std::string message;  // that finding's message
  bool operator==(const Outcome& other) const {
    return status == other.status && error_code == other.error_code && rule == other.rule;
  }
};

enum class ChangeKind { kNewlyFailing, kNewlyPassing, kChangedError, kChangedStatus, kPoolAdded, kPoolRemoved };
const char* ChangeKindName(ChangeKind kind);  // "newly-failing", ...
std::optional<ChangeKind> ChangeKindFromName(std::string_view name);

struct VerdictChange {
  std::string pool;
  ChangeKind kind = ChangeKind::kChangedStatus;
  Outcome before;
  Outcome after;
};

// The oldest driver on which no error is predicted for an image on a pool's
// hosts (its GPU, toolkit and runtime): `at` is the verdict there (pass,
// warn, or undecided when a rule cannot tell), `deciding` the verdict on the
// candidate just below.
struct MinimumDriver {
  std::string pool;
  std::string gpu;
  std::string driver;  // "" = an error is predicted on every candidate
  int branch = 0;
  Outcome at;
  std::string below_driver;  // the next older candidate ("" = the minimum is the oldest tried)
  Outcome deciding;          // the verdict there
  std::vector<std::string> failing_above;  // newer candidates that still fail (not monotonic)
  std::string set_by;                      // in an estate floor: the image that needs it
};

// A change that makes an image pass on every pool it failed on, proven by
// re-evaluating the rules on the patched input.
struct Fix {
  std::string kind;         // dockerfile | fleet
  std::string description;  // "FROM nvidia/cuda:12.2.2-runtime-ubuntu22.04 instead of ..."
  std::string diff;         // a unified diff of the Dockerfile (kind dockerfile)
  std::vector<std::string> fleet_changes;  // --change values (kind fleet)
  std::vector<std::string> pools;          // the pools it makes pass
  std::vector<std::string> assumes;        // facts the proof rested on
};

struct ImagePlan {
  std::string ref;
  std::string digest;
  std::string error;  // the input could not be read (then nothing else)
  std::vector<VerdictChange> changes;
  std::vector<MinimumDriver> minimum_drivers;
  std::vector<Fix> fixes;
  std::vector<std::string> failing_pools;  // after the change, failing (what fixes were searched for)
  std::string no_fix;                      // why no fix was found, when one was searched for
};

struct PlanReport {
  std::string fleet_source;
  std::vector<std::string> changes;  // the --change values, or "fleet FILE"
  std::vector<std::string> pools_before;
  std::vector<std::string> pools_after;
  std::vector<ImagePlan> images;
  // Over the estate: per pool, the newest of the images' minimum drivers.
  std::vector<MinimumDriver> floor;
  std::string shard;  // "K/N" when this plan covers one shard of the inputs
};

// Counts over a report's images (for the summary and the exit code).
struct PlanCounts {
  size_t images = 0, unreadable = 0, newly_failing = 0, newly_passing = 0, changed_error = 0, changed_status = 0,
         pools_added = 0, pools_removed = 0, fixes = 0;
};
PlanCounts CountPlan(const PlanReport& report);

// imagelint.plan/v1: the one writer and reader (shards merge through them).
inline constexpr const char* kPlanSchema = "imagelint.plan/v1";
nlohmann::json WritePlanJson(const PlanReport& report);
Result<PlanReport> ReadPlanJson(const nlohmann::json& document, const std::string& source);
// Shards of one plan (same fleet and changes) as one report, images in shard
// order; the floor recomputed over all images.
Result<PlanReport> MergePlans(const std::vector<PlanReport>& shards);
// The estate floor: per pool, the newest minimum driver over `images`.
std::vector<MinimumDriver> EstateFloor(const std::vector<ImagePlan>& images);

}  // namespace plan

struct PlanRequest {
  ScanRequest scan;                  // inputs, fleet, rules, read options, Dockerfile options
  std::vector<std::string> changes;  // --change values
  std::string fleet_after;           // --fleet-after FILE: the whole changed fleet instead
  bool minimum_driver = false;       // --minimum-driver
  bool fixes = false;                // --fixes
  int shard_index = 0, shard_count = 0;  // --shard K/N (1-based K; 0 = no sharding)
  size_t chunk = 64;                 // images held in memory at once
};

// Errors (exit 2): an input, fleet, rule file or change that cannot be used.
// An input that cannot be read is an entry with `error` when
// request.scan.keep_going is set.
Result<plan::PlanReport> Plan(const PlanRequest& request, const Context& context);

}  // namespace imagelint
