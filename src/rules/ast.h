// Syntax tree of the rule language (private to src/rules/).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace imagelint::rules {

enum class NodeKind {
  kLiteral,     // value
  kList,        // [a, b]
  kVariable,    // name
  kField,       // children[0] . name
  kIndex,       // children[0] [ children[1] ]
  kCall,        // name ( children... )
  kNot,         // not children[0]
  kNegate,      // - children[0]
  kAnd,         // children[0] and children[1]
  kOr,
  kCompare,     // children[0] op children[1]   (op: == != < <= > >=)
  kIn,          // children[0] in children[1]   (negated: not in)
  kAdd,         // + (numbers, strings, lists)
  kSubtract,
  kIsUnknown,   // children[0] is unknown  (negated: is known)
  kIsNull,      // children[0] is null     (negated: is not null)
  kQuantifier,  // name in {any, all, none, count, filter, map, first}: (var in children[0]: children[1])
  kConditional, // if children[0] then children[1] else children[2]
};

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  std::string name;    // variable, field, function, operator, quantifier
  std::string var;     // bound variable of a quantifier
  bool negated = false;
  nlohmann::json value;  // literal
  std::vector<std::shared_ptr<const Node>> children;
  std::string text;    // source text of a field path, for "missing fact" reports
  int line = 0;
  int column = 0;
};

using NodePtr = std::shared_ptr<const Node>;

}  // namespace imagelint::rules
