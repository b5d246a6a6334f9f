// Lexer and recursive-descent parser of the rule language
// (grammar: docs/rule-language.md). Errors carry the rule file's
// line:column; recursion depth and token count are bounded because rule
// files from `--rules` are input like any other.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "imagelint/rules.h"
#include "common/json.h"
#include "rules/ast.h"

namespace imagelint::rules {
namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxTokens = 4096;
// The evaluator recurses once per level of the tree; left-associative chains
// (`a - b - c …`, `x.a.b …`, `p or q or …`) are built by loops, not by the
// parser's recursion, so kMaxDepth alone does not bound the tree's height.
constexpr int kMaxHeight = 256;

// The tree's height, without recursion (the tree is what is being bounded).
int Height(const Node& root) {
  int height = 0;
  std::vector<std::pair<const Node*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    auto [node, level] = stack.back();
    stack.pop_back();
    height = std::max(height, level);
    for (const auto& child : node->children)
      if (child) stack.emplace_back(child.get(), level + 1);
  }
  return height;
}

enum class Tok { kEnd, kIdent, kNumber, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, punctuation, or decoded string
  nlohmann::json number;
  size_t offset = 0;
};

// The line and column in the rule file of a byte offset of an expression or
// template `text` that starts at `where` (its later lines start at
// where.continuation_column). The newlines are found once: every node of an
// expression asks, and a scan from the start for each was quadratic.
class TextLines {
 public:
  TextLines(std::string_view text, const SourceLocation& where)
      : line_(where.line > 0 ? where.line : 1),
        column_(where.column > 0 ? where.column : 1),
        continuation_column_(where.continuation_column),
        size_(text.size()) {
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }

  std::pair<int, int> Locate(size_t offset) const {
    const size_t end = std::min(offset, size_);
    const size_t before = std::lower_bound(newlines_.begin(), newlines_.end(), end) - newlines_.begin();
    if (before == 0) return {line_, column_ + static_cast<int>(offset)};
    const size_t line_start = newlines_[before - 1] + 1;
    return {line_ + static_cast<int>(before), continuation_column_ + static_cast<int>(offset - line_start)};
  }

 private:
  int line_, column_, continuation_column_;
  size_t size_;
  std::vector<size_t> newlines_;  // offsets of the text's newlines
};

class Parser {
 public:
  Parser(std::string_view text, const SourceLocation& where) : text_(text), where_(where), lines_(text, where) {}

  Result<NodePtr> Run() {
    IMAGELINT_TRY(Lex());
    auto root = ParseExpr(0);
    if (!root.ok()) return root.error();
    if (Peek().kind != Tok::kEnd) return ErrorAt(Peek(), "unexpected '" + Describe(Peek()) + "' after the expression");
    return root;
  }

  // line/column in the rule file of a byte offset in the expression text.
  std::pair<int, int> Locate(size_t offset) const { return lines_.Locate(offset); }


 private:
  Error ErrorAtOffset(size_t offset, const std::string& message) const {
    auto [line, column] = Locate(offset);
    return MakeErrorAtLine(where_.file, line, column, message);
  }
  Error ErrorAt(const Token& token, const std::string& message) const {
    return ErrorAtOffset(token.offset, message);
  }
  static std::string Describe(const Token& token) {
    switch (token.kind) {
      case Tok::kEnd: return "end of expression";
      case Tok::kString: return "\"" + token.text + "\"";
      case Tok::kNumber: return DumpJson(token.number);
      default: return token.text;
    }
  }

  Status Lex() {
    size_t i = 0;
    while (i < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      if (std::isspace(c)) {
        ++i;
        continue;
      }
      if (c == '#') {  // comment to end of line
        while (i < text_.size() && text_[i] != '\n') ++i;
        continue;
      }
      if (tokens_.size() >= kMaxTokens) return ErrorAtOffset(i, "expression too long (more than 4096 tokens)");
      Token token;
      token.offset = i;
      if (std::isalpha(c) || c == '_') {
        size_t start = i;
        while (i < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) ++i;
        token.kind = Tok::kIdent;
        token.text = std::string(text_.substr(start, i - start));
      } else if (std::isdigit(c)) {
        size_t start = i;
        bool is_float = false;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
        if (i + 1 < text_.size() && text_[i] == '.' && std::isdigit(static_cast<unsigned char>(text_[i + 1]))) {
          is_float = true;
          ++i;
          while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
          if (i < text_.size() && text_[i] == '.')
            return ErrorAtOffset(start, "a version must be written as a string: \"" +
                                            std::string(text_.substr(start, i - start)) + "...\"");
        }
        std::string digits(text_.substr(start, i - start));
        token.kind = Tok::kNumber;
        if (is_float) {
          token.number = std::stod(digits);
        } else {
          int64_t value = 0;
          auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
          if (ec != std::errc()) return ErrorAtOffset(start, "number out of range: " + digits);
          token.number = value;
        }
      } else if (c == '"' || c == '\'') {
        char quote = static_cast<char>(c);
        ++i;
        std::string decoded;
        bool closed = false;
        while (i < text_.size()) {
          char ch = text_[i];
          if (ch == quote) {
            closed = true;
            ++i;
            break;
          }
          if (ch == '\\') {
            if (i + 1 >= text_.size()) break;
            char esc = text_[i + 1];
            switch (esc) {
              case 'n': decoded += '\n'; break;
              case 't': decoded += '\t'; break;
              case '\\': decoded += '\\'; break;
              case '"': decoded += '"'; break;
              case '\'': decoded += '\''; break;
              default: return ErrorAtOffset(i, std::string("unknown escape \\") + esc);
            }
            i += 2;
            continue;
          }
          if (ch == '\n') break;
          decoded += ch;
          ++i;
        }
        if (!closed) return ErrorAtOffset(token.offset, "unterminated string");
        token.kind = Tok::kString;
        token.text = std::move(decoded);
      } else {
        static const char* const kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
        token.kind = Tok::kPunct;
        bool matched = false;
        for (const char* op : kTwo) {
          if (text_.substr(i, 2) == op) {
            token.text = op;
            i += 2;
            matched = true;
            break;
          }
        }
        if (!matched) {
          static const std::string kOne = "()[],.:<>+-!";
          if (kOne.find(static_cast<char>(c)) == std::string::npos) {
            if (c == '=') return ErrorAtOffset(i, "'=' is not an operator; compare with '=='");
            return ErrorAtOffset(i, std::string("unexpected character '") + static_cast<char>(c) + "'");
          }
          token.text = std::string(1, static_cast<char>(c));
          ++i;
        }
      }
      tokens_.push_back(std::move(token));
    }
    Token end;
    end.offset = text_.size();
    tokens_.push_back(end);
    return OkStatus();
  }

  const Token& Peek(size_t ahead = 0) const {
    size_t index = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[index];
  }
  Token Next() {
    Token token = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return token;
  }
  bool IsPunct(const char* text, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kPunct && Peek(ahead).text == text;
  }
  bool IsKeyword(const char* word, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kIdent && Peek(ahead).text == word;
  }
  Status Expect(const char* punct, const std::string& context) {
    if (!IsPunct(punct)) return ErrorAt(Peek(), std::string("expected '") + punct + "' " + context + ", found '" + Describe(Peek()) + "'");
    Next();
    return OkStatus();
  }

  std::shared_ptr<Node> MakeNode(NodeKind kind, const Token& at) const {
    auto node = std::make_shared<Node>();
    node->kind = kind;
    auto [line, column] = Locate(at.offset);
    node->line = line;
    node->column = column;
    return node;
  }

  Status CheckDepth(int depth) const {
    if (depth > kMaxDepth) return ErrorAt(Peek(), "expression nested too deeply (more than 64 levels)");
    return OkStatus();
  }

  // expr := or [ "if" ... ] ; conditional: if C then A else B
  Result<NodePtr> ParseExpr(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    if (IsKeyword("if")) {
      Token at = Next();
      auto condition = ParseExpr(depth + 1);
      if (!condition.ok()) return condition.error();
      if (!IsKeyword("then")) return ErrorAt(Peek(), "expected 'then' after the condition of 'if'");
      Next();
      auto then_branch = ParseExpr(depth + 1);
      if (!then_branch.ok()) return then_branch.error();
      if (!IsKeyword("else")) return ErrorAt(Peek(), "expected 'else' in 'if ... then ... else ...'");
      Next();
      auto else_branch = ParseExpr(depth + 1);
      if (!else_branch.ok()) return else_branch.error();
      auto node = MakeNode(NodeKind::kConditional, at);
      node->children = {*condition, *then_branch, *else_branch};
      return NodePtr(node);
    }
    return ParseOr(depth);
  }

  Result<NodePtr> ParseOr(int depth) { return ParseLogical(depth, NodeKind::kOr, "or", "||", &Parser::ParseAnd); }
  Result<NodePtr> ParseAnd(int depth) { return ParseLogical(depth, NodeKind::kAnd, "and", "&&", &Parser::ParseNot); }

  // One left-associative level `a OP b OP c`, OP spelled as a keyword or as
  // punctuation; the operands are parsed by the next level down.
  Result<NodePtr> ParseLogical(int depth, NodeKind kind, const char* keyword, const char* punct,
                               Result<NodePtr> (Parser::*operand)(int)) {
    IMAGELINT_TRY(CheckDepth(depth));
    auto left = (this->*operand)(depth);
    if (!left.ok()) return left;
    NodePtr result = *left;
    while (IsKeyword(keyword) || IsPunct(punct)) {
      Token at = Next();
      auto right = (this->*operand)(depth);
      if (!right.ok()) return right;
      auto node = MakeNode(kind, at);
      node->children = {result, *right};
      result = node;
    }
    return result;
  }

  // A prefix operator (`not x`, `-x`) at the next token: the operand, read
  // by `operand` one level deeper, under a `kind` node.
  Result<NodePtr> ParsePrefixed(NodeKind kind, int depth, Result<NodePtr> (Parser::*operand)(int)) {
    Token at = Next();
    auto child = (this->*operand)(depth + 1);
    if (!child.ok()) return child;
    auto node = MakeNode(kind, at);
    node->children = {*child};
    return NodePtr(node);
  }

  Result<NodePtr> ParseNot(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    if (IsKeyword("not") || IsPunct("!")) return ParsePrefixed(NodeKind::kNot, depth, &Parser::ParseNot);
    return ParseComparison(depth);
  }

  Result<NodePtr> ParseComparison(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    auto left = ParseAdditive(depth);
    if (!left.ok()) return left;
    static const std::set<std::string> kOps = {"==", "!=", "<", "<=", ">", ">="};
    if (Peek().kind == Tok::kPunct && kOps.count(Peek().text)) {
      Token at = Next();
      auto right = ParseAdditive(depth);
      if (!right.ok()) return right;
      auto node = MakeNode(NodeKind::kCompare, at);
      node->name = at.text;
      node->children = {*left, *right};
      return NodePtr(node);
    }
    if (IsKeyword("in") || (IsKeyword("not") && IsKeyword("in", 1))) {
      Token at = Peek();
      bool negated = IsKeyword("not");
      Next();
      if (negated) Next();
      auto right = ParseAdditive(depth);
      if (!right.ok()) return right;
      auto node = MakeNode(NodeKind::kIn, at);
      node->negated = negated;
      node->children = {*left, *right};
      return NodePtr(node);
    }
    if (IsKeyword("is")) {
      Token at = Next();
      bool negated = false;
      if (IsKeyword("not")) {
        Next();
        negated = true;
      }
      std::shared_ptr<Node> node;
      if (IsKeyword("unknown")) {
        node = MakeNode(NodeKind::kIsUnknown, at);
      } else if (IsKeyword("known")) {
        node = MakeNode(NodeKind::kIsUnknown, at);
        negated = !negated;
      } else if (IsKeyword("null")) {
        node = MakeNode(NodeKind::kIsNull, at);
      } else {
        return ErrorAt(Peek(), "expected 'unknown', 'known' or 'null' after 'is'");
      }
      Next();
      node->negated = negated;
      node->children = {*left};
      return NodePtr(node);
    }
    return left;
  }

  Result<NodePtr> ParseAdditive(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    auto left = ParseUnary(depth);
    if (!left.ok()) return left;
    NodePtr result = *left;
    while (IsPunct("+") || IsPunct("-")) {
      Token at = Next();
      auto right = ParseUnary(depth);
      if (!right.ok()) return right;
      auto node = MakeNode(at.text == "+" ? NodeKind::kAdd : NodeKind::kSubtract, at);
      node->children = {result, *right};
      result = node;
    }
    return result;
  }

  Result<NodePtr> ParseUnary(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    if (IsPunct("-")) return ParsePrefixed(NodeKind::kNegate, depth, &Parser::ParseUnary);
    return ParsePostfix(depth);
  }

  Result<NodePtr> ParsePostfix(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    auto primary = ParsePrimary(depth);
    if (!primary.ok()) return primary;
    NodePtr result = *primary;
    int chain = 0;
    while (IsPunct(".") || IsPunct("[")) {
      if (++chain > kMaxDepth) return ErrorAt(Peek(), "field access chain too long");
      Token at = Next();
      if (at.text == ".") {
        if (Peek().kind != Tok::kIdent) return ErrorAt(Peek(), "expected a field name after '.'");
        Token field = Next();
        auto node = MakeNode(NodeKind::kField, field);
        node->name = field.text;
        node->text = result->text.empty() ? field.text : result->text + "." + field.text;
        node->children = {result};
        result = node;
      } else {
        auto index = ParseExpr(depth + 1);
        if (!index.ok()) return index;
        IMAGELINT_TRY(Expect("]", "to close the index"));
        auto node = MakeNode(NodeKind::kIndex, at);
        const Node& key = **index;
        std::string key_text = key.kind == NodeKind::kLiteral ? DumpJson(key.value) : "[...]";
        node->text = result->text.empty() ? "" : result->text + "[" + key_text + "]";
        node->children = {result, *index};
        result = node;
      }
    }
    return result;
  }

  Result<NodePtr> ParsePrimary(int depth) {
    IMAGELINT_TRY(CheckDepth(depth));
    const Token& token = Peek();
    switch (token.kind) {
      case Tok::kEnd:
        return ErrorAt(token, "expected a value, found end of expression");
      case Tok::kNumber: {
        Token t = Next();
        auto node = MakeNode(NodeKind::kLiteral, t);
        node->value = t.number;
        return NodePtr(node);
      }
      case Tok::kString: {
        Token t = Next();
        auto node = MakeNode(NodeKind::kLiteral, t);
        node->value = t.text;
        return NodePtr(node);
      }
      case Tok::kPunct: {
        if (IsPunct("(")) {
          Next();
          auto inner = ParseExpr(depth + 1);
          if (!inner.ok()) return inner;
          IMAGELINT_TRY(Expect(")", "to close '('"));
          return inner;
        }
        if (IsPunct("[")) {
          Token at = Next();
          auto node = MakeNode(NodeKind::kList, at);
          if (!IsPunct("]")) {
            while (true) {
              auto element = ParseExpr(depth + 1);
              if (!element.ok()) return element;
              node->children.push_back(*element);
              if (IsPunct(",")) {
                Next();
                if (IsPunct("]")) break;  // trailing comma
                continue;
              }
              break;
            }
          }
          IMAGELINT_TRY(Expect("]", "to close the list"));
          return NodePtr(node);
        }
        return ErrorAt(token, "expected a value, found '" + token.text + "'");
      }
      case Tok::kIdent:
        break;
    }
    Token ident = Next();
    static const std::set<std::string> kReserved = {"and", "or", "not", "in", "is", "then", "else"};
    if (kReserved.count(ident.text)) return ErrorAt(ident, "unexpected keyword '" + ident.text + "'");
    if (ident.text == "true" || ident.text == "false") {
      auto node = MakeNode(NodeKind::kLiteral, ident);
      node->value = ident.text == "true";
      return NodePtr(node);
    }
    if (ident.text == "null") {
      auto node = MakeNode(NodeKind::kLiteral, ident);
      node->value = nullptr;
      return NodePtr(node);
    }
    if (ident.text == "unknown") {
      auto node = MakeNode(NodeKind::kVariable, ident);
      node->name = "unknown";  // the evaluator maps this keyword to Unknown
      node->negated = true;    // marks "the unknown literal"
      return NodePtr(node);
    }
    static const std::set<std::string> kQuantifiers = {"any", "all", "none", "count", "filter", "map", "first"};
    if (kQuantifiers.count(ident.text) && IsPunct("(") && Peek(1).kind == Tok::kIdent && IsKeyword("in", 2)) {
      Next();  // (
      Token var = Next();
      Next();  // in
      auto list = ParseExpr(depth + 1);
      if (!list.ok()) return list;
      IMAGELINT_TRY(Expect(":", "between the list and the predicate of '" + ident.text + "'"));
      auto body = ParseExpr(depth + 1);
      if (!body.ok()) return body;
      IMAGELINT_TRY(Expect(")", "to close '" + ident.text + "('"));
      auto node = MakeNode(NodeKind::kQuantifier, ident);
      node->name = ident.text;
      node->var = var.text;
      node->children = {*list, *body};
      return NodePtr(node);
    }
    if (IsPunct("(")) {
      Next();
      auto node = MakeNode(NodeKind::kCall, ident);
      node->name = ident.text;
      if (!IsPunct(")")) {
        while (true) {
          if (node->children.size() >= 32) return ErrorAt(Peek(), "too many arguments");
          auto argument = ParseExpr(depth + 1);
          if (!argument.ok()) return argument;
          node->children.push_back(*argument);
          if (IsPunct(",")) {
            Next();
            continue;
          }
          break;
        }
      }
      IMAGELINT_TRY(Expect(")", "to close the argument list of '" + ident.text + "'"));
      return NodePtr(node);
    }
    auto node = MakeNode(NodeKind::kVariable, ident);
    node->name = ident.text;
    node->text = ident.text;
    return NodePtr(node);
  }

  std::string_view text_;
  SourceLocation where_;
  TextLines lines_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

void CollectCalls(const Node& node, std::vector<Expression::Call>& calls, bool variables,
                  std::vector<std::string>& bound) {
  if (!variables && node.kind == NodeKind::kCall) calls.push_back({node.name, node.line, node.column});
  if (variables && node.kind == NodeKind::kVariable && !node.negated &&
      std::find(bound.begin(), bound.end(), node.name) == bound.end()) {
    calls.push_back({node.name, node.line, node.column});
  }
  if (node.kind == NodeKind::kQuantifier) {
    CollectCalls(*node.children[0], calls, variables, bound);
    bound.push_back(node.var);
    CollectCalls(*node.children[1], calls, variables, bound);
    bound.pop_back();
    return;
  }
  for (const auto& child : node.children) CollectCalls(*child, calls, variables, bound);
}

void CollectReads(const Node& node, std::vector<Expression::Read>& reads, std::vector<std::string>& bound) {
  auto free = [&](const Node& n) {
    return n.kind == NodeKind::kVariable && !n.negated && std::find(bound.begin(), bound.end(), n.name) == bound.end();
  };
  auto add = [&](Expression::Read read) {
    if (std::find(reads.begin(), reads.end(), read) == reads.end()) reads.push_back(std::move(read));
  };
  if (node.kind == NodeKind::kField && !node.children.empty() && free(*node.children[0])) {
    add({node.children[0]->name, node.name});
    return;
  }
  if (free(node)) {
    add({node.name, ""});
    return;
  }
  if (node.kind == NodeKind::kQuantifier) {
    CollectReads(*node.children[0], reads, bound);
    bound.push_back(node.var);
    CollectReads(*node.children[1], reads, bound);
    bound.pop_back();
    return;
  }
  for (const auto& child : node.children) CollectReads(*child, reads, bound);
}

}  // namespace

std::vector<Expression::Read> Expression::Reads() const {
  std::vector<Read> reads;
  std::vector<std::string> bound;
  if (root_) CollectReads(*root_, reads, bound);
  return reads;
}

Result<Expression> Expression::Parse(std::string_view text, const SourceLocation& where) {
  Parser parser(text, where);
  auto root = parser.Run();
  if (!root.ok()) return root.error();
  if (*root && Height(**root) > kMaxHeight)
    return MakeErrorAtLine(where.file, where.line, where.column,
                           "expression nested too deeply (more than " + std::to_string(kMaxHeight) +
                               " levels of operators, fields and calls)");
  Expression expression;
  expression.root_ = *root;
  expression.text_ = std::string(text);
  expression.where_ = where;
  return expression;
}

std::vector<Expression::Call> Expression::Calls() const {
  std::vector<Call> calls;
  std::vector<std::string> bound;
  if (root_) CollectCalls(*root_, calls, false, bound);
  return calls;
}

std::vector<Expression::Call> Expression::Variables() const {
  std::vector<Call> variables;
  std::vector<std::string> bound;
  if (root_) CollectCalls(*root_, variables, true, bound);
  return variables;
}

Result<Template> Template::Parse(std::string_view text, const SourceLocation& where) {
  Template result;
  result.text_ = std::string(text);
  result.where_ = where;
  size_t pos = 0;
  // Template offsets are located as the expression parser's are.
  const TextLines lines(text, where);
  auto locate = [&](size_t offset) {
    SourceLocation at = where;
    std::tie(at.line, at.column) = lines.Locate(offset);
    return at;
  };
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      result.pieces_.push_back({std::string(text.substr(pos)), std::nullopt});
      break;
    }
    if (open > pos) result.pieces_.push_back({std::string(text.substr(pos, open - pos)), std::nullopt});
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      SourceLocation at = locate(open);
      return MakeErrorAtLine(where.file, at.line, at.column, "'{{' without a closing '}}'");
    }
    if (result.pieces_.size() > 256) {
      SourceLocation at = locate(open);
      return MakeErrorAtLine(where.file, at.line, at.column, "too many {{ }} in one template");
    }
    auto expression = Expression::Parse(text.substr(open + 2, close - open - 2), locate(open + 2));
    if (!expression.ok()) return expression.error();
    result.pieces_.push_back({"", std::move(*expression)});
    pos = close + 2;
  }
  return result;
}

std::vector<Expression::Call> Template::Calls() const {
  std::vector<Expression::Call> calls;
  for (const auto& piece : pieces_) {
    if (!piece.expression) continue;
    auto more = piece.expression->Calls();
    calls.insert(calls.end(), more.begin(), more.end());
  }
  return calls;
}

Result<std::string> Template::Render(const Environment& env, const FunctionRegistry& functions, EvalTrace* trace,
                                     const EvalLimits& limits) const {
  std::string out;
  for (const auto& piece : pieces_) {
    if (!piece.expression) {
      out += piece.literal;
    } else {
      auto value = piece.expression->Evaluate(env, functions, trace, limits);
      if (!value.ok()) return value.error();
      out += RenderValue(*value);
    }
    if (out.size() > limits.max_text_bytes) {
      return MakeErrorAtLine(where_.file, where_.line, where_.column,
                             "the rendered text is longer than " + std::to_string(limits.max_text_bytes) +
                                 " bytes (imagelint's limit, EvalLimits::max_text_bytes)");
    }
  }
  return out;
}

}  // namespace imagelint::rules
