// WriteFacts: the one writer of imagelint.facts/v1 (include/imagelint/facts.h).
// Records are written by walking their field lists (fields.h) with the
// report's writer too (common/json_record.h): std::optional fields are left
// out when empty, Nullable fields are written as null; docs/facts-schema.json
// describes the result. The records whose JSON is not a plain field list
// bring their own WriteValue, found by json_record::Write.
#include "common/json_record.h"
#include "facts_model/fields.h"
#include "imagelint/facts.h"

namespace imagelint::facts {

using nlohmann::json;

// Known: true, false or "partial".
json WriteValue(const Known& value) {
  switch (value) {
    case Known::kYes: return true;
    case Known::kPartial: return "partial";
    case Known::kNo: break;
  }
  return false;
}

json WriteValue(const BaseKind& value) { return std::string(BaseKindName(value)); }

// Change: the removed row, with "fact" naming the list it left.
json WriteValue(const Change& value) {
  json out = {{"dockerfile_line", value.dockerfile_line}};
  if (value.by) out["by"] = *value.by;
  std::visit(
      [&](const auto& row) {
        using Row = std::decay_t<decltype(row)>;
        out["fact"] = std::is_same_v<Row, Runtime> ? "cuda.runtimes"
                      : std::is_same_v<Row, Driver> ? "cuda.drivers"
                                                    : "frameworks";
        out["removed"] = json_record::Write(row);
      },
      value.removed);
  return out;
}

json WriteValue(const Requirements& value) { return WriteRequirements(value); }

json WriteRequirements(const Requirements& value) {
  json out = json::object();
  for (const auto& [name, text] : value.variables) out[name] = text;
  out["disabled"] = value.disabled;
  if (value.legacy) {
    out["legacy"] = *value.legacy;
    out["legacy_cuda_version"] = value.legacy_cuda_version ? json(*value.legacy_cuda_version) : json(nullptr);
  }
  json_record::FieldWriter writer(out);
  writer("legacy_cuda_version_invalid", value.legacy_cuda_version_invalid);
  writer("provenance", value.provenance);
  writer("complete", value.complete);
  return out;
}

json WriteFacts(const Facts& facts) {
  json out = {{"schema", kSchemaName}};
  json_record::FieldWriter writer(out);
  Visit(writer, facts);
  return out;
}

}  // namespace imagelint::facts
