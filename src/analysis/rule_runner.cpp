// The rule runner (rule_runner.h): one rule over one set of facts and one
// pool, into findings.
#include "analysis/rule_runner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "analysis/pool_memo.h"
#include "analysis/undecided.h"
#include "common/field_names.h"
#include "common/json.h"

namespace imagelint::analysis::internal {

using nlohmann::json;
using rules::Environment;
using rules::EvalTrace;
using rules::Expression;
using rules::Rule;
using rules::Severity;
using rules::Value;

namespace {

// The facts and their parts are read where they lie (`facts` outlives the
// environment): a copy per image of a 160-binary image's facts cost more
// than judging it, and the entries of `binaries` keep the addresses that
// name them in the pool memo (analysis/pool_memo.h).
void BindPart(Environment& env, const char* name, const json* part) {
  if (part) env.BindRef(name, part);
  else env[name] = Value::Unknown();
}
const json* PartOf(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}


// A JSON value read as an evidence string: text as is, anything else as the
// rule language prints it.
std::string EvidenceText(const json& value) {
  return value.is_string() ? value.get<std::string>() : rules::RenderValue(Value::Of(value));
}
std::optional<int64_t> EvidenceLine(const json& item) {
  auto it = item.find("dockerfile_line");
  if (it == item.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// One evidence item from a rule's evidence list (a path string or a facts
// entry), with the layer resolved to its digest and created_by.
Evidence ResolveEvidence(const json& item, const json& facts) {
  Evidence out;
  if (item.is_string()) {
    out.path = item.get<std::string>();
    return out;
  }
  if (!item.is_object()) {
    out.detail = rules::RenderValue(Value::Of(item));
    return out;
  }
  for (const char* key : {"path", "file", "dir"}) {
    if (item.contains(key) && item[key].is_string()) {
      out.path = item[key].get<std::string>();
      break;
    }
  }
  out.dockerfile_line = EvidenceLine(item);
  if (item.contains("detail")) out.detail = EvidenceText(item["detail"]);
  // A fact the knowledge tables gave without a path (the CUDA of a base
  // image's framework): the table row is the evidence.
  if (!out.path && !out.detail && item.contains("knowledge") && item["knowledge"].is_string())
    out.detail = "knowledge tables, " + item["knowledge"].get<std::string>();
  static const json kNoLayers = json::array();
  const json& layers = facts.contains("image") && facts["image"].is_object() ? ArrayField(facts["image"], "layers")
                                                                               : kNoLayers;
  auto string_of = [](const json& entry, const char* key) -> std::optional<std::string> {
    auto it = entry.find(key);
    if (it == entry.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (item.contains("layer")) {
    const json& layer = item["layer"];
    if (layer.is_number_integer()) {
      const int64_t index = layer.get<int64_t>();
      out.layer = index;
      if (index >= 0 && static_cast<size_t>(index) < layers.size()) {
        const json& entry = layers[static_cast<size_t>(index)];
        out.layer_digest = string_of(entry, "digest");
        out.created_by = string_of(entry, "created_by");
        if (!out.dockerfile_line) out.dockerfile_line = EvidenceLine(entry);
      }
    } else if (layer.is_string()) {
      out.layer_digest = layer.get<std::string>();
      for (size_t i = 0; i < layers.size(); ++i) {
        const json& entry = layers[i];
        if (StringField(entry, "digest") == *out.layer_digest || StringField(entry, "diff_id") == *out.layer_digest) {
          out.layer = static_cast<int64_t>(i);
          out.created_by = string_of(entry, "created_by");
          break;
        }
      }
    }
  }
  if (!out.layer_digest) out.layer_digest = string_of(item, "layer_digest");
  return out;
}

// Adds the steps a trace counted to the run's total when it goes.
struct StepCharge {
  const EvalTrace& trace;
  std::atomic<int64_t>& total;
  ~StepCharge() { total.fetch_add(trace.steps, std::memory_order_relaxed); }
};

Error Tag(const Rule& rule, Error error) {
  error.message = "rule " + rule.id + ": " + error.message;
  if (error.subject.empty()) error.subject = rule.file;
  return error;
}

Finding Base(const Rule& rule) {
  Finding finding;
  finding.rule = rule.id;
  IMAGELINT_COPY_FIELDS(finding, rule, name, title, docs, priority);
  return finding;
}

// Whether `value` is `facts` or one of the parts BaseEnvironment binds:
// the same for every pool of the image.
bool IsFactsPart(const json* value, const json& facts) {
  if (value == &facts) return true;
  if (!facts.is_object()) return false;
  for (const char* key : {"image", "cuda", "binaries", "frameworks"}) {
    auto it = facts.find(key);
    if (it != facts.end() && value == &*it) return true;
  }
  auto image = facts.find("image");
  if (image == facts.end() || !image->is_object()) return false;
  auto env = image->find("env");
  return env != image->end() && value == &*env;
}

// An exact encoding of what `reads` find in `env`, appended to `key`;
// false when a name is not bound (the evaluation then fails as it would) or
// the key would pass `max_bytes`.
bool AppendReads(std::string& key, const std::vector<Expression::Read>& reads, const Environment& env,
                 const json& facts, size_t max_bytes) {
  for (const Expression::Read& read : reads) {
    auto bound = env.Lookup(read.name);
    if (!bound) return false;
    key += read.name;
    key += '.';
    key += read.field;
    key += '\x1f';
    if (bound->unknown) {
      key += '?';
      continue;
    }
    const json& value = *bound->json;
    if (IsFactsPart(&value, facts)) {
      key += 'F';  // the image's own, and its fields: equal for every pool
      continue;
    }
    const json* at = &value;
    if (!read.field.empty()) {
      if (!value.is_object()) {
        key += 'N';
        key += std::to_string(static_cast<int>(value.type()));
        continue;
      }
      auto it = value.find(read.field);
      if (it == value.end()) {
        key += 'A';
        continue;
      }
      at = &*it;
    }
    AppendKeyValue(key, *at);
    if (key.size() > max_bytes) return false;
  }
  return true;
}

}  // namespace

Environment BaseEnvironment(const json& facts) {
  Environment env;
  env.BindRef("facts", &facts);
  const json* image = PartOf(facts, "image");
  BindPart(env, "image", image);
  BindPart(env, "env", image ? PartOf(*image, "env") : nullptr);
  BindPart(env, "cuda", PartOf(facts, "cuda"));
  BindPart(env, "binaries", PartOf(facts, "binaries"));
  BindPart(env, "frameworks", PartOf(facts, "frameworks"));
  env["pool"] = Value::Unknown();
  return env;
}

const RuleRunner::ForeachPlan& RuleRunner::PlanOf(const Rule& rule) {
  auto known = plans_.find(&rule);
  if (known != plans_.end()) return known->second;
  ForeachPlan plan;
  const std::string& element = rule.foreach->first;
  bool shadowed = false;
  for (const auto& [name, expression] : rule.lets) shadowed = shadowed || name == element;
  if (!shadowed) {
    for (const auto& [name, expression] : rule.lets) {
      bool reads_element = false;
      for (const auto& variable : expression.Variables()) reads_element = reads_element || variable.name == element;
      if (reads_element) break;
      ++plan.hoisted;
    }
  }
  plan.list_reads = rule.foreach->second.Reads();
  // The reads of the other `let`s and the condition from outside the element:
  // names of `let`s defined before them are the element's own. A name read
  // before a `let` of that name is defined would be mistaken: not remembered.
  plan.remembers = !shadowed;
  std::vector<std::string> defined = {element};
  auto add = [&](const Expression& expression) {
    for (const Expression::Read& read : expression.Reads()) {
      if (std::find(defined.begin(), defined.end(), read.name) != defined.end()) continue;
      for (size_t i = plan.hoisted; i < rule.lets.size(); ++i)
        if (rule.lets[i].first == read.name) plan.remembers = false;
      if (std::find(plan.element_reads.begin(), plan.element_reads.end(), read) == plan.element_reads.end())
        plan.element_reads.push_back(read);
    }
  };
  for (size_t i = plan.hoisted; i < rule.lets.size(); ++i) {
    add(rule.lets[i].second);
    defined.push_back(rule.lets[i].first);
  }
  add(rule.condition);
  return plans_.emplace(&rule, std::move(plan)).first->second;
}

Status RuleRunner::Run(const Rule& rule, const Environment& env, const json& facts, std::vector<Finding>& out) {
  if (steps_used_.load(std::memory_order_relaxed) > step_budget_) {
    return MakeError(rule.file, "the rules took more than " + std::to_string(step_budget_) +
                                    " evaluation steps in all (imagelint's limit for this run: " +
                                    std::to_string(options_.rule_steps_base) + " plus " +
                                    std::to_string(options_.rule_steps_per_cell) +
                                    " per image and pool, AnalyzeOptions::rule_steps_*); stopped at rule " + rule.id);
  }
  run_env_ = &env;
  if (!rule.foreach) return RunOnce(rule, env, facts, nullptr, out);
  return RunForeach(rule, env, facts, out);
}

Status RuleRunner::RunForeach(const Rule& rule, const Environment& env, const json& facts, std::vector<Finding>& out) {
  EvalTrace trace;
  StepCharge charge{trace, steps_used_};
  // The list and each element are read where they lie (`binaries` inside
  // the facts), not copied for every pool.
  Value slot;
  auto list = rule.foreach->second.EvaluateInPlace(env, functions_, slot, &trace, options_.limits);
  if (!list.ok()) return Tag(rule, list.error());
  if (list->unknown) return Unknown(rule, env, facts, trace, out);
  if (list->json.is_null() || (list->json.is_array() && list->json.empty())) return OkStatus();
  if (!list->json.is_array())
    return MakeErrorAtLine(rule.file, rule.foreach->second.where().line, rule.foreach->second.where().column,
                           "rule " + rule.id + ": 'foreach' needs a list");
  const ForeachPlan& plan = PlanOf(rule);
  // The leading `let`s that do not read the element (`libcuda(facts, pool)`
  // in a rule over binaries) are bound once, and the missing facts they met
  // are each element's as before.
  Environment hoisted(&env);
  EvalTrace hoisted_trace;
  if (plan.hoisted > 0) {
    StepCharge hoisted_charge{hoisted_trace, steps_used_};
    IMAGELINT_TRY(BindLets(rule, 0, plan.hoisted, hoisted, hoisted_trace));
  }
  // An element that found nothing under the same reads (another pool with
  // this GPU and driver) finds nothing again: the rule is a function of them
  // and the element. Only such elements are skipped; findings are made anew
  // for each pool, which they name.
  std::string key;
  std::vector<bool>* quiet = nullptr;
  bool recording = false;
  if (plan.remembers) {
    const void* addresses[] = {&rule, &facts};  // fixed width: no separator needed
    key.reserve(256);
    key.append(reinterpret_cast<const char*>(addresses), sizeof addresses);
    if (AppendReads(key, plan.list_reads, env, facts, kMaxQuietKeyBytes) &&
        (key += '\x1e', AppendReads(key, plan.element_reads, hoisted, facts, kMaxQuietKeyBytes))) {
      auto known = quiet_.find(key);
      if (known != quiet_.end() && known->second.size() == list->json.size()) {
        quiet = &known->second;
      } else if (quiet_bytes_ + key.size() + list->json.size() / 8 <= kMaxQuietBytes) {
        quiet_bytes_ += key.size() + list->json.size() / 8;
        quiet = &quiet_[key];
        quiet->assign(list->json.size(), false);
        recording = true;
      }
    }
  }
  Environment scoped(&hoisted);
  for (size_t i = 0; i < list->json.size(); ++i) {
    if (quiet && !recording && (*quiet)[i]) continue;
    const json& element = list->json[i];
    scoped.BindRef(rule.foreach->first, &element);
    const size_t before = out.size();
    IMAGELINT_TRY(RunOnce(rule, scoped, facts, &element, out, plan.hoisted, hoisted_trace.missing));
    if (recording) (*quiet)[i] = out.size() == before;
  }
  return OkStatus();
}

// Binds the `let`s [from, to) of `rule` in `env`. A `let` whose value lies
// elsewhere (a path into the facts, a per-pool function's kept result) is
// bound by reference, not copied.
Status RuleRunner::BindLets(const Rule& rule, size_t from, size_t to, Environment& env, EvalTrace& trace) {
  for (size_t i = from; i < to; ++i) {
    const auto& [name, expression] = rule.lets[i];
    Value slot;
    auto value = expression.EvaluateInPlace(env, functions_, slot, &trace, options_.limits);
    if (!value.ok()) return Tag(rule, value.error());
    if (value->unknown) env[name] = Value::Unknown();
    else if (&value->json == &slot.json) env[name] = std::move(slot);
    else env.BindRef(name, &value->json);
  }
  return OkStatus();
}

Status RuleRunner::RunOnce(const Rule& rule, const Environment& outer, const json& facts, const json* element,
                           std::vector<Finding>& out, size_t bound, const std::vector<std::string>& bound_missing) {
  Environment env(&outer);  // the rule's `let` names
  EvalTrace trace;
  trace.missing = bound_missing;
  StepCharge charge{trace, steps_used_};
  IMAGELINT_TRY(BindLets(rule, bound, rule.lets.size(), env, trace));
  auto fired = rule.condition.Evaluate(env, functions_, &trace, options_.limits);
  if (!fired.ok()) return Tag(rule, fired.error());
  if (fired->unknown) return Unknown(rule, env, facts, trace, out, element);
  if (!fired->json.is_boolean())
    return MakeErrorAtLine(rule.file, rule.condition.where().line, rule.condition.where().column,
                           "rule " + rule.id + ": the condition must be a boolean");
  if (!fired->json.get<bool>()) return OkStatus();

  Finding finding = Base(rule);
  auto message = rule.message.Render(env, functions_, &trace, options_.limits);
  if (!message.ok()) return Tag(rule, message.error());
  finding.message = std::move(*message);
  if (rule.fix) {
    auto fix = rule.fix->Render(env, functions_, &trace, options_.limits);
    if (!fix.ok()) return Tag(rule, fix.error());
    finding.fix = std::move(*fix);
  }
  Severity severity = rule.severity;
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
    PredictedError predicted;
    predicted.code = prediction.code;
    predicted.name = prediction.name;
    predicted.stage = prediction.stage;
    if (prediction.message) {
      auto text = prediction.message->Render(env, functions_, &trace, options_.limits);
      if (!text.ok()) return Tag(rule, text.error());
      predicted.message = std::move(*text);
    }
    if (prediction.severity) severity = *prediction.severity;
    finding.predicted_error = std::move(predicted);
    break;
  }
  finding.severity = severity;
  if (rule.evidence) {
    auto items = rule.evidence->Evaluate(env, functions_, &trace, options_.limits);
    if (!items.ok()) return Tag(rule, items.error());
    if (!items->unknown && !items->json.is_null()) {
      if (items->json.is_array()) {
        for (const auto& item : items->json) {
          if (finding.evidence.size() >= 50) break;
          if (!item.is_null()) finding.evidence.push_back(ResolveEvidence(item, facts));
        }
      } else {
        finding.evidence.push_back(ResolveEvidence(items->json, facts));
      }
    }
  } else if (element && element->is_object() && element->contains("path")) {
    finding.evidence.push_back(ResolveEvidence(*element, facts));
  }
  out.push_back(std::move(finding));
  return OkStatus();
}

// The condition could not be evaluated: an undecided finding that names
// the missing facts in user terms (undecided.cpp), never a silent pass.
Status RuleRunner::Unknown(const Rule& rule, const Environment& env, const json& facts, const EvalTrace& trace,
                           std::vector<Finding>& out, const json* element) {
  if (rule.on_unknown == rules::OnUnknown::kIgnore) return OkStatus();
  Severity severity = rule.on_unknown == rules::OnUnknown::kNote ? Severity::kNote : Severity::kWarning;
  severity = std::min(severity, rule.severity);
  std::string pool;
  // The pool a `let` of the rule binds to a value of its own, else the one
  // the rule runs on (bound by reference over the image's facts).
  std::optional<Environment::Bound> bound;
  for (const Environment* level = &env; level != nullptr && level != run_env_; level = level->parent()) {
    const std::map<std::string, Value, std::less<>>& names = *level;
    if (auto it = names.find("pool"); it != names.end()) {
      bound = Environment::Bound{it->second.unknown, &it->second.json};
      break;
    }
  }
  if (!bound && run_env_ != nullptr) bound = run_env_->Lookup("pool");
  if (bound && !bound->unknown && bound->json->is_object()) pool = bound->json->value("name", "");
  internal::Undecided undecided = internal::DescribeUndecided(
      trace.missing, facts, pool, rule.foreach ? rule.foreach->first : std::string(), element);
  Finding finding = Base(rule);
  finding.message = "cannot tell whether this applies (" + rule.title + "): " + undecided.text;
  finding.severity = severity;
  finding.unknown = true;
  finding.missing_facts = trace.missing;
  finding.missing = std::move(undecided.missing);
  if (!undecided.hints.empty()) {
    std::string fix = "To decide it: ";
    for (size_t i = 0; i < undecided.hints.size(); ++i) fix += (i ? "; " : "") + undecided.hints[i];
    finding.fix = fix + ".";
  }
  if (element && element->is_object() && element->contains("path"))
    finding.evidence.push_back(ResolveEvidence(*element, facts));
  for (auto& item : undecided.evidence) finding.evidence.push_back(std::move(item));
  out.push_back(std::move(finding));
  return OkStatus();
}

}  // namespace imagelint::analysis::internal
