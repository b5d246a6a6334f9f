#include "common/bytes_text.h"

namespace imagelint {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The string of nlohmann's dump() for a valid UTF-8 run, without its quotes.
std::string EscapedRun(std::string_view run) {
  const std::string quoted = nlohmann::json(std::string(run)).dump();
  return quoted.substr(1, quoted.size() - 2);
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
    case nlohmann::json::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        WriteString(it.key(), out);
        out += pretty ? ": " : ":";
        Write(it.value(), indent, depth + 1, out);
      }
      newline(depth);
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        Write(item, indent, depth + 1, out);
      }
      newline(depth);
      out += ']';
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

}  // namespace imagelint
