// Text that came from an image is bytes: file names, link targets, package
// metadata may hold bytes that are not UTF-8 (Latin-1 names are common in
// real images). Outputs keep them, losslessly and in a documented form
// (docs/cli.md, "Names that are not UTF-8"):
//
//  * JSON, SARIF, GitLab and the facts: each byte that is not part of a valid
//    UTF-8 sequence is written as the escape \udcXX (XX its value, 80..ff):
//    the code point Python's "surrogateescape" error handler (PEP 383) gives
//    that byte, so `json.loads(...).encode("utf-8", "surrogateescape")`
//    returns the original bytes. Valid UTF-8 never encodes U+DC80..U+DCFF, so
//    the escape cannot be confused with a real character.
//  * Text, Markdown and HTML, read by people: such a byte is shown as \xXX.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace imagelint {

// True when `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
bool IsUtf8(std::string_view text);

// Length of the well-formed UTF-8 sequence at the start of `text`, or 0 when
// its first byte does not start one.
size_t Utf8SequenceLength(std::string_view text);

// JSON text of `value`, byte for byte what nlohmann's dump(indent) writes
// where every string is UTF-8, and the \udcXX escape for each byte that is
// not (where dump() would throw). Never throws.
std::string WriteJson(const nlohmann::json& value, int indent = -1);

// Reading such JSON back (ParseJson does both steps): nlohmann's parser
// rejects a lone \udcXX, so the escape of byte XX (80..ff) is first rewritten
// as the escaped pair of U+10FFXX, a private-use code point, and after parsing
// every U+10FF80..U+10FFFF in a string or key becomes byte XX again. The one
// thing this cannot tell apart is a real character of those last 128 code
// points of plane 16, which no file name is known to use.
// nullopt when `json_text` holds no \udcXX escape outside a surrogate pair.
std::optional<std::string> MarkEscapedBytes(std::string_view json_text);
void UnmarkEscapedBytes(nlohmann::json& value);

// `text` with each byte that is not part of a valid UTF-8 sequence shown as
// \xXX, for outputs read by people.
std::string DisplayBytes(std::string_view text);

// A name from an image or a Dockerfile, for outputs read by people or by a
// terminal or CI log: as DisplayBytes, and every control character shown as
// an escape instead of acting: C0 controls and DEL as \xXX (a line feed
// cannot start a new log line such as "::error::", an ESC cannot send a
// terminal sequence), C1 controls, the line and paragraph separators and the
// bidirectional overrides and isolates as \uXXXX.
std::string DisplayText(std::string_view text);
// A copy of `value` with every string and object key through DisplayText,
// for renderers that put a document's strings into such outputs.
nlohmann::json DisplayStrings(const nlohmann::json& value);

}  // namespace imagelint
