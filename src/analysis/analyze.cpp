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
#include "analysis/undecided.h"
#include "common/bytes_text.h"

namespace imagelint::analysis {

using nlohmann::json;
using rules::Environment;
using rules::EvalTrace;
using rules::Rule;
using rules::Severity;
using rules::Value;

json PoolToJson(const Pool& pool) {
  json j = json::object();
  j["name"] = pool.name;
  if (!pool.gpu.empty()) j["gpu"] = pool.gpu;
  if (pool.compute_capability) j["compute_capability"] = *pool.compute_capability;
  if (pool.brand) j["brand"] = *pool.brand;
  if (pool.datacenter) j["datacenter"] = *pool.datacenter;
  if (pool.architecture) j["architecture"] = *pool.architecture;
  if (pool.integrated) j["integrated"] = *pool.integrated;
  if (pool.cuda_compat_mode) j["cuda_compat_mode"] = *pool.cuda_compat_mode;
  if (pool.disable_require) j["disable_require"] = *pool.disable_require;
  if (!pool.defaulted.empty()) j["defaulted"] = pool.defaulted;
  if (!pool.driver.empty()) j["driver"] = pool.driver;
  if (pool.container_toolkit) j["container_toolkit"] = *pool.container_toolkit;
  if (pool.runtime) j["runtime"] = *pool.runtime;
  j["platform"] = pool.platform;
  if (pool.count > 0) j["count"] = pool.count;
  if (!pool.source.empty()) j["source"] = pool.source;
  if (pool.line > 0) j["line"] = pool.line;
  if (!pool.selector_labels.empty()) j["selector_labels"] = pool.selector_labels;
  return j;
}

std::vector<std::string> RuleVariables() {
  return {"facts", "image", "env", "cuda", "binaries", "frameworks", "pool"};
}

namespace {

Value Part(const json& facts, const char* key) {
  if (facts.is_object() && facts.contains(key)) return Value::Of(facts[key]);
  return Value::Unknown();
}

Environment BaseEnvironment(const json& facts) {
  Environment env;
  env["facts"] = Value::Of(facts);
  env["image"] = Part(facts, "image");
  Value image_env = Value::Unknown();
  if (facts.contains("image") && facts["image"].is_object() && facts["image"].contains("env"))
    image_env = Value::Of(facts["image"]["env"]);
  env["env"] = image_env;
  env["cuda"] = Part(facts, "cuda");
  env["binaries"] = Part(facts, "binaries");
  env["frameworks"] = Part(facts, "frameworks");
  env["pool"] = Value::Unknown();
  return env;
}

// One evidence item from a rule's evidence list (a path string or a facts
// entry), with the layer resolved to its digest and created_by.
json ResolveEvidence(const json& item, const json& facts) {
  json out = json::object();
  if (item.is_string()) {
    out["path"] = item;
  } else if (item.is_object()) {
    for (const char* key : {"path", "file", "dir"}) {
      if (item.contains(key) && item[key].is_string()) {
        out["path"] = item[key];
        break;
      }
    }
    if (item.contains("dockerfile_line")) out["dockerfile_line"] = item["dockerfile_line"];
    if (item.contains("detail")) out["detail"] = item["detail"];
    // A fact the knowledge tables gave without a path (the CUDA of a base
    // image's framework): the table row is the evidence.
    if (!out.contains("path") && !out.contains("detail") && item.contains("knowledge") && item["knowledge"].is_string())
      out["detail"] = "knowledge tables, " + item["knowledge"].get<std::string>();
    const json* layers = nullptr;
    if (facts.contains("image") && facts["image"].is_object() && facts["image"].contains("layers") &&
        facts["image"]["layers"].is_array())
      layers = &facts["image"]["layers"];
    if (item.contains("layer")) {
      const json& layer = item["layer"];
      if (layer.is_number_integer()) {
        int64_t index = layer.get<int64_t>();
        out["layer"] = index;
        if (layers && index >= 0 && static_cast<size_t>(index) < layers->size()) {
          const json& entry = (*layers)[static_cast<size_t>(index)];
          if (entry.contains("digest")) out["layer_digest"] = entry["digest"];
          if (entry.contains("created_by")) out["created_by"] = entry["created_by"];
          if (!out.contains("dockerfile_line") && entry.contains("dockerfile_line"))
            out["dockerfile_line"] = entry["dockerfile_line"];
        }
      } else if (layer.is_string()) {
        out["layer_digest"] = layer;
        if (layers) {
          for (size_t i = 0; i < layers->size(); ++i) {
            const json& entry = (*layers)[i];
            if (entry.value("digest", "") == layer.get<std::string>() ||
                entry.value("diff_id", "") == layer.get<std::string>()) {
              out["layer"] = i;
              if (entry.contains("created_by")) out["created_by"] = entry["created_by"];
              break;
            }
          }
        }
      }
    }
    if (!out.contains("layer_digest") && item.contains("layer_digest")) out["layer_digest"] = item["layer_digest"];
  } else {
    out["detail"] = rules::RenderValue(Value::Of(item));
  }
  return out;
}

struct Outcome {
  json finding;  // without "pools"
  std::string pool;  // empty for image scope
};

class RuleRunner {
 public:
  // `steps_used` is the run's count, shared by the runners of every thread.
  RuleRunner(const rules::FunctionRegistry& functions, const AnalyzeOptions& options, int64_t step_budget,
             std::atomic<int64_t>& steps_used)
      : functions_(functions), options_(options), step_budget_(step_budget), steps_used_(steps_used) {}

  // Evaluates one rule in `env` (pool already bound); appends findings.
  // `foreach` is evaluated first (it cannot see `let` names); the `let`
  // bindings, condition and templates then run once per element.
  Status Run(const Rule& rule, const Environment& env, const json& facts, std::vector<json>& out) {
    if (steps_used_.load(std::memory_order_relaxed) > step_budget_) {
      return MakeError(rule.file, "the rules took more than " + std::to_string(step_budget_) +
                                      " evaluation steps in all (imagelint's limit for this run: " +
                                      std::to_string(options_.rule_steps_base) + " plus " +
                                      std::to_string(options_.rule_steps_per_cell) +
                                      " per image and pool, AnalyzeOptions::rule_steps_*); stopped at rule " +
                                      rule.id);
    }
    if (!rule.foreach) return RunOnce(rule, env, facts, nullptr, out);
    EvalTrace trace;
    StepCharge charge{trace, steps_used_};
    auto list = rule.foreach->second.Evaluate(env, functions_, &trace, options_.limits);
    if (!list.ok()) return Tag(rule, list.error());
    if (list->unknown) return Unknown(rule, env, facts, trace, out);
    if (list->json.is_null()) return OkStatus();
    if (!list->json.is_array())
      return MakeErrorAtLine(rule.file, rule.foreach->second.where().line, rule.foreach->second.where().column,
                             "rule " + rule.id + ": 'foreach' needs a list");
    for (const auto& element : list->json) {
      Environment scoped(&env);
      scoped[rule.foreach->first] = Value::Of(element);
      IMAGELINT_TRY(RunOnce(rule, scoped, facts, &element, out));
    }
    return OkStatus();
  }

 private:
  // Adds the steps a trace counted to the run's total when it goes.
  struct StepCharge {
    const EvalTrace& trace;
    std::atomic<int64_t>& total;
    ~StepCharge() { total.fetch_add(trace.steps, std::memory_order_relaxed); }
  };

  static Error Tag(const Rule& rule, Error error) {
    error.message = "rule " + rule.id + ": " + error.message;
    if (error.subject.empty()) error.subject = rule.file;
    return error;
  }

  Status RunOnce(const Rule& rule, const Environment& outer, const json& facts, const json* element,
                 std::vector<json>& out) {
    Environment env(&outer);  // the rule's `let` names
    EvalTrace trace;
    StepCharge charge{trace, steps_used_};
    for (const auto& [name, expression] : rule.lets) {
      auto value = expression.Evaluate(env, functions_, &trace, options_.limits);
      if (!value.ok()) return Tag(rule, value.error());
      env[name] = std::move(*value);
    }
    auto fired = rule.condition.Evaluate(env, functions_, &trace, options_.limits);
    if (!fired.ok()) return Tag(rule, fired.error());
    if (fired->unknown) return Unknown(rule, env, facts, trace, out, element);
    if (!fired->json.is_boolean())
      return MakeErrorAtLine(rule.file, rule.condition.where().line, rule.condition.where().column,
                             "rule " + rule.id + ": the condition must be a boolean");
    if (!fired->json.get<bool>()) return OkStatus();

    json finding = Base(rule);
    auto message = rule.message.Render(env, functions_, &trace, options_.limits);
    if (!message.ok()) return Tag(rule, message.error());
    finding["message"] = *message;
    if (rule.fix) {
      auto fix = rule.fix->Render(env, functions_, &trace, options_.limits);
      if (!fix.ok()) return Tag(rule, fix.error());
      finding["fix"] = *fix;
    }
    Severity severity = rule.severity;
    finding["predicted_error"] = nullptr;
    bool demoted = false;
    if (rule.demote) {
      auto when = rule.demote->when.Evaluate(env, functions_, &trace, options_.limits);
      if (!when.ok()) return Tag(rule, when.error());
      if (when->IsTrue()) {
        demoted = true;
        severity = std::min(severity, rule.demote->severity);
      }
    }
    for (const auto& prediction : rule.predicts) {
      if (demoted) break;
      if (prediction.when) {
        auto when = prediction.when->Evaluate(env, functions_, &trace, options_.limits);
        if (!when.ok()) return Tag(rule, when.error());
        if (!when->IsTrue()) continue;
      }
      json predicted = {{"code", prediction.code},
                        {"name", prediction.name},
                        {"stage", std::string(rules::StageName(prediction.stage))}};
      if (prediction.message) {
        auto text = prediction.message->Render(env, functions_, &trace, options_.limits);
        if (!text.ok()) return Tag(rule, text.error());
        predicted["message"] = *text;
      }
      if (prediction.severity) severity = *prediction.severity;
      finding["predicted_error"] = predicted;
      break;
    }
    finding["severity"] = std::string(rules::SeverityName(severity));
    json evidence = json::array();
    if (rule.evidence) {
      auto items = rule.evidence->Evaluate(env, functions_, &trace, options_.limits);
      if (!items.ok()) return Tag(rule, items.error());
      if (!items->unknown && !items->json.is_null()) {
        if (items->json.is_array()) {
          for (const auto& item : items->json) {
            if (evidence.size() >= 50) break;
            if (!item.is_null()) evidence.push_back(ResolveEvidence(item, facts));
          }
        } else {
          evidence.push_back(ResolveEvidence(items->json, facts));
        }
      }
    } else if (element && element->is_object() && element->contains("path")) {
      evidence.push_back(ResolveEvidence(*element, facts));
    }
    finding["evidence"] = evidence;
    finding["unknown"] = false;
    out.push_back(std::move(finding));
    return OkStatus();
  }

  // The condition could not be evaluated: an undecided finding that names
  // the missing facts in user terms (undecided.cpp), never a silent pass.
  Status Unknown(const Rule& rule, const Environment& env, const json& facts, const EvalTrace& trace,
                 std::vector<json>& out, const json* element = nullptr) {
    if (rule.on_unknown == rules::OnUnknown::kIgnore) return OkStatus();
    Severity severity = rule.on_unknown == rules::OnUnknown::kNote ? Severity::kNote : Severity::kWarning;
    severity = std::min(severity, rule.severity);
    std::string pool;
    const Value* bound = env.Find("pool");
    if (bound != nullptr && !bound->unknown && bound->json.is_object()) pool = bound->json.value("name", "");
    internal::Undecided undecided = internal::DescribeUndecided(
        trace.missing, facts, pool, rule.foreach ? rule.foreach->first : std::string(), element);
    json finding = Base(rule);
    finding["message"] = "cannot tell whether this applies (" + rule.title + "): " + undecided.text;
    finding["severity"] = std::string(rules::SeverityName(severity));
    finding["predicted_error"] = nullptr;
    finding["unknown"] = true;
    finding["missing_facts"] = trace.missing;
    finding["missing"] = undecided.missing;
    if (!undecided.hints.empty()) {
      std::string fix = "To decide it: ";
      for (size_t i = 0; i < undecided.hints.size(); ++i) fix += (i ? "; " : "") + undecided.hints[i];
      finding["fix"] = fix + ".";
    }
    json evidence = json::array();
    if (element && element->is_object() && element->contains("path")) evidence.push_back(ResolveEvidence(*element, facts));
    for (const auto& item : undecided.evidence) evidence.push_back(item);
    finding["evidence"] = evidence;
    out.push_back(std::move(finding));
    return OkStatus();
  }

  static json Base(const Rule& rule) {
    return json{{"rule", rule.id}, {"name", rule.name}, {"title", rule.title}, {"docs", rule.docs},
                {"priority", rule.priority}};
  }

  const rules::FunctionRegistry& functions_;
  AnalyzeOptions options_;
  int64_t step_budget_;
  std::atomic<int64_t>& steps_used_;
};

int StageRank(const json& predicted) {
  auto stage = rules::ParseStage(predicted.value("stage", "runtime"));
  return stage ? static_cast<int>(*stage) : 99;
}

std::string ImageRef(const json& facts, size_t index) {
  if (facts.contains("image") && facts["image"].is_object()) {
    const json& image = facts["image"];
    if (image.contains("ref") && image["ref"].is_string() && !image["ref"].get<std::string>().empty())
      return image["ref"];
  }
  return "image-" + std::to_string(index + 1);
}

size_t PoolIndex(const Fleet& fleet, const std::string& name) {
  for (size_t p = 0; p < fleet.pools.size(); ++p)
    if (fleet.pools[p].name == name) return p;
  return fleet.pools.size();
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
std::vector<ImageVariant> Variants(const json& facts, const std::vector<PoolFacts>& by_pool, const Fleet& fleet) {
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
    for (const std::string& name : one.pools) {
      size_t p = PoolIndex(fleet, name);
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
  for (auto& variant : out)
    for (size_t p : variant.pools) variant.pool_names.push_back(fleet.pools[p].name);
  return out;
}

// One image: every enabled rule over each set of its facts and their pools,
// findings merged across pools, verdicts derived.
Result<json> AnalyzeImage(size_t index, const json& facts, const std::vector<PoolFacts>& by_pool, const Fleet& fleet,
                          const std::vector<json>& pool_values, const std::vector<std::string>& pool_keys,
                          const rules::RuleSet& rules, RuleRunner& runner) {
  // Which facts each pool is evaluated against: the image's own, or those
  // built for its platform (PoolFacts); every set of facts with its pools.
  // (The variants point into pool_facts: no temporary copy of it here.)
  std::vector<ImageVariant> variants = Variants(facts, by_pool, fleet);
  // After Variants returns, no variant moves: environments may point at theirs.
  for (ImageVariant& variant : variants) {
    variant.pool_environments.reserve(variant.pools.size());
    for (size_t p : variant.pools) {
      variant.pool_environments.emplace_back(&variant.environment);  // the pool over the variant's facts
      variant.pool_environments.back()["pool"] = Value::Of(pool_values[p]);
    }
  }
  // Pools that differ only by name share their libcuda, driver_compat...
  // results (analysis/pool_memo.h).
  PoolMemoScope memo;
  for (const ImageVariant& variant : variants) {
    if (const rules::Value* bound = variant.environment.Find("facts")) memo.Trust(&bound->json);
    for (size_t i = 0; i < variant.pools.size(); ++i)
      memo.TrustPool(&variant.pool_environments[i].Find("pool")->json, &pool_keys[variant.pools[i]]);
  }
  // Findings in rule order; identical findings on several pools are merged.
  // Found again by their encoding and pools by name (a 10,000-pool fleet
  // made the pairwise comparisons take minutes).
  std::vector<json> merged;
  std::vector<std::vector<std::string>> merged_pools;
  std::unordered_map<std::string, size_t> merged_index;
  std::vector<std::set<std::string>> merged_pool_set;
  auto add = [&](std::vector<json>& found, const std::vector<std::string>& on_pools) {
    for (auto& finding : found) {
      // CBOR: an exact encoding of the value (names that are not UTF-8
      // included) at a fraction of the cost of escaped JSON text.
      const std::vector<uint8_t> encoded = json::to_cbor(finding);
      auto [at, fresh] = merged_index.try_emplace(std::string(encoded.begin(), encoded.end()), merged.size());
      if (fresh) {
        merged.push_back(std::move(finding));
        merged_pools.emplace_back();
        merged_pool_set.emplace_back();
      }
      const size_t i = at->second;
      for (const auto& pool : on_pools)
        if (merged_pool_set[i].insert(pool).second) merged_pools[i].push_back(pool);
    }
  };
  for (const auto& rule : rules.rules()) {
    if (!rule.enabled) continue;
    for (const ImageVariant& variant : variants) {
      if (!variant.gpu_image && !rule.any_workload) continue;
      if (rule.scope == rules::Scope::kImage) {
        std::vector<json> found;
        IMAGELINT_TRY(runner.Run(rule, variant.environment, *variant.facts, found));
        for (auto& finding : found) finding["scope"] = "image";
        add(found, variant.pool_names);
        continue;
      }
      for (size_t i = 0; i < variant.pools.size(); ++i) {
        const size_t p = variant.pools[i];
        std::vector<json> found;
        auto status = runner.Run(rule, variant.pool_environments[i], *variant.facts, found);
        if (!status.ok()) {
          Error error = status.error();
          error.message += " (pool " + fleet.pools[p].name + ")";
          return error;
        }
        for (auto& finding : found) finding["scope"] = "pool";
        add(found, {fleet.pools[p].name});
      }
    }
  }
  json findings = json::array();
  for (size_t i = 0; i < merged.size(); ++i) {
    json finding = merged[i];
    // In fleet order, whichever facts found it first.
    if (variants.size() > 1) {
      std::map<std::string, size_t> order;
      for (size_t p = 0; p < fleet.pools.size(); ++p) order.try_emplace(fleet.pools[p].name, p);
      auto index_of = [&](const std::string& name) {
        auto it = order.find(name);
        return it == order.end() ? fleet.pools.size() : it->second;
      };
      std::sort(merged_pools[i].begin(), merged_pools[i].end(),
                [&](const auto& a, const auto& b) { return index_of(a) < index_of(b); });
    }
    finding["pools"] = merged_pools[i];
    findings.push_back(std::move(finding));
  }

  json image = json::object();
  image["ref"] = ImageRef(facts, index);
  image["digest"] = facts.contains("image") && facts["image"].is_object() ? facts["image"].value("digest", "") : "";
  if (facts.contains("image") && facts["image"].is_object()) {
    const json& meta = facts["image"];
    if (meta.contains("os") && meta.contains("architecture"))
      image["platform"] = meta.value("os", "") + "/" + meta.value("architecture", "");
  }
  image["findings"] = findings;
  image["verdicts"] = json::array();
  for (const auto& pool : fleet.pools) image["verdicts"].push_back({{"pool", pool.name}});
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
  json report = json::object();
  report["schema"] = kReportSchema;
  report["tool"] = {{"name", "imagelint"}, {"version", IMAGELINT_VERSION}};
  json pools = json::array();
  std::vector<json> pool_values;
  for (const auto& pool : fleet.pools) {
    pool_values.push_back(PoolToJson(pool));
    pools.push_back(pool_values.back());
  }
  report["fleet"] = {{"source", fleet.source}, {"pools", pools}};
  std::vector<std::string> pool_keys;  // each pool's part of a memo key (analysis/pool_memo.h)
  for (const json& pool : pool_values) pool_keys.push_back(PoolMemoScope::PoolKey(pool));
  json rule_table = json::array();
  for (const auto& info : rules.List()) rule_table.push_back(rules::RuleInfoToJson(info));
  report["rules"] = rule_table;

  // The run's budget of evaluation steps grows with its work: images x pools.
  const int64_t cells = static_cast<int64_t>(std::max<size_t>(all_facts.size(), 1)) *
                        static_cast<int64_t>(std::max<size_t>(fleet.pools.size(), 1));
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
  std::vector<std::optional<Result<json>>> analysed(all_facts.size());
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
        analysed[i] = AnalyzeImage(i, *all_facts[i], by_pool, fleet, pool_values, pool_keys, rules, runner);
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
  json images = json::array();
  for (auto& image : analysed) {
    if (!image) break;  // not started: an earlier image failed
    if (!image->ok()) return image->error();
    images.push_back(std::move(**image));
  }
  report["images"] = images;
  return report;
}

void DeriveVerdicts(json& image) {
  static const json kNone = json::array();
  const json& findings = image.contains("findings") && image["findings"].is_array() ? image["findings"] : kNone;
  auto severity_of = [](const json& finding) { return static_cast<int>(FindingSeverity(finding)); };
  auto on_pool = [](const json& finding, const json& pool) {
    if (!finding.contains("pools") || !finding["pools"].is_array()) return false;
    const auto& on = finding["pools"];
    return std::find(on.begin(), on.end(), pool) != on.end();
  };
  // A real error fails; a rule that could not decide (at warning level: its
  // rule says not knowing matters) makes the verdict undecided, which a real
  // warning does not hide; then warnings; notes pass.
  auto status_of = [](int rank, bool undecided) {
    return rank >= static_cast<int>(Severity::kError)     ? "fail"
           : undecided                                    ? "undecided"
           : rank >= static_cast<int>(Severity::kWarning) ? "warn"
                                                          : "pass";
  };
  auto blocks = [&](const json& finding) {
    return IsUndecided(finding) && severity_of(finding) >= static_cast<int>(Severity::kWarning);
  };
  int image_rank = -1;
  bool image_undecided = false;
  bool has_verdicts = image.contains("verdicts") && image["verdicts"].is_array() && !image["verdicts"].empty();
  if (has_verdicts) {
    // Each pool's findings, in report order, found once (not per verdict).
    std::map<std::string, std::vector<const json*>> by_pool;
    std::vector<const json*> on_unnamed;  // a verdict without a pool name
    for (const auto& finding : findings) {
      if (!finding.contains("pools") || !finding["pools"].is_array()) continue;
      std::set<std::string> seen;
      for (const auto& pool : finding["pools"])
        if (pool.is_string() && seen.insert(pool.get<std::string>()).second) by_pool[pool.get<std::string>()].push_back(&finding);
      if (std::any_of(finding["pools"].begin(), finding["pools"].end(), [](const json& p) { return !p.is_string(); }))
        on_unnamed.push_back(&finding);
    }
    static const std::vector<const json*> kNoFindings;
    for (auto& verdict : image["verdicts"]) {
      const json pool = verdict.contains("pool") ? verdict["pool"] : json();
      int worst_rank = -1;
      bool undecided = false;
      const json* deciding = nullptr;
      json rule_ids = json::array();
      json undetermined = json::array();
      const auto it = pool.is_string() ? by_pool.find(pool.get<std::string>()) : by_pool.end();
      const std::vector<const json*>& candidates =
          pool.is_string() ? (it == by_pool.end() ? kNoFindings : it->second) : on_unnamed;
      for (const json* found : candidates) {
        const json& finding = *found;
        if (!on_pool(finding, pool)) continue;
        json id = finding.contains("rule") ? finding["rule"] : json();
        json& list = IsUndecided(finding) ? undetermined : rule_ids;
        if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
        if (IsUndecided(finding)) {
          undecided = undecided || blocks(finding);
          continue;
        }
        int rank = severity_of(finding);
        worst_rank = std::max(worst_rank, rank);
        if (rank == static_cast<int>(Severity::kError) && finding.contains("predicted_error") &&
            finding["predicted_error"].is_object()) {
          auto key = [](const json& f) {
            return std::make_pair(StageRank(f["predicted_error"]), f.value("priority", 100));
          };
          if (!deciding || key(finding) < key(*deciding)) deciding = &finding;
        }
      }
      verdict["status"] = status_of(worst_rank, undecided);
      if (deciding) {
        json predicted = (*deciding)["predicted_error"];
        predicted["rule"] = (*deciding)["rule"];
        verdict["predicted_error"] = predicted;
      } else {
        verdict["predicted_error"] = nullptr;
      }
      verdict["rules"] = rule_ids;
      verdict["undetermined"] = undetermined;
      ApplyObservation(verdict);
      if (verdict.contains("observed")) {  // what the host showed counts for the image too
        worst_rank = verdict["status"] == "fail" ? static_cast<int>(Severity::kError)
                                                 : std::min(worst_rank, static_cast<int>(Severity::kWarning));
        undecided = false;
      }
      image_rank = std::max(image_rank, worst_rank);
      image_undecided = image_undecided || undecided;
    }
  } else {
    for (const auto& finding : findings) {
      if (IsUndecided(finding)) {
        image_undecided = image_undecided || blocks(finding);
      } else {
        image_rank = std::max(image_rank, severity_of(finding));
      }
    }
  }
  image["status"] = status_of(image_rank, image_undecided);
}

}  // namespace imagelint::analysis
