#include "common/json.h"

#include "common/bytes_text.h"
#include "common/document_budget.h"

#include <vector>

namespace imagelint {
namespace {

using Json = nlohmann::json;

// nlohmann's DOM builder held to a DocumentBudget (depth and memory), recording
// the first error instead of throwing it.
class BoundedDomBuilder : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  BoundedDomBuilder(Json& root, size_t max_depth, size_t input_bytes)
      : nlohmann::detail::json_sax_dom_parser<Json>(root, false), budget_(max_depth, input_bytes) {}

  bool start_object(std::size_t length) {
    if (!budget_.Enter() || !budget_.Charge(DocumentBudget::kObject)) return false;
    return json_sax_dom_parser::start_object(length);
  }
  bool start_array(std::size_t length) {
    if (!budget_.Enter() || !budget_.Charge(DocumentBudget::kArray)) return false;
    return json_sax_dom_parser::start_array(length);
  }
  bool key(string_t& value) {
    if (!budget_.Charge(DocumentBudget::kKey + value.size())) return false;
    return json_sax_dom_parser::key(value);
  }
  bool string(string_t& value) {
    if (!budget_.Charge(DocumentBudget::kString + value.size())) return false;
    return json_sax_dom_parser::string(value);
  }
  bool binary(binary_t& value) {
    if (!budget_.Charge(DocumentBudget::kBinary + value.size())) return false;
    return json_sax_dom_parser::binary(value);
  }
  bool null() { return budget_.Charge(DocumentBudget::kScalar) && json_sax_dom_parser::null(); }
  bool boolean(bool value) { return budget_.Charge(DocumentBudget::kScalar) && json_sax_dom_parser::boolean(value); }
  bool number_integer(number_integer_t value) {
    return budget_.Charge(DocumentBudget::kScalar) && json_sax_dom_parser::number_integer(value);
  }
  bool number_unsigned(number_unsigned_t value) {
    return budget_.Charge(DocumentBudget::kScalar) && json_sax_dom_parser::number_unsigned(value);
  }
  bool number_float(number_float_t value, const string_t& text) {
    return budget_.Charge(DocumentBudget::kScalar) && json_sax_dom_parser::number_float(value, text);
  }
  bool end_object() {
    budget_.Leave();
    return json_sax_dom_parser::end_object();
  }
  bool end_array() {
    budget_.Leave();
    return json_sax_dom_parser::end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const Exception& exception) {
    if (!budget_.failed()) position_ = position;
    budget_.Fail(exception.what());
    return false;
  }

  bool failed() const { return budget_.failed(); }
  size_t position() const { return position_; }
  const std::string& message() const { return budget_.message(); }

 private:
  DocumentBudget budget_;
  size_t position_ = 0;
};

// "[json.exception.parse_error.101] parse error at line 1, column 3: syntax
// error ... last read: 'x'" -> "syntax error ... last read: 'x'", with bytes
// outside printable ASCII shown as \xNN (the token may be any bytes).
std::string CleanMessage(std::string message) {
  if (message.rfind("[json.exception.", 0) == 0) {
    size_t close = message.find("] ");
    if (close != std::string::npos) message.erase(0, close + 2);
  }
  if (message.rfind("parse error", 0) == 0) {
    size_t colon = message.find(": ");
    if (colon != std::string::npos) message.erase(0, colon + 2);
  }
  std::string out;
  for (unsigned char c : message) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (out.size() > 300) out = out.substr(0, 300) + "...";
  return out;
}

// 1-based line and column of the last byte read when the parser stopped
// (`position` bytes were read, the offending one last).
std::pair<int, int> LineColumn(std::string_view text, size_t position) {
  position = std::min(position > 0 ? position - 1 : 0, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < position; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(position - line_start) + 1};
}

}  // namespace

namespace {
Result<Json> ParseJsonText(std::string_view text, const std::string& subject, size_t max_depth);
}  // namespace

// Bytes that are not UTF-8, as imagelint's own outputs write them (\udcXX,
// common/bytes_text.h), read back as those bytes.
Result<Json> ParseJson(std::string_view text, const std::string& subject, size_t max_depth) {
  std::optional<std::string> marked = MarkEscapedBytes(text);
  if (!marked) return ParseJsonText(text, subject, max_depth);
  // The rewrite adds no line breaks: an error's line is the file's (its
  // column may be 6 further per escape before it on that line).
  auto parsed = ParseJsonText(*marked, subject, max_depth);
  if (!parsed.ok()) return parsed;
  UnmarkEscapedBytes(*parsed);
  return parsed;
}

namespace {
Result<Json> ParseJsonText(std::string_view text, const std::string& subject, size_t max_depth) {
  Json root;
  BoundedDomBuilder builder(root, max_depth, text.size());
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {  // the builder's own throws (excessive sizes)
    return MakeError(subject, "not valid JSON: " + CleanMessage(e.what()));
  }
  if (builder.failed()) {
    auto [line, column] = LineColumn(text, builder.position());
    return MakeErrorAtLine(subject, line, column, "not valid JSON: " + CleanMessage(builder.message()));
  }
  return root;
}
}  // namespace

Result<Json> ParseJson(std::span<const uint8_t> bytes, const std::string& subject, size_t max_depth) {
  return ParseJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), subject, max_depth);
}

std::string StringField(const Json& object, std::string_view key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string StringField(const Json& object, std::string_view key, std::string_view fallback) {
  if (!object.is_object()) return std::string(fallback);
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

const Json& ArrayField(const Json& object, std::string_view key) {
  static const Json empty = Json::array();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string ValueText(const Json& value, std::string_view if_null) {
  if (value.is_null()) return std::string(if_null);
  if (value.is_string()) return value.get<std::string>();
  return DumpJson(value);
}

std::string FieldText(const Json& object, std::string_view key, std::string_view if_null) {
  if (!object.is_object()) return std::string(if_null);
  auto it = object.find(key);
  return it == object.end() ? std::string(if_null) : ValueText(*it, if_null);
}

std::string JsonTypePhrase(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number with a fraction";
    case Json::value_t::binary: return "binary data";
    case Json::value_t::discarded: return "nothing";
  }
  return "a value";
}

JsonFields::JsonFields(const Json& object, std::string subject, std::string where)
    : object_(object), subject_(std::move(subject)), where_(std::move(where)) {}

const Json* JsonFields::Find(std::string_view key) const {
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string JsonFields::Name(std::string_view key) const {
  return where_.empty() ? std::string(key) : where_ + "." + std::string(key);
}

Error JsonFields::FieldError(std::string_view key, const std::string& message) const {
  return MakeError(subject_, Name(key) + " " + message);
}

Error JsonFields::WrongType(std::string_view key, const Json& value, const char* expected) const {
  return FieldError(key, "is " + JsonTypePhrase(value) + ", expected " + expected);
}

Result<std::optional<std::string>> JsonFields::String(std::string_view key) const {
  const Json* value = Find(key);
  if (!value) return std::optional<std::string>();
  if (!value->is_string()) return WrongType(key, *value, "a string");
  return std::optional<std::string>(value->get_ref<const std::string&>());
}

Result<std::optional<int64_t>> JsonFields::Integer(std::string_view key) const {
  const Json* value = Find(key);
  if (!value) return std::optional<int64_t>();
  if (value->is_number_unsigned()) {
    uint64_t number = value->get<uint64_t>();
    if (number > static_cast<uint64_t>(INT64_MAX)) return FieldError(key, "is too large");
    return std::optional<int64_t>(static_cast<int64_t>(number));
  }
  if (!value->is_number_integer()) return WrongType(key, *value, "an integer");
  return std::optional<int64_t>(value->get<int64_t>());
}

Result<std::optional<bool>> JsonFields::Bool(std::string_view key) const {
  const Json* value = Find(key);
  if (!value) return std::optional<bool>();
  if (!value->is_boolean()) return WrongType(key, *value, "true or false");
  return std::optional<bool>(value->get<bool>());
}

Result<const Json*> JsonFields::Array(std::string_view key) const {
  const Json* value = Find(key);
  if (value && !value->is_array()) return WrongType(key, *value, "an array");
  return value;
}

Result<const Json*> JsonFields::Object(std::string_view key) const {
  const Json* value = Find(key);
  if (value && !value->is_object()) return WrongType(key, *value, "an object");
  return value;
}

Result<std::string> JsonFields::RequiredString(std::string_view key) const {
  auto value = String(key);
  if (!value.ok()) return value.error();
  if (!*value) return FieldError(key, "is missing");
  return std::move(**value);
}

Result<std::vector<std::string>> StringArray(const Json* value, const std::string& subject, const std::string& name) {
  std::vector<std::string> out;
  if (!value || value->is_null()) return out;
  if (!value->is_array()) return MakeError(subject, name + " is " + JsonTypePhrase(*value) + ", expected an array");
  for (size_t i = 0; i < value->size(); ++i) {
    const Json& item = (*value)[i];
    if (!item.is_string()) {
      return MakeError(subject, name + "[" + std::to_string(i) + "] is " + JsonTypePhrase(item) + ", expected a string");
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace imagelint
