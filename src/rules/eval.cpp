// Evaluator of the rule language: JSON values plus "unknown", three-valued
// (Kleene) logic, bounded work per evaluation.
#include <algorithm>
#include <array>
#include <cctype>

#include "imagelint/rules.h"
#include "common/version.h"
#include "common/json.h"
#include "common/json_memory.h"
#include "rules/ast.h"

namespace imagelint::rules {
namespace {

std::string TypeName(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::array: return "list";
    case nlohmann::json::value_t::object: return "object";
    default: return "number";
  }
}

// An argument list taken from (and given back to) this thread's spare ones,
// empty: their storage is reused instead of allocated per call.
struct RecycledArguments {
  RecycledArguments() {
    if (!Spare().empty()) {
      args = std::move(Spare().back());
      Spare().pop_back();
    }
    args.clear();
  }
  ~RecycledArguments() {
    if (Spare().size() < 32) {
      args.clear();
      Spare().push_back(std::move(args));
    }
  }
  RecycledArguments(const RecycledArguments&) = delete;
  RecycledArguments& operator=(const RecycledArguments&) = delete;
  static std::vector<Arguments>& Spare() {
    thread_local std::vector<Arguments> spare = [] {
      std::vector<Arguments> out;
      out.reserve(32);  // giving one back never allocates
      return out;
    }();
    return spare;
  }
  Arguments args;
};

constexpr size_t kInlineSlots = 4;

class Evaluator {
 public:
  Evaluator(const Environment& env, const FunctionRegistry& functions, const SourceLocation& where,
            EvalTrace* trace, const EvalLimits& limits)
      : env_(env), functions_(functions), where_(where), trace_(trace), limits_(limits) {}

  // Expression::EvaluateInPlace: the value of the whole expression, read
  // where it lies when it is a path or a kept function result.
  Result<Argument> InPlace(const Node& node, Value& slot) {
    if (++steps_ > limits_.max_steps) return Fail(node, "evaluation exceeded its step limit");
    if (trace_) ++trace_->steps;
    return Operand(node, slot);
  }

  Result<Value> Eval(const Node& node) {
    if (++steps_ > limits_.max_steps) return Fail(node, "evaluation exceeded its step limit");
    if (trace_) ++trace_->steps;
    switch (node.kind) {
      case NodeKind::kLiteral: return Value::Of(node.value);
      case NodeKind::kList: return Charged(node, List(node));
      case NodeKind::kVariable: return LookUp(node);
      case NodeKind::kField: return Field(node);
      case NodeKind::kIndex: return Index(node);
      case NodeKind::kCall: return Charged(node, Call(node));
      default: return Other(node);
    }
  }

 private:
  // The values an evaluation builds, summed against max_value_bytes.
  Result<Value> Charged(const Node& node, Result<Value> value) {
    if (!value.ok() || value->unknown) return value;
    built_ += EstimateJsonMemory(value->json);
    if (built_ > limits_.max_value_bytes) {
      return Fail(node, "evaluation built more than " + std::to_string(limits_.max_value_bytes >> 20) +
                            " MiB of values (imagelint's limit per evaluation, EvalLimits::max_value_bytes)");
    }
    return value;
  }

  Result<Value> List(const Node& node) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& child : node.children) {
      auto value = Eval(*child);
      if (!value.ok()) return value;
      if (value->unknown) return Value::Unknown();
      list.push_back(std::move(value->json));
    }
    return Value::Of(std::move(list));
  }

  Result<Value> Other(const Node& node) {
    switch (node.kind) {
      case NodeKind::kNot: {
        auto operand = EvalBool(*node.children[0], "not");
        if (!operand.ok()) return operand;
        if (operand->unknown) return operand;
        return Value::Of(!operand->json.get<bool>());
      }
      case NodeKind::kNegate: {
        auto operand = Eval(*node.children[0]);
        if (!operand.ok() || operand->unknown) return operand;
        if (!operand->json.is_number()) return Fail(node, "'-' needs a number, got " + TypeName(operand->json));
        if (operand->json.is_number_float()) return Value::Of(-operand->json.get<double>());
        return Value::Of(-operand->json.get<int64_t>());
      }
      case NodeKind::kAnd:
      case NodeKind::kOr: return Logic(node);
      case NodeKind::kCompare: return Compare(node);
      case NodeKind::kIn: return In(node);
      case NodeKind::kAdd:
      case NodeKind::kSubtract: return Charged(node, Arithmetic(node));
      case NodeKind::kIsUnknown: {
        auto operand = Eval(*node.children[0]);
        if (!operand.ok()) return operand;
        return Value::Of(operand->unknown != node.negated);
      }
      case NodeKind::kIsNull: {
        auto operand = Eval(*node.children[0]);
        if (!operand.ok()) return operand;
        if (operand->unknown) return Value::Unknown();
        return Value::Of(operand->json.is_null() != node.negated);
      }
      case NodeKind::kQuantifier: return Charged(node, Quantifier(node));
      case NodeKind::kConditional: {
        auto condition = EvalBool(*node.children[0], "if");
        if (!condition.ok()) return condition;
        if (condition->unknown) return Value::Unknown();
        return Eval(*node.children[condition->json.get<bool>() ? 1 : 2]);
      }
      default:
        break;  // literals, lists, variables, fields, indexes and calls: Eval
    }
    return Fail(node, "internal: unknown node");
  }

 private:
  Error Fail(const Node& node, const std::string& message) const {
    return MakeErrorAtLine(where_.file, node.line, node.column, message);
  }

  void Missing(const std::string& path) {
    if (!trace_ || path.empty()) return;
    if (trace_->missing.size() < 32 &&
        std::find(trace_->missing.begin(), trace_->missing.end(), path) == trace_->missing.end()) {
      trace_->missing.push_back(path);
    }
  }

  Result<Value> EvalBool(const Node& node, const char* context) {
    auto value = Eval(node);
    if (!value.ok() || value->unknown) return value;
    if (!value->json.is_boolean())
      return Fail(node, std::string("'") + context + "' needs a boolean, got " + TypeName(value->json));
    return value;
  }

  Result<Value> LookUp(const Node& node) {
    if (node.negated) return Value::Unknown();  // the `unknown` literal
    auto found = Variable(node);
    if (!found.ok()) return found.error();
    return found->ToValue();
  }

  // The value bound to a variable: a quantifier's element, else the
  // environment's (an unknown one is a missing fact).
  Result<Argument> Variable(const Node& node) {
    for (auto it = bound_.rbegin(); it != bound_.rend(); ++it)
      if (*it->first == node.name) return Argument{false, *it->second};
    auto found = env_.Lookup(node.name);
    if (!found) return Fail(node, "unknown variable '" + node.name + "'");
    if (found->unknown) Missing(node.name);
    return Argument{found->unknown, *found->json};
  }

  // The value of `node` without copying it where it lies (a path: a variable
  // or a chain of fields over one); anything else is evaluated into `slot`,
  // which must outlive the result.
  Result<Argument> Operand(const Node& node, Value& slot) {
    if (IsPath(node)) {
      auto at = PathOf(node);
      if (!at.ok()) return at.error();
      if (*at == nullptr) return Argument{true, slot.json};  // slot.json is null
      return Argument{false, **at};
    }
    if (node.kind == NodeKind::kCall) {  // a kept result is read where the function keeps it
      if (++steps_ > limits_.max_steps) return Fail(node, "evaluation exceeded its step limit");
      if (trace_) ++trace_->steps;
      auto at = Invoke(node, slot);
      if (!at.ok()) return at.error();
      if (*at == &slot) {
        auto charged = Charged(node, std::move(slot));
        if (!charged.ok()) return charged.error();
        slot = std::move(*charged);
      }
      return Argument{(*at)->unknown, (*at)->json};
    }
    auto value = Eval(node);
    if (!value.ok()) return value.error();
    slot = std::move(*value);
    return Argument{slot.unknown, slot.json};
  }

  // `cuda.runtimes`, `facts.image.env`: a chain of fields over a variable is
  // read where it lies; only the last value is copied (not `cuda` first).
  static bool IsPath(const Node& node) {
    if (node.kind == NodeKind::kVariable) return !node.negated;
    return node.kind == NodeKind::kField && IsPath(*node.children[0]);
  }
  // The JSON at `node` (IsPath); null when it is unknown.
  Result<const nlohmann::json*> PathOf(const Node& node) {
    if (++steps_ > limits_.max_steps) return Fail(node, "evaluation exceeded its step limit");
    if (node.kind == NodeKind::kVariable) {
      auto found = Variable(node);
      if (!found.ok()) return found.error();
      return found->unknown ? nullptr : &found->json;
    }
    auto base = PathOf(*node.children[0]);
    if (!base.ok() || *base == nullptr) return base;
    return FieldOf(node, **base, node.name);
  }

  Result<Value> Field(const Node& node) {
    if (IsPath(node)) {
      auto at = PathOf(node);
      if (!at.ok()) return at.error();
      return *at == nullptr ? Value::Unknown() : Value::Of(**at);
    }
    Value slot;
    auto base = Operand(*node.children[0], slot);
    if (!base.ok()) return base.error();
    if (base->unknown) return Value::Unknown();
    return Member(node, base->json, node.name);
  }

  Result<Value> Member(const Node& node, const nlohmann::json& base, const std::string& key) {
    auto at = FieldOf(node, base, key);
    if (!at.ok()) return at.error();
    return *at == nullptr ? Value::Unknown() : Value::Of(**at);
  }

  // Field `key` of `base`; null (a missing fact) when `base` is null or has no
  // such field.
  Result<const nlohmann::json*> FieldOf(const Node& node, const nlohmann::json& base, const std::string& key) {
    if (base.is_null()) {
      Missing(node.text);
      return nullptr;
    }
    if (!base.is_object()) return Fail(node, "cannot read field '" + key + "' of a " + TypeName(base));
    auto it = base.find(key);
    if (it == base.end()) {
      Missing(node.text);
      return nullptr;
    }
    // A null fact is "known absent", but if the rule ends up undecided it is
    // one of the facts worth naming.
    if (it->is_null()) Missing(node.text);
    return &*it;
  }

  Result<Value> Index(const Node& node) {
    Value base_slot;
    auto base = Operand(*node.children[0], base_slot);
    if (!base.ok()) return base.error();
    if (base->unknown) return Value::Unknown();
    auto key = Eval(*node.children[1]);
    if (!key.ok() || key->unknown) return key;
    if (key->json.is_string()) return Member(node, base->json, key->json.get<std::string>());
    if (!key->json.is_number_integer()) return Fail(node, "an index must be a number or a string");
    if (base->json.is_null()) {
      Missing(node.text);
      return Value::Unknown();
    }
    if (!base->json.is_array() && !base->json.is_string())
      return Fail(node, "cannot index a " + TypeName(base->json) + " with a number");
    int64_t size = base->json.is_array() ? static_cast<int64_t>(base->json.size())
                                         : static_cast<int64_t>(base->json.get_ref<const std::string&>().size());
    int64_t index = key->json.get<int64_t>();
    if (index < 0) index += size;
    if (index < 0 || index >= size) {
      Missing(node.text);
      return Value::Unknown();
    }
    if (base->json.is_string()) return Value::Of(std::string(1, base->json.get_ref<const std::string&>()[index]));
    return Value::Of(base->json[static_cast<size_t>(index)]);
  }

  Result<Value> Logic(const Node& node) {
    bool is_and = node.kind == NodeKind::kAnd;
    const char* name = is_and ? "and" : "or";
    auto left = EvalBool(*node.children[0], name);
    if (!left.ok()) return left;
    // Short circuit: false and _ = false; true or _ = true, even over unknown.
    if (!left->unknown && left->json.get<bool>() != is_and) return left;
    auto right = EvalBool(*node.children[1], name);
    if (!right.ok()) return right;
    if (!right->unknown && right->json.get<bool>() != is_and) return right;
    if (left->unknown || right->unknown) return Value::Unknown();
    return Value::Of(is_and);
  }

  static bool Equal(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
  }

  // Evaluates both operands of a binary node, left first; an error or an
  // unknown operand is the result, else `apply(left, right)`.
  template <typename Apply>
  Result<Value> Binary(const Node& node, Apply apply) {
    Value left_slot, right_slot;
    auto left = Operand(*node.children[0], left_slot);
    if (!left.ok()) return left.error();
    auto right = Operand(*node.children[1], right_slot);
    if (!right.ok()) return right.error();
    if (left->unknown || right->unknown) return Value::Unknown();
    return apply(left->json, right->json);
  }

  Result<Value> Compare(const Node& node) {
    return Binary(node, [&](const nlohmann::json& a, const nlohmann::json& b) { return Order(node, a, b); });
  }

  Result<Value> Order(const Node& node, const nlohmann::json& a, const nlohmann::json& b) {
    const std::string& op = node.name;
    if (op == "==") return Value::Of(Equal(a, b));
    if (op == "!=") return Value::Of(!Equal(a, b));
    if (a.is_null() || b.is_null()) return Value::Unknown();  // ordering against "absent": cannot tell
    int order = 0;
    if (a.is_number() && b.is_number()) {
      double x = a.get<double>(), y = b.get<double>();
      order = x < y ? -1 : (x > y ? 1 : 0);
    } else if (a.is_string() && b.is_string()) {
      auto cmp = CompareVersionStrings(a.get_ref<const std::string&>(), b.get_ref<const std::string&>());
      order = *cmp;
    } else if (a.is_string() && b.is_number()) {
      auto cmp = CompareVersionStrings(a.get_ref<const std::string&>(), RenderValue(Value::Of(b)));
      order = *cmp;
    } else if (a.is_number() && b.is_string()) {
      auto cmp = CompareVersionStrings(RenderValue(Value::Of(a)), b.get_ref<const std::string&>());
      order = *cmp;
    } else {
      return Fail(node, "cannot order a " + TypeName(a) + " and a " + TypeName(b));
    }
    bool result = op == "<" ? order < 0 : op == "<=" ? order <= 0 : op == ">" ? order > 0 : order >= 0;
    return Value::Of(result);
  }

  Result<Value> In(const Node& node) {
    return Binary(node, [&](const nlohmann::json& needle, const nlohmann::json& h) { return Contains(node, needle, h); });
  }

  Result<Value> Contains(const Node& node, const nlohmann::json& needle, const nlohmann::json& h) {
    bool found = false;
    if (h.is_array()) {
      found = std::any_of(h.begin(), h.end(), [&](const nlohmann::json& e) { return Equal(e, needle); });
    } else if (h.is_string()) {
      if (needle.is_null()) return Value::Unknown();  // an absent needle: cannot tell
      if (!needle.is_string()) return Fail(node, "'in' a string needs a string on the left");
      found = h.get_ref<const std::string&>().find(needle.get_ref<const std::string&>()) != std::string::npos;
    } else if (h.is_object()) {
      if (!needle.is_string()) return Fail(node, "'in' an object needs a key string on the left");
      found = h.contains(needle.get<std::string>());
    } else if (h.is_null()) {
      found = false;
    } else {
      return Fail(node, "'in' needs a list, string or object on the right, got " + TypeName(h));
    }
    return Value::Of(found != node.negated);
  }

  Result<Value> Arithmetic(const Node& node) {
    return Binary(node, [&](const nlohmann::json& a, const nlohmann::json& b) { return AddOrSubtract(node, a, b); });
  }

  Result<Value> AddOrSubtract(const Node& node, const nlohmann::json& a, const nlohmann::json& b) {
    bool add = node.kind == NodeKind::kAdd;
    // A null operand is an absent fact (a version nobody pinned), as for
    // ordering: the sum cannot be told, and that is no error in the rule.
    if (a.is_null() || b.is_null()) return Value::Unknown();
    if (a.is_number() && b.is_number()) {
      if (a.is_number_float() || b.is_number_float())
        return Value::Of(add ? a.get<double>() + b.get<double>() : a.get<double>() - b.get<double>());
      int64_t x = a.get<int64_t>(), y = b.get<int64_t>(), r = 0;
      bool overflow = add ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r);
      if (overflow) return Fail(node, "integer overflow");
      return Value::Of(r);
    }
    if (add && a.is_string() && b.is_string()) {
      if (a.get_ref<const std::string&>().size() + b.get_ref<const std::string&>().size() > (1u << 20))
        return Fail(node, "string too long");
      return Value::Of(a.get<std::string>() + b.get<std::string>());
    }
    if (add && a.is_array() && b.is_array()) {
      if (a.size() + b.size() > 100000) return Fail(node, "list too long");
      nlohmann::json joined = a;
      for (const auto& e : b) joined.push_back(e);
      return Value::Of(std::move(joined));
    }
    return Fail(node, std::string("cannot ") + (add ? "add" : "subtract") + " a " + TypeName(a) + " and a " +
                          TypeName(b));
  }

  Result<Value> Quantifier(const Node& node) {
    Value slot;
    auto list = Operand(*node.children[0], slot);
    if (!list.ok()) return list.error();
    if (list->unknown) return Value::Unknown();
    const std::string& kind = node.name;
    const nlohmann::json& items = list->json;  // a list, an object (its values) or null (nothing)
    if (!items.is_array() && !items.is_object() && !items.is_null())
      return Fail(node, "'" + kind + "' needs a list, got " + TypeName(items));
    bool any_true = false, any_false = false, any_unknown = false;
    int64_t count = 0;
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : items) {  // elements are bound where they lie
      bound_.emplace_back(&node.var, &item);
      auto result = Eval(*node.children[1]);
      bound_.pop_back();
      if (!result.ok()) return result;
      if (kind == "map") {
        out.push_back(result->unknown ? nlohmann::json(nullptr) : result->json);
        continue;
      }
      if (!result->unknown && !result->json.is_boolean())
        return Fail(*node.children[1], "the predicate of '" + kind + "' must be a boolean, got " +
                                           TypeName(result->json));
      if (result->unknown) {
        any_unknown = true;
      } else if (result->json.get<bool>()) {
        any_true = true;
        ++count;
        if (kind == "filter") out.push_back(item);
        if (kind == "first") return Value::Of(item);
        if (kind == "any" || kind == "none") break;
      } else {
        any_false = true;
        if (kind == "all") break;
      }
    }
    if (kind == "map" || kind == "filter") return Value::Of(std::move(out));
    if (kind == "count") return Value::Of(count);
    if (kind == "first") return any_unknown ? Value::Unknown() : Value::Of(nullptr);
    if (kind == "any" || kind == "none") {
      if (any_true) return Value::Of(kind == "any");
      if (any_unknown) return Value::Unknown();
      return Value::Of(kind == "none");
    }
    // all
    if (any_false) return Value::Of(false);
    if (any_unknown) return Value::Unknown();
    return Value::Of(true);
  }

  Result<Value> Call(const Node& node) {
    Value slot;
    auto at = Invoke(node, slot);
    if (!at.ok()) return at.error();
    if (*at == &slot) return std::move(slot);
    return **at;
  }

  // Calls the function of `node`: its result where the function keeps it,
  // else in `slot`.
  Result<const Value*> Invoke(const Node& node, Value& slot) {
    const FunctionSpec* spec = functions_.Find(node.name);
    if (!spec) return Fail(node, "unknown function '" + node.name + "'");
    int count = static_cast<int>(node.children.size());
    if (count < spec->min_args || (spec->max_args >= 0 && count > spec->max_args)) {
      std::string expected = spec->min_args == spec->max_args ? std::to_string(spec->min_args)
                             : spec->max_args < 0 ? "at least " + std::to_string(spec->min_args)
                                                  : std::to_string(spec->min_args) + " to " + std::to_string(spec->max_args);
      return Fail(node, "'" + node.name + "' takes " + expected + " argument(s), got " + std::to_string(count));
    }
    // Arguments evaluated here live in `slots` (not resized below: arguments
    // refer into it): on the stack for up to kInlineSlots of them. A call
    // allocated both vectors anew; there is one per pool, rule and call.
    std::array<Value, kInlineSlots> inline_slots;
    std::vector<Value> more_slots;
    Value* slots = inline_slots.data();
    if (node.children.size() > kInlineSlots) {
      more_slots.resize(node.children.size());
      slots = more_slots.data();
    }
    RecycledArguments recycled;
    Arguments& args = recycled.args;
    bool unknown = false;
    for (size_t i = 0; i < node.children.size(); ++i) {
      auto value = Operand(*node.children[i], slots[i]);
      if (!value.ok()) return value.error();
      unknown = unknown || value->unknown || (!spec->accepts_null && value->json.is_null());
      args.push_back(*value);
    }
    if (unknown && !spec->accepts_unknown) {
      slot = Value::Unknown();
      return &slot;
    }
    Result<const Value*> result = &slot;
    if (spec->kept) {
      result = spec->kept(args, slot);
    } else if (auto value = spec->impl(args); value.ok()) {
      slot = std::move(*value);
    } else {
      result = value.error();
    }
    if (!result.ok()) {
      Error error = result.error();
      if (error.line == 0) {
        error.message = node.name + "(): " + error.message;
        if (!error.subject.empty()) error.message = error.subject + ": " + error.message;
        error.subject = where_.file;
        error.line = node.line;
        error.column = node.column;
      }
      return error;
    }
    return result;
  }

  const Environment& env_;
  const FunctionRegistry& functions_;
  SourceLocation where_;
  EvalTrace* trace_;
  EvalLimits limits_;
  int64_t steps_ = 0;
  uint64_t built_ = 0;
  // Quantifier variables, innermost last: names (in the syntax tree) and
  // elements (in the list being walked), neither copied.
  std::vector<std::pair<const std::string*, const nlohmann::json*>> bound_;
};

}  // namespace

Result<Value> Expression::Evaluate(const Environment& env, const FunctionRegistry& functions, EvalTrace* trace,
                                   const EvalLimits& limits) const {
  if (!root_) return MakeError(where_.file, "empty expression");
  Evaluator evaluator(env, functions, where_, trace, limits);
  return evaluator.Eval(*root_);
}

Result<Argument> Expression::EvaluateInPlace(const Environment& env, const FunctionRegistry& functions, Value& slot,
                                             EvalTrace* trace, const EvalLimits& limits) const {
  if (!root_) return MakeError(where_.file, "empty expression");
  Evaluator evaluator(env, functions, where_, trace, limits);
  return evaluator.InPlace(*root_, slot);
}

std::string RenderValue(const Value& value) {
  if (value.unknown) return "unknown";
  const auto& j = value.json;
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "none";
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_float()) {
    return DumpJson(j);
  }
  if (j.is_array()) {
    std::string out;
    for (const auto& element : j) {
      if (!out.empty()) out += ", ";
      out += RenderValue(Value::Of(element));
    }
    return out;
  }
  return DumpJson(j);
}

std::optional<int> CompareVersionStrings(std::string_view a, std::string_view b) {
  return CompareNaturalVersions(a, b);
}

}  // namespace imagelint::rules
