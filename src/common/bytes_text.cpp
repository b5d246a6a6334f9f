#include "common/bytes_text.h"

#include <algorithm>

namespace imagelint {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// Code points that change how text after them is shown: C1 controls, the
// line and paragraph separators, bidirectional embeddings, overrides and
// isolates (the "Trojan Source" characters, CVE-2021-42574).
bool ActingCodePoint(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

uint32_t DecodeUtf8(std::string_view sequence) {
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(sequence[i])); };
  switch (sequence.size()) {
    case 2: return ((byte(0) & 0x1f) << 6) | (byte(1) & 0x3f);
    case 3: return ((byte(0) & 0x0f) << 12) | ((byte(1) & 0x3f) << 6) | (byte(2) & 0x3f);
    case 4: return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3f) << 12) | ((byte(2) & 0x3f) << 6) | (byte(3) & 0x3f);
    default: return byte(0);
  }
}

void AppendCodePointEscape(uint32_t cp, std::string& out) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
}

// One well-formed UTF-8 sequence as it is, or as \uXXXX when its code point
// acts on a terminal (ActingCodePoint).
void AppendSequence(std::string_view sequence, std::string& out) {
  const uint32_t cp = DecodeUtf8(sequence);
  if (sequence.size() > 1 && ActingCodePoint(cp)) AppendCodePointEscape(cp, out);
  else out.append(sequence);
}

// The string of nlohmann's dump() for a valid UTF-8 run, without its quotes,
// with DEL and the code points that act on a terminal (ActingCodePoint) as
// \uXXXX too: dump() writes them raw, and a report printed in a CI log
// must not reorder or end its lines. JSON readers get the same characters.
std::string EscapedRun(std::string_view run) {
  const std::string quoted = nlohmann::json(std::string(run)).dump();
  std::string_view body = std::string_view(quoted).substr(1, quoted.size() - 2);
  if (std::none_of(body.begin(), body.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x7f; }))
    return std::string(body);
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();) {
    const auto byte = static_cast<unsigned char>(body[i]);
    if (byte < 0x80) {
      if (byte == 0x7f) AppendCodePointEscape(0x7f, out);
      else out += body[i];
      ++i;
      continue;
    }
    const size_t length = std::max<size_t>(1, Utf8SequenceLength(body.substr(i)));
    AppendSequence(body.substr(i, length), out);
    i += length;
  }
  return out;
}

void WriteString(std::string_view text, std::string& out) {
  out += '"';
  size_t run_start = 0, i = 0;
  while (i < text.size()) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length > 0) {
      i += length;
      continue;
    }
    out += EscapedRun(text.substr(run_start, i - run_start));
    const auto byte = static_cast<unsigned char>(text[i]);
    // Bytes below 0x80 are always valid UTF-8, so byte >= 0x80 here.
    out += "\\udc";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
    run_start = ++i;
  }
  out += EscapedRun(text.substr(run_start));
  out += '"';
}

void Write(const nlohmann::json& value, int indent, int depth, std::string& out) {
  const bool pretty = indent >= 0;
  const auto newline = [&](int level) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
  };
  switch (value.type()) {
    case nlohmann::json::value_t::object:
    case nlohmann::json::value_t::array: {
      // One loop for both: an object's members are its items with a key before each.
      const bool object = value.is_object();
      out += object ? '{' : '[';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        if (object) {
          WriteString(it.key(), out);
          out += pretty ? ": " : ":";
        }
        Write(*it, indent, depth + 1, out);
      }
      if (!value.empty()) newline(depth);
      out += object ? '}' : ']';
      return;
    }
    case nlohmann::json::value_t::string:
      WriteString(value.get_ref<const std::string&>(), out);
      return;
    default:  // numbers, booleans, null, binary: nothing to escape
      out += value.dump();
      return;
  }
}

}  // namespace

size_t Utf8SequenceLength(std::string_view text) {
  if (text.empty()) return 0;
  const auto b0 = static_cast<unsigned char>(text[0]);
  if (b0 < 0x80) return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    if (b0 == 0xe0) low = 0xa0;   // no overlong forms
    if (b0 == 0xed) high = 0x9f;  // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    if (b0 == 0xf0) low = 0x90;
    if (b0 == 0xf4) high = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  const auto b1 = static_cast<unsigned char>(text[1]);
  if (b1 < low || b1 > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return length;
}

bool IsUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string WriteJson(const nlohmann::json& value, int indent) {
  std::string out;
  Write(value, indent, 0, out);
  return out;
}

namespace {

int HexValue(std::string_view hex) {
  int value = 0;
  for (char c : hex) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// U+10FF80..U+10FFFF in UTF-8: F4 8F BE|BF 80..BF.
bool IsMarker(std::string_view s, size_t i) {
  return i + 3 < s.size() && s[i] == '\xf4' && s[i + 1] == '\x8f' &&
         (s[i + 2] == '\xbe' || s[i + 2] == '\xbf') && (static_cast<unsigned char>(s[i + 3]) & 0xc0) == 0x80;
}

std::string Unmark(const std::string& s) {
  if (s.find("\xf4\x8f") == std::string::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (IsMarker(s, i)) {
      out += static_cast<char>(((s[i + 2] & 1) << 6 | (s[i + 3] & 0x3f)) | 0x80);
      i += 4;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> MarkEscapedBytes(std::string_view text) {
  if (text.find("\\udc") == std::string_view::npos && text.find("\\uDC") == std::string_view::npos &&
      text.find("\\uDc") == std::string_view::npos && text.find("\\udC") == std::string_view::npos) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() + 64);
  bool in_string = false, after_high = false, changed = false;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (!in_string || (c != '\\' && c != '"')) {
      if (c == '"') in_string = true;
      out += c;
      after_high = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = false;
      out += c;
      ++i;
      continue;
    }
    // A backslash escape inside a string.
    if (i + 1 < text.size() && text[i + 1] == 'u' && i + 6 <= text.size()) {
      const int unit = HexValue(text.substr(i + 2, 4));
      if (unit >= 0xdc80 && unit <= 0xdcff && !after_high) {
        out += "\\udbff\\udf";
        out += kHex[(unit >> 4) & 15];
        out += kHex[unit & 15];
        changed = true;
        after_high = false;
      } else {
        out.append(text.substr(i, 6));
        after_high = unit >= 0xd800 && unit <= 0xdbff;
      }
      i += 6;
      continue;
    }
    out.append(text.substr(i, std::min<size_t>(2, text.size() - i)));
    after_high = false;
    i += 2;
  }
  if (!changed) return std::nullopt;
  return out;
}

void UnmarkEscapedBytes(nlohmann::json& value) {
  if (value.is_string()) {
    value = Unmark(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    for (auto& item : value) UnmarkEscapedBytes(item);
  } else if (value.is_object()) {
    nlohmann::json rebuilt = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      UnmarkEscapedBytes(it.value());
      rebuilt[Unmark(it.key())] = std::move(it.value());
    }
    value = std::move(rebuilt);
  }
}

std::string DisplayBytes(std::string_view text) {
  if (IsUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    const auto byte = static_cast<unsigned char>(text[i++]);
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string DisplayText(std::string_view text) {
  bool plain = true;
  for (unsigned char c : text) plain = plain && c >= 0x20 && c < 0x7f;
  if (plain) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
      ++i;
      continue;
    }
    const size_t length = byte < 0x80 ? 1 : Utf8SequenceLength(text.substr(i));
    if (length == 0) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
      ++i;
      continue;
    }
    AppendSequence(text.substr(i, length), out);
    i += length;
  }
  return out;
}

nlohmann::json DisplayStrings(const nlohmann::json& value) {
  if (value.is_string()) return DisplayText(value.get_ref<const std::string&>());
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(DisplayStrings(item));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[DisplayText(it.key())] = DisplayStrings(it.value());
    return out;
  }
  return value;
}

}  // namespace imagelint
