// The rule language: lexer/parser errors with positions, three-valued logic,
// quantifiers, version comparison, built-in functions, limits.
#include <doctest/doctest.h>

#include "imagelint/rules.h"
#include "support/test_support.h"

using imagelint::rules::Arguments;
using imagelint::rules::BuiltinFunctions;
using imagelint::rules::Environment;
using imagelint::rules::EvalTrace;
using imagelint::rules::Expression;
using imagelint::rules::FunctionRegistry;
using imagelint::rules::FunctionSpec;
using imagelint::rules::SourceLocation;
using imagelint::rules::Template;
using imagelint::rules::Value;
using nlohmann::json;

namespace {

Environment TestEnv() {
  Environment env;
  env["facts"] = Value::Of(json::parse(R"({
    "image": {"env": {"CUDA_VERSION": "11.3.1", "NVIDIA_REQUIRE_CUDA": "cuda>=11.3"}, "architecture": "amd64"},
    "binaries": [
      {"path": "/app/a.so", "sass": ["sm_70", "sm_80"], "ptx": []},
      {"path": "/app/b.so", "sass": ["sm_37"], "ptx": [{"arch": "compute_37", "isa": "7.0"}]}
    ],
    "nothing": null
  })"));
  env["pool"] = Value::Of(json::parse(R"({"name": "p", "driver": "460.67", "compute_capability": "8.6"})"));
  env["missing_pool"] = Value::Unknown();
  return env;
}

// Evaluates `text` in the test environment; returns the value as JSON, or
// the string "<unknown>" for unknown.
json Eval(const std::string& text, FunctionRegistry functions = BuiltinFunctions()) {
  auto expression = Expression::Parse(text);
  REQUIRE_MESSAGE(expression.ok(), text << ": " << imagelint::testing::ErrorText(expression));
  auto value = expression->Evaluate(TestEnv(), functions);
  REQUIRE_MESSAGE(value.ok(), text << ": " << imagelint::testing::ErrorText(value));
  if (value->unknown) return "<unknown>";
  return value->json;
}

std::string ParseError(const std::string& text, SourceLocation where = {"r.yaml", 10, 5, 7}) {
  auto expression = Expression::Parse(text, where);
  REQUIRE_MESSAGE(!expression.ok(), text);
  return expression.error().ToString();
}

std::string EvalError(const std::string& text) {
  auto expression = Expression::Parse(text, {"r.yaml", 3, 12, 1});
  REQUIRE(expression.ok());
  auto value = expression->Evaluate(TestEnv(), BuiltinFunctions());
  REQUIRE_MESSAGE(!value.ok(), text);
  return value.error().ToString();
}

}  // namespace

TEST_CASE("literals, field access and indexing") {
  CHECK(Eval("1") == 1);
  CHECK(Eval("-2 + 5") == 3);
  CHECK(Eval("'a' + \"b\"") == "ab");
  CHECK(Eval("[1, 2,] + [3]") == json::array({1, 2, 3}));
  CHECK(Eval("true") == true);
  CHECK(Eval("null") == nullptr);
  CHECK(Eval("pool.driver") == "460.67");
  CHECK(Eval("facts.image.env.CUDA_VERSION") == "11.3.1");
  CHECK(Eval("facts.image.env[\"NVIDIA_REQUIRE_CUDA\"]") == "cuda>=11.3");
  CHECK(Eval("facts.binaries[1].path") == "/app/b.so");
  CHECK(Eval("facts.binaries[-1].sass[0]") == "sm_37");
}

TEST_CASE("missing facts are unknown, not false, and are reported") {
  CHECK(Eval("pool.brand") == "<unknown>");
  CHECK(Eval("pool.brand == 'geforce'") == "<unknown>");
  CHECK(Eval("pool.brand != 'geforce'") == "<unknown>");
  CHECK(Eval("facts.binaries[7]") == "<unknown>");
  CHECK(Eval("facts.nothing.deeper") == "<unknown>");
  CHECK(Eval("missing_pool.driver") == "<unknown>");
  CHECK(Eval("pool.brand is unknown") == true);
  CHECK(Eval("pool.driver is known") == true);
  CHECK(Eval("pool.brand is not unknown") == false);
  CHECK(Eval("facts.nothing is null") == true);
  CHECK(Eval("known(pool.brand)") == false);
  CHECK(Eval("default(pool.brand, 'n/a')") == "n/a");
  CHECK(Eval("unknown is unknown") == true);
  CHECK(Eval("len(pool.brand)") == "<unknown>");  // functions are not called with unknown arguments

  auto expression = Expression::Parse("pool.brand == 'geforce' and pool.count > 1");
  REQUIRE(expression.ok());
  EvalTrace trace;
  auto value = expression->Evaluate(TestEnv(), BuiltinFunctions(), &trace);
  REQUIRE(value.ok());
  CHECK(value->unknown);
  CHECK(trace.missing == std::vector<std::string>{"pool.brand", "pool.count"});
}

TEST_CASE("three-valued logic: short circuits decide over unknown") {
  CHECK(Eval("false and pool.brand == 'x'") == false);
  CHECK(Eval("pool.brand == 'x' and false") == false);
  CHECK(Eval("pool.brand == 'x' and true") == "<unknown>");
  CHECK(Eval("true or pool.brand == 'x'") == true);
  CHECK(Eval("pool.brand == 'x' or true") == true);
  CHECK(Eval("pool.brand == 'x' or false") == "<unknown>");
  CHECK(Eval("not (pool.brand == 'x')") == "<unknown>");
  CHECK(Eval("not true") == false);
  CHECK(Eval("!false && true || false") == true);
  CHECK(Eval("true or false and false") == true);  // and binds tighter
  CHECK(Eval("if pool.brand == 'x' then 1 else 2") == "<unknown>");
  CHECK(Eval("if pool.driver == '460.67' then 1 else 2") == 1);
}

TEST_CASE("comparisons: numbers, version order, equality across types") {
  CHECK(Eval("pool.driver >= '450.80.02'") == true);
  CHECK(Eval("pool.driver < '460.67.1'") == true);
  CHECK(Eval("'12.10' > '12.9'") == true);
  CHECK(Eval("'535.104.05' == '535.104.5'") == false);  // equality is exact text...
  CHECK(Eval("version_compare('535.104.05', '535.104.5')") == 0);  // ...order is numeric
  CHECK(Eval("'12' <= '12.0.0'") == true);
  CHECK(Eval("'v12.2' >= '12.2'") == true);
  CHECK(Eval("'12.2-rc' < '12.2'") == true);
  CHECK(Eval("pool.compute_capability >= 8") == true);
  CHECK(Eval("3 < 4.5") == true);
  CHECK(Eval("1 == 1.0") == true);
  CHECK(Eval("'1' == 1") == false);
  CHECK(Eval("facts.nothing < 3") == "<unknown>");
}

TEST_CASE("membership") {
  CHECK(Eval("'sm_80' in facts.binaries[0].sass") == true);
  CHECK(Eval("'sm_86' not in facts.binaries[0].sass") == true);
  CHECK(Eval("'cuda' in facts.image.env.NVIDIA_REQUIRE_CUDA") == true);
  CHECK(Eval("'CUDA_VERSION' in facts.image.env") == true);
  CHECK(Eval("'x' in facts.nothing") == false);
  CHECK(Eval("pool.brand in ['geforce', 'titan']") == "<unknown>");
}

TEST_CASE("quantifiers bind a variable and follow three-valued logic") {
  CHECK(Eval("any(b in facts.binaries: 'sm_80' in b.sass)") == true);
  CHECK(Eval("all(b in facts.binaries: 'sm_80' in b.sass)") == false);
  CHECK(Eval("none(b in facts.binaries: b.path == '/x')") == true);
  CHECK(Eval("count(b in facts.binaries: len(b.ptx) == 0)") == 1);
  CHECK(Eval("map(b in facts.binaries: b.path)") == json::array({"/app/a.so", "/app/b.so"}));
  CHECK(Eval("filter(b in facts.binaries: len(b.ptx) > 0)[0].path") == "/app/b.so");
  CHECK(Eval("first(b in facts.binaries: b.path == '/app/b.so').sass") == json::array({"sm_37"}));
  CHECK(Eval("first(b in facts.binaries: b.path == '/nope')") == nullptr);
  CHECK(Eval("any(b in facts.binaries: b.missing == 1)") == "<unknown>");
  CHECK(Eval("any(b in facts.binaries: b.path == '/app/a.so' or b.missing == 1)") == true);
  CHECK(Eval("all(b in []: false)") == true);
  CHECK(Eval("any(b in facts.nothing: true)") == false);
  CHECK(Eval("any(b in pool.brand: true)") == "<unknown>");
  // Nested quantifiers see both variables; the inner one shadows.
  CHECK(Eval("all(b in facts.binaries: any(s in b.sass: starts_with(s, 'sm_')))") == true);
  CHECK(Eval("any(b in facts.binaries: any(b in b.sass: b == 'sm_37'))") == true);
}

TEST_CASE("built-in functions") {
  CHECK(Eval("len(facts.binaries)") == 2);
  CHECK(Eval("lower('GeForce')") == "geforce");
  CHECK(Eval("upper('ab')") == "AB");
  CHECK(Eval("ends_with('/usr/lib/libcuda.so.1', '.so.1')") == true);
  CHECK(Eval("glob('/usr/local/cuda-11.3/compat/libcuda.so.465.19.01', '/usr/local/cuda*/compat/libcuda.so.*')") == true);
  CHECK(Eval("glob('/usr/local/cuda/x/compat/libcuda.so', '/usr/local/cuda*/compat/*')") == false);
  CHECK(Eval("glob('/a/b/c/d', '/a/**/d')") == true);
  CHECK(Eval("split('a:b::c', ':')") == json::array({"a", "b", "", "c"}));
  CHECK(Eval("join(['a', 1, true], '/')") == "a/1/true");
  CHECK(Eval("version_major('465.19.01')") == 465);
  CHECK(Eval("version_major('x')") == nullptr);
  CHECK(Eval("major_minor('11.3.109')") == "11.3");
  CHECK(Eval("major_minor('12')") == "12.0");
  CHECK(Eval("number('12')") == 12);
  CHECK(Eval("number('x')") == nullptr);
  CHECK(Eval("string(3)") == "3");
}

TEST_CASE("more built-ins") {
  CHECK(Eval("keys(facts.image.env)") == json::array({"CUDA_VERSION", "NVIDIA_REQUIRE_CUDA"}));
  CHECK(Eval("unique([1, 2, 1])") == json::array({1, 2}));
  CHECK(Eval("flatten([[1], 2, [3, 4]])") == json::array({1, 2, 3, 4}));
  CHECK(Eval("basename('/a/b.so')") == "b.so");
  CHECK(Eval("dirname('/a/b.so')") == "/a");
  CHECK(Eval("dirname('/b.so')") == "/");
  CHECK(Eval("dirname('b.so')") == ".");
  CHECK(Eval("basename('b.so')") == "b.so");
  CHECK(Eval("ends_with('libcuda.so.1', '.so.1')") == true);
  CHECK(Eval("ends_with('1', '.so.1')") == false);
  CHECK(Eval("starts_with('sm_90a', 'compute_')") == false);
  CHECK(Eval("max(['11.8', '11.10', '11.2'])") == "11.10");
  CHECK(Eval("min([3, 1, 2])") == 1);
  CHECK(Eval("max([])") == nullptr);
  CHECK(Eval("sort(['12.10', '12.9', '12.1'])") == json::array({"12.1", "12.9", "12.10"}));
}

TEST_CASE("registered functions are called with evaluated arguments") {
  FunctionRegistry functions = BuiltinFunctions();
  int calls = 0;
  functions.Register(FunctionSpec{"twice", 1, 1, false, "", [&calls](const Arguments& args)
                                                               -> imagelint::Result<Value> {
                                    ++calls;
                                    return Value::Of(args[0].json.get<int64_t>() * 2);
                                  }});
  functions.Register(FunctionSpec{"boom", 0, 0, false, "", [](const Arguments&) -> imagelint::Result<Value> {
                                    return imagelint::MakeError("", "exploded");
                                  }});
  CHECK(Eval("twice(21)", functions) == 42);
  CHECK(Eval("twice(pool.nothing)", functions) == "<unknown>");
  CHECK(calls == 1);
  CHECK(Eval("false and boom()", functions) == false);  // short circuit: not called

  auto expression = Expression::Parse("1 +\n   boom()", {"r.yaml", 4, 14, 7});
  REQUIRE(expression.ok());
  auto value = expression->Evaluate(TestEnv(), functions);
  REQUIRE(!value.ok());
  CHECK(value.error().ToString() == "r.yaml:5:10: boom(): exploded");
  auto calls_seen = expression->Calls();
  REQUIRE(calls_seen.size() == 1);
  CHECK(calls_seen[0].name == "boom");
  CHECK(calls_seen[0].line == 5);
}

TEST_CASE("parse errors name the rule file line and column") {
  // Single line: column offset from the scalar's column.
  CHECK(ParseError("pool.driver = '1'") == "r.yaml:10:17: '=' is not an operator; compare with '=='");
  CHECK(ParseError("(a and b") == "r.yaml:10:13: expected ')' to close '(', found 'end of expression'");
  // Second line of a block scalar: continuation column.
  CHECK(ParseError("a and\n  b c") == "r.yaml:11:11: unexpected 'c' after the expression");
  CHECK(ParseError("'abc") == "r.yaml:10:5: unterminated string");
  CHECK(ParseError("a ++ b") == "r.yaml:10:8: expected a value, found '+'");
  CHECK(ParseError("a.1") == "r.yaml:10:7: expected a field name after '.'");
  CHECK(ParseError("460.67.1 > 3") == "r.yaml:10:5: a version must be written as a string: \"460.67...\"");
  CHECK(ParseError("x is y") == "r.yaml:10:10: expected 'unknown', 'known' or 'null' after 'is'");
  CHECK(ParseError("any(b in xs b)") == "r.yaml:10:17: expected ':' between the list and the predicate of 'any', found 'b'");
  CHECK(ParseError("if a then b") == "r.yaml:10:16: expected 'else' in 'if ... then ... else ...'");
  CHECK(ParseError("a $ b") == "r.yaml:10:7: unexpected character '$'");
  CHECK(ParseError("") == "r.yaml:10:5: expected a value, found end of expression");
  CHECK(ParseError("'a\\q'") == "r.yaml:10:7: unknown escape \\q");
}

TEST_CASE("evaluation errors carry positions") {
  CHECK(EvalError("nope") == "r.yaml:3:12: unknown variable 'nope'");
  CHECK(EvalError("pool.driver.x") == "r.yaml:3:24: cannot read field 'x' of a string");
  CHECK(EvalError("1 and true") == "r.yaml:3:12: 'and' needs a boolean, got number");
  CHECK(EvalError("true < false") == "r.yaml:3:17: cannot order a boolean and a boolean");
  CHECK(EvalError("nosuch(1)") == "r.yaml:3:12: unknown function 'nosuch'");
  CHECK(EvalError("len(1, 2)") == "r.yaml:3:12: 'len' takes 1 argument(s), got 2");
  CHECK(EvalError("any(b in 3: true)") == "r.yaml:3:12: 'any' needs a list, got number");
  CHECK(EvalError("any(b in [1]: 1)") == "r.yaml:3:26: the predicate of 'any' must be a boolean, got number");
  CHECK(EvalError("9223372036854775807 + 1") == "r.yaml:3:32: integer overflow");
}

TEST_CASE("hostile expressions hit limits instead of the stack") {
  std::string deep(200, '(');
  deep += "1" + std::string(200, ')');
  CHECK(ParseError(deep).find("nested too deeply") != std::string::npos);
  std::string nots;
  for (int i = 0; i < 100; ++i) nots += "not ";
  CHECK(ParseError(nots + "true").find("nested too deeply") != std::string::npos);
  std::string many = "1";
  for (int i = 0; i < 3000; ++i) many += " + 1";
  CHECK(ParseError(many).find("too long") != std::string::npos);
  // Left-associative chains are built by loops: their height is bounded too
  // (a 1,400-term subtraction chain overflowed the evaluator's stack, fuzz_rule_expression).
  std::string chain = "1";
  for (int i = 0; i < 1000; ++i) chain += " - 1";
  CHECK(ParseError(chain).find("nested too deeply") != std::string::npos);
  std::string fields = "facts";
  for (int i = 0; i < 300; ++i) fields += ".a";
  CHECK(ParseError(fields).find("chain too long") != std::string::npos);  // bounded by the parser itself
  std::string fine = "1";
  for (int i = 0; i < 200; ++i) fine += " + 1";
  auto sum = Expression::Parse(fine);
  REQUIRE_MESSAGE(sum.ok(), imagelint::testing::ErrorText(sum));
  CHECK(sum->Evaluate({}, FunctionRegistry{})->json == 201);

  // Nested quantifiers over a big list stop at the step limit.
  Environment env;
  json big = json::array();
  for (int i = 0; i < 2000; ++i) big.push_back(i);
  env["xs"] = Value::Of(big);
  auto expression = Expression::Parse("any(a in xs: any(b in xs: any(c in xs: a + b + c < 0)))");
  REQUIRE(expression.ok());
  auto value = expression->Evaluate(env, BuiltinFunctions());
  REQUIRE(!value.ok());
  CHECK(value.error().message == "evaluation exceeded its step limit");
}

TEST_CASE("templates interpolate expressions") {
  auto tmpl = Template::Parse("driver {{ pool.driver }} on {{pool.name}}, brand {{ pool.brand }}; sass {{ facts.binaries[0].sass }}");
  REQUIRE(tmpl.ok());
  auto text = tmpl->Render(TestEnv(), BuiltinFunctions());
  REQUIRE(text.ok());
  CHECK(*text == "driver 460.67 on p, brand unknown; sass sm_70, sm_80");
  auto bad = Template::Parse("x {{ pool.", {"r.yaml", 2, 10, 1});
  REQUIRE(!bad.ok());
  CHECK(bad.error().ToString() == "r.yaml:2:12: '{{' without a closing '}}'");
  auto bad_inner = Template::Parse("ab {{ 1 + }}", {"r.yaml", 2, 10, 1});
  REQUIRE(!bad_inner.ok());
  CHECK(bad_inner.error().ToString() == "r.yaml:2:20: expected a value, found end of expression");
}

TEST_CASE("natural version comparison") {
  using imagelint::rules::CompareVersionStrings;
  CHECK(*CompareVersionStrings("460.67", "450.80.02") == 1);
  CHECK(*CompareVersionStrings("11.2", "11.10") == -1);
  CHECK(*CompareVersionStrings("12", "12.0.0") == 0);
  CHECK(*CompareVersionStrings("535.104.05", "535.104.5") == 0);
  CHECK(*CompareVersionStrings("99999999999999999999999", "1") == 1);
  CHECK(*CompareVersionStrings("", "0") == 0);
}

TEST_CASE("bytes that are not UTF-8 in literals and values: no exception, ever") {
  // An index literal that is not UTF-8: parsed, and rendered in node text.
  json value;
  CHECK_NOTHROW(value = Eval("facts.image.env['\xff']"));
  CHECK(value == "<unknown>");
  CHECK_NOTHROW(Eval("facts.image.env['caf\xe9'] == 'x\xfe'"));
  std::string error;
  CHECK_NOTHROW(error = ParseError("facts.image.env['\xff'] +"));
  CHECK(error.rfind("r.yaml:", 0) == 0);
  // Values holding such bytes render in messages without throwing.
  Environment env = TestEnv();
  env["odd"] = Value::Of(json{{"path", "caf\xff"}, {"list", {"a\xfe", 1.5}}});
  auto template_ = Template::Parse("{odd} / {odd.list}", {"r.yaml", 1, 1, 1});
  REQUIRE(template_.ok());
  imagelint::Result<std::string> rendered = std::string();
  CHECK_NOTHROW(rendered = template_->Render(env, BuiltinFunctions()));
  CHECK(rendered.ok());
}

TEST_CASE("values read in place: a path is the bound JSON itself, a reference binding reads like a value") {
  Environment env = TestEnv();
  const json& binaries = env.Lookup("facts")->json->at("binaries");
  // `text` read in place with `slot`: where its value lies and whether it is unknown.
  auto in_place = [&env](const std::string& text, Value& slot) {
    auto expression = Expression::Parse(text);
    REQUIRE(expression.ok());
    auto value = expression->EvaluateInPlace(env, BuiltinFunctions(), slot);
    REQUIRE(value.ok());
    return std::make_pair(&value->json, value->unknown);
  };
  Value slot;
  auto [path_json, path_unknown] = in_place("facts.binaries", slot);
  CHECK_FALSE(path_unknown);
  CHECK(path_json == &binaries);  // not a copy
  // A computed value lands in the slot.
  auto [sum_json, sum_unknown] = in_place("len(facts.binaries) + 1", slot);
  CHECK_FALSE(sum_unknown);
  CHECK(sum_json == &slot.json);
  CHECK(slot.json == 3);
  // An absent field is unknown, as Evaluate says.
  Value other;
  CHECK(in_place("facts.image.nope", other).second);
  // A name bound by reference, in a child scope, reads as the value would.
  Environment scoped(&env);
  scoped.BindRef("b", &binaries[1]);
  auto field = Expression::Parse("b.sass[0] + ':' + pool.driver");
  REQUIRE(field.ok());
  auto value = field->Evaluate(scoped, BuiltinFunctions());
  REQUIRE(value.ok());
  CHECK(value->json == "sm_37:460.67");
  CHECK_FALSE(env.Lookup("b").has_value());
}

// What an expression reads of its free variables: a field where the variable
// is only read through it, the whole variable elsewhere; quantifier variables
// are not free.
TEST_CASE("reads: fields of free variables, whole variables, bound names left out") {
  auto reads = [](const std::string& text) {
    auto parsed = Expression::Parse(text);
    REQUIRE(parsed.ok());
    std::vector<std::string> out;
    for (const auto& read : parsed->Reads()) out.push_back(read.name + (read.field.empty() ? "" : "." + read.field));
    return out;
  };
  CHECK(reads("kernels(b, pool.compute_capability, jit).error == 209") ==
        std::vector<std::string>{"b", "pool.compute_capability", "jit"});
  CHECK(reads("pool.driver > '470' and pool.driver < '535'") == std::vector<std::string>{"pool.driver"});
  CHECK(reads("libcuda(facts, pool).kind == pool.runtime") == std::vector<std::string>{"facts", "pool", "pool.runtime"});
  CHECK(reads("any(r in cuda.runtimes: r.version == pool.driver)") == std::vector<std::string>{"cuda.runtimes", "pool.driver"});
  CHECK(reads("cuda.drivers[0].version") == std::vector<std::string>{"cuda.drivers"});  // the field, then indexed
  CHECK(reads("pool['driver']") == std::vector<std::string>{"pool"});  // indexed: whole
  CHECK(reads("unknown").empty());
}
