#include "imagelint/read_image.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/bytes_text.h"
#include "common/json.h"
#include "cuda/cuda.h"
#include "image_reader/content_analyzer.h"
#include "imagelint/bytes.h"

namespace imagelint {

std::vector<std::unique_ptr<FileAnalyzer>> DefaultAnalyzers(const Knowledge& knowledge) {
  std::vector<std::unique_ptr<FileAnalyzer>> analyzers;
  analyzers.push_back(MakeContentAnalyzer());
  for (auto& analyzer : cuda::MakeCudaAnalyzers(knowledge.CapturedPackageNames()))
    analyzers.push_back(std::move(analyzer));
  return analyzers;
}

std::vector<FileAnalyzer*> AnalyzerPointers(const std::vector<std::unique_ptr<FileAnalyzer>>& analyzers) {
  std::vector<FileAnalyzer*> pointers;
  for (const auto& analyzer : analyzers) pointers.push_back(analyzer.get());
  return pointers;
}

Result<ScannedImage> ReadImage(const std::string& path, const ReadImageOptions& options, const Knowledge& knowledge) {
  auto source = OpenLocalImage(path, options.open);
  if (!source.ok()) return source.error();
  auto analyzers = DefaultAnalyzers(knowledge);
  return ScanImage(**source, AnalyzerPointers(analyzers), options.scan);
}

Result<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty()) return MakeError(text, "not a size");
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    auto next = CheckedAdd(value * 10, static_cast<uint64_t>(text[i] - '0'));
    if (value > (UINT64_MAX / 10) || !next) return MakeError(text, "size too large");
    value = *next;
  }
  if (i == 0) return MakeError(text, "not a size (expected digits with an optional K, M, G or T suffix)");
  std::string suffix = text.substr(i);
  int shift = 0;
  if (suffix.empty()) shift = 0;
  else if (suffix == "K" || suffix == "k" || suffix == "KiB") shift = 10;
  else if (suffix == "M" || suffix == "MiB") shift = 20;
  else if (suffix == "G" || suffix == "GiB") shift = 30;
  else if (suffix == "T" || suffix == "TiB") shift = 40;
  else return MakeError(text, "unknown size suffix \"" + suffix + "\" (use K, M, G or T)");
  auto scaled = CheckedMul(value, uint64_t{1} << shift);
  if (!scaled) return MakeError(text, "size too large");
  return *scaled;
}

facts::Facts BuildFactsModel(const ScannedImage& image, const Knowledge& knowledge) {
  facts::Facts facts;
  facts.image = BuildImageFacts(image);
  cuda::AddCudaFacts(image.tree, image.metadata, knowledge, facts);  // cuda, binaries, frameworks
  return facts;
}

nlohmann::json BuildFacts(const ScannedImage& image, const Knowledge& knowledge) {
  return facts::WriteFacts(BuildFactsModel(image, knowledge));
}

facts::Image BuildImageFacts(const ScannedImage& image) {
  const ImageMetadata& metadata = image.metadata;
  facts::Image out;
  out.ref = metadata.ref;
  out.digest = metadata.digest;
  out.kind = metadata.kind;
  out.os = metadata.platform.os;
  out.architecture = metadata.platform.architecture;
  out.variant = metadata.platform.variant;
  const nlohmann::json& config = metadata.config;
  if (config.is_object() && config.contains("config") && config["config"].is_object()) {
    const auto& inner = config["config"];
    if (inner.contains("Env") && inner["Env"].is_array()) {
      for (const auto& item : inner["Env"]) {
        if (!item.is_string()) continue;
        const std::string& text = item.get_ref<const std::string&>();
        size_t equals = text.find('=');
        out.env[text.substr(0, equals)] = equals == std::string::npos ? "" : text.substr(equals + 1);
      }
    }
    if (inner.contains("Labels") && inner["Labels"].is_object()) {
      for (const auto& [key, value] : inner["Labels"].items())
        if (value.is_string()) out.labels[key] = value.get<std::string>();
    }
  }
  for (size_t i = 0; i < metadata.layers.size(); ++i) {
    const LayerRef& ref = metadata.layers[i];
    facts::Layer layer;
    layer.digest = ref.digest;
    layer.diff_id = ref.diff_id;
    layer.created_by = ref.created_by;
    if (!ref.media_type.empty()) layer.media_type = ref.media_type;
    if (ref.size >= 0) layer.size = static_cast<uint64_t>(ref.size);
    if (i < image.layers.size()) {
      layer.entries = image.layers[i].entries.size();
      layer.uncompressed_size = image.layers[i].tar_bytes;
    }
    out.layers.push_back(std::move(layer));
  }
  out.problems = image.tree.Problems();
  return out;
}

std::string HumanBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

namespace {

// A value on one line: text as it is, a list of such values comma-joined.
std::optional<std::string> OneLine(const nlohmann::json& value) {
  if (value.is_object()) return value.empty() ? std::optional<std::string>("(none)") : std::nullopt;
  if (!value.is_array()) return ValueText(value);
  if (value.empty()) return "(none)";
  std::string line;
  for (const auto& item : value) {
    if (item.is_object() || item.is_array()) return std::nullopt;
    line += (line.empty() ? "" : ", ") + ValueText(item);
  }
  return line;
}

// The sections the text form has no layout of its own for, as an indented
// outline ("key: value", "- " per list item) instead of raw JSON; the JSON
// output has the same values exactly. Depth is bounded by what the facts
// writer produces; the cut-off only guards the outline.
void Outline(std::ostringstream& out, const nlohmann::json& value, const std::string& indent, int depth) {
  if (depth > 16) {
    out << indent << WriteJson(value) << "\n";
    return;
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (auto line = OneLine(item)) {
        out << indent << key << ": " << *line << "\n";
      } else {
        out << indent << key << ":\n";
        Outline(out, item, indent + "  ", depth + 1);
      }
    }
  } else if (value.is_array()) {
    for (const auto& item : value) {
      if (auto line = OneLine(item)) {
        out << indent << "- " << *line << "\n";
      } else {
        // An object item: its first key on the dash line, the rest under it.
        std::ostringstream nested;
        Outline(nested, item, indent + "  ", depth + 1);
        std::string text = nested.str();
        out << indent << "- " << text.substr(std::min(text.size(), indent.size() + 2));
      }
    }
  } else {
    out << indent << ValueText(value) << "\n";
  }
}

}  // namespace

std::string FactsToText(const nlohmann::json& shown_facts) {
  // Names, labels, history and problems come from the image: shown with
  // their control characters as escapes (a line feed in a name must not
  // start a line of its own in a terminal or a CI log).
  const nlohmann::json facts = DisplayStrings(shown_facts);
  std::ostringstream out;
  if (facts.contains("image")) {
    const auto& image = facts["image"];
    out << "image:     " << StringField(image, "ref") << "\n";
    out << "digest:    " << StringField(image, "digest") << "\n";
    out << "kind:      " << StringField(image, "kind") << "\n";
    std::string platform = StringField(image, "os") + "/" + StringField(image, "architecture");
    if (!image.value("variant", std::string()).empty()) platform += "/" + image.value("variant", std::string());
    out << "platform:  " << platform << "\n";
    out << "env:\n";
    const nlohmann::json env = image.value("env", nlohmann::json::object());
    const nlohmann::json labels = image.value("labels", nlohmann::json::object());
    const nlohmann::json layers = image.value("layers", nlohmann::json::array());
    const nlohmann::json problems = image.value("problems", nlohmann::json::array());
    for (const auto& [key, value] : env.items()) {
      out << "  " << key << "=" << ValueText(value) << "\n";
    }
    out << "labels:\n";
    for (const auto& [key, value] : labels.items()) {
      out << "  " << key << "=" << ValueText(value) << "\n";
    }
    out << "layers:\n";
    size_t index = 0;
    for (const auto& layer : layers) {
      out << "  " << index++ << "  " << StringField(layer, "digest");
      if (layer.contains("size")) out << "  " << HumanBytes(layer["size"].get<uint64_t>());
      out << "  " << StringField(layer, "created_by") << "\n";
    }
    for (const auto& problem : problems) {
      out << "problem:   " << WriteJson(problem) << "\n";
    }
  }
  if (facts.contains("cuda")) out << "\n" << cuda::FormatCudaFactsText(facts);
  for (const auto& [key, value] : facts.items()) {
    if (key == "image" || key == "schema" || key == "cuda" || key == "binaries" || key == "frameworks") continue;
    if (auto line = OneLine(value)) {
      out << key << ": " << *line << "\n";
    } else {
      out << key << ":\n";
      Outline(out, value, "  ", 0);
    }
  }
  return out.str();
}

std::string ListTree(const ScannedImage& image, const std::string& glob) {
  std::string pattern = glob;
  while (!pattern.empty() && pattern.front() == '/') pattern.erase(pattern.begin());
  std::ostringstream out;
  image.tree.ForEach([&](const std::string& path, const TreeNode& node) {
    if (!pattern.empty() && fnmatch(pattern.c_str(), path.c_str(), 0) != 0) return;
    const EntryInfo& info = node.entry->info;
    uint64_t size = node.content ? node.content->info.size : 0;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", info.mode & 07777);
    out << EntryTypeName(info.type) << " " << mode << " " << size << " L" << node.layer << " /" << DisplayText(path);
    if (!info.link_target.empty()) {
      out << (info.type == EntryType::kHardlink ? " => /" : " -> ") << DisplayText(info.link_target);
    }
    out << "\n";
  });
  return out.str();
}

void CompleteFactsDocument(facts::Facts& facts, const Knowledge& knowledge) {
  cuda::DeriveReachability(facts, knowledge);
}

}  // namespace imagelint
