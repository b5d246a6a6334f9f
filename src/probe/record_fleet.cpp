// `probe --record FLEET.yaml`: one `observed:` entry written into a pool of a
// fleet file by inserting (or replacing) one line, so that the rest of the
// file, comments included, stays as the user wrote it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "common/file_text.h"
#include "common/text.h"
#include "imagelint/probe.h"

namespace imagelint::probe {
namespace {

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

std::string FlowEntry(const Observation& seen) {
  std::string line = "{";
  if (!seen.image.empty()) line += "image: " + Quoted(seen.image) + ", ";
  if (!seen.fact.empty()) line += "fact: " + Quoted(seen.fact) + ", ";
  line += "code: " + std::to_string(seen.code);
  if (!seen.name.empty()) line += ", name: " + Quoted(seen.name);
  if (!seen.api.empty()) line += ", api: " + Quoted(seen.api);
  line += ", host: " + Quoted(seen.host) + ", date: " + Quoted(seen.date) + "}";
  return line;
}

}  // namespace

Observation MakeObservation(const std::string& image_digest, const std::string& fact, const Outcome& outcome,
                            const std::string& host, const std::string& date) {
  Observation seen;
  seen.image = image_digest;
  seen.fact = fact;
  seen.code = outcome.code;
  seen.name = outcome.code == 0 ? "" : outcome.name;
  seen.api = outcome.api;
  seen.host = host;
  seen.date = date;
  return seen;
}

Status RecordObservation(const std::string& path, const std::string& pool, const std::string& pool_yaml,
                         const Observation& observation) {
  std::string text;  // a fleet file that does not exist yet starts empty
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto read = ReadBoundedFile(path, 16u << 20, "fleet file", FileKinds::kRegularOnly);
    if (!read.ok()) return read.error();
    text = std::move(*read);
  }
  std::vector<std::string> lines = SplitOn(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  const std::string entry = FlowEntry(observation);
  try {
    YAML::Node root = text.empty() ? YAML::Node() : YAML::Load(text);
    YAML::Node pools = root.IsMap() ? root["pools"] : YAML::Node();
    std::optional<YAML::Node> found;
    if (pools && pools.IsSequence())
      for (const auto& node : pools)
        if (node.IsMap() && node["name"] && node["name"].Scalar() == pool) found = YAML::Node(node);
    if (!found) {
      // A new pool at the end of the file: only when `pools:` is its last key.
      if (!text.empty() && (!pools || !pools.IsSequence() || pools.Style() == YAML::EmitterStyle::Flow))
        return MakeError(path, "has no block list 'pools:' to add pool '" + pool + "' to");
      if (text.empty()) lines.push_back("pools:");
      bool first = true;
      for (const std::string& line : SplitOn(pool_yaml, '\n')) {
        if (line.empty()) continue;
        lines.push_back((first ? "  - " : "    ") + line);
        first = false;
      }
      lines.push_back("    observed:");
      lines.push_back("      - " + entry);
    } else {
      if (found->Style() == YAML::EmitterStyle::Flow)
        return MakeError(path, "pool '" + pool + "' is written in flow style {...}; write it as a block to record into it");
      YAML::Node observed = (*found)["observed"];
      int pool_line = found->Mark().line, pool_column = found->Mark().column;
      if (pool_line < 0 || pool_line >= static_cast<int>(lines.size()) || pool_column < 0)
        return MakeError(path, "cannot tell where pool '" + pool + "' is written");
      if (!observed) {
        lines.insert(lines.begin() + pool_line + 1,
                     {std::string(pool_column, ' ') + "observed:", std::string(pool_column + 2, ' ') + "- " + entry});
      } else {
        if (!observed.IsSequence() || observed.Style() == YAML::EmitterStyle::Flow || observed.size() == 0)
          return MakeError(path, "pool '" + pool + "': 'observed' is not a block list");
        bool replaced = false;
        for (const auto& item : observed) {
          std::string image = item["image"] ? item["image"].Scalar() : "";
          std::string fact = item["fact"] ? item["fact"].Scalar() : "";
          if (image != observation.image || fact != observation.fact) continue;
          int line = item.Mark().line;
          if (item.Style() != YAML::EmitterStyle::Flow || line >= static_cast<int>(lines.size()))
            return MakeError(path, "pool '" + pool + "': the observation to replace spans several lines; edit it by hand");
          lines[line] = std::string(std::max(item.Mark().column - 2, 0), ' ') + "- " + entry;
          replaced = true;
          break;
        }
        if (!replaced) {
          const YAML::Node first = observed[0];
          int column = first.Mark().column;
          if (first.Mark().line < 0 || first.Mark().line > static_cast<int>(lines.size()))
            return MakeError(path, "cannot tell where pool '" + pool + "' lists its observations");  // the item's content; its "- " sits before it
          lines.insert(lines.begin() + first.Mark().line,
                       std::string(std::max(column - 2, 0), ' ') + "- " + entry);
        }
      }
    }
  } catch (const YAML::Exception& e) {
    return MakeError(path, "invalid fleet file: " + e.msg);
  }
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  const std::string temporary = path + ".imagelint-tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << out;
    file.close();
    if (!file) return MakeError(temporary, "cannot write");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return MakeError(path, "cannot replace the fleet file");
  return OkStatus();
}

}  // namespace imagelint::probe
