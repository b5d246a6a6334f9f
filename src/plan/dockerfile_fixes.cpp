// Candidate changes of a Dockerfile, one each, in the forms public
// Dockerfiles write them (apt-get install lines, FROM tags, PyTorch index
// URLs and local versions, architecture-list variables). plan.cpp proves
// each by analysing the patched text and running the rules on it; none is
// offered on its own say.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <re2/re2.h>

#include "common/text.h"
#include "common/version.h"
#include "imagelint/knowledge.h"
#include "plan/plan_steps.h"

namespace imagelint::plan {
namespace {

using nlohmann::json;

// A match of `re` in `line` (RE2: linear time on any line a Dockerfile
// holds): group 0 is the whole match, unmatched groups are empty; no match =
// an empty vector.
struct Match {
  std::vector<std::string_view> groups;
  std::string_view line;
  explicit operator bool() const { return !groups.empty(); }
  std::string operator[](size_t i) const { return i < groups.size() ? std::string(groups[i]) : std::string(); }
  std::string prefix() const { return std::string(line.substr(0, Begin(0))); }
  std::string suffix() const { return std::string(line.substr(Begin(0) + groups[0].size())); }
  size_t Begin(size_t i) const { return groups[i].data() == nullptr ? 0 : static_cast<size_t>(groups[i].data() - line.data()); }
};

Match Find(std::string_view line, const re2::RE2& re) {
  Match out;
  out.line = line;
  std::vector<re2::StringPiece> pieces(static_cast<size_t>(re.NumberOfCapturingGroups()) + 1);
  if (!re.Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), re2::RE2::UNANCHORED, pieces.data(),
                static_cast<int>(pieces.size())))
    return out;
  for (const auto& piece : pieces) out.groups.emplace_back(piece.data(), piece.size());
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out = SplitOn(text, '\n');
  if (!out.empty() && out.back().empty() && !text.empty() && text.back() == '\n') out.pop_back();
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

bool IsComment(const std::string& line) {
  std::string trimmed = Trim(line);
  return !trimmed.empty() && trimmed[0] == '#';
}

std::string LineRef(size_t index) { return "line " + std::to_string(index + 1); }

// A cuda-compat-X-Y package on an install line: removing it keeps the
// host's libcuda in charge (the seeds' 804 and 803 fixes).
void DropCompatPackages(const std::vector<std::string>& lines, std::vector<DockerfilePatch>& out) {
  static const re2::RE2 kCompat(R"((^|\s)(cuda-compat-[0-9]+-[0-9]+(?:=[^\s\\;&|]+)?))");
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsComment(lines[i])) continue;
    Match match = Find(lines[i], kCompat);
    if (!match) continue;
    std::string after = match.suffix();
    if (!after.empty() && std::string(" \t\\;&|").find(after[0]) == std::string::npos) continue;
    std::vector<std::string> patched = lines;
    patched[i] = match.prefix() + match[1] + after;
    // Two blanks where the package was: one is enough.
    size_t spot = match.Begin(0) + match.groups[1].size();
    if (spot < patched[i].size() && patched[i][spot] == ' ' && spot > 0 && patched[i][spot - 1] == ' ')
      patched[i].erase(spot, 1);
    out.push_back({"compat", "drop " + match[2] + " (" + LineRef(i) + ")", Join(patched),
                   {"nothing else in the image installs a compat libcuda"}, 1});
  }
}

// FROM nvidia/cuda:<X.Y[.Z]>-<rest> (or another repository of the family): the same flavour and OS on another CUDA
// release the tables know, nearest first, within one major of the current.
void OtherCudaBases(const std::vector<std::string>& lines, const Knowledge& knowledge,
                    std::vector<DockerfilePatch>& out) {
  // The official images' repositories (base-images.yaml, family nvidia/cuda).
  std::string repositories;
  for (const json& row : knowledge.Table("base_image_families"))
    if (row.value("family", "") == "nvidia/cuda")
      for (const json& repository : row.value("repositories", json::array()))
        if (repository.is_string())
          repositories += (repositories.empty() ? "" : "|") + re2::RE2::QuoteMeta(repository.get<std::string>());
  if (repositories.empty()) return;
  const re2::RE2 from_pattern("(?i)^(\\s*FROM\\s+(?:--platform=\\S+\\s+)?)((?:docker\\.io/)?(?:" + repositories +
                       ")):([0-9]+\\.[0-9]+(?:\\.[0-9]+)?)-(\\S+)(.*)$");
  std::vector<std::string> releases;
  for (const json& row : knowledge.Table("cuda_images")) releases.push_back(row.value("cuda", ""));
  for (size_t i = 0; i < lines.size(); ++i) {
    Match match = Find(lines[i], from_pattern);
    if (!match) continue;
    const std::string current = match[3];
    int major = std::atoi(current.c_str());
    auto rank = [&](const std::string& release) {  // distance in the table's order
      auto here = std::find_if(releases.begin(), releases.end(), [&](const std::string& r) {
        return r == current || r.rfind(current + ".", 0) == 0;
      });
      auto there = std::find(releases.begin(), releases.end(), release);
      return here == releases.end() ? 1000L : std::labs(static_cast<long>(there - here));
    };
    std::vector<std::string> candidates;
    for (const std::string& release : releases) {
      int other_major = std::atoi(release.c_str());
      if (release.empty() || std::abs(other_major - major) > 1) continue;
      if (release == current || release.rfind(current + ".", 0) == 0) continue;
      candidates.push_back(release);
    }
    // The official images of a release with a compat package carry it
    // (cuda_images.compat_libcuda): removing the directory is the seeds' fix.
    std::string major_minor = current.substr(0, current.find('.', current.find('.') + 1));
    bool has_compat = false;
    for (const json& row : knowledge.Table("cuda_images"))
      if ((row.value("cuda", "") == current || row.value("cuda", "").rfind(major_minor + ".", 0) == 0) &&
          row.contains("compat_libcuda"))
        has_compat = true;
    if (has_compat) {
      std::vector<std::string> patched = lines;
      patched.insert(patched.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                     "RUN rm -rf /usr/local/cuda-" + major_minor + "/compat");
      out.push_back({"compat", "remove the base image's /usr/local/cuda-" + major_minor + "/compat after " + LineRef(i),
                     Join(patched), {"the image's libcuda comes from the host (no other compat copy)"}, 1});
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    if (candidates.size() > 12) candidates.resize(12);
    for (const std::string& release : candidates) {
      std::vector<std::string> patched = lines;
      std::string tag = match[2] + ":" + release + "-" + match[4];
      patched[i] = match[1] + tag + match[5];
      out.push_back({"base", "FROM " + tag + " instead of " + match[2] + ":" + current + "-" + match[4] + " (" +
                         LineRef(i) + ")",
                     Join(patched),
                     {tag + " as the knowledge tables describe the official image (not pulled; the tag is assumed "
                            "to be published for this OS)"},
                     2 + static_cast<int>(rank(release))});
    }
  }
}

// PyTorch's CUDA variant: an index URL (<index host>/whl/cuXYZ, the host from
// packages.yaml) or a local version (torch==2.1.0+cu121) swapped for another
// variant of the same torch release (pytorch.yaml), nearest CUDA first.
void OtherTorchVariants(const std::vector<std::string>& lines, const Knowledge& knowledge,
                        std::vector<DockerfilePatch>& out) {
  std::string host;
  for (const json& row : knowledge.Table("python_packages"))
    if (row.value("manager", "") == "pip" && row.value("name", "") == "torch")
      for (const json& one : row.value("index_hosts", json::array()))
        if (one.is_string() && host.empty()) host = one.get<std::string>();
  if (host.empty()) return;
  const re2::RE2 variant_pattern("(" + re2::RE2::QuoteMeta(host) + "/whl/(?:nightly/|test/)?|\\+)(cu[0-9]{2,3})");
  static const re2::RE2 kPin(R"(torch==([0-9]+\.[0-9]+))");
  static const re2::RE2 kFullPin(R"(torch==[0-9]+\.[0-9]+(?:\.[0-9]+)?)");
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsComment(lines[i])) continue;
    Match match = Find(lines[i], variant_pattern);
    Match pin = Find(lines[i], kPin);
    // A pin without a variant (torch==1.12.1 from PyPI): the same release
    // from PyTorch's own index, as torch==1.12.1+cu113 with its index URL.
    bool pypi_pin = !match && pin && (pin.suffix().empty() || pin.suffix()[0] == ' ' || pin.suffix()[0] == '.');
    if (!match && !pypi_pin) continue;
    const std::string current = match ? match[2] : "";
    std::string torch = pin ? pin[1] : "";
    // Without a pin: the variants of the newest torch release the tables list.
    std::string newest;
    for (const json& row : knowledge.Table("pytorch"))
      if (newest.empty() || CompareNaturalVersions(row.value("torch", ""), newest) > 0) newest = row.value("torch", "");
    if (torch.empty()) torch = newest;
    std::vector<std::pair<std::string, std::string>> variants;  // variant, cuda
    for (const json& row : knowledge.Table("pytorch")) {
      if (row.value("torch", "") != torch || row.value("variant", "") == current) continue;
      std::string variant = row.value("variant", "");
      if (variant.rfind("cu", 0) != 0) continue;
      variants.emplace_back(variant, row.value("cuda", ""));
    }
    // Nearest to the current variant first; after a PyPI pin, newest first.
    int current_number = current.size() > 2 ? std::atoi(current.c_str() + 2) : 1000;
    std::stable_sort(variants.begin(), variants.end(), [&](const auto& a, const auto& b) {
      return std::abs(std::atoi(a.first.c_str() + 2) - current_number) <
             std::abs(std::atoi(b.first.c_str() + 2) - current_number);
    });
    for (const auto& [variant, cuda] : variants) {
      std::vector<std::string> patched = lines;
      if (pypi_pin) {
        Match full = Find(lines[i], kFullPin);
        if (!full) break;
        patched[i] = full.prefix() + full[0] + "+" + variant + " --extra-index-url https://" + host + "/whl/" +
                     variant + full.suffix();
      } else {
        patched[i] = match.prefix() + match[1] + variant + match.suffix();
      }
      out.push_back({"torch", "torch " + torch + " " + variant + " build instead of " + (current.empty() ? "PyPI's" : current) + " (" + LineRef(i) + ")",
                     Join(patched), {"the torch " + torch + "+" + variant + " wheel as pytorch.yaml lists it (CUDA " + cuda + ")"},
                     3});
    }
  }
}

// TORCH_CUDA_ARCH_LIST="8.0 8.6" / CMAKE_CUDA_ARCHITECTURES=80;86 (ENV, ARG
// or -D on a RUN line): the failing pools' compute capabilities added.
void AddArchitectures(const std::vector<std::string>& lines, const std::vector<std::string>& capabilities,
                      std::vector<DockerfilePatch>& out) {
  static const re2::RE2 kTorchList(R"((TORCH_CUDA_ARCH_LIST[= ]"?)([0-9.;+ A-Za-z]*[0-9A-Za-z+]))");
  static const re2::RE2 kCmakeList(R"((CMAKE_CUDA_ARCHITECTURES[= ]"?)([0-9;a-z\- ]*[0-9a-z]))");
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsComment(lines[i])) continue;
    for (bool torch : {true, false}) {
      Match match = Find(lines[i], torch ? kTorchList : kCmakeList);
      if (!match) continue;
      std::string list = match[2];
      if (list == "all" || list == "all-major" || list == "native") continue;
      char separator = list.find(';') != std::string::npos ? ';' : torch ? ' ' : ';';
      std::string added;
      for (const std::string& cc : capabilities) {
        std::string entry = torch ? cc : std::string(cc).erase(cc.find('.'), 1);
        if (list.find(entry) != std::string::npos || added.find(entry) != std::string::npos) continue;
        added += separator + entry;
      }
      if (added.empty()) continue;
      std::vector<std::string> patched = lines;
      patched[i] = match.prefix() + match[1] + list + added + match.suffix();
      out.push_back({"arch-list", std::string(torch ? "TORCH_CUDA_ARCH_LIST" : "CMAKE_CUDA_ARCHITECTURES") + " += " +
                         added.substr(1) + " (" + LineRef(i) + ")",
                     Join(patched), {"the build compiles for every entry of the list"}, 2});
    }
  }
}

// ENV NVIDIA_DISABLE_REQUIRE=1 in the last stage: the container runtime
// skips its requirement check (only that: CUDA's own checks still apply,
// and the rules evaluated them).
void DisableRequire(const std::vector<std::string>& lines, std::vector<DockerfilePatch>& out) {
  static const re2::RE2 kFromLine(R"((?i)^\s*FROM\s)");
  size_t last_from = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (Find(lines[i], kFromLine)) last_from = i;
  if (last_from == lines.size()) return;
  for (const std::string& line : lines)
    if (line.find("NVIDIA_DISABLE_REQUIRE") != std::string::npos) return;
  std::vector<std::string> patched = lines;
  patched.insert(patched.begin() + static_cast<std::ptrdiff_t>(last_from) + 1, "ENV NVIDIA_DISABLE_REQUIRE=1");
  out.push_back({"require", "ENV NVIDIA_DISABLE_REQUIRE=1 after " + LineRef(last_from), Join(patched),
                 {"the requirement check is the only obstacle: CUDA's own checks were evaluated and pass"}, 6});
}

}  // namespace

std::vector<DockerfilePatch> DockerfilePatches(const std::string& text, const std::vector<std::string>& capabilities,
                                               const Knowledge& knowledge) {
  std::vector<std::string> lines = Lines(text);
  std::vector<DockerfilePatch> out;
  DropCompatPackages(lines, out);
  AddArchitectures(lines, capabilities, out);
  OtherCudaBases(lines, knowledge, out);
  OtherTorchVariants(lines, knowledge, out);
  DisableRequire(lines, out);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size < b.size; });
  return out;
}

std::string UnifiedDiff(const std::string& name, const std::string& before, const std::string& after) {
  std::vector<std::string> a = Lines(before), b = Lines(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  size_t removed = a.size() - prefix - suffix, added = b.size() - prefix - suffix;
  if (removed == 0 && added == 0) return "";
  // -U0 hunks: a count of 0 names the line before the change.
  auto range = [](size_t start, size_t count) {
    return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
  };
  std::string out = "--- a/" + name + "\n+++ b/" + name + "\n@@ -" + range(prefix, removed) + " +" +
                    range(prefix, added) + " @@\n";
  for (size_t i = 0; i < removed; ++i) out += "-" + a[prefix + i] + "\n";
  for (size_t i = 0; i < added; ++i) out += "+" + b[prefix + i] + "\n";
  return out;
}

}  // namespace imagelint::plan
