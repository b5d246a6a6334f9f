// Single-host tools: `nvidia-smi -q -x` (XML) and `nvidia-container-cli info
// --csv` (libnvidia-container src/cli/info.c prints NVRM version, CUDA version
// and per device Model, Brand, UUID, Bus Location and Architecture:
// https://github.com/NVIDIA/libnvidia-container/blob/HEAD/src/cli/info.c),
// one or more hosts per file.
#include <algorithm>
#include <map>
#include <string>

#include "fleet_import/hosts.h"
#include "fleet_import/xml.h"

namespace imagelint::fleet_import {
namespace {

// "host: NAME" in a comment names the next host's output (our convention for
// concatenating several hosts into one file).
std::optional<std::string> HostFromComment(std::string_view comment) {
  std::string text = Trim(comment);
  for (const char* prefix : {"host:", "hostname:", "node:"}) {
    std::string lower = ToLower(text.substr(0, std::string_view(prefix).size()));
    if (lower == prefix) {
      // The first word is the name; the rest of the comment is free text.
      std::string rest = Trim(std::string_view(text).substr(std::string_view(prefix).size()));
      std::string name = rest.substr(0, rest.find_first_of(" \t"));
      if (!name.empty() && name.size() <= 253) return name;
    }
  }
  return std::nullopt;
}

// One host's GPUs, grouped by model (a host may carry several models).
void AddHostModels(const std::string& host_name, const std::string& driver,
                   const std::optional<std::string>& cuda,
                   const std::vector<HostGpus>& per_gpu, std::vector<HostGpus>* hosts) {
  std::map<std::string, HostGpus> by_model;
  std::vector<std::string> order;
  for (const auto& gpu : per_gpu) {
    std::string key = gpu.product + "\x1f" + gpu.compute_capability.value_or("") + "\x1f" + gpu.brand.value_or("");
    auto [it, inserted] = by_model.emplace(key, gpu);
    if (inserted) {
      order.push_back(key);
      it->second.gpu_count = 0;
    }
    ++it->second.gpu_count;
    for (const auto& note : gpu.notes)
      if (std::find(it->second.notes.begin(), it->second.notes.end(), note) == it->second.notes.end())
        it->second.notes.push_back(note);
  }
  for (const auto& key : order) {
    HostGpus host = by_model[key];
    host.host = host_name;
    host.driver = driver;
    host.cuda_version = cuda;
    if (order.size() > 1) host.notes.push_back("hosts with more than one GPU model; this pool counts one model");
    hosts->push_back(std::move(host));
  }
}

}  // namespace

Result<ImportResult> ImportNvidiaSmiXml(std::string_view xml_text, const std::string& source,
                                        const GpuResolver& gpus, const ImportLimits& limits) {
  if (xml_text.size() > limits.max_input_bytes)
    return MakeError(source, "larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  XmlLimits xml_limits{limits.max_xml_depth, limits.max_xml_elements};
  auto doc = ParseXml(xml_text, source, xml_limits);
  if (!doc.ok()) return doc.error();

  // Host names: a "<!-- host: NAME -->" comment before a document, else "host-N".
  std::map<size_t, std::string> names;
  for (const auto& [index, comment] : doc->top_comments)
    if (auto name = HostFromComment(comment)) names[index] = *name;

  ImportResult result;
  result.source = source;
  result.kind = InputKind::kNvidiaSmiXml;
  if (doc->roots.size() > static_cast<size_t>(limits.max_hosts))
    return MakeError(source, "more than " + std::to_string(limits.max_hosts) + " hosts");
  std::vector<HostGpus> hosts;
  for (size_t r = 0; r < doc->roots.size(); ++r) {
    const XmlElement& root = *doc->roots[r];
    std::string host_name = names.count(r) ? names[r] : "host-" + std::to_string(r + 1);
    auto fail = [&](int line, const std::string& message) {
      return MakeErrorAtLine(source, line, 0, host_name + ": " + message);
    };
    if (root.name != "nvidia_smi_log")
      return fail(root.line, "<" + root.name + "> is not <nvidia_smi_log> (expected `nvidia-smi -q -x` output)");
    ++result.hosts_seen;
    std::string driver = root.ChildText("driver_version");
    auto gpu_elements = root.Children("gpu");
    if (gpu_elements.empty()) {
      result.skipped.push_back(host_name);
      continue;
    }
    if (driver.empty()) return fail(root.line, "no <driver_version>");
    if (!IsDriverVersion(driver)) return fail(root.Child("driver_version")->line, "driver version \"" + driver + "\" is not a driver version");
    std::optional<std::string> cuda;
    if (std::string text = root.ChildText("cuda_version"); !text.empty() && text != "N/A") {
      if (!IsComputeCapability(text)) return fail(root.Child("cuda_version")->line, "CUDA version \"" + text + "\" is not M.m");
      cuda = text;
    }
    if (gpu_elements.size() > static_cast<size_t>(limits.max_gpus_per_host))
      return fail(root.line, "more than " + std::to_string(limits.max_gpus_per_host) + " GPUs");
    std::vector<HostGpus> per_gpu;
    for (const XmlElement* gpu : gpu_elements) {
      HostGpus entry;
      entry.product = gpu->ChildText("product_name");
      if (entry.product.empty()) return fail(gpu->line, "<gpu> without <product_name>");
      if (entry.product.size() > 256) return fail(gpu->line, "<product_name> longer than 256 characters");
      entry.lookup_name = entry.product;
      std::string brand = gpu->ChildText("product_brand");
      if (!brand.empty() && brand != "N/A") {
        entry.input_brand_raw = brand;
        entry.brand = NormaliseBrand(brand, gpus.brands);
      }
      // Newer nvidia-smi versions print the compute capability; older ones do not.
      if (std::string cc = gpu->ChildText("compute_cap"); !cc.empty() && cc != "N/A") {
        if (!IsComputeCapability(cc)) return fail(gpu->line, "compute capability \"" + cc + "\" is not major.minor");
        entry.compute_capability = cc;
      }
      if (const XmlElement* mig = gpu->Child("mig_mode"); mig && mig->ChildText("current_mig") == "Enabled")
        entry.notes.push_back("MIG enabled on the hosts' GPUs (profiles not listed by nvidia-smi -q)");
      per_gpu.push_back(std::move(entry));
    }
    AddHostModels(host_name, driver, cuda, per_gpu, &hosts);
  }
  result.pools = GroupHosts(hosts, source, gpus, &result.warnings);
  return result;
}

namespace {

std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

}  // namespace

Result<ImportResult> ImportContainerCliCsv(std::string_view csv_text, const std::string& source,
                                           const GpuResolver& gpus, const ImportLimits& limits) {
  if (csv_text.size() > limits.max_input_bytes)
    return MakeError(source, "larger than " + std::to_string(limits.max_input_bytes) + " bytes");
  ImportResult result;
  result.source = source;
  result.kind = InputKind::kContainerCliCsv;

  enum class Expect { kDriverHeader, kDriverRow, kSection, kDeviceRows, kOtherRows };
  Expect expect = Expect::kDriverHeader;
  struct Host {
    std::string name;
    std::string driver;
    std::optional<std::string> cuda;
    std::vector<HostGpus> gpus;
    int line = 0;
  };
  std::vector<Host> parsed;
  std::optional<std::string> pending_name;
  std::vector<HostGpus> hosts;

  int line_number = 0;
  size_t pos = 0;
  while (pos <= csv_text.size()) {
    size_t end = csv_text.find('\n', pos);
    if (end == std::string_view::npos) end = csv_text.size();
    std::string line = Trim(csv_text.substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    auto fail = [&](const std::string& message) { return MakeErrorAtLine(source, line_number, 1, message); };
    if (line.size() > 4096) return fail("line longer than 4096 characters");
    if (line.empty()) {
      if (expect == Expect::kDeviceRows || expect == Expect::kOtherRows) expect = Expect::kSection;
      if (pos > csv_text.size()) break;
      continue;
    }
    if (line[0] == '#') {
      if (auto name = HostFromComment(std::string_view(line).substr(1))) pending_name = *name;
      continue;
    }
    std::string lower = ToLower(line);
    if (StartsWith(lower, "nvrm version")) {
      if (static_cast<int>(parsed.size()) >= limits.max_hosts)
        return fail("more than " + std::to_string(limits.max_hosts) + " hosts");
      Host host;
      host.name = pending_name ? *pending_name : "host-" + std::to_string(parsed.size() + 1);
      host.line = line_number;
      pending_name.reset();
      parsed.push_back(std::move(host));
      expect = Expect::kDriverRow;
      continue;
    }
    switch (expect) {
      case Expect::kDriverHeader:
        return fail("expected the \"NVRM version,CUDA version\" header of `nvidia-container-cli info --csv`");
      case Expect::kDriverRow: {
        auto fields = SplitCsv(line);
        if (fields.size() != 2) return fail("expected \"NVRM version,CUDA version\" values, got " + std::to_string(fields.size()) + " fields");
        if (!IsDriverVersion(fields[0])) return fail("NVRM version \"" + fields[0] + "\" is not a driver version");
        if (!fields[1].empty() && fields[1] != "N/A") {
          if (!IsComputeCapability(fields[1])) return fail("CUDA version \"" + fields[1] + "\" is not M.m");
          parsed.back().cuda = fields[1];
        }
        parsed.back().driver = fields[0];
        expect = Expect::kSection;
        break;
      }
      case Expect::kSection:
      case Expect::kDeviceRows:
      case Expect::kOtherRows:
        if (StartsWith(lower, "device index")) {
          // The GPU table; other tables (MIG devices in newer versions) are skipped.
          bool gpu_table = lower.find("model") != std::string::npos && lower.find("brand") != std::string::npos &&
                           lower.find("mig") == std::string::npos;
          auto fields = SplitCsv(lower);
          if (gpu_table && (fields.size() != 7 || fields[2] != "model" || fields[3] != "brand" || fields[6] != "architecture"))
            return fail("unexpected device table header (expected Device Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture)");
          expect = gpu_table ? Expect::kDeviceRows : Expect::kOtherRows;
          break;
        }
        if (expect == Expect::kOtherRows) break;
        if (expect == Expect::kSection) return fail("unexpected line outside a table: \"" + line.substr(0, 80) + "\"");
        {
          auto fields = SplitCsv(line);
          if (fields.size() < 7) return fail("device row with " + std::to_string(fields.size()) + " fields, expected 7");
          // A model containing commas would split; the model is everything
          // between the minor number and the last four fields.
          std::string model = fields[2];
          for (size_t i = 3; i + 4 < fields.size(); ++i) model += "," + fields[i];
          const std::string& brand = fields[fields.size() - 4];
          const std::string& arch = fields[fields.size() - 1];
          if (model.empty() || model.size() > 256) return fail("device row without a usable model name");
          HostGpus entry;
          entry.product = model;
          entry.lookup_name = model;
          if (!brand.empty()) {
            entry.input_brand_raw = brand;
            entry.brand = NormaliseBrand(brand, gpus.brands);
          }
          if (!arch.empty()) {
            if (!IsComputeCapability(arch)) return fail("architecture \"" + arch + "\" is not a compute capability");
            entry.compute_capability = arch;
          }
          if (parsed.back().gpus.size() >= static_cast<size_t>(limits.max_gpus_per_host))
            return fail("more than " + std::to_string(limits.max_gpus_per_host) + " GPUs on one host");
          parsed.back().gpus.push_back(std::move(entry));
        }
        break;
    }
    if (pos > csv_text.size()) break;
  }
  if (parsed.empty()) return MakeErrorAtLine(source, 1, 1, "no \"NVRM version,CUDA version\" header: not `nvidia-container-cli info --csv` output");
  for (const auto& host : parsed)
    if (host.driver.empty())
      return MakeErrorAtLine(source, host.line, 1, "\"NVRM version\" header without a values line");

  for (auto& host : parsed) {
    ++result.hosts_seen;
    if (host.gpus.empty()) {
      result.skipped.push_back(host.name);
      continue;
    }
    AddHostModels(host.name, host.driver, host.cuda, host.gpus, &hosts);
  }
  result.pools = GroupHosts(hosts, source, gpus, &result.warnings);
  return result;
}

}  // namespace imagelint::fleet_import
