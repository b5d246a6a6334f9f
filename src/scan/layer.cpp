// LayerResult <-> JSON (the layer cache stores this form) and entry type names.
#include "imagelint/layer.h"

namespace imagelint {

std::string_view EntryTypeName(EntryType type) {
  switch (type) {
    case EntryType::kRegular: return "file";
    case EntryType::kDirectory: return "dir";
    case EntryType::kSymlink: return "symlink";
    case EntryType::kHardlink: return "hardlink";
    case EntryType::kOther: return "other";
  }
  return "other";
}

namespace {

std::optional<EntryType> ParseEntryType(std::string_view name) {
  for (EntryType type : {EntryType::kRegular, EntryType::kDirectory, EntryType::kSymlink, EntryType::kHardlink,
                         EntryType::kOther}) {
    if (EntryTypeName(type) == name) return type;
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json LayerResultToJson(const LayerResult& layer) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& entry : layer.entries) {
    nlohmann::json item = {{"path", entry.info.path}, {"type", EntryTypeName(entry.info.type)}};
    if (entry.info.size) item["size"] = entry.info.size;
    item["mode"] = entry.info.mode;
    if (!entry.info.link_target.empty()) item["link"] = entry.info.link_target;
    if (!entry.analysis.empty()) item["analysis"] = entry.analysis;
    entries.push_back(std::move(item));
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : layer.problems) problems.push_back({{"path", problem.path}, {"message", problem.message}});
  return {{"digest", layer.digest},     {"diff_id", layer.diff_id}, {"blob_bytes", layer.blob_bytes},
          {"tar_bytes", layer.tar_bytes}, {"entries", entries},       {"problems", problems}};
}

Result<LayerResult> LayerResultFromJson(const nlohmann::json& json) {
  const std::string subject = "layer result";
  try {
    if (!json.is_object()) return MakeError(subject, "not a JSON object");
    LayerResult layer;
    layer.digest = json.at("digest").get<std::string>();
    layer.diff_id = json.at("diff_id").get<std::string>();
    layer.blob_bytes = json.at("blob_bytes").get<uint64_t>();
    layer.tar_bytes = json.at("tar_bytes").get<uint64_t>();
    for (const auto& item : json.at("entries")) {
      LayerEntry entry;
      entry.info.path = item.at("path").get<std::string>();
      auto type = ParseEntryType(item.at("type").get<std::string>());
      if (!type) return MakeError(subject, "unknown entry type in " + entry.info.path);
      entry.info.type = *type;
      entry.info.size = item.value("size", uint64_t{0});
      entry.info.mode = item.value("mode", uint32_t{0});
      entry.info.link_target = item.value("link", std::string());
      if (item.contains("analysis")) {
        for (const auto& [name, facts] : item.at("analysis").items()) entry.analysis[name] = facts;
      }
      layer.entries.push_back(std::move(entry));
    }
    for (const auto& item : json.at("problems")) {
      layer.problems.push_back({item.at("path").get<std::string>(), item.at("message").get<std::string>()});
    }
    return layer;
  } catch (const nlohmann::json::exception& e) {
    return MakeError(subject, std::string("malformed: ") + e.what());
  }
}

}  // namespace imagelint
