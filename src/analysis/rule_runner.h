// One rule over one set of facts and one pool: its `let`s, condition and
// templates evaluated into findings. Analyze (analyze.cpp) runs every rule
// over every image variant and pool with one runner per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analysis.h"
#include "imagelint/rules.h"

namespace imagelint::analysis::internal {

// The rule language's variables over `facts`: `facts`, `image`, `env`,
// `cuda`, `binaries` and `frameworks` read where they lie (`facts` must
// outlive the environment); `pool` unknown until a pool is bound.
rules::Environment BaseEnvironment(const nlohmann::json& facts);

class RuleRunner {
 public:
  // `steps_used` is the run's count, shared by the runners of every thread.
  RuleRunner(const rules::FunctionRegistry& functions, const AnalyzeOptions& options, int64_t step_budget,
             std::atomic<int64_t>& steps_used)
      : functions_(functions), options_(options), step_budget_(step_budget), steps_used_(steps_used) {}

  // A new image: what was remembered of the last one's elements is dropped.
  void BeginImage() {
    quiet_.clear();
    quiet_bytes_ = 0;
  }

  // Evaluates one rule in `env` (pool already bound); appends findings.
  // `foreach` is evaluated first (it cannot see `let` names); the `let`
  // bindings, condition and templates then run once per element.
  Status Run(const rules::Rule& rule, const rules::Environment& env, const nlohmann::json& facts,
             std::vector<Finding>& out);

 private:
  // What a `foreach` rule reads, found once per rule.
  struct ForeachPlan {
    // Leading `let`s that read neither the element nor a `let` that does:
    // bound once for every element.
    size_t hoisted = 0;
    // What the list, and the other `let`s and the condition, read from
    // outside the element (the pool's fields, a hoisted `let`...): elements
    // that found nothing under equal reads find nothing again.
    std::vector<rules::Expression::Read> list_reads, element_reads;
    bool remembers = false;  // false when a `let` shadows a name read before it
  };
  const ForeachPlan& PlanOf(const rules::Rule& rule);

  Status RunForeach(const rules::Rule& rule, const rules::Environment& env, const nlohmann::json& facts,
                    std::vector<Finding>& out);
  Status BindLets(const rules::Rule& rule, size_t from, size_t to, rules::Environment& env, rules::EvalTrace& trace);
  // `bound` leading `let`s are bound in `outer` already; `bound_missing`,
  // the missing facts their evaluation met.
  Status RunOnce(const rules::Rule& rule, const rules::Environment& outer, const nlohmann::json& facts,
                 const nlohmann::json* element, std::vector<Finding>& out, size_t bound = 0,
                 const std::vector<std::string>& bound_missing = {});
  Status Unknown(const rules::Rule& rule, const rules::Environment& env, const nlohmann::json& facts,
                 const rules::EvalTrace& trace, std::vector<Finding>& out, const nlohmann::json* element = nullptr);

  const rules::FunctionRegistry& functions_;
  AnalyzeOptions options_;
  int64_t step_budget_;
  std::atomic<int64_t>& steps_used_;
  std::unordered_map<const rules::Rule*, ForeachPlan> plans_;
  // Per rule and reads (RunForeach's key): which elements found nothing.
  // Bounded (keys and element bits, per image): past it (a hostile fleet of
  // distinct pools), elements are evaluated as without the memo.
  static constexpr size_t kMaxQuietBytes = size_t{16} << 20;
  // A rule of the user's whose reads are large values (a `let` building a
  // long list) is evaluated as without the memo rather than kept by them.
  static constexpr size_t kMaxQuietKeyBytes = 16 * 1024;
  std::unordered_map<std::string, std::vector<bool>> quiet_;
  size_t quiet_bytes_ = 0;
  const rules::Environment* run_env_ = nullptr;  // the `env` of the Run under way
};

}  // namespace imagelint::analysis::internal
