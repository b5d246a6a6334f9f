// BaseSource's one name table (include/imagelint/base_source.h).
#include "imagelint/base_source.h"

#include "common/enum_names.h"

namespace imagelint {
namespace {

constexpr std::array<std::pair<BaseSource, std::string_view>, 5> kBaseSourceNames{{
    {BaseSource::kDocker, "docker"},
    {BaseSource::kRegistry, "registry"},
    {BaseSource::kLocal, "local"},
    {BaseSource::kKnowledge, "knowledge"},
    {BaseSource::kNone, "none"},
}};

}  // namespace

std::string_view BaseSourceName(BaseSource source) { return NameIn(kBaseSourceNames, source); }
std::optional<BaseSource> ParseBaseSource(std::string_view text) { return ValueIn(kBaseSourceNames, text); }

bool ReadFromImage(BaseSource source) {
  return source == BaseSource::kDocker || source == BaseSource::kRegistry || source == BaseSource::kLocal;
}

nlohmann::json WriteValue(const BaseSource& value) { return std::string(BaseSourceName(value)); }
void ReadValue(const nlohmann::json& value, BaseSource& out, std::string& problem) {
  ReadNamed<BaseSource>(value, out, problem, &ParseBaseSource, "\"docker\", \"registry\", \"local\", \"knowledge\" or \"none\"");
}

}  // namespace imagelint
