// Input detection, dispatch, and the fleet YAML an import writes.
#include <cstdio>
#include <sstream>

#include "common/file_text.h"
#include "fleet_import/hosts.h"

namespace imagelint::fleet_import {

std::string_view InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kKubernetesNodes: return "k8s";
    case InputKind::kNvidiaSmiXml: return "nvidia-smi";
    case InputKind::kContainerCliCsv: return "nvidia-container-cli";
    case InputKind::kFleetYaml: return "fleet";
  }
  return "fleet";
}

InputKind DetectInputKind(std::string_view text) {
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  // Skip blank lines and '#' comment lines (a CSV may start with "# host: x";
  // a fleet YAML with comments).
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#') {
      size_t nl = text.find('\n', i);
      if (nl == std::string_view::npos) return InputKind::kFleetYaml;
      // A leading comment does not decide the kind by itself; look further.
      i = nl + 1;
    } else {
      break;
    }
  }
  if (i >= text.size()) return InputKind::kFleetYaml;
  if (text[i] == '{' || text[i] == '[') return InputKind::kKubernetesNodes;
  if (text[i] == '<') return InputKind::kNvidiaSmiXml;
  std::string head = ToLower(text.substr(i, 12));
  if (head == "nvrm version") return InputKind::kContainerCliCsv;
  return InputKind::kFleetYaml;
}

Result<ImportResult> ImportText(InputKind kind, std::string_view text, const std::string& source,
                                const GpuResolver& gpus, const ImportLimits& limits) {
  switch (kind) {
    case InputKind::kKubernetesNodes: return ImportKubernetesNodes(text, source, gpus, limits);
    case InputKind::kNvidiaSmiXml: return ImportNvidiaSmiXml(text, source, gpus, limits);
    case InputKind::kContainerCliCsv: return ImportContainerCliCsv(text, source, gpus, limits);
    case InputKind::kFleetYaml: break;
  }
  return MakeError(source, "a fleet YAML file is loaded, not imported");
}

Result<ImportResult> ImportFile(const std::string& path, const GpuResolver& gpus, std::optional<InputKind> kind,
                                const ImportLimits& limits) {
  auto text = ReadBoundedFile(path, limits.max_input_bytes, "fleet file");
  if (!text.ok()) return text.error();
  InputKind chosen = kind ? *kind : DetectInputKind(*text);
  if (chosen == InputKind::kFleetYaml)
    return MakeError(path, "not a Kubernetes node list, nvidia-smi XML or nvidia-container-cli CSV");
  return ImportText(chosen, *text, path, gpus, limits);
}

std::string SanitiseLabelValue(std::string_view name) {
  std::string kept;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (ok) kept += c;
  }
  std::string out;
  bool in_space = false;
  for (char c : Trim(kept)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      in_space = true;
      continue;
    }
    if (in_space) out += '-';
    in_space = false;
    out += c;
  }
  return out;
}

namespace {

// A double-quoted YAML scalar (always quoted: versions like "12.10" must
// stay strings).
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Comment text stays on one line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

std::string KindDescription(InputKind kind) {
  switch (kind) {
    case InputKind::kKubernetesNodes: return "Kubernetes nodes with GPU Feature Discovery labels";
    case InputKind::kNvidiaSmiXml: return "nvidia-smi -q -x";
    case InputKind::kContainerCliCsv: return "nvidia-container-cli info --csv";
    case InputKind::kFleetYaml: return "fleet file";
  }
  return "";
}

std::string HostList(const std::vector<std::string>& hosts, size_t max_shown) {
  std::string out;
  for (size_t i = 0; i < hosts.size() && i < max_shown; ++i) out += (i ? ", " : "") + hosts[i];
  if (hosts.size() > max_shown) out += ", and " + std::to_string(hosts.size() - max_shown) + " more";
  return out;
}

}  // namespace

std::string RenderFleetYaml(const ImportResult& result) {
  std::ostringstream out;
  const bool k8s = result.kind == InputKind::kKubernetesNodes;
  const char* host_word = k8s ? "node" : "host";
  out << "# Fleet imported by `imagelint fleet import` from " << OneLine(result.source) << " ("
      << KindDescription(result.kind) << ").\n";
  int pooled = 0;
  for (const auto& p : result.pools) pooled += static_cast<int>(p.hosts.size());
  out << "# " << result.hosts_seen << " " << host_word << (result.hosts_seen == 1 ? "" : "s") << " read";
  if (k8s) {
    // Hosts of several models appear in several pools only for host tools.
    out << ": " << pooled << " in " << result.pools.size() << " pool" << (result.pools.size() == 1 ? "" : "s");
  } else {
    out << ", " << result.pools.size() << " pool" << (result.pools.size() == 1 ? "" : "s");
  }
  out << "; " << result.skipped.size() << " without GPU information skipped";
  if (!result.skipped.empty()) out << " (" << OneLine(HostList(result.skipped, 20)) << ")";
  out << ".\n";
  if (k8s)
    out << "# Not in node labels: the container toolkit version (container_toolkit); add it per pool.\n";
  for (const auto& warning : result.warnings) out << "# warning: " << OneLine(warning) << "\n";
  if (result.pools.empty()) {
    out << "pools: []\n";
    return out.str();
  }
  out << "pools:\n";
  for (const auto& p : result.pools) {
    const Pool& pool = p.pool;
    out << "\n  # from " << p.hosts.size() << " " << host_word << (p.hosts.size() == 1 ? "" : "s") << ": "
        << OneLine(HostList(p.hosts, 50)) << "\n";
    if (p.gpus_per_host > 0) {
      out << "  # " << p.gpus_per_host << " GPU" << (p.gpus_per_host == 1 ? "" : "s") << " per " << host_word;
    } else {
      out << "  # GPUs per " << host_word << " not labelled";
    }
    out << " (" << OneLine(p.product_label) << ")";
    if (p.cuda_version) out << "; driver supports CUDA " << *p.cuda_version;
    out << "\n";
    for (const auto& note : p.notes) out << "  # " << OneLine(note) << "\n";
    out << "  - name: " << Quote(pool.name) << "\n";
    // The fleet loader fills compute capability, brand and eligibility from
    // `gpu`; explicit fields win, so only what the input says differently is
    // written. A product it does not know is accepted with an explicit
    // compute capability.
    const bool write_gpu = p.in_knowledge || pool.compute_capability.has_value();
    if (write_gpu) {
      out << "    gpu: " << Quote(pool.gpu) << "\n";
    } else {
      out << "    # gpu: " << Quote(pool.gpu) << "  (not in the GPU knowledge file, compute capability unknown)\n";
    }
    auto differs = [&](const std::optional<std::string>& value, const std::optional<std::string>& known) {
      return value && (!p.in_knowledge || value != known);
    };
    if (differs(pool.compute_capability, p.known.compute_capability))
      out << "    compute_capability: " << Quote(*pool.compute_capability) << "\n";
    if (differs(pool.brand, p.known.brand))
      out << "    brand: " << Quote(*pool.brand) << (p.brand_guessed ? "  # guessed from the product name" : "")
          << "\n";
    if (pool.datacenter && (!p.in_knowledge || pool.datacenter != p.known.datacenter))
      out << "    datacenter: " << (*pool.datacenter ? "true" : "false") << "\n";
    out << "    driver: " << Quote(pool.driver) << "\n";
    if (pool.container_toolkit) out << "    container_toolkit: " << Quote(*pool.container_toolkit) << "\n";
    if (pool.runtime) out << "    runtime: " << Quote(*pool.runtime) << "\n";
    // nvidia-smi and nvidia-container-cli do not say the CPU architecture;
    // the fleet loader's default applies (and is marked as assumed).
    if (k8s) out << "    platform: " << Quote(pool.platform.ToString()) << "\n";
    out << "    count: " << pool.count << "\n";
    if (!pool.selector_labels.empty()) {
      out << "    selector_labels:\n";
      for (const auto& [key, value] : pool.selector_labels) out << "      " << Quote(key) << ": " << Quote(value) << "\n";
    }
  }
  return out.str();
}

Fleet ToFleet(const ImportResult& result) {
  Fleet fleet;
  fleet.source = result.source;
  for (const auto& p : result.pools) fleet.pools.push_back(p.pool);
  return fleet;
}

}  // namespace imagelint::fleet_import
