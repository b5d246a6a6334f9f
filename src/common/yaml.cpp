#include "common/yaml.h"

#include "common/sealed_file.h"
#include "imagelint/digest.h"

#include <sstream>
#include <unordered_map>
#include <vector>

#include <yaml-cpp/eventhandler.h>

namespace imagelint {
namespace {

struct Size {
  uint64_t nodes = 0;
  uint64_t bytes = 0;
};

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

// Thrown out of the event handler to stop the parser at the first limit.
struct LimitHit {
  YAML::Mark mark;
  std::string message;
};

// Sizes every anchored node as its events go by (nested anchors included),
// so that each alias adds the size of what it names in constant time.
class AliasCounter final : public YAML::EventHandler {
 public:
  explicit AliasCounter(const YamlLimits& limits) : limits_(limits) {}

  // yaml-cpp 0.7 (Debian 12's) loops forever on a token that starts no node,
  // such as a "," outside [ ] or { }: HandleNextDocument reports one more
  // empty document at the same place each time (jbeder/yaml-cpp#1040, fixed
  // upstream by #1319). A document that starts where the last one started
  // made no progress; stop there.
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_++ > 0 && mark.pos == last_document_pos_) {
      throw LimitHit{mark, "YAML syntax error: a token that starts no value (such as a ',' outside [ ] or { })"};
    }
    last_document_pos_ = mark.pos;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Leaf(anchor, 0); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    Leaf(anchor, value.size());
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (++aliases_ > limits_.max_aliases) {
      throw LimitHit{mark, "more than " + std::to_string(limits_.max_aliases) + " aliases"};
    }
    auto it = sizes_.find(anchor);
    if (it == sizes_.end()) throw LimitHit{mark, "an alias refers to a node that contains it (a cycle)"};
    added_.nodes = SaturatingAdd(added_.nodes, it->second.nodes);
    added_.bytes = SaturatingAdd(added_.bytes, it->second.bytes);
    if (added_.nodes > limits_.max_alias_nodes || added_.bytes > limits_.max_alias_bytes) {
      throw LimitHit{mark, "aliases expand the document by more than " + std::to_string(limits_.max_alias_nodes) +
                               " nodes or " + std::to_string(limits_.max_alias_bytes) +
                               " bytes (the same node repeated through anchors and aliases)"};
    }
    Add(it->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    YAML::anchor_t anchor;
    Size size;
  };

  void Add(const Size& size) {
    if (open_.empty()) return;
    open_.back().size.nodes = SaturatingAdd(open_.back().size.nodes, size.nodes);
    open_.back().size.bytes = SaturatingAdd(open_.back().size.bytes, size.bytes);
  }
  void Leaf(YAML::anchor_t anchor, uint64_t bytes) {
    Size size{1, bytes};
    if (anchor != YAML::NullAnchor) sizes_[anchor] = size;
    Add(size);
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (static_cast<int>(open_.size()) >= limits_.max_depth) {
      throw LimitHit{mark, "nested deeper than " + std::to_string(limits_.max_depth) + " levels"};
    }
    open_.push_back({anchor, {1, 0}});
  }
  void Close() {
    if (open_.empty()) return;
    Frame frame = open_.back();
    open_.pop_back();
    if (frame.anchor != YAML::NullAnchor) sizes_[frame.anchor] = frame.size;
    Add(frame.size);
  }

  const YamlLimits& limits_;
  std::vector<Frame> open_;
  std::unordered_map<YAML::anchor_t, Size> sizes_;
  uint64_t aliases_ = 0;
  Size added_;
  uint64_t documents_ = 0;
  int last_document_pos_ = -1;
};

}  // namespace

Status CheckYamlLimits(std::string_view text, const std::string& file, const YamlLimits& limits) {
  std::istringstream stream{std::string(text)};
  AliasCounter counter(limits);  // one budget for the whole stream, every document
  try {
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const LimitHit& hit) {
    return MakeErrorAtLine(file, hit.mark.line + 1, hit.mark.column + 1, hit.message);
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
  return OkStatus();
}

std::filesystem::path YamlMemoRecord(const YamlCheckMemo& memo, std::string_view folder, std::string_view format,
                                     std::string_view text, const YamlLimits& limits) {
  const std::string header = std::string(format) + "\n" + std::to_string(limits.max_aliases) + " " +
                             std::to_string(limits.max_alias_nodes) + " " + std::to_string(limits.max_alias_bytes) +
                             " " + std::to_string(limits.max_depth) + "\n";
  Sha256 hash;
  hash.Update({reinterpret_cast<const uint8_t*>(header.data()), header.size()});
  hash.Update({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  return memo.dir / std::string(folder) / hash.FinishDigest().substr(7);
}

namespace {

// Bump when the check changes what it refuses: earlier passes then miss.
constexpr std::string_view kCheckVersion = "imagelint yaml limit check 1";

Status CheckYamlLimitsOnce(std::string_view text, const std::string& file, const YamlLimits& limits,
                           const YamlCheckMemo& memo) {
  if (memo.dir.empty()) return CheckYamlLimits(text, file, limits);
  const std::filesystem::path record = YamlMemoRecord(memo, "checked-yaml", kCheckVersion, text, limits);
  // Only a record this user wrote counts: one placed by someone else in a
  // shared cache directory would let a file skip the check.
  if (TrustedFileExists(memo.dir, record)) return OkStatus();
  IMAGELINT_TRY(CheckYamlLimits(text, file, limits));
  (void)WriteFileAtomically(memo.dir, record, {});  // a failed write costs the next run the check
  return OkStatus();
}

}  // namespace

Result<YAML::Node> LoadYaml(std::string_view text, const std::string& file, const YamlLimits& limits,
                            const YamlCheckMemo& memo) {
  IMAGELINT_TRY(CheckYamlLimitsOnce(text, file, limits, memo));
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
}

Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, const std::string& file,
                                                  const YamlLimits& limits) {
  IMAGELINT_TRY(CheckYamlLimits(text, file, limits));
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return MakeErrorAtLine(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
}

Error ErrorAtNode(const std::string& file, const YAML::Node& node, const std::string& message) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return MakeError(file, message);
  return MakeErrorAtLine(file, mark.line + 1, mark.column + 1, message);
}

}  // namespace imagelint
