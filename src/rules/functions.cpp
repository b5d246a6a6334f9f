// The rule language's own functions; knowledge functions are registered by
// src/analysis/ (see docs/rule-language.md for the full list).
#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <tuple>

#include "common/text.h"
#include "imagelint/rules.h"

namespace imagelint::rules {

void FunctionRegistry::Register(FunctionSpec spec) {
  std::string name = spec.name;
  functions_[name] = std::move(spec);
}

const FunctionSpec* FunctionRegistry::Find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, spec] : functions_) names.push_back(name);
  return names;
}

void FunctionRegistry::Merge(const FunctionRegistry& other) {
  for (const auto& [name, spec] : other.functions_) functions_[name] = spec;
}

namespace {

Error ArgError(const std::string& message) { return MakeError("", message); }

}  // namespace

Result<std::string> StringArgument(const Arguments& args, size_t index) {
  if (!args[index].json.is_string())
    return ArgError("argument " + std::to_string(index + 1) + " must be a string");
  return args[index].json.get<std::string>();
}

namespace {

Result<nlohmann::json> ListArg(const Arguments& args, size_t index) {
  const auto& j = args[index].json;
  if (j.is_null()) return nlohmann::json::array();
  if (!j.is_array()) return ArgError("argument " + std::to_string(index + 1) + " must be a list");
  return j;
}

// Shell-style glob: '*' (not across '/' unless the pattern says "**"), '?'.
bool GlobMatch(std::string_view pattern, std::string_view text, int budget = 100000) {
  size_t p = 0, t = 0, star_p = std::string_view::npos, star_t = 0;
  bool star_any = false;
  while (t < text.size()) {
    if (--budget < 0) return false;
    if (p < pattern.size() && pattern[p] == '*') {
      star_any = p + 1 < pattern.size() && pattern[p + 1] == '*';
      p += star_any ? 2 : 1;
      star_p = p;
      star_t = t;
      continue;
    }
    if (p < pattern.size() && (pattern[p] == '?' ? text[t] != '/' : pattern[p] == text[t])) {
      ++p;
      ++t;
      continue;
    }
    if (star_p != std::string_view::npos && (star_any || text[star_t] != '/')) {
      p = star_p;
      t = ++star_t;
      continue;
    }
    return false;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Functions that take lists or any value also accept null (an absent list
// is an empty one); string functions do not (null in, unknown out).
void Add(FunctionRegistry& registry, std::string name, int min_args, int max_args, std::string summary,
         FunctionImpl impl, bool accepts_unknown = false) {
  static const std::set<std::string> kAcceptNull = {"len", "join", "keys", "unique", "flatten", "max", "min",
                                                    "sort", "string", "known", "default", "number", "object"};
  bool accepts_null = accepts_unknown || kAcceptNull.count(name) > 0;
  FunctionSpec spec{std::move(name), min_args, max_args, accepts_unknown, std::move(summary), std::move(impl)};
  spec.accepts_null = accepts_null;
  registry.Register(std::move(spec));
}

// A function of N string arguments: each is checked (in order) before `impl`
// gets them as const std::string&.
template <size_t N, typename Impl>
void AddOnStrings(FunctionRegistry& registry, std::string name, std::string summary, Impl impl) {
  Add(registry, std::move(name), N, N, std::move(summary), [impl](const Arguments& a) -> Result<Value> {
    std::array<std::string, N> strings;
    for (size_t i = 0; i < N; ++i) {
      auto arg = StringArgument(a, i);
      if (!arg.ok()) return arg.error();
      strings[i] = std::move(*arg);
    }
    return std::apply(impl, strings);
  });
}

using Str = const std::string&;

// A function of one list argument (null reads as the empty list): checked
// before `impl` gets it as the JSON array.
template <typename Impl>
void AddOnList(FunctionRegistry& registry, std::string name, std::string summary, Impl impl) {
  Add(registry, std::move(name), 1, 1, std::move(summary), [impl](const Arguments& a) -> Result<Value> {
    auto list = ListArg(a, 0);
    if (!list.ok()) return list.error();
    return impl(*list);
  });
}

using List = const nlohmann::json&;

}  // namespace

FunctionRegistry BuiltinFunctions() {
  FunctionRegistry r;
  Add(r, "len", 1, 1, "length of a list, string or object", [](const Arguments& a) -> Result<Value> {
    const auto& j = a[0].json;
    if (j.is_null()) return Value::Of(0);
    if (j.is_string()) return Value::Of(static_cast<int64_t>(j.get_ref<const std::string&>().size()));
    if (j.is_array() || j.is_object()) return Value::Of(static_cast<int64_t>(j.size()));
    return ArgError("needs a list, string or object");
  });
  AddOnStrings<1>(r, "lower", "lower-case string", [](Str s) -> Result<Value> { return Value::Of(ToLower(s)); });
  AddOnStrings<1>(r, "upper", "upper-case string", [](Str s) -> Result<Value> {
    std::string out = s;
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Value::Of(out);
  });
  AddOnStrings<2>(r, "starts_with", "starts_with(s, prefix)",
                  [](Str s, Str prefix) -> Result<Value> { return Value::Of(StartsWith(s, prefix)); });
  AddOnStrings<2>(r, "ends_with", "ends_with(s, suffix)",
                  [](Str s, Str suffix) -> Result<Value> { return Value::Of(EndsWith(s, suffix)); });
  AddOnStrings<2>(r, "glob", "glob(path, pattern): '*' within a path component, '**' across, '?'",
                  [](Str path, Str pattern) -> Result<Value> { return Value::Of(GlobMatch(pattern, path)); });
  AddOnStrings<2>(r, "split", "split(s, separator) -> list of strings", [](Str s, Str sep) -> Result<Value> {
    if (sep.empty()) return ArgError("empty separator");
    nlohmann::json out = nlohmann::json::array();
    size_t pos = 0;
    while (true) {
      if (out.size() > 100000) return ArgError("too many pieces");
      size_t next = s.find(sep, pos);
      out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
      if (next == std::string::npos) break;
      pos = next + sep.size();
    }
    return Value::Of(std::move(out));
  });
  AddOnStrings<3>(r, "replace", "replace(s, old, new): every occurrence", [](Str s, Str from, Str to) -> Result<Value> {
    if (from.empty()) return ArgError("empty search string");
    std::string out;
    size_t pos = 0;
    while (true) {
      size_t next = s.find(from, pos);
      if (next == std::string::npos) break;
      out += s.substr(pos, next - pos) + to;
      if (out.size() > (1u << 20)) return ArgError("result too long");
      pos = next + from.size();
    }
    out += s.substr(pos);
    return Value::Of(out);
  });
  Add(r, "object", 0, 32, "object(key1, value1, key2, value2...): build an object (evidence items)",
      [](const Arguments& a) -> Result<Value> {
        if (a.size() % 2 != 0) return ArgError("needs key, value pairs");
        nlohmann::json out = nlohmann::json::object();
        for (size_t i = 0; i < a.size(); i += 2) {
          if (!a[i].json.is_string()) return ArgError("keys must be strings");
          out[a[i].json.get<std::string>()] = a[i + 1].json;
        }
        return Value::Of(std::move(out));
      });
  AddOnStrings<1>(r, "trim", "whitespace removed at both ends", [](Str s) -> Result<Value> { return Value::Of(Trim(s)); });
  Add(r, "join", 2, 2, "join(list, separator)", [](const Arguments& a) -> Result<Value> {
    auto list = ListArg(a, 0);
    auto sep = StringArgument(a, 1);
    if (!list.ok()) return list.error();
    if (!sep.ok()) return sep.error();
    std::string out;
    bool first = true;
    for (const auto& e : *list) {
      if (!first) out += *sep;
      first = false;
      out += RenderValue(Value::Of(e));
    }
    return Value::Of(out);
  });
  AddOnStrings<2>(r, "version_compare", "-1, 0 or 1: natural version order (\"12.10\" > \"12.9\")",
                  [](Str x, Str y) -> Result<Value> { return Value::Of(*CompareVersionStrings(x, y)); });
  AddOnStrings<1>(r, "version_major", "first numeric component of a version string (\"460.67\" -> 460)",
      [](Str s) -> Result<Value> {
        std::string_view v = s;
        if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.remove_prefix(1);
        int64_t n = 0;
        size_t i = 0;
        for (; i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && i < 18; ++i) n = n * 10 + (v[i] - '0');
        if (i == 0) return Value::Of(nullptr);
        return Value::Of(n);
      });
  AddOnStrings<1>(r, "major_minor", "\"11.3.109\" -> \"11.3\"", [](Str s) -> Result<Value> {
    size_t first = s.find('.');
    if (first == std::string::npos) return Value::Of(s + ".0");
    size_t second = s.find('.', first + 1);
    return Value::Of(s.substr(0, second));
  });
  Add(r, "number", 1, 1, "parse a number from a string (null if not a number)",
      [](const Arguments& a) -> Result<Value> {
        const auto& j = a[0].json;
        if (j.is_number()) return Value::Of(j);
        if (!j.is_string()) return Value::Of(nullptr);
        const std::string& s = j.get_ref<const std::string&>();
        try {
          size_t used = 0;
          double d = std::stod(s, &used);
          if (used != s.size()) return Value::Of(nullptr);
          if (s.find_first_of(".eE") == std::string::npos) return Value::Of(static_cast<int64_t>(d));
          return Value::Of(d);
        } catch (...) {
          return Value::Of(nullptr);
        }
      });
  Add(r, "string", 1, 1, "render any value as text", [](const Arguments& a) -> Result<Value> {
    return Value::Of(RenderValue(a[0].ToValue()));
  }, true);
  Add(r, "known", 1, 1, "true unless the argument is unknown (a missing fact)",
      [](const Arguments& a) -> Result<Value> { return Value::Of(!a[0].unknown); }, true);
  Add(r, "default", 2, 2, "default(x, y): x, or y when x is unknown or null",
      [](const Arguments& a) -> Result<Value> {
        if (a[0].unknown || a[0].json.is_null()) return a[1].ToValue();
        return a[0].ToValue();
      }, true);
  Add(r, "keys", 1, 1, "keys of an object, sorted", [](const Arguments& a) -> Result<Value> {
    const auto& j = a[0].json;
    if (j.is_null()) return Value::Of(nlohmann::json::array());
    if (!j.is_object()) return ArgError("needs an object");
    nlohmann::json out = nlohmann::json::array();
    for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
    return Value::Of(std::move(out));
  });
  AddOnList(r, "unique", "list without repeated elements (first kept)", [](List list) -> Result<Value> {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : list) {
      if (out.size() > 10000) return ArgError("list too long");
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    }
    return Value::Of(std::move(out));
  });
  AddOnList(r, "flatten", "one level of nested lists flattened", [](List list) -> Result<Value> {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : list) {
      if (e.is_array()) {
        for (const auto& x : e) out.push_back(x);
      } else {
        out.push_back(e);
      }
    }
    return Value::Of(std::move(out));
  });
  AddOnStrings<1>(r, "basename", "last path component", [](Str s) -> Result<Value> { return Value::Of(BaseName(s)); });
  AddOnStrings<1>(r, "dirname", "path without its last component", [](Str s) -> Result<Value> {
    // POSIX dirname(1) for the two cases DirName leaves empty: "x" -> ".", "/x" -> "/".
    if (s.find('/') == std::string::npos) return Value::Of(".");
    std::string dir = DirName(s);
    return Value::Of(dir.empty() ? std::string("/") : dir);
  });
  auto extreme = [](bool want_max) {
    return [want_max](List list) -> Result<Value> {
      std::optional<nlohmann::json> best;
      for (const auto& e : list) {
        if (e.is_null()) continue;
        if (!best) {
          best = e;
          continue;
        }
        int order = 0;
        if (e.is_number() && best->is_number()) {
          order = e.get<double>() < best->get<double>() ? -1 : (e.get<double>() > best->get<double>() ? 1 : 0);
        } else if (e.is_string() && best->is_string()) {
          order = *CompareVersionStrings(e.get<std::string>(), best->get<std::string>());
        } else {
          return ArgError("elements must all be numbers or all be strings");
        }
        if (want_max ? order > 0 : order < 0) best = e;
      }
      return Value::Of(best ? *best : nlohmann::json(nullptr));
    };
  };
  AddOnList(r, "max", "largest element (numbers, or strings in version order); null if empty", extreme(true));
  AddOnList(r, "min", "smallest element (numbers, or strings in version order); null if empty", extreme(false));
  AddOnList(r, "sort", "list sorted (numbers, or strings in version order)", [](List list) -> Result<Value> {
    std::vector<nlohmann::json> items(list.begin(), list.end());
    bool strings = std::all_of(items.begin(), items.end(), [](const auto& e) { return e.is_string(); });
    bool numbers = std::all_of(items.begin(), items.end(), [](const auto& e) { return e.is_number(); });
    if (!strings && !numbers) return ArgError("elements must all be numbers or all be strings");
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
      if (numbers) return x.template get<double>() < y.template get<double>();
      return *CompareVersionStrings(x.template get<std::string>(), y.template get<std::string>()) < 0;
    });
    return Value::Of(nlohmann::json(items));
  });
  return r;
}

}  // namespace imagelint::rules
