#include "fleet_import/xml.h"

#include <cstdint>

#include "common/text.h"

namespace imagelint::fleet_import {

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const auto& child : children)
    if (child->name == child_name) return child.get();
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* child = Child(child_name);
  return child ? child->text : std::string();
}

std::vector<const XmlElement*> XmlElement::Children(std::string_view child_name) const {
  std::vector<const XmlElement*> out;
  for (const auto& child : children)
    if (child->name == child_name) out.push_back(child.get());
  return out;
}

std::string XmlElement::Attribute(std::string_view attribute_name) const {
  for (const auto& [key, value] : attributes)
    if (key == attribute_name) return value;
  return {};
}

namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source, const XmlLimits& limits)
      : text_(text), source_(source), limits_(limits) {}

  Result<XmlDocument> Run() {
    XmlDocument doc;
    // Skip a UTF-8 byte order mark.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) break;
      if (Peek("<?")) {
        IMAGELINT_TRY(SkipPast("?>", "processing instruction"));
      } else if (Peek("<!--")) {
        auto comment = ReadComment();
        if (!comment.ok()) return comment.error();
        doc.top_comments.emplace_back(doc.roots.size(), Trim(*comment));
      } else if (Peek("<!DOCTYPE")) {
        IMAGELINT_TRY(SkipDoctype());
      } else if (Peek("<")) {
        auto root = ReadElement();
        if (!root.ok()) return root.error();
        doc.roots.push_back(std::move(*root));
      } else {
        return Fail("text outside any element");
      }
    }
    if (doc.roots.empty()) return Fail("no XML element found");
    return doc;
  }

 private:
  Error Fail(const std::string& message) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return MakeErrorAtLine(source_, line, column, message);
  }
  // Positions only move forward, so lines are counted incrementally.
  int LineAt(size_t pos) {
    for (; line_pos_ < pos && line_pos_ < text_.size(); ++line_pos_)
      if (text_[line_pos_] == '\n') ++line_;
    return line_;
  }

  bool Peek(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  Status SkipPast(std::string_view terminator, const char* what) {
    size_t end = text_.find(terminator, pos_);
    if (end == std::string_view::npos) return Fail(std::string("unterminated ") + what);
    pos_ = end + terminator.size();
    return OkStatus();
  }
  Result<std::string> ReadComment() {
    size_t start = pos_ + 4;
    size_t end = text_.find("-->", start);
    if (end == std::string_view::npos) return Fail("unterminated comment");
    pos_ = end + 3;
    return std::string(text_.substr(start, end - start));
  }
  Status SkipDoctype() {
    // Only an external identifier: an internal subset could declare entities.
    size_t end = pos_;
    char quote = 0;
    for (; end < text_.size(); ++end) {
      char c = text_[end];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[') {
        pos_ = end;
        return Fail("DOCTYPE with an internal subset (entity declarations) is not accepted");
      } else if (c == '>') {
        pos_ = end + 1;
        return OkStatus();
      }
    }
    return Fail("unterminated DOCTYPE");
  }

  Result<std::string> ReadName() {
    if (pos_ >= text_.size() || !IsNameStart(text_[pos_])) return Fail("expected a name");
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (pos_ - start > 256) return Fail("name longer than 256 characters");
    return std::string(text_.substr(start, pos_ - start));
  }

  // Decodes character data up to `stop` (exclusive), with entity references.
  Result<std::string> Decode(size_t begin, size_t end) {
    std::string out;
    out.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      char c = text_[i];
      if (c != '&') {
        out += c;
        continue;
      }
      size_t semi = text_.find(';', i);
      if (semi == std::string_view::npos || semi >= end || semi - i > 12) {
        pos_ = i;
        return Fail("unterminated entity reference");
      }
      std::string_view ref = text_.substr(i + 1, semi - i - 1);
      if (ref == "amp") out += '&';
      else if (ref == "lt") out += '<';
      else if (ref == "gt") out += '>';
      else if (ref == "quot") out += '"';
      else if (ref == "apos") out += '\'';
      else if (!ref.empty() && ref[0] == '#') {
        uint32_t cp = 0;
        bool hex = ref.size() > 1 && (ref[1] == 'x' || ref[1] == 'X');
        std::string_view digits = ref.substr(hex ? 2 : 1);
        if (digits.empty()) {
          pos_ = i;
          return Fail("empty character reference");
        }
        for (char d : digits) {
          int v;
          if (d >= '0' && d <= '9') v = d - '0';
          else if (hex && d >= 'a' && d <= 'f') v = d - 'a' + 10;
          else if (hex && d >= 'A' && d <= 'F') v = d - 'A' + 10;
          else {
            pos_ = i;
            return Fail("bad character reference &" + std::string(ref) + ";");
          }
          cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
          if (cp > 0x10FFFF) {
            pos_ = i;
            return Fail("character reference out of range");
          }
        }
        if (cp == 0) {
          pos_ = i;
          return Fail("character reference to NUL");
        }
        AppendUtf8(out, cp);
      } else {
        pos_ = i;
        return Fail("unknown entity &" + std::string(ref) + "; (entity declarations are not accepted)");
      }
      i = semi;
    }
    return out;
  }

  // Reads "<name attr='v' ...>" or "<name .../>"; pos_ at '<'.
  Result<std::unique_ptr<XmlElement>> ReadStartTag(bool* self_closing) {
    auto element = std::make_unique<XmlElement>();
    element->line = LineAt(pos_);
    ++pos_;  // '<'
    auto name = ReadName();
    if (!name.ok()) return name.error();
    element->name = std::move(*name);
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) return Fail("unterminated start tag <" + element->name + ">");
      if (Peek("/>")) {
        pos_ += 2;
        *self_closing = true;
        return element;
      }
      if (Peek(">")) {
        ++pos_;
        *self_closing = false;
        return element;
      }
      if (element->attributes.size() >= 64) return Fail("too many attributes");
      auto key = ReadName();
      if (!key.ok()) return key.error();
      SkipSpace();
      if (!Peek("=")) return Fail("expected '=' after attribute " + *key);
      ++pos_;
      SkipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\''))
        return Fail("expected a quoted attribute value");
      char quote = text_[pos_++];
      size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Fail("unterminated attribute value");
      if (text_.substr(pos_, end - pos_).find('<') != std::string_view::npos)
        return Fail("'<' inside an attribute value");
      auto value = Decode(pos_, end);
      if (!value.ok()) return value.error();
      pos_ = end + 1;
      element->attributes.emplace_back(std::move(*key), std::move(*value));
    }
  }

  // Iterative (no recursion): a stack of open elements bounded by max_depth.
  Result<std::unique_ptr<XmlElement>> ReadElement() {
    bool self_closing = false;
    auto root = ReadStartTag(&self_closing);
    if (!root.ok()) return root.error();
    if (++elements_ > limits_.max_elements) return Fail("too many XML elements");
    if (self_closing) return std::move(*root);
    std::vector<XmlElement*> stack{root->get()};
    std::vector<std::string> texts{""};
    while (!stack.empty()) {
      size_t lt = text_.find('<', pos_);
      if (lt == std::string_view::npos) {
        pos_ = text_.size();
        return Fail("unterminated element <" + stack.back()->name + ">");
      }
      auto chars = Decode(pos_, lt);
      if (!chars.ok()) return chars.error();
      texts.back() += *chars;
      pos_ = lt;
      if (Peek("</")) {
        pos_ += 2;
        auto name = ReadName();
        if (!name.ok()) return name.error();
        SkipSpace();
        if (!Peek(">")) return Fail("expected '>' in end tag");
        ++pos_;
        if (*name != stack.back()->name)
          return Fail("end tag </" + *name + "> does not match <" + stack.back()->name + ">");
        stack.back()->text = Trim(texts.back());
        stack.pop_back();
        texts.pop_back();
      } else if (Peek("<!--")) {
        auto comment = ReadComment();
        if (!comment.ok()) return comment.error();
      } else if (Peek("<![CDATA[")) {
        size_t start = pos_ + 9;
        size_t end = text_.find("]]>", start);
        if (end == std::string_view::npos) return Fail("unterminated CDATA section");
        texts.back() += std::string(text_.substr(start, end - start));
        pos_ = end + 3;
      } else if (Peek("<?")) {
        IMAGELINT_TRY(SkipPast("?>", "processing instruction"));
      } else if (Peek("<!")) {
        return Fail("markup declaration inside an element");
      } else {
        auto child = ReadStartTag(&self_closing);
        if (!child.ok()) return child.error();
        if (++elements_ > limits_.max_elements) return Fail("too many XML elements");
        XmlElement* raw = child->get();
        stack.back()->children.push_back(std::move(*child));
        if (!self_closing) {
          if (static_cast<int>(stack.size()) >= limits_.max_depth)
            return Fail("XML nested deeper than " + std::to_string(limits_.max_depth) + " levels");
          stack.push_back(raw);
          texts.emplace_back();
        }
      }
    }
    return std::move(*root);
  }

  std::string_view text_;
  const std::string& source_;
  XmlLimits limits_;
  size_t pos_ = 0;
  size_t elements_ = 0;
  size_t line_pos_ = 0;
  int line_ = 1;
};

}  // namespace

Result<XmlDocument> ParseXml(std::string_view text, const std::string& source, const XmlLimits& limits) {
  return Parser(text, source, limits).Run();
}

}  // namespace imagelint::fleet_import
