// Reading JSON (and the layer cache's CBOR) that came from outside: image
// configs, manifests, indexes, registry answers, node exports, cache files.
//
// Two rules for every such document:
//  * Nesting depth is bounded while parsing. nlohmann's parser is iterative,
//    but copying, comparing, dumping and destroying a value recurse, so a
//    16 MiB "[[[[..." would overflow the stack long after it was accepted.
//  * Fields are read through JsonFields, which turns a field of the wrong type
//    into an Error naming the file and the field ("config.Env is a string,
//    expected an array"), where nlohmann's get<>() / value() would throw
//    type_error. JSON null reads as absent, as Go's encoding/json (the
//    registries', Docker's and containerd's decoder) treats it.
//
//   auto json = ParseJson(bytes, "image.tar:blobs/sha256/ab..");
//   JsonFields config(*json, subject);
//   auto arch = config.String("architecture");   // Result<std::optional<std::string>>
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"

namespace imagelint {

// Deep enough for any manifest, config, facts or cache document imagelint
// reads (they nest fewer than 10 levels); shallow enough that recursion over
// the value stays far from the stack's end, even in sanitizer builds.
inline constexpr size_t kMaxJsonDepth = 128;

// Parses `text` as JSON. Errors name `subject` with line:column and say what
// is wrong (syntax, a number that does not fit a double like 1E400, nesting
// deeper than `max_depth`, invalid UTF-8 inside a string).
Result<nlohmann::json> ParseJson(std::string_view text, const std::string& subject,
                                 size_t max_depth = kMaxJsonDepth);
Result<nlohmann::json> ParseJson(std::span<const uint8_t> bytes, const std::string& subject,
                                 size_t max_depth = kMaxJsonDepth);
// CBOR (RFC 8949), as the layer cache stores it; errors name the byte offset.
Result<nlohmann::json> ParseCbor(std::span<const uint8_t> bytes, const std::string& subject,
                                 size_t max_depth = kMaxJsonDepth);

// The field `key` of `object` when it is a string, else "" (absent, null, of
// another type, or `object` not an object). For fields whose type was checked
// already, or where a wrong type should read as nothing.
std::string StringField(const nlohmann::json& object, std::string_view key);
// The same, with `fallback` where it reads "" above.
std::string StringField(const nlohmann::json& object, std::string_view key, std::string_view fallback);
// The field `key` of `object` when it is an array, else an empty array.
const nlohmann::json& ArrayField(const nlohmann::json& object, std::string_view key);

// Compact JSON text of `value` for messages and display; never throws:
// string bytes that are not UTF-8 (file names from an image can be any
// bytes) become U+FFFD here, where nlohmann's dump() would throw.
std::string DumpJson(const nlohmann::json& value);

// A value as display text: a string as it is, null as `if_null`, anything
// else as its compact JSON text (DumpJson). The text forms of the facts.
std::string ValueText(const nlohmann::json& value, std::string_view if_null = "null");
// The same of the field `key` of `object`; absent (or `object` not an object) reads as null.
std::string FieldText(const nlohmann::json& object, std::string_view key, std::string_view if_null = "null");

// "an array", "a string", "null"... for messages.
std::string JsonTypePhrase(const nlohmann::json& value);

// Typed, checked access to the fields of one JSON object. `where` names the
// object inside the document for messages ("manifests[2]", "config"); empty
// for the top level. A JsonFields over a value that is not an object reads
// every field as absent (check IsObject() where that matters).
class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string subject, std::string where = {});

  bool IsObject() const { return object_.is_object(); }
  // The field's value, or nullptr when absent or null.
  const nlohmann::json* Find(std::string_view key) const;

  // Absent or null: nullopt. Present with another type: an Error.
  Result<std::optional<std::string>> String(std::string_view key) const;
  Result<std::optional<int64_t>> Integer(std::string_view key) const;
  Result<std::optional<bool>> Bool(std::string_view key) const;
  // nullptr when absent or null.
  Result<const nlohmann::json*> Array(std::string_view key) const;
  Result<const nlohmann::json*> Object(std::string_view key) const;

  // Present, non-null and a string (else an Error saying it is missing/of the wrong type).
  Result<std::string> RequiredString(std::string_view key) const;

  // "<where>.<key>" (or "<key>" at the top level), for messages.
  std::string Name(std::string_view key) const;
  // An Error about field `key`: "<subject>: <where>.<key> <message>".
  Error FieldError(std::string_view key, const std::string& message) const;
  const std::string& subject() const { return subject_; }

 private:
  Error WrongType(std::string_view key, const nlohmann::json& value, const char* expected) const;
  const nlohmann::json& object_;
  std::string subject_;
  std::string where_;
};

// A value that must be an array of strings (or absent/null): the strings, or
// an Error naming the element of the wrong type.
Result<std::vector<std::string>> StringArray(const nlohmann::json* value, const std::string& subject,
                                             const std::string& name);

}  // namespace imagelint
