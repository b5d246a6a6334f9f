// Typed records to and from JSON by one field list per record. A record
// type `R` has a function found by argument-dependent lookup,
//
//   template <class V, class S> requires Is<S, R>
//   void Visit(V& visit, S& row) { visit("key", row.member); ... }
//
// (IMAGELINT_RECORD_FIELDS below writes it where each key is its member's
// name), and Write(row) / Read<R>(json, subject) walk that list, so a field added
// there is written, read and type-checked alike. What a member's type says:
//   * T: required, always written;
//   * std::optional<T>: left out when empty, may be absent;
//   * Nullable<T> (imagelint/nullable.h): always written (null when empty),
//     absent reads as null.
// Values that are not records, lists, maps or JSON scalars (enums with name
// tables) bring `nlohmann::json WriteValue(const T&)` and
// `void ReadValue(const nlohmann::json&, T&, std::string& problem)` of their
// own, found the same way. Reading is strict: a key the list does not name is
// an error naming its path, so what the reader accepts is what the writer
// emits. Used by the report (src/analysis/report_model.cpp) and the facts
// model (src/facts_model/model_read.cpp, model_write.cpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/field_names.h"
#include "imagelint/nullable.h"
#include "imagelint/result.h"

namespace imagelint::json_record {

// `S` is the record `Record`, const or not (the writer visits const rows).
template <class S, class Record>
concept Is = std::same_as<std::remove_const_t<S>, Record>;

// A record's Visit from its members' names, each the JSON key of its member
// (common/field_names.h): IMAGELINT_RECORD_FIELDS(Record, a, b). The _AFTER
// form first visits a part whose fields sit in the record's own object, with
// no key of their own (the facts model's Provenance, a report ignore entry's
// suppression).
#define IMAGELINT_RECORD_FIELDS(Record, ...)                  \
  template <class V, ::imagelint::json_record::Is<Record> S> \
  void Visit(V& visit, S& row) {                              \
    IMAGELINT_VISIT_FIELDS(visit, row, __VA_ARGS__);          \
  }
#define IMAGELINT_RECORD_FIELDS_AFTER(Record, part, ...)      \
  template <class V, ::imagelint::json_record::Is<Record> S> \
  void Visit(V& visit, S& row) {                              \
    Visit(visit, row.part);                                   \
    IMAGELINT_VISIT_FIELDS(visit, row, __VA_ARGS__);          \
  }

struct AnyVisitor {
  template <class T>
  void operator()(const char*, T&) {}
};
template <class T>
concept Record = requires(AnyVisitor& visit, T& row) { Visit(visit, row); };

// Whether T is Template<...> (std::optional<int> of std::optional).
template <class T, template <class...> class Template>
inline constexpr bool kIsA = false;
template <template <class...> class Template, class... Args>
inline constexpr bool kIsA<Template<Args...>, Template> = true;

template <class T>
inline constexpr bool kIsOptional = kIsA<T, std::optional>;
template <class T>
inline constexpr bool kIsNullable = kIsA<T, Nullable>;
template <class T>
inline constexpr bool kIsList = kIsA<T, std::vector>;
// Maps keyed by text only: a JSON object's keys.
template <class T>
inline constexpr bool kIsMap = false;
template <class T>
inline constexpr bool kIsMap<std::map<std::string, T>> = true;

template <class T>
nlohmann::json Write(const T& value);

// Writes each field of a record into one JSON object.
class FieldWriter {
 public:
  explicit FieldWriter(nlohmann::json& out) : out_(out) {}
  template <class T>
  void operator()(const char* key, const T& value) {
    if constexpr (kIsOptional<T>) {
      if (value) out_[key] = Write(*value);  // unknown: left out
    } else {
      out_[key] = Write(value);  // Nullable: null when empty
    }
  }

 private:
  nlohmann::json& out_;
};

template <class T>
nlohmann::json Write(const T& value) {
  if constexpr (Record<T>) {
    nlohmann::json out = nlohmann::json::object();
    FieldWriter writer(out);
    Visit(writer, value);
    return out;
  } else if constexpr (kIsNullable<T>) {
    return value ? Write(*value) : nlohmann::json(nullptr);
  } else if constexpr (kIsList<T>) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(Write(item));
    return out;
  } else if constexpr (kIsMap<T>) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value) out[key] = Write(item);
    return out;
  } else if constexpr (requires { WriteValue(value); }) {
    return WriteValue(value);
  } else {
    static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, bool> || std::is_same_v<T, int64_t> ||
                      std::is_same_v<T, uint64_t> || std::is_same_v<T, nlohmann::json>,
                  "a record field of a type the writer does not know");
    return value;
  }
}

// Every string of a value through `fn`: the fields of records (by their
// field lists), list items, map keys and values, and the strings of values
// with a hook `void MapValueStrings(T&, F&)` of their own (found as
// WriteValue is). Numbers, booleans and enums are left alone; so is JSON
// kept as written.
template <class T, class F>
void MapStrings(T& value, F& fn);

template <class F>
class StringMapper {
 public:
  explicit StringMapper(F& fn) : fn_(fn) {}
  template <class T>
  void operator()(const char*, T& value) {
    MapStrings(value, fn_);
  }

 private:
  F& fn_;
};

template <class T, class F>
void MapStrings(T& value, F& fn) {
  if constexpr (std::is_same_v<T, std::string>) {
    fn(value);
  } else if constexpr (Record<T>) {
    StringMapper<F> mapper(fn);
    Visit(mapper, value);
  } else if constexpr (requires { MapValueStrings(value, fn); }) {
    MapValueStrings(value, fn);
  } else if constexpr (kIsOptional<T> || kIsNullable<T>) {
    if (value) MapStrings(*value, fn);
  } else if constexpr (kIsList<T>) {
    for (auto& item : value) MapStrings(item, fn);
  } else if constexpr (kIsMap<T>) {
    T mapped;
    for (auto& [key, item] : value) {
      std::string new_key = key;
      fn(new_key);
      MapStrings(item, fn);
      mapped.emplace(std::move(new_key), std::move(item));
    }
    value = std::move(mapped);
  }
}

// The reader's state: the first error wins; later checks become no-ops.
struct Context {
  std::string subject;
  std::optional<Error> error;
  void Fail(const std::string& path, const std::string& message) {
    if (!error) error = MakeError(subject, (path.empty() ? std::string("document") : path) + ": " + message);
  }
};

std::string JsonType(const nlohmann::json& value);

void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, std::string& out);
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, bool& out);
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, uint64_t& out);
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, int64_t& out);
// A value kept as written (an object of someone else's format).
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, nlohmann::json& out);

template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, Nullable<T>& out);
template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, std::vector<T>& out);
template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, std::map<std::string, T>& out);
template <Record T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, T& out);
// A value with a reader of its own (ReadValue, above).
template <class T>
  requires(!Record<T>) && requires(const nlohmann::json& v, T& out, std::string& problem) { ReadValue(v, out, problem); }
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, T& out) {
  std::string problem;
  ReadValue(v, out, problem);
  if (!problem.empty()) ctx.Fail(path, problem);
}

template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, Nullable<T>& out) {
  if (v.is_null()) {
    out = std::nullopt;
    return;
  }
  T value{};
  Parse(ctx, v, path, value);
  out = std::move(value);
}
template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, std::vector<T>& out) {
  if (!v.is_array()) return ctx.Fail(path, "expected a list, got " + JsonType(v));
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size() && !ctx.error; ++i) {
    T item{};
    Parse(ctx, v[i], path + "[" + std::to_string(i) + "]", item);
    out.push_back(std::move(item));
  }
}
template <class T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, std::map<std::string, T>& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out.clear();
  for (auto it = v.begin(); it != v.end() && !ctx.error; ++it) {
    T item{};
    Parse(ctx, it.value(), path + "." + it.key(), item);
    out.emplace(it.key(), std::move(item));
  }
}

// The fields of one JSON object: each field reads one key; Done reports
// the first key nobody asked for.
class Fields {
 public:
  Fields(Context& ctx, const nlohmann::json& value, std::string path)
      : ctx_(ctx), value_(value), path_(std::move(path)) {
    if (!value_.is_object()) ctx_.Fail(path_, "expected an object, got " + JsonType(value_));
  }
  bool ok() const { return !ctx_.error && value_.is_object(); }

  // One field of a record's list: the member's type says how.
  template <class T>
  void operator()(const char* key, T& out) {
    if constexpr (kIsOptional<T>) {
      Opt(key, out);
    } else if constexpr (kIsNullable<T>) {
      Null(key, out);
    } else {
      Req(key, out);
    }
  }
  // The same by hand, for records whose JSON is not a plain field list.
  template <class T>
  void Req(const char* key, T& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return ctx_.Fail(Path(key), "missing");
    Parse(ctx_, *it, Path(key), out);
  }
  template <class T>
  void Opt(const char* key, std::optional<T>& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return;
    T value{};
    Parse(ctx_, *it, Path(key), value);
    out = std::move(value);
  }
  // A Nullable field: a missing key reads as null (older documents).
  template <class T>
  void Null(const char* key, Nullable<T>& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return;
    Parse(ctx_, *it, Path(key), out);
  }
  void Skip(const std::string& key) { seen_.insert(key); }
  const nlohmann::json* Find(const char* key) const {
    if (!value_.is_object()) return nullptr;
    auto it = value_.find(key);
    return it == value_.end() ? nullptr : &*it;
  }
  std::string Path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  void Done() {
    if (!ok()) return;
    for (auto it = value_.begin(); it != value_.end(); ++it)
      if (!seen_.count(it.key())) return ctx_.Fail(Path(it.key()), "unknown field");
  }

 private:
  Context& ctx_;
  const nlohmann::json& value_;
  std::string path_;
  std::set<std::string> seen_;
};

template <Record T>
void Parse(Context& ctx, const nlohmann::json& v, const std::string& path, T& out) {
  Fields f(ctx, v, path);
  Visit(f, out);
  f.Done();
}

// `value` read as a T; errors name `subject` and the field path.
template <class T>
Result<T> Read(const nlohmann::json& value, const std::string& subject, const std::string& path = "") {
  Context ctx{subject, std::nullopt};
  T out{};
  Parse(ctx, value, path, out);
  if (ctx.error) return *ctx.error;
  return out;
}

}  // namespace imagelint::json_record
