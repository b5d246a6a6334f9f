// Knowledge accessors of loader.yaml, cuda-targets.yaml, cudart-sonames.yaml
// runtime-libraries.yaml, driver-files.yaml, gpu-signals.yaml and captured-packages.yaml (the
// schemas are in tables.cpp).
#include <algorithm>
#include <utility>

#include "common/text.h"
#include "imagelint/knowledge.h"

namespace imagelint {
namespace {

using nlohmann::json;

bool AllDigits(std::string_view text) {
  return !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<std::string> Knowledge::LoaderDefaultDirectories(std::string_view lib_triplet) const {
  std::vector<std::string> out;
  for (const auto& row : Table("loader_directories"))
    if (lib_triplet.empty() || !row.contains("triplet") || row["triplet"] == lib_triplet)
      out.push_back(row["dir"].get<std::string>());
  return out;
}

const json* Knowledge::FindCudaTarget(std::string_view architecture) const {
  for (const auto& row : Table("cuda_targets"))
    if (row["architecture"] == architecture && !row.contains("variant")) return &row;
  return nullptr;
}

std::vector<std::string> Knowledge::CudaTargetNames() const {
  std::vector<std::string> out;
  for (const auto& row : Table("cuda_targets")) out.push_back(row["cuda_target"].get<std::string>());
  return out;
}

std::optional<std::string> Knowledge::CudartSoname(std::string_view cuda_version) const {
  // "12.4.1" -> major "12", minor "4"; every component must be digits.
  std::string version(cuda_version);
  size_t dot = version.find('.');
  std::string major = version.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : version.substr(dot + 1);
  std::string minor = dot == std::string::npos ? "0" : rest.substr(0, rest.find('.'));
  for (size_t start = 0; dot != std::string::npos && start <= rest.size();) {
    size_t end = rest.find('.', start);
    if (!AllDigits(rest.substr(start, end == std::string::npos ? std::string::npos : end - start))) return std::nullopt;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (!AllDigits(major)) return std::nullopt;
  long long major_number = std::stoll(major);
  for (const auto& row : Table("cudart_sonames")) {
    if (major_number < row["first_major"].get<long long>()) continue;
    if (row.contains("last_major") && major_number > row["last_major"].get<long long>()) continue;
    std::string soname = row["soname"].get<std::string>();
    for (const auto& [token, value] : {std::pair<std::string, std::string>{"{major}", major}, {"{minor}", minor}})
      for (size_t at = soname.find(token); at != std::string::npos; at = soname.find(token, at + value.size()))
        soname.replace(at, token.size(), value);
    return soname;
  }
  return std::nullopt;
}

bool Knowledge::IsDriverFile(std::string_view file_name) const {
  for (const auto& row : Table("driver_files"))
    if (file_name.starts_with(row["prefix"].get_ref<const std::string&>())) return true;
  return false;
}

GpuSignalWords Knowledge::GpuSignals() const {
  GpuSignalWords out;
  const std::pair<std::string_view, std::vector<std::string>*> lists[] = {
      {"package", &out.package_words},          {"directory", &out.directory_words},
      {"variable", &out.variables},             {"variable-prefix", &out.variable_prefixes},
      {"label-prefix", &out.label_prefixes},    {"needed-prefix", &out.needed_prefixes},
      {"base-image", &out.base_image_words},    {"base-image-prefix", &out.base_image_prefixes},
      {"rocm", &out.rocm_words}};
  for (const auto& row : Table("gpu_signals")) {
    const std::string& where = row["where"].get_ref<const std::string&>();
    for (const auto& [name, list] : lists)
      if (where == name) list->push_back(row["text"].get<std::string>());
  }
  return out;
}

CapturedPackages Knowledge::CapturedPackageNames() const {
  CapturedPackages out;
  for (const auto& row : Table("captured_packages")) {
    // Normalised as the names they are matched against (lower case; Python
    // names with `_` read as `-`), so a row a team wrote otherwise still matches.
    std::string text = ToLower(row["text"].get<std::string>());
    if (row["where"] == "python-prefix") {
      std::replace(text.begin(), text.end(), '_', '-');
      out.python_prefixes.push_back(std::move(text));
    } else {
      out.dpkg_words.push_back(std::move(text));
    }
  }
  return out;
}

const json* Knowledge::FindRuntimeLibrary(std::string_view name) const {
  for (const auto& row : Table("runtime_libraries")) {
    const std::string& stem = row["name"].get_ref<const std::string&>();
    if (name == stem) return &row;
    if (!row.contains("family") || name.substr(0, stem.size()) != stem) continue;
    bool underscore = row["family"] == "letters_underscore";
    std::string_view rest = name.substr(stem.size());
    if (std::all_of(rest.begin(), rest.end(), [&](char c) { return (c >= 'a' && c <= 'z') || (underscore && c == '_'); }))
      return &row;
  }
  return nullptr;
}

}  // namespace imagelint
