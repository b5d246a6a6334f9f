// Text rendering of the CUDA parts of the facts: one block per runtime,
// driver, binary and framework, each naming its evidence path and layer.
#include <sstream>

#include "common/json.h"
#include "cuda/cuda.h"

namespace imagelint::cuda {
namespace {

using nlohmann::json;

// What a fact that is null (or absent) reads as.
constexpr std::string_view kUnknown = "unknown";

std::string Join(const json& list, const std::string& separator = " ") {
  std::string out;
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    if (!out.empty()) out += separator;
    out += ValueText(item, kUnknown);
  }
  return out;
}

std::string Where(const json& row) {
  std::string out = FieldText(row, "path", kUnknown) + "  (layer " + FieldText(row, "layer", kUnknown);
  if (row.contains("layer_digest")) {
    std::string digest = row["layer_digest"].get<std::string>();
    out += " " + digest.substr(0, std::min<size_t>(digest.size(), 19));
  }
  return out + ")";
}

void Problems(std::ostringstream& out, const json& row, const std::string& indent) {
  if (!row.contains("problems")) return;
  for (const auto& problem : row["problems"])
    out << indent << "problem at offset " << FieldText(problem, "offset", kUnknown) << ": "
        << FieldText(problem, "message", kUnknown) << "\n";
}

}  // namespace

std::string FormatCudaFactsText(const json& facts) {
  std::ostringstream out;
  const json cuda = facts.value("cuda", json::object());

  out << "CUDA runtimes (libcudart)\n";
  const json runtimes = cuda.value("runtimes", json::array());
  if (runtimes.empty()) out << "  none\n";
  for (const auto& row : runtimes) {
    out << "  libcudart " << FieldText(row, "version", kUnknown) << "  [" << FieldText(row, "origin", kUnknown)
        << ", version from " << FieldText(row, "source", kUnknown) << "]\n";
    out << "    file:     " << Where(row) << "\n";
    if (row.contains("evidence_path")) out << "    evidence: " << FieldText(row, "evidence_path", kUnknown) << "\n";
    if (!row.value("soname", std::string()).empty())
      out << "    soname:   " << FieldText(row, "soname", kUnknown) << "\n";
    if (!row.value("aliases", json::array()).empty()) out << "    aliases:  " << Join(row["aliases"]) << "\n";
    if (row.value("conflict", false)) {
      out << "    CONFLICT: evidence disagrees:";
      for (const auto& e : row["evidence"])
        out << " " << FieldText(e, "source", kUnknown) << "=" << FieldText(e, "version", kUnknown);
      out << "\n";
    }
  }
  for (const auto& row : cuda.value("static_runtimes", json::array())) {
    out << "  static cudart (heuristic) in " << Where(row);
    if (!row.value("toolkits", json::array()).empty()) out << ", device code from CUDA " << Join(row["toolkits"], ", ");
    out << "\n";
  }

  out << "\nCUDA driver libraries (libcuda)\n";
  const json drivers = cuda.value("drivers", json::array());
  if (drivers.empty()) out << "  none (the NVIDIA container runtime mounts the host's)\n";
  for (const auto& row : drivers) {
    out << "  libcuda " << FieldText(row, "version", kUnknown) << "  [" << FieldText(row, "kind", kUnknown) << "]\n";
    out << "    file:     " << Where(row) << "\n";
    if (row.contains("evidence_path")) out << "    evidence: " << FieldText(row, "evidence_path", kUnknown) << "\n";
    if (!row.value("aliases", json::array()).empty()) out << "    aliases:  " << Join(row["aliases"]) << "\n";
    const json note = row.value("note", json::object());
    if (!note.empty()) {
      out << "    fwd-compat note: CUDA " << FieldText(note, "CUDA Version", kUnknown) << ", host driver branches "
          << Join(note.value("Driver", json::array()), ",") << "\n";
    }
    Problems(out, row, "    ");
  }

  out << "\nCUDA requirements (image config)\n";
  const json requirements = cuda.value("requirements", json::object());
  bool any = false;
  for (auto it = requirements.begin(); it != requirements.end(); ++it) {
    if (it.key() == "disabled" || it.key() == "legacy" || it.key() == "legacy_cuda_version") continue;
    out << "  " << it.key() << "=" << ValueText(it.value(), kUnknown) << "\n";
    any = true;
  }
  if (!any) out << "  none\n";
  out << "  requirement checks disabled: " << (requirements.value("disabled", false) ? "yes" : "no");
  if (requirements.value("legacy", false))
    out << "; legacy image: runtime adds cuda>=" << FieldText(requirements, "legacy_cuda_version", kUnknown);
  out << "\n";

  out << "\nLoader\n";
  const json loader = cuda.value("loader", json::object());
  out << "  LD_LIBRARY_PATH: " << Join(loader.value("ld_library_path", json::array()), ":") << "\n";
  for (const auto& row : loader.value("ld_so_conf", json::array()))
    out << "  ld.so.conf dir " << FieldText(row, "dir", kUnknown) << "  (from " << FieldText(row, "file", kUnknown)
        << ", layer " << FieldText(row, "layer", kUnknown) << ")\n";
  for (const auto& row : loader.value("libcuda_candidates", json::array()))
    out << "  libcuda.so.1 via " << FieldText(row, "via", kUnknown) << ": " << FieldText(row, "path", kUnknown)
        << " -> " << FieldText(row, "resolves_to", kUnknown) << " [" << FieldText(row, "kind", kUnknown) << "]\n";

  out << "\nBinaries with CUDA content\n";
  const json binaries = facts.value("binaries", json::array());
  if (binaries.empty()) out << "  none\n";
  for (const auto& row : binaries) {
    out << "  " << Where(row) << "\n";
    if (!row.value("soname", std::string()).empty())
      out << "    soname: " << FieldText(row, "soname", kUnknown) << "\n";
    if (!row.value("needed", json::array()).empty()) out << "    needs:  " << Join(row["needed"]) << "\n";
    if (!row.value("sass", json::array()).empty()) out << "    SASS:   " << Join(row["sass"]) << "\n";
    if (!row.value("ptx", json::array()).empty()) {
      out << "    PTX:   ";
      for (const auto& ptx : row["ptx"])
        out << " " << FieldText(ptx, "arch", kUnknown) << " (ISA " << FieldText(ptx, "isa", kUnknown) << ")";
      out << "\n";
    }
    if (row.contains("fatbin")) {
      const json& fatbin = row["fatbin"];
      out << "    fatbin: " << FieldText(fatbin, "containers", kUnknown) << " containers, "
          << FieldText(fatbin, "entries", kUnknown) << " entries";
      const json compression = fatbin.value("compression", json::object());
      if (!compression.empty()) {
        out << "; compression";
        for (auto it = compression.begin(); it != compression.end(); ++it)
          out << " " << it.key() << "=" << ValueText(*it, kUnknown);
      }
      if (!fatbin.value("toolkits", json::array()).empty()) out << "; built by CUDA " << Join(fatbin["toolkits"], ", ");
      out << "\n";
    }
    if (row.value("static_cudart", false)) out << "    static cudart: likely (heuristic)\n";
    if (row.contains("fatbin") && row["fatbin"].contains("sass") && row["fatbin"]["sass"].is_array()) {
      std::string kernel_less;
      for (const auto& group : row["fatbin"]["sass"])
        if (group.is_object() && group.value("kernels", json()) == json(0))
          kernel_less += (kernel_less.empty() ? "" : " ") + FieldText(group, "arch", kUnknown);
      if (!kernel_less.empty()) out << "    no kernels in: " << kernel_less << " (never fails a launch)\n";
    }
    if (row.contains("reachable") && row["reachable"].is_boolean()) {
      const json via = row.value("reachable_via", json::array());
      if (row["reachable"].get<bool>())
        out << "    loaded: " << (via.empty() ? std::string("yes") : ValueText(via[0], kUnknown)) << "\n";
      else
        out << "    loaded: no - "
            << ValueText(row.value("unreachable_reason", json("nothing in the image loads it")), kUnknown) << "\n";
    }
    Problems(out, row, "    ");
  }

  out << "\nFrameworks\n";
  const json frameworks = facts.value("frameworks", json::array());
  if (frameworks.empty()) out << "  none\n";
  for (const auto& row : frameworks) {
    out << "  " << FieldText(row, "name", kUnknown) << " " << FieldText(row, "version", kUnknown) << "  (CUDA "
        << FieldText(row, "cuda", kUnknown) << ")\n";
    out << "    evidence: " << Where(row) << "\n";
    if (!row.value("sass", json::array()).empty()) out << "    SASS:     " << Join(row["sass"]) << "\n";
  }
  return out.str();
}

}  // namespace imagelint::cuda
