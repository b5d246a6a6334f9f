// A YAML document as a plain tree of scalars, sequences and maps, each node
// with the line and column yaml-cpp gave it, which a cache directory can keep
// between runs.
//
// Why: the rule file is read on every run, and yaml-cpp's scanner is most of
// what reading it costs (a quarter of a Dockerfile check). Its nodes cannot
// be stored, and their marks (what a rule file's error messages and the
// expressions' source locations point at) cannot be set through its API. A
// text that parsed once is kept as this tree under
// <cache>/parsed-yaml/<sha256 of the format, limits and text>, sealed
// (sealed_file.h); a later run with the same bytes decodes the tree and never
// starts yaml-cpp. A different byte, other limits or a changed format miss
// and parse again; a text that fails to parse is never recorded, so its
// error is always yaml-cpp's own.
//
//   auto root = LoadMarkedYaml(text, "rules/cuda.yaml", {}, YamlCheckMemo{cache_dir});
//   for (const auto& [key, value] : root->Entries()) ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/yaml.h"
#include "imagelint/result.h"

namespace imagelint {

class MarkedNode {
 public:
  enum class Kind : uint8_t { kUndefined = 0, kNull = 1, kScalar = 2, kSequence = 3, kMap = 4 };
  struct Mark {
    int line = -1;  // 0-based, as yaml-cpp counts; -1: no position
    int column = -1;
  };

  MarkedNode() = default;
  // The same tree as yaml-cpp's node (aliases expanded, as a reader walking
  // the node sees them).
  static MarkedNode FromYaml(const YAML::Node& node);

  Kind kind() const { return kind_; }
  bool IsDefined() const { return kind_ != Kind::kUndefined; }
  explicit operator bool() const { return IsDefined(); }
  bool IsNull() const { return kind_ == Kind::kNull; }
  bool IsScalar() const { return kind_ == Kind::kScalar; }
  bool IsSequence() const { return kind_ == Kind::kSequence; }
  bool IsMap() const { return kind_ == Kind::kMap; }
  Mark mark() const { return mark_; }

  // A scalar's text ("" for any other kind).
  const std::string& Scalar() const { return scalar_; }
  // The scalar read as yaml-cpp's as<int>() / as<bool>() would (nullopt where
  // those throw).
  std::optional<int> AsInt() const;
  std::optional<bool> AsBool() const;

  // Entries of a sequence or map.
  size_t size() const { return kind_ == Kind::kMap ? entries_.size() : items_.size(); }
  const std::vector<MarkedNode>& Items() const { return items_; }
  const std::vector<std::pair<MarkedNode, MarkedNode>>& Entries() const { return entries_; }
  // The value of the first entry whose key is the scalar `key`; an undefined
  // node when there is none or this is not a map.
  const MarkedNode& operator[](std::string_view key) const;

  // The cache's byte form (little-endian, bounds-checked on the way back).
  void Encode(std::string* out) const;
  // Nullopt for bytes that are not exactly one encoded tree.
  static std::optional<MarkedNode> Decode(std::string_view bytes);

 private:
  Kind kind_ = Kind::kUndefined;
  Mark mark_;
  std::string scalar_;
  std::vector<MarkedNode> items_;
  std::vector<std::pair<MarkedNode, MarkedNode>> entries_;

  friend class MarkedNodeDecoder;
};

// LoadYaml (limits first, then yaml-cpp) as a MarkedNode, through the parsed
// tree kept in `memo.dir` when one is given (see above).
Result<MarkedNode> LoadMarkedYaml(std::string_view text, const std::string& file, const YamlLimits& limits = {},
                                  const YamlCheckMemo& memo = {});

}  // namespace imagelint
