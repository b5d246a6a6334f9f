// A small, bounded XML reader for `nvidia-smi -q -x` output.
//
// Only what that output uses: elements, attributes, text, comments, the XML
// declaration and an external DOCTYPE. No entity declarations, no internal DTD
// subset, no external fetches: the five predefined entities and numeric
// character references are decoded, anything else is an error. Depth and
// element count are limited; errors carry line:column.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imagelint/result.h"

namespace imagelint::fleet_import {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;  // concatenated character data directly inside, trimmed
  std::vector<std::unique_ptr<XmlElement>> children;
  int line = 0;

  // First child element with this name, or nullptr.
  const XmlElement* Child(std::string_view child_name) const;
  // Text of the first child with this name ("" when absent).
  std::string ChildText(std::string_view child_name) const;
  std::vector<const XmlElement*> Children(std::string_view child_name) const;
  std::string Attribute(std::string_view attribute_name) const;
};

struct XmlLimits {
  int max_depth = 64;
  size_t max_elements = 2'000'000;
};

// Parses one or more top-level elements (concatenated documents, each with
// its own declaration and DOCTYPE, are accepted: several hosts' output in one
// file). Comments directly at top level are returned in `top_comments` with
// the index of the element they precede.
struct XmlDocument {
  std::vector<std::unique_ptr<XmlElement>> roots;
  std::vector<std::pair<size_t, std::string>> top_comments;  // (index of next root, text)
};

Result<XmlDocument> ParseXml(std::string_view text, const std::string& source,
                             const XmlLimits& limits = {});

}  // namespace imagelint::fleet_import
