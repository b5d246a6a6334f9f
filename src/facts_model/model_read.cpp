// ReadFacts: the one reader of imagelint.facts/v1 (include/imagelint/facts.h).
// Records are read by walking their field lists (fields.h), the writer's too.
// Every field is type-checked against the model; the first problem becomes an
// Error naming the field path ("cuda.drivers[0].version: expected a string or
// null"). Unknown fields are errors too: what the reader accepts is what the
// writer emits (docs/facts-schema.json).
#include <set>

#include "facts_model/fields.h"
#include "imagelint/facts.h"

namespace imagelint::facts {
namespace {

using nlohmann::json;

// The first error wins; later checks become no-ops.
struct Context {
  std::string subject;
  std::optional<Error> error;
  void Fail(const std::string& path, const std::string& message) {
    if (!error) error = MakeError(subject, (path.empty() ? std::string("document") : path) + ": " + message);
  }
};

std::string JsonType(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a fractional number";
    default: return "a number";
  }
}

void Parse(Context& ctx, const json& v, const std::string& path, std::string& out) {
  if (!v.is_string()) return ctx.Fail(path, "expected a string, got " + JsonType(v));
  out = v.get<std::string>();
}
void Parse(Context& ctx, const json& v, const std::string& path, bool& out) {
  if (!v.is_boolean()) return ctx.Fail(path, "expected true or false, got " + JsonType(v));
  out = v.get<bool>();
}
void Parse(Context& ctx, const json& v, const std::string& path, uint64_t& out) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    return ctx.Fail(path, "expected a whole number >= 0, got " + JsonType(v));
  out = v.get<uint64_t>();
}
void Parse(Context& ctx, const json& v, const std::string& path, int64_t& out) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return ctx.Fail(path, "expected a whole number, got " + JsonType(v));
  out = v.get<int64_t>();
}
// Driver::note: NVIDIA's JSON, kept as written; it must be an object.
void Parse(Context& ctx, const json& v, const std::string& path, json& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out = v;
}
void Parse(Context& ctx, const json& v, const std::string& path, Known& out) {
  if (v.is_boolean()) {
    out = v.get<bool>() ? Known::kYes : Known::kNo;
  } else if (v == "partial") {
    out = Known::kPartial;
  } else {
    ctx.Fail(path, "expected true, false or \"partial\", got " + JsonType(v));
  }
}

// Records whose JSON is not a plain field list (fields.h).
void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out);
void Parse(Context& ctx, const json& v, const std::string& path, Change& out);
void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out);  // its fields, then the workload's values

template <class T>
void Parse(Context& ctx, const json& v, const std::string& path, Nullable<T>& out) {
  if (v.is_null()) {
    out = std::nullopt;
    return;
  }
  T value{};
  Parse(ctx, v, path, value);
  out = std::move(value);
}
template <class T>
void Parse(Context& ctx, const json& v, const std::string& path, std::vector<T>& out) {
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
void Parse(Context& ctx, const json& v, const std::string& path, std::map<std::string, T>& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out.clear();
  for (auto it = v.begin(); it != v.end() && !ctx.error; ++it) {
    T item{};
    Parse(ctx, it.value(), path + "." + it.key(), item);
    out.emplace(it.key(), std::move(item));
  }
}

// The fields of one JSON object: each Req/Opt reads one key; Done reports
// the first key nobody asked for.
class Fields {
 public:
  Fields(Context& ctx, const json& value, std::string path) : ctx_(ctx), value_(value), path_(std::move(path)) {
    if (!value_.is_object()) ctx_.Fail(path_, "expected an object, got " + JsonType(value_));
  }
  bool ok() const { return !ctx_.error && value_.is_object(); }

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
  // One field of a record's list (fields.h): the member's type says how.
  template <class T>
  void operator()(const char* key, T& out) {
    if constexpr (fields::kIsNullable<T>) {
      Null(key, out);
    } else if constexpr (fields::kIsOptional<T>) {
      Opt(key, out);
    } else {
      Req(key, out);
    }
  }
  void Skip(const std::string& key) { seen_.insert(key); }
  const json* Find(const char* key) const {
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
  const json& value_;
  std::string path_;
  std::set<std::string> seen_;
};

// A record: its field list, then no other key.
template <fields::Record T>
void Parse(Context& ctx, const json& v, const std::string& path, T& out) {
  Fields f(ctx, v, path);
  fields::Visit(f, out);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out) {
  Fields f(ctx, v, path);
  fields::Visit(f, out);
  if (f.ok() && out.workload != "nvidia" && out.workload != "rocm" && out.workload != "none")
    ctx.Fail(f.Path("workload"), "expected \"nvidia\", \"rocm\" or \"none\", got \"" + out.workload.substr(0, 64) + "\"");
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out) {
  Fields f(ctx, v, path);
  f.Req("disabled", out.disabled);
  f.Opt("legacy", out.legacy);
  if (const json* version = f.Find("legacy_cuda_version")) {
    f.Skip("legacy_cuda_version");
    Nullable<std::string> value;
    Parse(ctx, *version, f.Path("legacy_cuda_version"), value);
    out.legacy_cuda_version = value;
  }
  f.Opt("legacy_cuda_version_invalid", out.legacy_cuda_version_invalid);
  f.Opt("provenance", out.provenance);
  f.Opt("complete", out.complete);
  // Every other key is an env variable the runtime reads.
  if (v.is_object())
    for (auto it = v.begin(); it != v.end() && !ctx.error; ++it) {
      static const std::set<std::string> kFixed = {"disabled", "legacy", "legacy_cuda_version",
                                                   "legacy_cuda_version_invalid", "provenance", "complete"};
      if (kFixed.count(it.key()) || !IsRequirementVariable(it.key())) continue;
      f.Skip(it.key());
      Parse(ctx, it.value(), f.Path(it.key()), out.variables[it.key()]);
    }
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Change& out) {
  Fields f(ctx, v, path);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Opt("by", out.by);
  std::string fact;
  f.Req("fact", fact);
  f.Skip("removed");
  const json* removed = f.Find("removed");
  if (f.ok() && removed == nullptr) ctx.Fail(f.Path("removed"), "missing");
  if (f.ok()) {
    std::string at = f.Path("removed");
    if (fact == "cuda.runtimes") {
      Runtime row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else if (fact == "cuda.drivers") {
      Driver row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else if (fact == "frameworks") {
      Framework row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else {
      ctx.Fail(f.Path("fact"), "expected \"cuda.runtimes\", \"cuda.drivers\" or \"frameworks\", got \"" +
                                   fact.substr(0, 64) + "\"");
    }
  }
  f.Done();
}

template <class T>
Result<T> ReadPart(const json& value, const std::string& path) {
  Context ctx;
  T out{};
  Parse(ctx, value, path, out);
  if (ctx.error) return *ctx.error;
  return out;
}

}  // namespace

Result<Facts> ReadFacts(const json& document, const std::string& subject) {
  Context ctx{subject, std::nullopt};
  Facts out;
  Fields f(ctx, document, "");
  std::string schema;
  f.Req("schema", schema);
  if (!ctx.error && schema != kSchemaName)
    ctx.Fail("schema", "expected \"" + std::string(kSchemaName) + "\", got \"" + schema.substr(0, 64) + "\"");
  fields::Visit(f, out);
  f.Done();
  if (ctx.error) return *ctx.error;
  return out;
}

Result<Fatbin> ReadFatbin(const json& value, const std::string& path) { return ReadPart<Fatbin>(value, path); }
Result<Cubin> ReadCubin(const json& value, const std::string& path) { return ReadPart<Cubin>(value, path); }
Result<std::vector<Ptx>> ReadPtxList(const json& value, const std::string& path) {
  return ReadPart<std::vector<Ptx>>(value, path);
}
Result<std::vector<Problem>> ReadProblems(const json& value, const std::string& path) {
  return ReadPart<std::vector<Problem>>(value, path);
}

}  // namespace imagelint::facts
