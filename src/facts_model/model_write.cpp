// WriteFacts: the one writer of imagelint.facts/v1 (include/imagelint/facts.h).
// std::optional fields are left out when empty, Nullable fields are written
// as null; docs/facts-schema.json describes the result.
#include "imagelint/facts.h"

namespace imagelint::facts {
namespace {

using nlohmann::json;

json ToJson(const std::string& value) { return value; }
json ToJson(bool value) { return value; }
json ToJson(int64_t value) { return value; }
json ToJson(uint64_t value) { return value; }
json ToJson(const json& value) { return value; }
json ToJson(const Provenance&) = delete;  // flattened into its row
json ToJson(const Problem& value);
json ToJson(const Ptx& value);
json ToJson(const Source& value);
json ToJson(const Layer& value);
json ToJson(const EnvProvenance& value);
json ToJson(Known value);
json ToJson(const BaseImage& value);
json ToJson(const Image& value);
json ToJson(const RuntimeEvidence& value);
json ToJson(const Runtime& value);
json ToJson(const StaticRuntime& value);
json ToJson(const Driver& value);
json ToJson(const DriverLibrary& value);
json ToJson(const LdSoConfEntry& value);
json ToJson(const LibcudaCandidate& value);
json ToJson(const Loader& value);
json ToJson(const Toolkit& value);
json ToJson(const Package& value);
json ToJson(const Cuda& value);
json ToJson(const ArchCount& value);
json ToJson(const Fatbin& value);
json ToJson(const Cubin& value);
json ToJson(const CudartLookup& value);
json ToJson(const Binary& value);
json ToJson(const Framework& value);
json ToJson(const Stage& value);
json ToJson(const UnknownFact& value);
json ToJson(const DockerfileNote& value);
json ToJson(const Change& value);
json ToJson(const Suppression& value);
json ToJson(const DockerfileInfo& value);
json ToJson(const GpuSignal& value);
json ToJson(const Gpu& value);

template <class T>
json ToJson(const Nullable<T>& value) {
  return value ? ToJson(*value) : json(nullptr);
}
template <class T>
json ToJson(const std::vector<T>& values) {
  json out = json::array();
  for (const T& value : values) out.push_back(ToJson(value));
  return out;
}
template <class T>
json ToJson(const std::map<std::string, T>& values) {
  json out = json::object();
  for (const auto& [key, value] : values) out[key] = ToJson(value);
  return out;
}

// Always written (Nullable: null when empty).
template <class T>
void Put(json& out, const char* key, const T& value) {
  out[key] = ToJson(value);
}
// Written only when known.
template <class T>
void Put(json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = ToJson(*value);
}

void PutProvenance(json& out, const Provenance& where) {
  Put(out, "layer", where.layer);
  Put(out, "layer_digest", where.layer_digest);
  Put(out, "dockerfile", where.dockerfile);
  Put(out, "dockerfile_line", where.dockerfile_line);
  Put(out, "dockerfile_origin", where.dockerfile_origin);
  Put(out, "created_by", where.created_by);
  Put(out, "origin", where.origin);
  Put(out, "knowledge", where.knowledge);
  Put(out, "unconfirmed", where.unconfirmed);
}

json ToJson(const Problem& value) { return {{"offset", value.offset}, {"message", value.message}}; }

json ToJson(const Ptx& value) {
  json out = {{"arch", value.arch}};
  Put(out, "isa", value.isa);
  return out;
}

json ToJson(const Source& value) {
  json out = {{"kind", value.kind}};
  Put(out, "path", value.path);
  Put(out, "target", value.target);
  Put(out, "stage", value.stage);
  Put(out, "build_args", value.build_args);
  return out;
}

json ToJson(const Layer& value) {
  json out = {{"created_by", value.created_by}};
  Put(out, "digest", value.digest);
  Put(out, "diff_id", value.diff_id);
  Put(out, "media_type", value.media_type);
  Put(out, "size", value.size);
  Put(out, "entries", value.entries);
  Put(out, "uncompressed_size", value.uncompressed_size);
  Put(out, "dockerfile", value.dockerfile);
  Put(out, "dockerfile_line", value.dockerfile_line);
  Put(out, "dockerfile_origin", value.dockerfile_origin);
  Put(out, "instruction", value.instruction);
  Put(out, "base_image", value.base_image);
  Put(out, "empty_layer", value.empty_layer);
  return out;
}

json ToJson(const EnvProvenance& value) {
  return {{"dockerfile_line", value.dockerfile_line}, {"origin", value.origin}};
}

json ToJson(Known value) {
  switch (value) {
    case Known::kYes: return true;
    case Known::kPartial: return "partial";
    case Known::kNo: break;
  }
  return false;
}

json ToJson(const BaseImage& value) {
  json out = {{"ref", value.ref}};
  Put(out, "repository", value.repository);
  Put(out, "tag", value.tag);
  Put(out, "digest", value.digest);
  Put(out, "platform", value.platform);
  Put(out, "dockerfile", value.dockerfile);
  Put(out, "dockerfile_line", value.dockerfile_line);
  Put(out, "known", value.known);
  Put(out, "kind", value.kind);
  Put(out, "reason", value.reason);
  Put(out, "resolved_from", value.resolved_from);
  Put(out, "cuda_tag_version", value.cuda_tag_version);
  Put(out, "flavor", value.flavor);
  Put(out, "cudnn", value.cudnn);
  Put(out, "distribution", value.distribution);
  Put(out, "cuda_version", value.cuda_version);
  Put(out, "source", value.source);
  Put(out, "tag_resolution", value.tag_resolution);
  Put(out, "env_source", value.env_source);
  Put(out, "require_source", value.require_source);
  Put(out, "require_unconfirmed", value.require_unconfirmed);
  Put(out, "torch", value.torch);
  Put(out, "compat", value.compat);
  Put(out, "compat_source", value.compat_source);
  return out;
}

json ToJson(const Image& value) {
  json out = {{"ref", value.ref}, {"kind", value.kind}, {"os", value.os}, {"architecture", value.architecture}};
  Put(out, "digest", value.digest);
  Put(out, "dockerfile", value.dockerfile);
  Put(out, "variant", value.variant);
  Put(out, "env", value.env);
  Put(out, "env_provenance", value.env_provenance);
  Put(out, "env_complete", value.env_complete);
  Put(out, "labels", value.labels);
  Put(out, "layers", value.layers);
  Put(out, "base", value.base);
  Put(out, "problems", value.problems);
  Put(out, "platform_source", value.platform_source);
  return out;
}

json ToJson(const RuntimeEvidence& value) {
  return {{"source", value.source}, {"version", value.version}, {"path", value.path}};
}

json ToJson(const Runtime& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "path", value.path);
  Put(out, "soname", value.soname);
  Put(out, "version", value.version);
  Put(out, "source", value.source);
  Put(out, "evidence_path", value.evidence_path);
  Put(out, "evidence", value.evidence);
  Put(out, "conflict", value.conflict);
  Put(out, "hashed_copy", value.hashed_copy);
  Put(out, "aliases", value.aliases);
  Put(out, "version_precision", value.version_precision);
  Put(out, "version_source", value.version_source);
  Put(out, "package", value.package);
  Put(out, "installer", value.installer);
  Put(out, "version_unknown_reason", value.version_unknown_reason);
  return out;
}

json ToJson(const StaticRuntime& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "path", value.path);
  Put(out, "markers", value.markers);
  Put(out, "toolkits", value.toolkits);
  return out;
}

json ToJson(const Driver& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "path", value.path);
  Put(out, "name", value.name);
  Put(out, "kind", value.kind);
  Put(out, "version", value.version);
  Put(out, "source", value.source);
  Put(out, "evidence_path", value.evidence_path);
  Put(out, "toolkit_dir", value.toolkit_dir);
  Put(out, "soname", value.soname);
  Put(out, "note", value.note);
  Put(out, "aliases", value.aliases);
  Put(out, "problems", value.problems);
  Put(out, "package", value.package);
  Put(out, "branch", value.branch);
  Put(out, "version_source", value.version_source);
  Put(out, "link_target", value.link_target);
  Put(out, "resolves_to", value.resolves_to);
  Put(out, "hard_link", value.hard_link);
  Put(out, "copied_from", value.copied_from);
  Put(out, "copied_from_stage", value.copied_from_stage);
  return out;
}

json ToJson(const DriverLibrary& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "name", value.name);
  Put(out, "kind", value.kind);
  Put(out, "path", value.path);
  Put(out, "version", value.version);
  return out;
}

json ToJson(const LdSoConfEntry& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "dir", value.dir);
  Put(out, "file", value.file);
  return out;
}

json ToJson(const LibcudaCandidate& value) {
  json out = {{"dir", value.dir}, {"via", value.via}, {"path", value.path}};
  Put(out, "resolves_to", value.resolves_to);
  Put(out, "kind", value.kind);
  Put(out, "version", value.version);
  Put(out, "dockerfile_line", value.dockerfile_line);
  Put(out, "via_dockerfile_line", value.via_dockerfile_line);
  return out;
}

json ToJson(const Loader& value) {
  json out = json::object();
  Put(out, "ld_library_path", value.ld_library_path);
  Put(out, "ld_library_path_provenance", value.ld_library_path_provenance);
  Put(out, "ld_so_conf", value.ld_so_conf);
  Put(out, "ld_so_conf_missing", value.ld_so_conf_missing);
  Put(out, "ld_so_conf_complete", value.ld_so_conf_complete);
  Put(out, "libcuda_candidates", value.libcuda_candidates);
  return out;
}

json ToJson(const Toolkit& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "path", value.path);
  Put(out, "version", value.version);
  Put(out, "components", value.components);
  return out;
}

json ToJson(const Package& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "name", value.name);
  Put(out, "version", value.version);
  Put(out, "status", value.status);
  Put(out, "architecture", value.architecture);
  Put(out, "evidence", value.evidence);
  Put(out, "package", value.package);
  Put(out, "installer", value.installer);
  Put(out, "manager", value.manager);
  Put(out, "cuda_major", value.cuda_major);
  Put(out, "component", value.component);
  Put(out, "version_unknown_reason", value.version_unknown_reason);
  return out;
}

json ToJson(const Cuda& value) {
  json out = json::object();
  Put(out, "runtimes", value.runtimes);
  Put(out, "runtimes_complete", value.runtimes_complete);
  Put(out, "static_runtimes", value.static_runtimes);
  Put(out, "drivers", value.drivers);
  Put(out, "drivers_complete", value.drivers_complete);
  Put(out, "driver_libraries", value.driver_libraries);
  if (value.requirements) out["requirements"] = WriteRequirements(*value.requirements);
  Put(out, "loader", value.loader);
  Put(out, "toolkits", value.toolkits);
  Put(out, "packages", value.packages);
  return out;
}

json ToJson(const ArchCount& value) {
  json out = {{"arch", value.arch}, {"count", value.count}};
  Put(out, "isa", value.isa);
  return out;
}

json ToJson(const Fatbin& value) {
  json out = {{"containers", value.containers}, {"entries", value.entries}};
  Put(out, "sections", value.sections);
  Put(out, "section_archs", value.section_archs);
  Put(out, "sass", value.sass);
  Put(out, "ptx", value.ptx);
  Put(out, "ltoir", value.ltoir);
  Put(out, "other", value.other);
  Put(out, "compression", value.compression);
  Put(out, "debug_entries", value.debug_entries);
  Put(out, "embedded_cubins", value.embedded_cubins);
  Put(out, "toolkits", value.toolkits);
  Put(out, "tkinfo", value.tkinfo);
  return out;
}

json ToJson(const Cubin& value) {
  json out = {{"arch", value.arch}, {"abi_version", value.abi_version}, {"e_flags", value.e_flags}};
  Put(out, "toolkit", value.toolkit);
  return out;
}

json ToJson(const CudartLookup& value) {
  json out = {{"needed", value.needed}};
  Put(out, "found", value.found);
  Put(out, "via", value.via);
  Put(out, "searched", value.searched);
  Put(out, "incomplete", value.incomplete);
  return out;
}

json ToJson(const Binary& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "path", value.path);
  Put(out, "machine", value.machine);
  Put(out, "class", value.elf_class);
  Put(out, "type", value.type);
  Put(out, "soname", value.soname);
  Put(out, "needed", value.needed);
  Put(out, "runpath", value.runpath);
  Put(out, "rpath", value.rpath);
  Put(out, "cudart_lookup", value.cudart_lookup);
  Put(out, "sass", value.sass);
  Put(out, "ptx", value.ptx);
  Put(out, "fatbin", value.fatbin);
  Put(out, "toolkits", value.toolkits);
  Put(out, "cubin", value.cubin);
  Put(out, "static_cudart", value.static_cudart);
  Put(out, "problems", value.problems);
  Put(out, "framework", value.framework);
  Put(out, "framework_version", value.framework_version);
  Put(out, "source", value.source);
  Put(out, "arch_list", value.arch_list);
  Put(out, "arch_list_source", value.arch_list_source);
  Put(out, "arch_list_unconfirmed", value.arch_list_unconfirmed);
  return out;
}

json ToJson(const Framework& value) {
  json out = json::object();
  PutProvenance(out, value.provenance);
  Put(out, "name", value.name);
  Put(out, "version", value.version);
  Put(out, "cuda", value.cuda);
  Put(out, "path", value.path);
  Put(out, "package", value.package);
  Put(out, "build", value.build);
  Put(out, "git_version", value.git_version);
  Put(out, "cudnn", value.cudnn);
  Put(out, "sass", value.sass);
  Put(out, "ptx", value.ptx);
  Put(out, "cuda_libraries", value.cuda_libraries);
  Put(out, "variant", value.variant);
  Put(out, "cuda_source", value.cuda_source);
  Put(out, "cuda_unknown", value.cuda_unknown);
  Put(out, "installer", value.installer);
  Put(out, "source", value.source);
  Put(out, "version_unknown_reason", value.version_unknown_reason);
  Put(out, "arch_list", value.arch_list);
  Put(out, "arch_list_source", value.arch_list_source);
  Put(out, "arch_list_unconfirmed", value.arch_list_unconfirmed);
  return out;
}

json ToJson(const Stage& value) {
  return {{"name", value.name}, {"base", value.base}, {"dockerfile_line", value.dockerfile_line},
          {"target", value.target}};
}

json ToJson(const UnknownFact& value) {
  json out = {{"fact", value.fact}, {"dockerfile_line", value.dockerfile_line}, {"reason", value.reason}};
  Put(out, "dockerfile", value.dockerfile);
  return out;
}

json ToJson(const DockerfileNote& value) { return {{"dockerfile_line", value.dockerfile_line}, {"note", value.note}}; }

json ToJson(const Change& value) {
  json out = {{"dockerfile_line", value.dockerfile_line}};
  Put(out, "by", value.by);
  std::visit(
      [&](const auto& row) {
        using Row = std::decay_t<decltype(row)>;
        out["fact"] = std::is_same_v<Row, Runtime> ? "cuda.runtimes"
                      : std::is_same_v<Row, Driver> ? "cuda.drivers"
                                                    : "frameworks";
        out["removed"] = ToJson(row);
      },
      value.removed);
  return out;
}

json ToJson(const Suppression& value) {
  return {{"rules", value.rules}, {"reason", value.reason}, {"file", value.file}, {"line", value.line},
          {"instruction_line", value.instruction_line}, {"instruction", value.instruction}};
}

json ToJson(const GpuSignal& value) {
  json out = {{"signal", value.signal}, {"detail", value.detail}};
  Put(out, "path", value.path);
  Put(out, "dockerfile_line", value.dockerfile_line);
  return out;
}

json ToJson(const Gpu& value) {
  json out = {{"workload", value.workload}, {"signals", ToJson(value.signals)}};
  Put(out, "caveats", value.caveats);
  return out;
}

json ToJson(const DockerfileInfo& value) {
  json out = {{"path", value.path}};
  Put(out, "escape", value.escape);
  Put(out, "syntax", value.syntax);
  Put(out, "stages", value.stages);
  Put(out, "unknown", value.unknown);
  Put(out, "notes", value.notes);
  Put(out, "changes", value.changes);
  Put(out, "suppressions", value.suppressions);
  Put(out, "unused_build_args", value.unused_build_args);
  return out;
}

}  // namespace

json WriteRequirements(const Requirements& value) {
  json out = json::object();
  for (const auto& [name, text] : value.variables) out[name] = text;
  out["disabled"] = value.disabled;
  if (value.legacy) {
    out["legacy"] = *value.legacy;
    out["legacy_cuda_version"] = value.legacy_cuda_version ? json(*value.legacy_cuda_version) : json(nullptr);
  }
  Put(out, "legacy_cuda_version_invalid", value.legacy_cuda_version_invalid);
  Put(out, "provenance", value.provenance);
  Put(out, "complete", value.complete);
  return out;
}

json WriteFacts(const Facts& facts) {
  json out = {{"schema", kSchemaName}};
  Put(out, "source", facts.source);
  out["image"] = ToJson(facts.image);
  Put(out, "cuda", facts.cuda);
  Put(out, "binaries", facts.binaries);
  Put(out, "binaries_complete", facts.binaries_complete);
  Put(out, "frameworks", facts.frameworks);
  Put(out, "frameworks_complete", facts.frameworks_complete);
  Put(out, "gpu", facts.gpu);
  Put(out, "dockerfile", facts.dockerfile);
  return out;
}

}  // namespace imagelint::facts
