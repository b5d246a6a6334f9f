// The scalar readers of json_record.h.
#include "common/json_record.h"

namespace imagelint::json_record {

using nlohmann::json;

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
void Parse(Context& ctx, const json& v, const std::string& path, json& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out = v;
}

}  // namespace imagelint::json_record
