// Rules × images × pools -> findings and verdicts (imagelint.report/v1).
#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <mutex>
#include <set>

#include "imagelint/analysis.h"

#include "analysis/pool_memo.h"
#include "analysis/rule_runner.h"
#include "analysis/runtime_paths.h"
#include "common/bytes_text.h"
#include "common/field_names.h"
#include "common/json.h"

namespace imagelint::analysis {

using nlohmann::json;
using rules::Environment;
using rules::EvalTrace;
using rules::Rule;
using rules::Severity;
using rules::Value;

// The rule language's pool is the report's record of it: one spelling.
json PoolToJson(const Pool& pool) { return WriteReportPool(ReportPoolOf(pool)); }

std::optional<Platform> ImagePlatform(const json& facts) {
  if (!facts.contains("image") || !facts["image"].is_object()) return std::nullopt;
  const json& image = facts["image"];
  if (!image.contains("os") || !image.contains("architecture")) return std::nullopt;
  return Platform{StringField(image, "os"), StringField(image, "architecture"), StringField(image, "variant")}
      .Normalized();
}

std::vector<std::string> RuleVariables() {
  return {"facts", "image", "env", "cuda", "binaries", "frameworks", "pool"};
}

namespace {

using internal::BaseEnvironment;
using internal::RuleRunner;

std::string ImageRef(const json& facts, size_t index) {
  if (facts.contains("image") && facts["image"].is_object()) {
    const std::string ref = StringField(facts["image"], "ref");
    if (!ref.empty()) return ref;
  }
  return "image-" + std::to_string(index + 1);
}

// The fleet's pools by name, found once per run (the first pool of a name):
// the order findings list their pools in.
using PoolIndexes = std::unordered_map<std::string, size_t>;
PoolIndexes IndexPools(const Fleet& fleet) {
  PoolIndexes out;
  for (size_t p = 0; p < fleet.pools.size(); ++p) out.try_emplace(fleet.pools[p].name, p);
  return out;
}

// One set of facts of an image and the pools evaluated against it.
struct ImageVariant {
  const json* facts = nullptr;
  Environment environment;
  bool gpu_image = true;
  std::vector<size_t> pools;  // indexes into the fleet
  std::vector<std::string> pool_names;
  // One per pool: `pool` bound over `environment`, made once for every rule.
  std::vector<Environment> pool_environments;
};

// The image's own facts for the pools no PoolFacts names (all of them when
// there are none, or no pools at all), then each PoolFacts with its pools.
// Facts that no pool is evaluated against are left out, except the image's
// own when the fleet is empty.
// A pool's alternative launch paths (runtime_paths.h) are evaluated against
// the same facts as the pool.
std::vector<ImageVariant> Variants(const json& facts, const std::vector<PoolFacts>& by_pool, const Fleet& fleet,
                                   const internal::RuntimePaths& paths) {
  std::vector<ImageVariant> out;
  auto make = [&](const json& of) {
    ImageVariant variant;
    variant.facts = &of;
    variant.environment = BaseEnvironment(of);
    // facts.gpu.workload: images that ask for no NVIDIA GPU are checked only by
    // the rules not marked `workloads: gpu` (docs/rule-language.md).
    if (of.contains("gpu") && of["gpu"].is_object() && of["gpu"].contains("workload") && of["gpu"]["workload"].is_string())
      variant.gpu_image = of["gpu"]["workload"].get<std::string>() == "nvidia";
    return variant;
  };
  std::vector<bool> claimed(fleet.pools.size(), false);
  std::vector<ImageVariant> others;
  for (const PoolFacts& one : by_pool) {
    ImageVariant variant = make(one.facts);
    for (size_t p : one.pools) {
      if (p >= fleet.pools.size() || claimed[p]) continue;
      claimed[p] = true;
      variant.pools.push_back(p);
    }
    std::sort(variant.pools.begin(), variant.pools.end());
    if (!variant.pools.empty()) others.push_back(std::move(variant));
  }
  ImageVariant own = make(facts);
  for (size_t p = 0; p < fleet.pools.size(); ++p)
    if (!claimed[p]) own.pools.push_back(p);
  if (!own.pools.empty() || fleet.pools.empty()) out.push_back(std::move(own));
  for (auto& variant : others) out.push_back(std::move(variant));
  for (auto& variant : out) {
    const size_t originals = variant.pools.size();
    for (size_t i = 0; i < originals; ++i)
      for (size_t alternative : paths.alternatives[variant.pools[i]]) variant.pools.push_back(alternative);
    for (size_t p : variant.pools) variant.pool_names.push_back(paths.labels[p]);
  }
  return out;
}

// What two equal findings share, cheaply: merged findings are found by it,
// then compared whole.
size_t FindingHash(const Finding& finding) {
  size_t hash = std::hash<std::string>{}(finding.rule);
  auto mix = [&hash](size_t value) { hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2); };
  mix(std::hash<std::string>{}(finding.message));
  mix(static_cast<size_t>(finding.severity) * 3 + (finding.unknown ? 1 : 0));
  mix(finding.scope ? static_cast<size_t>(*finding.scope) + 1 : 0);
  mix(finding.evidence.size());
  for (const Evidence& item : finding.evidence) mix(std::hash<std::string>{}(item.path.value_or(item.detail.value_or(""))));
  return hash;
}

// Findings in rule order; identical findings on several pools are merged
// (found again by a hash and pools by name: a 10,000-pool fleet made
// pairwise comparisons take minutes).
class MergedFindings {
 public:
  void Add(std::vector<Finding>& found, const std::vector<std::string>& on_pools) {
    for (Finding& finding : found) {
      std::vector<size_t>& bucket = by_hash_[FindingHash(finding)];
      size_t at = merged_.size();
      for (size_t candidate : bucket)
        if (merged_[candidate] == finding) at = candidate;
      if (at == merged_.size()) {
        bucket.push_back(at);
        merged_.push_back(std::move(finding));
        pools_.emplace_back();
        pool_sets_.emplace_back();
      }
      for (const auto& pool : on_pools)
        if (pool_sets_[at].insert(pool).second) pools_[at].push_back(pool);
    }
  }
  // The findings with their pools, in fleet order when several sets of facts
  // found them (whichever facts found a finding first).
  std::vector<Finding> Take(bool reorder, const PoolIndexes& pool_indexes, size_t pool_count) {
    auto index_of = [&](const std::string& name) {
      auto it = pool_indexes.find(name);
      return it == pool_indexes.end() ? pool_count : it->second;
    };
    for (size_t i = 0; i < merged_.size(); ++i) {
      if (reorder)
        std::stable_sort(pools_[i].begin(), pools_[i].end(),
                         [&](const auto& a, const auto& b) { return index_of(a) < index_of(b); });
      merged_[i].pools = std::move(pools_[i]);
    }
    return std::move(merged_);
  }

 private:
  std::vector<Finding> merged_;  // without pools while they are merged: found by equality
  std::vector<std::vector<std::string>> pools_;
  std::vector<std::set<std::string>> pool_sets_;
  std::unordered_map<size_t, std::vector<size_t>> by_hash_;
};

// One image: every enabled rule over each set of its facts and their pools,
// findings merged across pools, verdicts derived.
Result<ImageReport> AnalyzeImage(size_t index, const json& facts, const std::vector<PoolFacts>& by_pool,
                                 const Fleet& fleet, const internal::RuntimePaths& paths,
                                 const PoolIndexes& pool_indexes, const std::vector<json>& pool_values,
                                 const std::vector<std::string>& pool_keys, const FleetPools& fleet_pools,
                                 const rules::RuleSet& rules, const std::vector<bool>& launch_path_rules,
                                 RuleRunner& runner) {
  // Which facts each pool is evaluated against: the image's own, or those
  // built for its platform (PoolFacts); every set of facts with its pools.
  // (The variants point into pool_facts: no temporary copy of it here.)
  std::vector<ImageVariant> variants = Variants(facts, by_pool, fleet, paths);
  runner.BeginImage();  // what it remembers names this image's facts by address
  // After Variants returns, no variant moves: environments may point at theirs.
  for (ImageVariant& variant : variants) {
    variant.pool_environments.reserve(variant.pools.size());
    for (size_t p : variant.pools) {
      // The pool over the variant's facts, read where it lies (pool_values
      // outlives the image): a copy of each pool per image was a per-pool
      // allocation of every plan.
      variant.pool_environments.emplace_back(&variant.environment);
      variant.pool_environments.back().BindRef("pool", &pool_values[p]);
    }
  }
  // Pools that differ only by name share their libcuda, driver_compat...
  // results (analysis/pool_memo.h).
  PoolMemoScope memo(&fleet_pools);
  for (const ImageVariant& variant : variants) {
    memo.Trust(variant.facts);
    for (size_t i = 0; i < variant.pools.size(); ++i)
      memo.TrustPool(&pool_values[variant.pools[i]], &pool_keys[variant.pools[i]], variant.pools[i]);
  }
  MergedFindings merged;
  for (size_t r = 0; r < rules.rules().size(); ++r) {
    const rules::Rule& rule = rules.rules()[r];
    if (!rule.enabled) continue;
    // A rule that finds the same on every launch path is evaluated on the
    // pool only; its findings hold on the pool's alternatives too.
    const bool same_on_every_path = !launch_path_rules[r];
    for (const ImageVariant& variant : variants) {
      if (!variant.gpu_image && !rule.any_workload) continue;
      if (rule.scope == rules::Scope::kImage) {
        std::vector<Finding> found;
        IMAGELINT_TRY(runner.Run(rule, variant.environment, *variant.facts, found));
        for (auto& finding : found) finding.scope = Scope::kImage;
        merged.Add(found, variant.pool_names);
        continue;
      }
      for (size_t i = 0; i < variant.pools.size(); ++i) {
        const size_t p = variant.pools[i];
        if (same_on_every_path && paths.IsAlternative(p)) continue;
        std::vector<Finding> found;
        auto status = runner.Run(rule, variant.pool_environments[i], *variant.facts, found);
        if (!status.ok()) {
          Error error = status.error();
          error.message += " (pool " + paths.fleet.pools[p].name + ")";
          return error;
        }
        for (auto& finding : found) finding.scope = Scope::kPool;
        std::vector<std::string> labels = {paths.labels[p]};
        if (same_on_every_path)
          for (size_t alternative : paths.alternatives[p]) labels.push_back(paths.labels[alternative]);
        merged.Add(found, labels);
      }
    }
  }

  ImageReport image;
  image.ref = ImageRef(facts, index);
  if (facts.contains("image") && facts["image"].is_object()) {
    const json& meta = facts["image"];
    image.digest = StringField(meta, "digest");
    image.platform = ImagePlatform(facts);
  }
  image.findings = merged.Take(variants.size() > 1, pool_indexes, fleet.pools.size());
  internal::FoldRuntimePaths(image.findings, paths, facts);
  for (const auto& pool : fleet.pools) {
    Verdict verdict;
    verdict.pool = pool.name;
    image.verdicts.push_back(std::move(verdict));
  }
  AttachObservations(image, fleet);
  DeriveVerdicts(image);
  return image;
}

}  // namespace

Result<json> Analyze(const std::vector<json>& all_facts, const Fleet& fleet, const rules::RuleSet& rules,
                     const rules::FunctionRegistry& functions, const AnalyzeOptions& options) {
  return Analyze(all_facts, {}, fleet, rules, functions, options);
}

Result<json> Analyze(const std::vector<json>& all_facts, const std::vector<std::vector<PoolFacts>>& pool_facts,
                     const Fleet& fleet, const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                     const AnalyzeOptions& options) {
  std::vector<const json*> pointers;
  for (const json& facts : all_facts) pointers.push_back(&facts);
  return AnalyzeReferenced(pointers, pool_facts, fleet, rules, functions, options);
}

Result<json> AnalyzeReferenced(const std::vector<const json*>& all_facts,
                               const std::vector<std::vector<PoolFacts>>& pool_facts, const Fleet& fleet,
                               const rules::RuleSet& rules, const rules::FunctionRegistry& functions,
                               const AnalyzeOptions& options) {
  auto images = AnalyzeImages(all_facts, pool_facts, fleet, rules, functions, options);
  if (!images.ok()) return images.error();
  return WriteReport(ReportDocument(std::move(*images), fleet, rules));
}

ReportPool ReportPoolOf(const Pool& pool) {
  ReportPool out;
  IMAGELINT_COPY_FIELDS(out, pool, name, compute_capability, brand, datacenter, architecture, integrated, cuda_compat_mode,
                        disable_require, container_toolkit, runtime, platform);
  // The rest are left out of the report where the fleet file left them out.
  auto text = [](std::optional<std::string>& field, const std::string& value) {
    if (!value.empty()) field = value;
  };
  text(out.gpu, pool.gpu);
  if (!pool.defaulted.empty()) out.defaulted = pool.defaulted;
  text(out.driver, pool.driver);
  if (pool.count > 0) out.count = pool.count;
  text(out.source, pool.source);
  if (pool.line > 0) out.line = pool.line;
  if (!pool.selector_labels.empty()) out.selector_labels = pool.selector_labels;
  return out;
}

Report ReportDocument(std::vector<ImageReport> images, const Fleet& fleet, const rules::RuleSet& rules) {
  Report report;
  report.tool = ToolInfo{"imagelint", IMAGELINT_VERSION};
  ReportFleet pools{fleet.source, {}};
  for (const auto& pool : fleet.pools) pools.pools.push_back(ReportPoolOf(pool));
  report.fleet = std::move(pools);
  report.rules.emplace();
  for (const auto& info : rules.List())
    report.rules->push_back(
        {info.id, info.name, info.title, info.summary, info.severity, info.scope, info.enabled, info.docs});
  report.images = std::move(images);
  return report;
}

Result<std::vector<ImageReport>> AnalyzeImages(const std::vector<const json*>& all_facts,
                                               const std::vector<std::vector<PoolFacts>>& pool_facts,
                                               const Fleet& fleet, const rules::RuleSet& rules,
                                               const rules::FunctionRegistry& functions,
                                               const AnalyzeOptions& options) {
  // Pools that name no runtime with their other launch paths (runtime_paths.h).
  const internal::RuntimePaths paths = internal::ExpandRuntimePaths(fleet);
  std::vector<bool> launch_path_rules;  // per rule: DependsOnLaunchPath
  for (const rules::Rule& rule : rules.rules()) launch_path_rules.push_back(internal::DependsOnLaunchPath(rule));
  std::vector<json> pool_values;
  for (const auto& pool : paths.fleet.pools) pool_values.push_back(PoolToJson(pool));
  std::vector<std::string> pool_keys;  // each pool's part of a memo key (analysis/pool_memo.h)
  for (const json& pool : pool_values) pool_keys.push_back(PoolMemoScope::PoolKey(pool));
  // Each pool typed, and its launch path found, once for every image and thread.
  const FleetPools fleet_pools(pool_values.size());
  const PoolIndexes pool_indexes = IndexPools(fleet);

  // The run's budget of evaluation steps grows with its work: images x pools.
  const int64_t cells = static_cast<int64_t>(std::max<size_t>(all_facts.size(), 1)) *
                        static_cast<int64_t>(std::max<size_t>(paths.fleet.pools.size(), 1));
  const int64_t step_budget =
      options.rule_steps_per_cell > 0 && cells > (INT64_MAX - options.rule_steps_base) / options.rule_steps_per_cell
          ? INT64_MAX
          : options.rule_steps_base + cells * options.rule_steps_per_cell;
  // Images are analysed side by side, each by one thread with its own
  // runner and memo; the report keeps input order, and the error reported is
  // the first in input order, as one thread would find it.
  std::atomic<int64_t> steps_used{0};
  size_t jobs = options.jobs > 0 ? static_cast<size_t>(options.jobs)
                                 : std::min<size_t>(16, std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::max<size_t>(1, std::min(jobs, all_facts.size()));
  std::vector<std::optional<Result<ImageReport>>> analysed(all_facts.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr thrown;
  std::mutex thrown_mutex;
  auto work = [&] {
    RuleRunner runner(functions, options, step_budget, steps_used);
    static const std::vector<PoolFacts> kNoPoolFacts;
    // Once an image fails no new one is started: every image before it has
    // been claimed already, so the first error in input order is among them.
    for (size_t i = next++; i < all_facts.size() && !failed; i = next++) {
      try {
        const std::vector<PoolFacts>& by_pool = i < pool_facts.size() ? pool_facts[i] : kNoPoolFacts;
        analysed[i] =
            AnalyzeImage(i, *all_facts[i], by_pool, fleet, paths, pool_indexes, pool_values, pool_keys, fleet_pools,
                         rules, launch_path_rules, runner);
        if (!analysed[i]->ok()) failed = true;
      } catch (...) {
        std::lock_guard<std::mutex> lock(thrown_mutex);
        if (!thrown) thrown = std::current_exception();
        failed = true;
      }
    }
  };
  if (jobs == 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (size_t t = 0; t < jobs; ++t) threads.emplace_back(work);
    for (auto& thread : threads) thread.join();
  }
  if (thrown) std::rethrow_exception(thrown);
  std::vector<ImageReport> images;
  for (auto& image : analysed) {
    if (!image) break;  // not started: an earlier image failed
    if (!image->ok()) return image->error();
    images.push_back(std::move(**image));
  }
  return images;
}

}  // namespace imagelint::analysis
