// Drivers as plan varies them: the candidate point releases the knowledge
// tables name, the oldest one each image runs on, and driver or toolkit
// upgrades that make a failing pool pass. Every answer is an evaluation of
// the rules on a copy of the pool with that driver, never an inference.
#include <algorithm>
#include <map>
#include <set>

#include "common/text.h"
#include "common/version.h"
#include "imagelint/knowledge.h"
#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

using nlohmann::json;

bool OlderDriver(const std::string& a, const std::string& b) { return CompareVersions(a, b).value_or(0) < 0; }

// Where the tables name Linux driver point releases.
struct DriverColumn {
  const char* table;
  const char* field;
};
constexpr DriverColumn kDriverColumns[] = {
    {"toolkits", "toolkit_driver"},    {"toolkits", "runfile_driver"},      {"minor_version", "floor_driver"},
    {"compat_libraries", "libcuda"},   {"cuda_images", "compat_libcuda"},
};

// A copy of `pool` under another name with `driver` (observations dropped:
// they were made on the pool's own hosts).
Pool Variant(const Pool& pool, const std::string& name, const std::string& driver) {
  Pool out = pool;
  out.name = name;
  out.driver = driver;
  out.observed.clear();
  return out;
}

// Unique within the variant fleet, and readable where a rule message names the pool.
std::string VariantName(const Pool& pool, const std::string& what) { return pool.name + " (driver " + what + ")"; }

}  // namespace

int BranchOf(const std::string& driver) {
  size_t dot = driver.find('.');
  std::string head = driver.substr(0, dot);
  if (head.empty() || head.size() > 4 || !std::all_of(head.begin(), head.end(), IsAsciiDigit)) return 0;
  return std::stoi(head);
}

std::vector<DriverCandidate> DriverCandidates(const Knowledge& knowledge) {
  std::set<int> branches;
  for (const json& row : knowledge.Table("driver_branches"))
    if (row.contains("branch") && row["branch"].is_number_integer()) branches.insert(row["branch"].get<int>());
  std::set<std::string> versions;
  for (const DriverColumn& column : kDriverColumns)
    for (const json& row : knowledge.Table(column.table))
      if (auto value = row.find(column.field); value != row.end() && value->is_string() && IsDottedVersion(value->get<std::string>()))
        versions.insert(value->get<std::string>());
  std::vector<DriverCandidate> out;
  for (const std::string& version : versions)
    if (branches.count(BranchOf(version))) out.push_back({version, BranchOf(version)});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return OlderDriver(a.version, b.version); });
  return out;
}

int FirstBranchFor(const Pool& pool, const Knowledge& knowledge) {
  if (!pool.compute_capability) return 0;
  const json* architecture = knowledge.FindArchitecture(*pool.compute_capability);
  if (architecture == nullptr || !architecture->contains("first_toolkit")) return 0;
  std::string first = (*architecture)["first_toolkit"].get<std::string>();
  // The first release of that toolkit version: "11.8" -> the 11.8.0 row.
  for (const json& row : knowledge.Table("toolkits")) {
    std::string version = row.value("version", "");
    if (version == first || version.rfind(first + ".", 0) == 0)
      if (auto driver = row.find("toolkit_driver"); driver != row.end() && driver->is_string())
        return BranchOf(driver->get<std::string>());
  }
  return 0;
}

Result<std::vector<MinimumDriver>> FindMinimumDrivers(const ImageFacts& image, const Fleet& fleet,
                                                      const Knowledge& knowledge, const EvaluateImage& evaluate) {
  const std::vector<DriverCandidate> all = DriverCandidates(knowledge);
  Fleet variants;
  variants.source = fleet.source;
  std::map<std::string, std::vector<std::string>> tried;  // pool -> drivers, oldest first
  for (const Pool& pool : fleet.pools) {
    int first_branch = FirstBranchFor(pool, knowledge);
    std::vector<std::string>& drivers = tried[pool.name];
    for (const DriverCandidate& candidate : all)
      if (candidate.branch >= first_branch) drivers.push_back(candidate.version);
    if (std::find(drivers.begin(), drivers.end(), pool.driver) == drivers.end()) drivers.push_back(pool.driver);
    std::sort(drivers.begin(), drivers.end(), OlderDriver);
    for (const std::string& driver : drivers) variants.pools.push_back(Variant(pool, VariantName(pool, driver), driver));
  }
  auto report = evaluate(image, variants);
  if (!report.ok()) return report.error();
  std::vector<MinimumDriver> out;
  for (const Pool& pool : fleet.pools) {
    MinimumDriver minimum;
    minimum.pool = pool.name;
    minimum.gpu = !pool.gpu.empty() ? pool.gpu : "compute capability " + pool.compute_capability.value_or("?");
    const std::vector<std::string>& drivers = tried[pool.name];
    std::vector<Outcome> outcomes;
    for (const std::string& driver : drivers) outcomes.push_back(OutcomeOf(*report, VariantName(pool, driver)));
    for (size_t i = 0; i < drivers.size(); ++i) {
      if (Fails(outcomes[i])) continue;
      minimum.driver = drivers[i];
      minimum.branch = BranchOf(drivers[i]);
      minimum.at = outcomes[i];
      if (i > 0) {
        minimum.below_driver = drivers[i - 1];
        minimum.deciding = outcomes[i - 1];
      }
      for (size_t j = i + 1; j < drivers.size(); ++j)
        if (Fails(outcomes[j])) minimum.failing_above.push_back(drivers[j]);
      break;
    }
    if (minimum.driver.empty() && !drivers.empty()) {  // an error everywhere: say which on the newest
      minimum.below_driver = drivers.back();
      minimum.deciding = outcomes.back();
    }
    out.push_back(std::move(minimum));
  }
  return out;
}

Result<std::vector<Fix>> FindFleetFixes(const ImageFacts& image, const Fleet& fleet,
                                        const std::vector<std::string>& failing, const Knowledge& knowledge,
                                        const EvaluateImage& evaluate) {
  const std::string newest_toolkit = knowledge.NewestContainerToolkit();
  const std::vector<DriverCandidate> all = DriverCandidates(knowledge);
  // Per failing pool, in order of size: the newest toolkit alone, each newer
  // driver (oldest first) alone, then each newer driver with the newest toolkit.
  struct Try {
    std::string pool;
    std::string variant;
    std::vector<std::string> changes;  // field=value
  };
  std::vector<Try> tries;
  Fleet variants;
  variants.source = fleet.source;
  for (const std::string& name : failing) {
    auto found = std::find_if(fleet.pools.begin(), fleet.pools.end(), [&](const Pool& p) { return p.name == name; });
    if (found == fleet.pools.end()) continue;
    const Pool& pool = *found;
    auto add = [&](const std::string& driver, bool toolkit) {
      Pool variant = Variant(pool, VariantName(pool, driver + (toolkit ? ", toolkit " + newest_toolkit : "")), driver);
      std::vector<std::string> changes;
      if (driver != pool.driver) changes.push_back("driver=" + driver);
      if (toolkit) {
        variant.container_toolkit = newest_toolkit;
        changes.push_back("container_toolkit=" + newest_toolkit);
      }
      tries.push_back({pool.name, variant.name, changes});
      variants.pools.push_back(std::move(variant));
    };
    bool toolkit_behind = pool.container_toolkit && CompareVersions(*pool.container_toolkit, newest_toolkit).value_or(0) < 0;
    if (toolkit_behind) add(pool.driver, true);
    for (const DriverCandidate& candidate : all)
      if (OlderDriver(pool.driver, candidate.version)) add(candidate.version, false);
    if (toolkit_behind)
      for (const DriverCandidate& candidate : all)
        if (OlderDriver(pool.driver, candidate.version)) add(candidate.version, true);
  }
  std::vector<Fix> out;
  if (tries.empty()) return out;
  auto report = evaluate(image, variants);
  if (!report.ok()) return report.error();
  std::set<std::string> fixed;
  for (const Try& one : tries) {
    if (fixed.count(one.pool) || !Runs(OutcomeOf(*report, one.variant))) continue;
    fixed.insert(one.pool);
    Fix fix;
    fix.kind = "fleet";
    std::string joined;
    for (const std::string& change : one.changes) joined += (joined.empty() ? "" : ", ") + change;
    fix.fleet_changes.push_back(one.pool + ": " + joined);
    fix.description = "on " + one.pool + ": " + joined;
    fix.pools = {one.pool};
    fix.assumes = {"the pool's GPU, runtime and compat mode stay as the fleet file says"};
    out.push_back(std::move(fix));
  }
  return out;
}

}  // namespace imagelint::plan
