#include "fleet_import/hosts.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace imagelint::fleet_import {

namespace {

bool AllDigits(std::string_view text) {
  if (text.empty() || text.size() > 9) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> SplitDots(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

bool IsDriverVersion(std::string_view text) {
  auto parts = SplitDots(text);
  if (parts.size() < 2 || parts.size() > 3) return false;
  return std::all_of(parts.begin(), parts.end(), AllDigits);
}

bool IsComputeCapability(std::string_view text) {
  auto parts = SplitDots(text);
  return parts.size() == 2 && AllDigits(parts[0]) && AllDigits(parts[1]) && parts[0].size() <= 3 &&
         parts[1].size() <= 2;
}

namespace {
// "NVIDIA RTX" / "nvidia-rtx" / "NVIDIA_RTX" → "nvidiartx".
std::string Squashed(std::string_view text) {
  std::string out;
  for (char c : ToLower(TrimView(text)))
    if (c != ' ' && c != '_' && c != '-') out += c;
  return out;
}
}  // namespace

std::string NormaliseBrand(std::string_view printed, const std::vector<BrandNames>& brands) {
  std::string squashed = Squashed(printed);
  if (squashed.empty()) return {};
  for (const auto& brand : brands) {
    if (squashed == Squashed(brand.requirement)) return brand.requirement;
    for (const auto& spelling : brand.spellings)
      if (squashed == Squashed(spelling)) return brand.requirement;
  }
  return "unknown";  // a brand this version of the knowledge files does not know
}

std::optional<std::string> GuessBrandFromName(std::string_view product, const std::vector<BrandNames>& brands) {
  std::string lower = ToLower(product);
  for (const auto& brand : brands)
    for (const auto& word : brand.product_words)
      if (!word.empty() && lower.find(ToLower(word)) != std::string::npos) return brand.requirement;
  return std::nullopt;
}

namespace {

using GroupKey = std::tuple<std::string, std::string, int, std::string, std::string, std::string,
                            std::map<std::string, std::string>, std::string>;

GroupKey KeyOf(const HostGpus& host) {
  return {host.driver,
          host.product,
          host.gpu_count,
          host.compute_capability.value_or(""),
          host.platform.ToString(),
          host.brand.value_or(""),
          host.selector_labels,
          host.runtime.value_or("")};
}

// "NVIDIA-A100-SXM4-80GB" / "NVIDIA A100-SXM4-80GB" → "a100-sxm4-80gb".
std::string Slug(std::string_view text) {
  std::string lower = ToLower(text);
  std::string out;
  for (char c : lower) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (StartsWith(out, "nvidia-") && out.size() > 7) out = out.substr(7);
  return out.empty() ? "gpu" : out;
}

// Why an input can print Unknown for `brand`: libnvidia-container before the
// brand's since_lnc (nvml-brands.yaml) did not map it.
std::string WhyUnknown(const std::string& brand, const std::vector<BrandNames>& brands) {
  for (const auto& row : brands)
    if (row.requirement == brand && !row.since_lnc.empty())
      return " (libnvidia-container before " + row.since_lnc + " prints " + brand + " as Unknown)";
  return "";
}

std::string JoinNames(const std::vector<std::string>& names, size_t max_shown) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < max_shown; ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  if (names.size() > max_shown) out += ", … (" + std::to_string(names.size() - max_shown) + " more)";
  return out;
}

}  // namespace

std::vector<ImportedPool> GroupHosts(const std::vector<HostGpus>& hosts, const std::string& source,
                                     const GpuResolver& gpus, std::vector<std::string>* warnings) {
  std::map<GroupKey, size_t> index;
  std::vector<std::pair<const HostGpus*, std::vector<std::string>>> groups;  // first host, names
  std::vector<std::vector<std::string>> group_notes;
  for (const auto& host : hosts) {
    GroupKey key = KeyOf(host);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) {
      groups.push_back({&host, {}});
      group_notes.emplace_back();
    }
    groups[it->second].second.push_back(host.host);
    auto& notes = group_notes[it->second];
    for (const auto& note : host.notes)
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  }

  std::vector<ImportedPool> pools;
  for (size_t g = 0; g < groups.size(); ++g) {
    const HostGpus& first = *groups[g].first;
    ImportedPool imported;
    imported.hosts = groups[g].second;
    imported.gpus_per_host = first.gpu_count;
    imported.product_label = first.product;
    imported.mig_profile = first.mig_profile;
    imported.sharing = first.sharing;
    imported.cuda_version = first.cuda_version;
    imported.notes = group_notes[g];
    Pool& pool = imported.pool;
    pool.driver = first.driver;
    pool.platform = first.platform;
    pool.runtime = first.runtime;
    pool.count = static_cast<int>(imported.hosts.size());
    pool.selector_labels = first.selector_labels;
    pool.source = source + ": " + JoinNames(imported.hosts, 20);

    std::optional<GpuFacts> facts = gpus(first.lookup_name);
    if (facts) {
      imported.in_knowledge = true;
      imported.known = *facts;
      pool.gpu = facts->name;
      pool.datacenter = facts->datacenter;
      pool.compute_capability = facts->compute_capability;
      if (first.compute_capability && facts->compute_capability &&
          *first.compute_capability != *facts->compute_capability) {
        imported.notes.push_back("the input says compute capability " + *first.compute_capability +
                                 ", the GPU knowledge file " + *facts->compute_capability +
                                 "; the input's value is kept");
        pool.compute_capability = first.compute_capability;
      }
      if (first.brand && !first.brand->empty() && *first.brand != "unknown") {
        pool.brand = first.brand;
      } else {
        pool.brand = facts->brand;
        if (first.brand && *first.brand == "unknown" && facts->brand)
          imported.notes.push_back("the input reports brand Unknown" + WhyUnknown(*facts->brand, gpus.brands) +
                                   "; the GPU knowledge file says " + *facts->brand);
      }
    } else {
      // Not in the knowledge file: keep what the input said, guess the rest.
      pool.gpu = first.lookup_name;
      pool.compute_capability = first.compute_capability;
      if (first.brand && !first.brand->empty()) {
        pool.brand = first.brand;
      } else if (auto guess = GuessBrandFromName(first.lookup_name, gpus.brands)) {
        pool.brand = guess;
        imported.brand_guessed = true;
      }
      std::string note = "GPU \"" + first.lookup_name + "\" is not in the GPU knowledge file";
      if (imported.brand_guessed)
        note += "; brand \"" + *pool.brand + "\" guessed from the product name";
      else if (!pool.brand)
        note += "; brand unknown (no hint in the product name)";
      if (!pool.compute_capability) note += "; compute capability unknown";
      imported.notes.push_back(note);
      if (warnings) warnings->push_back(note + " (pool of " + JoinNames(imported.hosts, 5) + ")");
    }
    pools.push_back(std::move(imported));
  }

  // Names from the labels: product slug [-mig-profile] [-shared] -driver, then
  // disambiguated by GPUs per host, architecture, and finally a counter.
  std::vector<std::string> names(pools.size());
  for (size_t i = 0; i < pools.size(); ++i) {
    const auto& p = pools[i];
    std::string base = Slug(p.product_label.empty() ? p.pool.gpu : p.product_label);
    if (p.pool.driver.size()) base += "-" + p.pool.driver;
    names[i] = base;
  }
  auto disambiguate = [&](auto suffix_of) {
    std::map<std::string, int> seen;
    for (const auto& n : names) ++seen[n];
    for (size_t i = 0; i < pools.size(); ++i)
      if (seen[names[i]] > 1) names[i] += suffix_of(pools[i]);
  };
  disambiguate([](const ImportedPool& p) { return "-" + std::to_string(p.gpus_per_host) + "gpu"; });
  disambiguate([](const ImportedPool& p) { return "-" + p.pool.platform.architecture; });
  disambiguate([](const ImportedPool& p) {
    return p.pool.selector_labels.count("nvidia.com/cuda.driver.major") ? std::string("-gfd-legacy")
                                                                        : std::string();
  });
  {
    std::map<std::string, int> counter;
    std::map<std::string, int> seen;
    for (const auto& n : names) ++seen[n];
    for (size_t i = 0; i < pools.size(); ++i)
      if (seen[names[i]] > 1) names[i] += "-" + std::to_string(++counter[names[i]]);
  }
  for (size_t i = 0; i < pools.size(); ++i) pools[i].pool.name = names[i];
  return pools;
}

}  // namespace imagelint::fleet_import
