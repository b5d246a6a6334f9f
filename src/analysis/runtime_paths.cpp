// Pools that name no runtime: judged on every launch path they may use
// (runtime_paths.h).
#include "analysis/runtime_paths.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_map>

#include "analysis/undecided.h"

namespace imagelint::analysis::internal {

namespace {

constexpr char kSeparator = '\x1f';  // never in a pool name: the fleet loader refuses control characters

std::string AlternativeLabel(const std::string& pool, const std::string& runtime) {
  return pool + kSeparator + runtime;
}

bool IsAlternativeLabel(const std::string& label) { return label.find(kSeparator) != std::string::npos; }

// What makes two findings on different launch paths "the same outcome": the
// rule, whether it decided, how severe, and the error it predicts. Their
// messages may differ (they name the launch path).
using OutcomeKey = std::tuple<std::string, bool, rules::Severity, int64_t, std::string>;
OutcomeKey KeyOf(const Finding& finding) {
  int64_t code = finding.predicted_error ? finding.predicted_error->code : 0;
  std::string name = finding.predicted_error ? finding.predicted_error->name : std::string();
  return {finding.rule, finding.unknown, finding.severity, code, name};
}

bool FailsDecided(const Finding& finding) { return !finding.unknown && finding.severity == rules::Severity::kError; }

std::string JoinOr(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

// Equal findings but for the pools they hold on.
bool SameExceptPools(Finding& a, Finding& b) {
  std::vector<std::string> a_pools, b_pools;
  std::swap(a.pools, a_pools);
  std::swap(b.pools, b_pools);
  const bool same = a == b;
  std::swap(a.pools, a_pools);
  std::swap(b.pools, b_pools);
  return same;
}

// One pool and its launch paths: path 0 is the assumed runtime.
struct PoolPaths {
  std::string name;
  std::vector<std::string> labels;    // per path
  std::vector<std::string> runtimes;  // per path
};

}  // namespace

bool DependsOnLaunchPath(const rules::Rule& rule) {
  static constexpr std::string_view kFunctions[] = {"start_check", "launch_path", "libcuda", "driver_compat"};
  static constexpr std::string_view kPoolFields[] = {"runtime", "container_toolkit", "cuda_compat_mode",
                                                     "disable_require", "defaulted"};
  bool depends = false;
  auto calls = [&](const std::vector<rules::Expression::Call>& found) {
    for (const auto& call : found)
      for (std::string_view name : kFunctions) depends = depends || call.name == name;
  };
  // A field read is looked for in the text: `pool.runtime`, `p.runtime` over
  // a bound pool, `pool["runtime"]`; a mention of the word is enough.
  auto reads = [&](const std::string& text) {
    for (std::string_view field : kPoolFields)
      for (size_t at = text.find(field); at != std::string::npos && !depends; at = text.find(field, at + 1)) {
        const size_t end = at + field.size();  // `cuda.runtimes` is the image's, not the pool's
        depends = end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
      }
  };
  auto expression = [&](const rules::Expression& e) {
    calls(e.Calls());
    reads(e.text());
  };
  auto text = [&](const rules::Template& t) {
    calls(t.Calls());
    reads(t.text());
  };
  for (const auto& [name, e] : rule.lets) expression(e);
  if (rule.foreach) expression(rule.foreach->second);
  expression(rule.condition);
  text(rule.message);
  if (rule.fix) text(*rule.fix);
  if (rule.evidence) expression(*rule.evidence);
  if (rule.demote) expression(rule.demote->when);
  for (const auto& prediction : rule.predicts) {
    if (prediction.when) expression(*prediction.when);
    if (prediction.message) text(*prediction.message);
  }
  return depends;
}

RuntimePaths ExpandRuntimePaths(const Fleet& fleet) {
  RuntimePaths out;
  out.fleet = fleet;
  out.original_count = fleet.pools.size();
  out.alternatives.resize(fleet.pools.size());
  for (const Pool& pool : fleet.pools) out.labels.push_back(pool.name);
  for (size_t p = 0; p < fleet.pools.size(); ++p) {
    for (const std::string& runtime : fleet.pools[p].runtime_alternatives) {
      Pool alternative = fleet.pools[p];
      alternative.runtime = runtime;
      alternative.runtime_alternatives.clear();
      out.alternatives[p].push_back(out.fleet.pools.size());
      out.labels.push_back(AlternativeLabel(alternative.name, runtime));
      out.fleet.pools.push_back(std::move(alternative));
    }
  }
  return out;
}

void FoldRuntimePaths(std::vector<Finding>& findings, const RuntimePaths& paths, const nlohmann::json& facts) {
  if (!paths.Any()) return;
  // Copies made for a pool, each to stand right after the finding it copies.
  std::vector<std::vector<Finding>> copies(findings.size());
  std::unordered_map<std::string, std::vector<size_t>> by_label;  // the findings on each label
  for (size_t i = 0; i < findings.size(); ++i)
    for (const std::string& label : findings[i].pools) by_label[label].push_back(i);
  for (size_t p = 0; p < paths.original_count; ++p) {
    if (paths.alternatives[p].empty()) continue;
    PoolPaths pool{paths.labels[p], {paths.labels[p]}, {paths.fleet.pools[p].runtime.value_or("docker-gpus")}};
    for (size_t a : paths.alternatives[p]) {
      pool.labels.push_back(paths.labels[a]);
      pool.runtimes.push_back(paths.fleet.pools[a].runtime.value_or(""));
    }
    const size_t count = pool.labels.size();
    // The findings on any of the pool's paths (only these: a fleet of
    // thousands of pools has a finding on each), which path each holds on,
    // and which paths fail for certain.
    std::vector<size_t> relevant;
    for (size_t path = 0; path < count; ++path)
      if (auto found = by_label.find(pool.labels[path]); found != by_label.end())
        relevant.insert(relevant.end(), found->second.begin(), found->second.end());
    std::sort(relevant.begin(), relevant.end());
    relevant.erase(std::unique(relevant.begin(), relevant.end()), relevant.end());
    std::unordered_map<size_t, std::vector<bool>> holds;
    for (size_t i : relevant) holds[i].assign(count, false);
    std::vector<bool> fails(count, false);
    for (size_t path = 0; path < count; ++path) {
      auto found = by_label.find(pool.labels[path]);
      if (found == by_label.end()) continue;
      for (size_t i : found->second) {
        holds[i][path] = true;
        if (FailsDecided(findings[i])) fails[path] = true;
      }
    }
    const bool mixed = std::count(fails.begin(), fails.end(), true) != 0 &&
                       std::count(fails.begin(), fails.end(), false) != 0;
    // Each outcome once: on which paths it holds, and the finding that
    // stands for it (the assumed path's where it holds there).
    std::vector<OutcomeKey> keys;
    std::vector<std::vector<bool>> on_paths;
    std::vector<size_t> representative;
    for (size_t path = 0; path < count; ++path)
      for (size_t i : relevant) {
        if (!holds[i][path]) continue;
        OutcomeKey key = KeyOf(findings[i]);
        size_t k = std::find(keys.begin(), keys.end(), key) - keys.begin();
        if (k == keys.size()) {
          keys.push_back(std::move(key));
          on_paths.emplace_back(count, false);
          representative.push_back(i);
        }
        on_paths[k][path] = true;
      }
    // An outcome that holds on some paths only: the pool leaves its findings,
    // and a copy for the pool says on which paths it holds. Each finding of
    // the assumed path is copied (two binaries without a kernel are two
    // findings of one outcome); an outcome of other paths only, once.
    std::vector<std::pair<size_t, size_t>> to_copy;  // (outcome, finding)
    for (size_t k = 0; k < keys.size(); ++k) {
      if (std::count(on_paths[k].begin(), on_paths[k].end(), true) == static_cast<long>(count)) continue;
      if (!on_paths[k][0]) {
        to_copy.emplace_back(k, representative[k]);
        continue;
      }
      for (size_t i : relevant)
        if (holds[i][0] && KeyOf(findings[i]) == keys[k]) to_copy.emplace_back(k, i);
    }
    for (const auto& [k, finding_index] : to_copy) {
      const Finding& of = findings[finding_index];
      std::vector<std::string> where, elsewhere;
      for (size_t path = 0; path < count; ++path) (on_paths[k][path] ? where : elsewhere).push_back(pool.runtimes[path]);
      Finding copy = of;
      copy.pools = {pool.name};
      if (mixed && FailsDecided(of)) {
        Undecided undecided = DescribeUndecided({"pool.runtime"}, facts, pool.name, "", nullptr);
        copy.unknown = true;
        copy.severity = rules::Severity::kWarning;
        copy.predicted_error = std::nullopt;
        copy.missing_facts = std::vector<std::string>{"pool.runtime"};
        copy.missing = undecided.missing;
        const std::string outcome = of.predicted_error ? of.predicted_error->name : of.title;
        for (MissingFact& missing : *copy.missing)
          if (missing.fact == "pool.runtime")
            missing.reason = "it holds with " + JoinOr(where) + " (" + outcome + "), not with " + JoinOr(elsewhere);
        copy.message = "cannot tell whether this applies (" + of.title + "): " + undecided.text + ", and it holds with " +
                       JoinOr(where) + " but not with " + JoinOr(elsewhere) + ". With " + JoinOr(where) + ": " +
                       of.message;
        std::string fix = "To decide it: ";
        for (size_t h = 0; h < undecided.hints.size(); ++h) fix += (h ? "; " : "") + undecided.hints[h];
        copy.fix = fix + ".";
      } else {
        // Every path fails: the assumed path's failure is the verdict's; what
        // only another path meets is said, below an error.
        if (!on_paths[k][0]) copy.severity = std::min(copy.severity, rules::Severity::kWarning);
        copy.message = "With runtime " + JoinOr(where) + " (the fleet names no `runtime:` for this pool; not with " +
                       JoinOr(elsewhere) + "): " + of.message;
      }
      copies[finding_index].push_back(std::move(copy));
    }
    // The pool stays on the findings whose outcome holds on every path.
    for (size_t i : relevant) {
      if (!holds[i][0]) continue;
      size_t k = std::find(keys.begin(), keys.end(), KeyOf(findings[i])) - keys.begin();
      if (std::count(on_paths[k].begin(), on_paths[k].end(), true) == static_cast<long>(count)) continue;
      auto& pools = findings[i].pools;
      pools.erase(std::remove(pools.begin(), pools.end(), pool.name), pools.end());
    }
  }
  // The labels of alternatives leave every finding; findings that held only
  // there, or whose pools all moved to copies, go; equal copies (the same
  // outcome on several pools) merge.
  std::vector<Finding> out;
  std::vector<size_t> copied;  // indexes into `out` of the copies kept
  for (size_t i = 0; i < findings.size(); ++i) {
    Finding& finding = findings[i];
    finding.pools.erase(std::remove_if(finding.pools.begin(), finding.pools.end(), IsAlternativeLabel),
                        finding.pools.end());
    if (!finding.pools.empty()) out.push_back(std::move(finding));
    for (Finding& copy : copies[i]) {
      auto same = std::find_if(copied.begin(), copied.end(), [&](size_t at) { return SameExceptPools(out[at], copy); });
      if (same != copied.end()) {
        out[*same].pools.push_back(copy.pools.front());
        continue;
      }
      copied.push_back(out.size());
      out.push_back(std::move(copy));
    }
  }
  findings = std::move(out);
}

}  // namespace imagelint::analysis::internal
