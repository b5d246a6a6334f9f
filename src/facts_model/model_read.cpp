// ReadFacts: the one reader of imagelint.facts/v1 (include/imagelint/facts.h).
// Records are read by walking their field lists (fields.h), the writer's too,
// with the reader of common/json_record.h. Every field is type-checked
// against the model; the first problem becomes an Error naming the field
// path ("cuda.drivers[0].version: expected a string or null"). Unknown fields
// are errors too: what the reader accepts is what the writer emits
// (docs/facts-schema.json).
#include <set>

#include "common/enum_names.h"
#include "common/json_record.h"
#include "facts_model/fields.h"
#include "imagelint/facts.h"

namespace imagelint::facts {

using json_record::Context;
using json_record::Fields;
using json_record::JsonType;
using nlohmann::json;

// The records and values whose JSON is not a plain field list: found by
// json_record's reader through argument-dependent lookup, so they are
// declared here, in the records' namespace.
static void Parse(Context& ctx, const json& v, const std::string& path, Known& out) {
  if (v.is_boolean()) {
    out = v.get<bool>() ? Known::kYes : Known::kNo;
  } else if (v == "partial") {
    out = Known::kPartial;
  } else {
    ctx.Fail(path, "expected true, false or \"partial\", got " + JsonType(v));
  }
}
static void ReadValue(const json& v, BaseKind& out, std::string& problem) {
  ReadNamed<BaseKind>(v, out, problem, &ParseBaseKind,
                      "\"nvidia/cuda\", \"pytorch/pytorch\", \"ngc\", \"l4t\", \"cuda-application\", \"no-cuda\", "
                      "\"scratch\" or \"unknown\"");
}
static void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out);
static void Parse(Context& ctx, const json& v, const std::string& path, Change& out);
static void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out);  // its fields, then the workload's values

static void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out) {
  Fields f(ctx, v, path);
  Visit(f, out);
  if (f.ok() && out.workload != "nvidia" && out.workload != "rocm" && out.workload != "none")
    ctx.Fail(f.Path("workload"), "expected \"nvidia\", \"rocm\" or \"none\", got \"" + out.workload.substr(0, 64) + "\"");
  f.Done();
}

static void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out) {
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

static void Parse(Context& ctx, const json& v, const std::string& path, Change& out) {
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
static Result<T> ReadPart(const json& value, const std::string& path) {
  return json_record::Read<T>(value, "", path);
}

Result<Facts> ReadFacts(const json& document, const std::string& subject) {
  Context ctx{subject, std::nullopt};
  Facts out;
  Fields f(ctx, document, "");
  std::string schema;
  f.Req("schema", schema);
  if (!ctx.error && schema != kSchemaName)
    ctx.Fail("schema", "expected \"" + std::string(kSchemaName) + "\", got \"" + schema.substr(0, 64) + "\"");
  Visit(f, out);
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
