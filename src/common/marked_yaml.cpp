#include "common/marked_yaml.h"

#include <algorithm>
#include <cstring>

#include "common/sealed_file.h"

namespace imagelint {

namespace {

// Bump when the byte form or FromYaml changes: older records then miss.
// The record's name is the SHA-256 of the text it holds, so its seal only
// has to tell a torn or damaged file: a CRC-64, as the knowledge cache's
// (version 2; version 1 hashed the payload with SHA-256 again).
constexpr std::string_view kFormat = "imagelint parsed yaml 2";
constexpr char kMagic[8] = {'I', 'L', 'Y', 'A', 'M', 'L', '0', '2'};
// Trees larger than this are parsed each time rather than kept: a record is
// for files read on every run (a rule file is ~40 KB of YAML).
constexpr uint64_t kMaxRecordBytes = 8u << 20;
// Decoding recurses once per level; LoadYaml refuses documents nested deeper
// than YamlLimits::max_depth, an alias can place such a node one level down.
constexpr int kMaxDecodeDepth = 512;

const MarkedNode& Undefined() {
  static const MarkedNode undefined;
  return undefined;
}

void PutU32(std::string* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

// Reads the byte form with every length checked against what is left.
class MarkedNodeDecoder {
 public:
  explicit MarkedNodeDecoder(std::string_view bytes) : bytes_(bytes) {}

  bool Node(MarkedNode* node, int depth) {
    if (depth > kMaxDecodeDepth) return false;
    uint8_t kind = 0;
    uint32_t line = 0, column = 0;
    if (!Byte(&kind) || !U32(&line) || !U32(&column)) return false;
    node->mark_ = {static_cast<int>(line), static_cast<int>(column)};
    switch (static_cast<MarkedNode::Kind>(kind)) {
      case MarkedNode::Kind::kNull:
        node->kind_ = MarkedNode::Kind::kNull;
        return true;
      case MarkedNode::Kind::kScalar: {
        uint32_t length = 0;
        if (!U32(&length) || length > Left()) return false;
        node->kind_ = MarkedNode::Kind::kScalar;
        node->scalar_.assign(bytes_.substr(pos_, length));
        pos_ += length;
        return true;
      }
      // Every node takes at least 9 bytes (a map entry two nodes): a count
      // larger than the bytes left can hold is corrupt, so nothing is
      // reserved for it.
      case MarkedNode::Kind::kSequence:
        node->kind_ = MarkedNode::Kind::kSequence;
        return Sized(&node->items_, 9) && std::all_of(node->items_.begin(), node->items_.end(),
                                                      [&](MarkedNode& item) { return Node(&item, depth + 1); });
      case MarkedNode::Kind::kMap:
        node->kind_ = MarkedNode::Kind::kMap;
        return Sized(&node->entries_, 18) &&
               std::all_of(node->entries_.begin(), node->entries_.end(), [&](auto& entry) {
                 return Node(&entry.first, depth + 1) && Node(&entry.second, depth + 1);
               });
      default:
        return false;
    }
  }

  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  size_t Left() const { return bytes_.size() - pos_; }
  // A count, then that many default items in `items` for the caller to read.
  template <class T>
  bool Sized(std::vector<T>* items, size_t min_item_bytes) {
    uint32_t count = 0;
    if (!U32(&count) || count > Left() / min_item_bytes) return false;
    items->resize(count);
    return true;
  }
  bool Byte(uint8_t* value) {
    if (Left() < 1) return false;
    *value = static_cast<uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool U32(uint32_t* value) {
    if (Left() < 4) return false;
    *value = 0;
    for (int i = 3; i >= 0; --i) *value = (*value << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += 4;
    return true;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

MarkedNode MarkedNode::FromYaml(const YAML::Node& node) {
  MarkedNode out;
  if (!node.IsDefined()) return out;
  const YAML::Mark mark = node.Mark();
  out.mark_ = {mark.line, mark.column};
  switch (node.Type()) {
    case YAML::NodeType::Null:
      out.kind_ = Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      out.kind_ = Kind::kScalar;
      out.scalar_ = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind_ = Kind::kSequence;
      out.items_.reserve(node.size());
      for (const auto& item : node) out.items_.push_back(FromYaml(item));
      break;
    case YAML::NodeType::Map:
      out.kind_ = Kind::kMap;
      out.entries_.reserve(node.size());
      for (auto it = node.begin(); it != node.end(); ++it)
        out.entries_.emplace_back(FromYaml(it->first), FromYaml(it->second));
      break;
    case YAML::NodeType::Undefined:
      break;
  }
  return out;
}

std::optional<int> MarkedNode::AsInt() const {
  if (!IsScalar()) return std::nullopt;
  int value = 0;
  if (!YAML::convert<int>::decode(YAML::Node(scalar_), value)) return std::nullopt;
  return value;
}

std::optional<bool> MarkedNode::AsBool() const {
  if (!IsScalar()) return std::nullopt;
  bool value = false;
  if (!YAML::convert<bool>::decode(YAML::Node(scalar_), value)) return std::nullopt;
  return value;
}

const MarkedNode& MarkedNode::operator[](std::string_view key) const {
  if (kind_ != Kind::kMap) return Undefined();
  for (const auto& [k, v] : entries_)
    if (k.IsScalar() && k.scalar_ == key) return v;
  return Undefined();
}

void MarkedNode::Encode(std::string* out) const {
  out->push_back(static_cast<char>(kind_));
  PutU32(out, static_cast<uint32_t>(mark_.line));
  PutU32(out, static_cast<uint32_t>(mark_.column));
  switch (kind_) {
    case Kind::kScalar:
      PutU32(out, static_cast<uint32_t>(scalar_.size()));
      out->append(scalar_);
      break;
    case Kind::kSequence:
      PutU32(out, static_cast<uint32_t>(items_.size()));
      for (const auto& item : items_) item.Encode(out);
      break;
    case Kind::kMap:
      PutU32(out, static_cast<uint32_t>(entries_.size()));
      for (const auto& [key, value] : entries_) {
        key.Encode(out);
        value.Encode(out);
      }
      break;
    default:
      break;
  }
}

std::optional<MarkedNode> MarkedNode::Decode(std::string_view bytes) {
  MarkedNodeDecoder decoder(bytes);
  MarkedNode node;
  if (!decoder.Node(&node, 0) || !decoder.AtEnd() || !node.IsDefined()) return std::nullopt;
  return node;
}

Result<MarkedNode> LoadMarkedYaml(std::string_view text, const std::string& file, const YamlLimits& limits,
                                  const YamlCheckMemo& memo) {
  std::filesystem::path record;
  if (!memo.dir.empty()) {
    record = YamlMemoRecord(memo, "parsed-yaml", kFormat, text, limits);
    nlohmann::json payload;
    // Only a record this user wrote is read (ReadSealedFile); one that does
    // not decode is parsed again and rewritten.
    if (ReadSealedFile(memo.dir, record, kMagic, kMaxRecordBytes, &payload, SealCheck::kCrc64) == SealedRead::kOk &&
        payload.is_binary()) {
      const auto& bytes = payload.get_binary();
      auto tree = MarkedNode::Decode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
      if (tree) return std::move(*tree);
    }
  }
  auto loaded = LoadYaml(text, file, limits, memo);
  if (!loaded.ok()) return loaded.error();
  MarkedNode tree;
  try {
    tree = MarkedNode::FromYaml(*loaded);
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(file, e.mark.line + 1, e.mark.column + 1, "YAML error: " + e.msg);
  }
  if (!record.empty() && tree.IsDefined()) {
    std::string bytes;
    tree.Encode(&bytes);
    if (bytes.size() + 64 <= kMaxRecordBytes) {
      // A failed write costs the next run a parse.
      (void)WriteSealedFile(memo.dir, record, kMagic,
                            nlohmann::json::binary(std::vector<uint8_t>(bytes.begin(), bytes.end())), SealCheck::kCrc64);
    }
  }
  return tree;
}

}  // namespace imagelint
