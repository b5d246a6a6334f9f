// The GPU host the probe runs on: `nvidia-smi -q -x` (read by the fleet
// importer's bounded XML reader) and the container toolkit's version.
#include <unistd.h>

#include <regex>

#include "common/file_text.h"
#include "imagelint/probe.h"

namespace imagelint::probe {
namespace {

constexpr size_t kMaxXmlBytes = 8u << 20;

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == 0) return "localhost";
  return name;
}

// "NVIDIA Container Toolkit CLI version 1.17.4", "cli-version: 1.14.3".
std::optional<std::string> ToolkitVersion(std::chrono::seconds timeout) {
  static const std::regex kVersion(R"((?:version:?\s+)v?(\d+\.\d+\.\d+(?:-[A-Za-z0-9.]+)?))");
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"nvidia-ctk", "--version"}, std::vector<std::string>{"nvidia-container-cli", "--version"}}) {
    auto run = RunProcess(argv, std::nullopt, timeout, 64u << 10);
    if (!run.ok() || run->exit_code != 0) continue;
    std::smatch match;
    if (std::regex_search(run->output, match, kVersion)) return match[1].str();
  }
  return std::nullopt;
}

// <driver_version>580.159.04</driver_version>, <product_name>...</product_name>:
// the first of each, for the summary line; the fleet import reads the rest.
std::string Element(const std::string& xml, const std::string& tag) {
  const std::string open = "<" + tag + ">";
  size_t start = xml.find(open);
  if (start == std::string::npos) return "";
  start += open.size();
  size_t end = xml.find('<', start);
  if (end == std::string::npos || end - start > 256) return "";
  return xml.substr(start, end - start);
}

}  // namespace

Host ReadHost(const HostOptions& options) {
  Host host;
  host.name = HostName();
  if (!options.nvidia_smi_xml_file.empty()) {
    auto xml = ReadBoundedFile(options.nvidia_smi_xml_file, kMaxXmlBytes, "nvidia-smi XML file");
    if (!xml.ok()) {
      host.why_no_gpu = xml.error().ToString();
      return host;
    }
    host.nvidia_smi_xml = std::move(*xml);
  } else {
    auto run = RunProcess({"nvidia-smi", "-q", "-x"}, std::nullopt, options.timeout, kMaxXmlBytes);
    if (!run.ok()) {
      host.why_no_gpu = "no nvidia-smi on this host (" + run.error().ToString() + ")";
      return host;
    }
    if (run->timed_out) {
      host.why_no_gpu = "nvidia-smi did not answer within " + std::to_string(options.timeout.count()) + " s";
      return host;
    }
    if (run->exit_code != 0) {
      std::string said = run->output.substr(0, 200) + run->errors.substr(0, 200);
      for (char& c : said)
        if (c == '\n' || c == '\r') c = ' ';
      host.why_no_gpu = "nvidia-smi failed (exit " + std::to_string(run->exit_code) + "): " + said;
      return host;
    }
    host.nvidia_smi_xml = std::move(run->output);
    host.container_toolkit = ToolkitVersion(options.timeout);
  }
  host.gpu = Element(host.nvidia_smi_xml, "product_name");
  host.driver = Element(host.nvidia_smi_xml, "driver_version");
  std::string count = Element(host.nvidia_smi_xml, "attached_gpus");
  if (host.gpu.empty() || host.driver.empty() || count.empty() || count == "0") {
    host.why_no_gpu = "nvidia-smi lists no GPU";
    return host;
  }
  host.has_gpu = true;
  return host;
}

}  // namespace imagelint::probe
