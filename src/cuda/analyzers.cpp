#include <algorithm>
#include <cstring>
#include <string>

#include "common/json.h"
#include "common/lines.h"
#include "common/text.h"
#include "cuda/cuda.h"
#include "cuda/elf.h"
#include "imagelint/digest.h"

namespace imagelint::cuda {
namespace {

using nlohmann::json;

// Python distributions and conda packages whose metadata says something about
// CUDA (captured-packages.yaml python-prefix rows).
bool RelevantPackage(std::string name, const CapturedPackages& captured) {
  name = ToLower(name);
  std::replace(name.begin(), name.end(), '_', '-');
  return StartsWithAny(name, captured.python_prefixes);
}

uint64_t CapForKind(const std::string& kind) {
  if (kind == "dpkg_status") return 64u << 20;
  if (kind == "conda_meta") return 8u << 20;
  if (kind == "pip_metadata") return 4u << 20;
  return 256 * 1024;
}

json ParseDpkgStatus(std::string_view text, const CapturedPackages& captured) {
  json packages = json::array();
  std::string name, version, status, arch, source;
  auto flush = [&] {
    if (!name.empty() && ContainsAnyWord(name, captured.dpkg_words) && packages.size() < 5000) {
      json row = {{"name", name}, {"version", version}};
      if (!status.empty()) row["status"] = status;
      if (!arch.empty()) row["architecture"] = arch;
      packages.push_back(row);
    }
    name.clear(), version.clear(), status.clear(), arch.clear(), source.clear();
  };
  size_t pos = 0;
  std::string_view line;
  while (NextLine(text, pos, line)) {
    if (line.empty()) {
      flush();
    } else if (line[0] != ' ' && line[0] != '\t') {
      size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        std::string_view key = line.substr(0, colon);
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (key == "Package") name = value;
        else if (key == "Version") version = value;
        else if (key == "Status") status = value;
        else if (key == "Architecture") arch = value;
      }
    }
  }
  flush();
  return packages;
}

json ParsePipMetadata(std::string_view text, const CapturedPackages& captured) {
  json out = json::object();
  json requires_dist = json::array();
  size_t pos = 0;
  std::string_view line;
  while (NextLine(text, pos, line)) {
    if (line.empty()) break;  // end of the header block
    size_t colon = line.find(':');
    if (colon != std::string_view::npos && line[0] != ' ') {
      std::string_view key = line.substr(0, colon);
      std::string value(line.substr(colon + 1));
      value.erase(0, value.find_first_not_of(' '));
      if (key == "Name") out["name"] = value;
      else if (key == "Version") out["version"] = value;
      else if (key == "Requires-Dist" && RelevantPackage(value, captured) && requires_dist.size() < 200)
        requires_dist.push_back(value);
    }
  }
  if (!requires_dist.empty()) out["requires_dist"] = requires_dist;
  return out;
}

class TextSink : public FileSink {
 public:
  TextSink(std::string kind, uint64_t cap, const CapturedPackages& captured)
      : kind_(std::move(kind)), cap_(cap), captured_(captured) {}
  bool Consume(std::span<const uint8_t> chunk) override {
    size_t take = static_cast<size_t>(std::min<uint64_t>(cap_ - text_.size(), chunk.size()));
    text_.append(reinterpret_cast<const char*>(chunk.data()), take);
    if (take < chunk.size()) truncated_ = true;
    return !truncated_;
  }
  json Finish(bool complete) override {
    json out = {{"kind", kind_}};
    if (truncated_) {
      out["problems"] = json::array({{{"offset", cap_}, {"message", "file larger than the " +
                                                                       std::to_string(cap_) +
                                                                       "-byte limit for " + kind_ + "; not read"}}});
      return out;
    }
    if (!complete) out["problems"] = json::array({{{"offset", text_.size()}, {"message", "file was cut short"}}});
    if (kind_ == "dpkg_status") {
      out["packages"] = ParseDpkgStatus(text_, captured_);
    } else if (kind_ == "pip_metadata") {
      json parsed = ParsePipMetadata(text_, captured_);
      out.update(parsed);
    } else if (kind_ == "conda_meta" || kind_ == "cuda_version_json") {
      auto read = ParseJson(text_, kind_);
      if (!read.ok() || !read->is_object()) {
        out["problems"] = json::array({{{"offset", 0}, {"message", read.ok() ? "invalid JSON: not an object"
                                                                              : read.error().message}}});
        return out;
      }
      const json& parsed = *read;
      if (kind_ == "conda_meta") {
        // A name that is not a string is no package imagelint reads (conda writes strings).
        std::string name = parsed.contains("name") && parsed["name"].is_string() ? parsed["name"].get<std::string>() : "";
        if (!RelevantPackage(name, captured_)) return json();  // not about CUDA: nothing to keep
        for (const char* key : {"name", "version", "build", "subdir", "channel"})
          if (parsed.contains(key) && parsed[key].is_string()) out[key] = parsed[key];
        if (parsed.contains("depends") && parsed["depends"].is_array()) {
          json depends = json::array();
          for (const auto& dep : parsed["depends"])
            if (dep.is_string() && RelevantPackage(dep.get<std::string>(), captured_) && depends.size() < 200)
              depends.push_back(dep);
          out["depends"] = depends;
        }
      } else {
        json versions = json::object();
        for (auto it = parsed.begin(); it != parsed.end(); ++it)
          if (it->is_object() && it->contains("version") && (*it)["version"].is_string())
            versions[it.key()] = (*it)["version"];
        out["versions"] = versions;
      }
    } else {
      out["text"] = text_;
    }
    return out;
  }

 private:
  std::string kind_;
  uint64_t cap_;
  const CapturedPackages& captured_;  // the analyzer's, which outlives its sinks
  std::string text_;
  bool truncated_ = false;
};

// What the analyzer keeps follows the table's rows, so a layer scanned under
// other rows is another cache entry.
std::string CapturedTag(const CapturedPackages& captured) {
  std::string text;
  for (const auto* list : {&captured.python_prefixes, &captured.dpkg_words}) {
    for (const std::string& word : *list) text += word + '\n';
    text += '\n';
  }
  std::string digest = Sha256Digest({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  return digest.substr(digest.find(':') + 1, 12);
}

class TextAnalyzer : public FileAnalyzer {
 public:
  explicit TextAnalyzer(CapturedPackages captured) : captured_(std::move(captured)), tag_(CapturedTag(captured_)) {}
  std::string_view Name() const override { return kTextAnalyzerName; }
  int Version() const override { return 1; }
  std::string CacheTag() const override { return tag_; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    if (entry.type != EntryType::kRegular) return nullptr;
    std::string kind = TextKindForPath(entry.path, captured_);
    if (kind.empty()) return nullptr;
    uint64_t cap = CapForKind(kind);
    return std::make_unique<TextSink>(kind, cap, captured_);
  }

 private:
  CapturedPackages captured_;
  std::string tag_;
};

class ElfSink : public FileSink {
 public:
  ElfSink(std::string path, uint64_t size) : scanner_(std::move(path), size) {}
  bool Consume(std::span<const uint8_t> chunk) override {
    scanner_.Consume(chunk);
    return true;
  }
  json Finish(bool complete) override { return scanner_.Finish(complete); }

 private:
  ElfScanner scanner_;
};

class ElfAnalyzer : public FileAnalyzer {
 public:
  std::string_view Name() const override { return kElfAnalyzerName; }
  // 2: kernels per cubin (cubins read whole up to FatbinLimits::whole_cubin_bytes).
  int Version() const override { return 2; }
  std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) override {
    if (entry.type != EntryType::kRegular && entry.type != EntryType::kHardlink) return nullptr;
    if (head.size() < 4) return nullptr;
    static const uint8_t kElf[4] = {0x7F, 'E', 'L', 'F'};
    static const uint8_t kFatbin[4] = {0x50, 0xED, 0x55, 0xBA};
    if (std::memcmp(head.data(), kElf, 4) != 0 && std::memcmp(head.data(), kFatbin, 4) != 0) return nullptr;
    return std::make_unique<ElfSink>(entry.path, entry.size);
  }
};

}  // namespace

std::string TextKindForPath(std::string_view path, const CapturedPackages& captured) {
  std::string base = BaseName(path);
  std::string dir = DirName(path);
  if (StartsWith(path, "usr/local/cuda") && path.find('/', 10) == path.rfind('/')) {
    if (base == "version.json") return "cuda_version_json";
    if (base == "version.txt") return "cuda_version_txt";
  }
  if (path == "var/lib/dpkg/status" || (dir == "var/lib/dpkg/status.d" && base.find('.') == std::string_view::npos))
    return "dpkg_status";
  if (base == "METADATA" && EndsWith(dir, ".dist-info")) {
    std::string dist = BaseName(dir);
    std::string name(dist.substr(0, dist.find('-')));
    return RelevantPackage(name, captured) ? "pip_metadata" : "";
  }
  if (base == "PKG-INFO" && EndsWith(dir, ".egg-info")) {
    std::string dist = BaseName(dir);
    std::string name(dist.substr(0, dist.find('-')));
    return RelevantPackage(name, captured) ? "pip_metadata" : "";
  }
  if (EndsWith(dir, "conda-meta") && EndsWith(base, ".json")) {
    return RelevantPackage(std::string(base), captured) ? "conda_meta" : "";
  }
  if (path == "etc/ld.so.conf" || (dir == "etc/ld.so.conf.d")) return "ld_so_conf";
  if (EndsWith(path, "/torch/version.py")) return "torch_version";
  if (EndsWith(path, "/tensorflow/python/platform/build_info.py")) return "tensorflow_build_info";
  if (EndsWith(path, "/onnxruntime/capi/version_info.py")) return "onnxruntime_version_info";
  if (EndsWith(path, "/onnxruntime/capi/build_and_package_info.py")) return "onnxruntime_build_info";
  if (EndsWith(path, "/cupy/_version.py")) return "cupy_version";
  if (EndsWith(path, "/jaxlib/version.py")) return "jaxlib_version";
  if (EndsWith(path, "/tensorrt/__init__.py")) return "tensorrt_init";
  return "";
}

std::unique_ptr<FileAnalyzer> MakeElfAnalyzer() { return std::make_unique<ElfAnalyzer>(); }
std::unique_ptr<FileAnalyzer> MakeTextAnalyzer(CapturedPackages captured) {
  return std::make_unique<TextAnalyzer>(std::move(captured));
}
std::vector<std::unique_ptr<FileAnalyzer>> MakeCudaAnalyzers(const CapturedPackages& captured) {
  std::vector<std::unique_ptr<FileAnalyzer>> out;
  out.push_back(MakeElfAnalyzer());
  out.push_back(MakeTextAnalyzer(captured));
  return out;
}

}  // namespace imagelint::cuda
