// --baseline: what changed since an earlier report of the same images and
// fleet. A finding is compared per pool, by what it is about (rule, image,
// logical location), never by its wording, so that a new pool or driver in
// the fleet (--fleet new.yaml) shows as new findings on that pool, and a
// rebuilt image (a new tag or digest) still matches its earlier report.
#include <map>
#include <set>

#include "common/json.h"
#include "imagelint/analysis.h"

namespace imagelint::analysis {

using nlohmann::json;

namespace {
// "reg.example/app:1@sha256:..." -> "reg.example/app"; "./app.tar" -> "app.tar".
std::string ImageName(std::string name) {
  while (name.rfind("./", 0) == 0) name = name.substr(2);
  if (size_t at = name.find('@'); at != std::string::npos) name.resize(at);
  size_t colon = name.rfind(':');
  size_t slash = name.rfind('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) name.resize(colon);
  return name;
}

// The finding without pools: rule and logical location, as report
// fingerprints take them.
std::string FindingKey(const Finding& finding) {
  std::string key = finding.rule + "\n";
  const std::vector<std::string> where = LogicalLocation(finding);
  for (const auto& part : where) key += part + "\n";
  if (where.empty()) key += "scope:" + (finding.scope ? std::string(ScopeName(*finding.scope)) : std::string()) + "\n";
  return key;
}

std::vector<std::string> Pools(const Finding& finding) {
  if (finding.pools.empty()) return {""};  // an image without pools: the image checks
  return finding.pools;
}

// finding key -> pools it held in the baseline image.
using Seen = std::map<std::string, std::set<std::string>>;

Seen SeenIn(const ImageReport& image) {
  Seen seen;
  for (const Finding& finding : image.findings)
    for (const auto& pool : Pools(finding)) seen[FindingKey(finding)].insert(pool);
  return seen;
}

// The baseline's image for `ref`: the same ref, else the only one of the same name.
const ImageReport* MatchImage(const Report& baseline, const std::string& ref) {
  const ImageReport* by_name = nullptr;
  int named = 0;
  for (const ImageReport& image : baseline.images) {
    if (image.ref == ref) return &image;
    if (ImageName(image.ref) == ImageName(ref)) {
      by_name = &image;
      ++named;
    }
  }
  return named == 1 ? by_name : nullptr;
}

}  // namespace

std::vector<std::string> LogicalLocation(const Finding& finding) {
  std::set<std::string> where;
  for (const Evidence& item : finding.evidence) {
    if (item.path && !item.path->empty()) {
      where.insert("path:" + *item.path);
      continue;
    }
    // "ENV NVIDIA_REQUIRE_CUDA=cuda>=12.4 ...": the variable, not its value.
    const std::string detail = item.detail.value_or("");
    const size_t equals = detail.find('=');
    if (!detail.empty() && equals != std::string::npos) where.insert("detail:" + detail.substr(0, equals));
  }
  if (finding.missing)
    for (const MissingFact& item : *finding.missing) where.insert("missing:" + item.fact);
  return {where.begin(), where.end()};
}

Result<Report> ReadBaseline(const json& baseline, const std::string& name) {
  if (!baseline.is_object() || StringField(baseline, "schema") != kReportSchema)
    return MakeError(name, "not an imagelint.report/v1 JSON report (write one with --format json)");
  return ReadReport(baseline, name);
}

void ApplyBaseline(Report& report, const Report& baseline, const std::string& name) {
  int64_t added = 0, unchanged = 0, fixed = 0, unmatched = 0;
  for (ImageReport& image : report.images) {
    if (image.status == Outcome::kError) continue;  // nothing to compare
    const ImageReport* before = MatchImage(baseline, image.ref);
    if (!before) ++unmatched;
    Seen seen = before ? SeenIn(*before) : Seen();
    Seen now;
    for (Finding& finding : image.findings) {
      const std::string key = FindingKey(finding);
      std::vector<std::string> new_pools;
      for (const auto& pool : Pools(finding)) {
        now[key].insert(pool);
        auto it = seen.find(key);
        if (it == seen.end() || !it->second.count(pool)) new_pools.push_back(pool);
      }
      const bool is_new = !new_pools.empty();
      finding.baseline_state = is_new ? "new" : "unchanged";
      if (is_new && new_pools.size() < finding.pools.size()) finding.new_pools = new_pools;
      (is_new ? added : unchanged)++;
    }
    // Fixed: a baseline finding, on the pools where it is gone now.
    std::vector<Finding> gone;
    if (before) {
      for (const Finding& finding : before->findings) {
        const std::string key = FindingKey(finding);
        std::vector<std::string> pools;
        for (const auto& pool : Pools(finding)) {
          auto it = now.find(key);
          if (it == now.end() || !it->second.count(pool)) pools.push_back(pool);
        }
        if (pools.empty()) continue;
        Finding was = finding;
        was.baseline_state = "absent";
        if (!(pools.size() == 1 && pools[0].empty())) was.pools = pools;
        gone.push_back(std::move(was));
        ++fixed;
      }
    }
    image.fixed = std::move(gone);
  }
  Summary& summary = report.summary ? *report.summary : report.summary.emplace();
  summary.baseline = BaselineSummary{name, added, unchanged, fixed, unmatched};
}

bool NewFindingsFailGate(const Report& report, const GateOptions& gate) {
  for (const ImageReport& image : report.images) {
    for (const Finding& finding : image.findings) {
      if (finding.baseline_state == "new" && FailsGate(finding, gate)) return true;
    }
  }
  return false;
}

}  // namespace imagelint::analysis
