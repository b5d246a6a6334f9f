// WriteFacts: the one writer of imagelint.facts/v1 (include/imagelint/facts.h).
// Records are written by walking their field lists (fields.h): std::optional
// fields are left out when empty, Nullable fields are written as null;
// docs/facts-schema.json describes the result.
#include "facts_model/fields.h"
#include "imagelint/facts.h"

namespace imagelint::facts {
namespace {

using nlohmann::json;

template <class T>
json ToJson(const T& value);

// Known: true, false or "partial".
json KnownToJson(Known value) {
  switch (value) {
    case Known::kYes: return true;
    case Known::kPartial: return "partial";
    case Known::kNo: break;
  }
  return false;
}

// Change: the removed row, with "fact" naming the list it left.
json ChangeToJson(const Change& value) {
  json out = {{"dockerfile_line", value.dockerfile_line}};
  if (value.by) out["by"] = *value.by;
  std::visit(
      [&](const auto& row) {
        using Row = std::decay_t<decltype(row)>;
        out["fact"] = std::is_same_v<Row, Runtime> ? "cuda.runtimes"
                      : std::is_same_v<Row, Driver> ? "cuda.drivers"
                                                    : "frameworks";
        out["removed"] = ToJson(row);
      },
      value.removed);
  return out;
}

// Writes each field of a record into one JSON object.
class FieldWriter {
 public:
  explicit FieldWriter(json& out) : out_(out) {}
  template <class T>
  void operator()(const char* key, const T& value) {
    if constexpr (fields::kIsOptional<T>) {
      if (value) out_[key] = ToJson(*value);  // unknown: left out
    } else {
      out_[key] = ToJson(value);  // Nullable: null when empty
    }
  }

 private:
  json& out_;
};

template <class T>
json ToJson(const T& value) {
  if constexpr (fields::Record<const T>) {
    json out = json::object();
    FieldWriter writer(out);
    fields::Visit(writer, value);
    return out;
  } else if constexpr (fields::kIsNullable<T>) {
    return value ? ToJson(*value) : json(nullptr);
  } else if constexpr (fields::kIsList<T>) {
    json out = json::array();
    for (const auto& item : value) out.push_back(ToJson(item));
    return out;
  } else if constexpr (fields::kIsMap<T>) {
    json out = json::object();
    for (const auto& [key, item] : value) out[key] = ToJson(item);
    return out;
  } else if constexpr (std::is_same_v<T, Known>) {
    return KnownToJson(value);
  } else if constexpr (std::is_same_v<T, Change>) {
    return ChangeToJson(value);
  } else if constexpr (std::is_same_v<T, Requirements>) {
    return WriteRequirements(value);
  } else {
    static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, bool> || std::is_same_v<T, int64_t> ||
                      std::is_same_v<T, uint64_t> || std::is_same_v<T, json>,
                  "a facts field of a type the writer does not know");
    return value;
  }
}

}  // namespace

json WriteRequirements(const Requirements& value) {
  json out = json::object();
  for (const auto& [name, text] : value.variables) out[name] = text;
  out["disabled"] = value.disabled;
  if (value.legacy) {
    out["legacy"] = *value.legacy;
    out["legacy_cuda_version"] = value.legacy_cuda_version ? json(*value.legacy_cuda_version) : json(nullptr);
  }
  FieldWriter writer(out);
  writer("legacy_cuda_version_invalid", value.legacy_cuda_version_invalid);
  writer("provenance", value.provenance);
  writer("complete", value.complete);
  return out;
}

json WriteFacts(const Facts& facts) {
  json out = {{"schema", kSchemaName}};
  FieldWriter writer(out);
  fields::Visit(writer, facts);
  return out;
}

}  // namespace imagelint::facts
