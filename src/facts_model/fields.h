// The field list of every record of the facts model, once: the JSON key and
// the member behind it, in the order the reader checks them. The writer
// (model_write.cpp) and the reader (model_read.cpp) both walk these lists
// with common/json_record.h, so a field added here is written, read and
// type-checked alike.
//
// A visitor is called as `visit("key", member)`; what it does with a member
// follows from the member's type (include/imagelint/facts.h):
//   * T: required, always written;
//   * std::optional<T>: left out when empty, may be absent;
//   * Nullable<T>: always written (null when empty), absent reads as null.
// Provenance has no key of its own: its fields sit in the row that carries it.
//
// Records whose JSON is not a plain list of fields keep their own code in both
// files: Requirements (the env variables are keys of the object), Change (the
// removed row's list is named by "fact") and Known (true, false or "partial").
#pragma once

#include "common/json_record.h"
#include "imagelint/facts.h"

namespace imagelint::facts::fields {

using json_record::Is;  // `S` is the record, const or not (the writer visits const rows)

template <class V, Is<Provenance> S>
void Visit(V& visit, S& row) {
  visit("layer", row.layer);
  visit("layer_digest", row.layer_digest);
  visit("dockerfile", row.dockerfile);
  visit("dockerfile_line", row.dockerfile_line);
  visit("dockerfile_origin", row.dockerfile_origin);
  visit("created_by", row.created_by);
  visit("origin", row.origin);
  visit("knowledge", row.knowledge);
  visit("unconfirmed", row.unconfirmed);
}

template <class V, Is<Problem> S>
void Visit(V& visit, S& row) {
  visit("offset", row.offset);
  visit("message", row.message);
}

template <class V, Is<Ptx> S>
void Visit(V& visit, S& row) {
  visit("arch", row.arch);
  visit("isa", row.isa);
}

template <class V, Is<Source> S>
void Visit(V& visit, S& row) {
  visit("kind", row.kind);
  visit("path", row.path);
  visit("target", row.target);
  visit("stage", row.stage);
  visit("build_args", row.build_args);
}

template <class V, Is<Layer> S>
void Visit(V& visit, S& row) {
  visit("created_by", row.created_by);
  visit("digest", row.digest);
  visit("diff_id", row.diff_id);
  visit("media_type", row.media_type);
  visit("size", row.size);
  visit("entries", row.entries);
  visit("uncompressed_size", row.uncompressed_size);
  visit("dockerfile", row.dockerfile);
  visit("dockerfile_line", row.dockerfile_line);
  visit("dockerfile_origin", row.dockerfile_origin);
  visit("instruction", row.instruction);
  visit("base_image", row.base_image);
  visit("empty_layer", row.empty_layer);
}

template <class V, Is<EnvProvenance> S>
void Visit(V& visit, S& row) {
  visit("dockerfile_line", row.dockerfile_line);
  visit("origin", row.origin);
}

template <class V, Is<BaseImage> S>
void Visit(V& visit, S& row) {
  visit("ref", row.ref);
  visit("repository", row.repository);
  visit("tag", row.tag);
  visit("digest", row.digest);
  visit("platform", row.platform);
  visit("dockerfile", row.dockerfile);
  visit("dockerfile_line", row.dockerfile_line);
  visit("known", row.known);
  visit("kind", row.kind);
  visit("reason", row.reason);
  visit("resolved_from", row.resolved_from);
  visit("lookup_failure", row.lookup_failure);
  visit("cuda_tag_version", row.cuda_tag_version);
  visit("flavor", row.flavor);
  visit("cudnn", row.cudnn);
  visit("distribution", row.distribution);
  visit("cuda_version", row.cuda_version);
  visit("source", row.source);
  visit("tag_resolution", row.tag_resolution);
  visit("env_source", row.env_source);
  visit("require_source", row.require_source);
  visit("require_unconfirmed", row.require_unconfirmed);
  visit("torch", row.torch);
  visit("compat", row.compat);
  visit("compat_source", row.compat_source);
}

template <class V, Is<Image> S>
void Visit(V& visit, S& row) {
  visit("ref", row.ref);
  visit("kind", row.kind);
  visit("os", row.os);
  visit("architecture", row.architecture);
  visit("digest", row.digest);
  visit("dockerfile", row.dockerfile);
  visit("variant", row.variant);
  visit("env", row.env);
  visit("env_provenance", row.env_provenance);
  visit("env_complete", row.env_complete);
  visit("labels", row.labels);
  visit("layers", row.layers);
  visit("base", row.base);
  visit("problems", row.problems);
  visit("platform_source", row.platform_source);
}

template <class V, Is<RuntimeEvidence> S>
void Visit(V& visit, S& row) {
  visit("source", row.source);
  visit("version", row.version);
  visit("path", row.path);
}

template <class V, Is<Runtime> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("path", row.path);
  visit("soname", row.soname);
  visit("version", row.version);
  visit("source", row.source);
  visit("evidence_path", row.evidence_path);
  visit("evidence", row.evidence);
  visit("conflict", row.conflict);
  visit("hashed_copy", row.hashed_copy);
  visit("aliases", row.aliases);
  visit("version_precision", row.version_precision);
  visit("version_source", row.version_source);
  visit("package", row.package);
  visit("installer", row.installer);
  visit("version_unknown_reason", row.version_unknown_reason);
  visit("version_min", row.version_min);
}

template <class V, Is<StaticRuntime> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("path", row.path);
  visit("markers", row.markers);
  visit("toolkits", row.toolkits);
}

template <class V, Is<Driver> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("path", row.path);
  visit("name", row.name);
  visit("kind", row.kind);
  visit("version", row.version);
  visit("source", row.source);
  visit("evidence_path", row.evidence_path);
  visit("toolkit_dir", row.toolkit_dir);
  visit("soname", row.soname);
  visit("note", row.note);
  visit("aliases", row.aliases);
  visit("problems", row.problems);
  visit("missing_needed", row.missing_needed);
  visit("package", row.package);
  visit("branch", row.branch);
  visit("version_source", row.version_source);
  visit("link_target", row.link_target);
  visit("resolves_to", row.resolves_to);
  visit("hard_link", row.hard_link);
  visit("copied_from", row.copied_from);
  visit("copied_from_stage", row.copied_from_stage);
}

template <class V, Is<DriverLibrary> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("name", row.name);
  visit("kind", row.kind);
  visit("path", row.path);
  visit("version", row.version);
}

template <class V, Is<LdSoConfEntry> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("dir", row.dir);
  visit("file", row.file);
}

template <class V, Is<LibcudaCandidate> S>
void Visit(V& visit, S& row) {
  visit("dir", row.dir);
  visit("via", row.via);
  visit("path", row.path);
  visit("resolves_to", row.resolves_to);
  visit("kind", row.kind);
  visit("version", row.version);
  visit("dockerfile_line", row.dockerfile_line);
  visit("via_dockerfile_line", row.via_dockerfile_line);
}

template <class V, Is<Loader> S>
void Visit(V& visit, S& row) {
  visit("ld_library_path", row.ld_library_path);
  visit("ld_library_path_provenance", row.ld_library_path_provenance);
  visit("ld_so_conf", row.ld_so_conf);
  visit("ld_so_conf_missing", row.ld_so_conf_missing);
  visit("ld_so_conf_complete", row.ld_so_conf_complete);
  visit("libcuda_candidates", row.libcuda_candidates);
}

template <class V, Is<Toolkit> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("path", row.path);
  visit("version", row.version);
  visit("components", row.components);
}

template <class V, Is<Package> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("name", row.name);
  visit("version", row.version);
  visit("status", row.status);
  visit("architecture", row.architecture);
  visit("evidence", row.evidence);
  visit("package", row.package);
  visit("installer", row.installer);
  visit("manager", row.manager);
  visit("cuda_major", row.cuda_major);
  visit("component", row.component);
  visit("version_unknown_reason", row.version_unknown_reason);
}

template <class V, Is<Cuda> S>
void Visit(V& visit, S& row) {
  visit("runtimes", row.runtimes);
  visit("runtimes_complete", row.runtimes_complete);
  visit("static_runtimes", row.static_runtimes);
  visit("drivers", row.drivers);
  visit("drivers_complete", row.drivers_complete);
  visit("driver_libraries", row.driver_libraries);
  visit("requirements", row.requirements);
  visit("loader", row.loader);
  visit("toolkits", row.toolkits);
  visit("packages", row.packages);
}

template <class V, Is<ArchCount> S>
void Visit(V& visit, S& row) {
  visit("arch", row.arch);
  visit("count", row.count);
  visit("isa", row.isa);
  visit("kernels", row.kernels);
}

template <class V, Is<Fatbin> S>
void Visit(V& visit, S& row) {
  visit("containers", row.containers);
  visit("entries", row.entries);
  visit("sections", row.sections);
  visit("section_archs", row.section_archs);
  visit("sass", row.sass);
  visit("ptx", row.ptx);
  visit("ltoir", row.ltoir);
  visit("other", row.other);
  visit("compression", row.compression);
  visit("debug_entries", row.debug_entries);
  visit("embedded_cubins", row.embedded_cubins);
  visit("toolkits", row.toolkits);
  visit("tkinfo", row.tkinfo);
}

template <class V, Is<Cubin> S>
void Visit(V& visit, S& row) {
  visit("arch", row.arch);
  visit("abi_version", row.abi_version);
  visit("e_flags", row.e_flags);
  visit("toolkit", row.toolkit);
}

template <class V, Is<CudartLookup> S>
void Visit(V& visit, S& row) {
  visit("needed", row.needed);
  visit("found", row.found);
  visit("via", row.via);
  visit("searched", row.searched);
  visit("incomplete", row.incomplete);
}

template <class V, Is<Binary> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("path", row.path);
  visit("machine", row.machine);
  visit("class", row.elf_class);
  visit("type", row.type);
  visit("soname", row.soname);
  visit("needed", row.needed);
  visit("runpath", row.runpath);
  visit("rpath", row.rpath);
  visit("cudart_lookup", row.cudart_lookup);
  visit("sass", row.sass);
  visit("ptx", row.ptx);
  visit("fatbin", row.fatbin);
  visit("toolkits", row.toolkits);
  visit("cubin", row.cubin);
  visit("static_cudart", row.static_cudart);
  visit("problems", row.problems);
  visit("reachable", row.reachable);
  visit("reachable_via", row.reachable_via);
  visit("unreachable_reason", row.unreachable_reason);
  visit("framework", row.framework);
  visit("framework_version", row.framework_version);
  visit("source", row.source);
  visit("arch_list", row.arch_list);
  visit("arch_list_source", row.arch_list_source);
  visit("arch_list_unconfirmed", row.arch_list_unconfirmed);
}

template <class V, Is<Framework> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  visit("name", row.name);
  visit("version", row.version);
  visit("cuda", row.cuda);
  visit("path", row.path);
  visit("package", row.package);
  visit("build", row.build);
  visit("git_version", row.git_version);
  visit("cudnn", row.cudnn);
  visit("sass", row.sass);
  visit("ptx", row.ptx);
  visit("cuda_libraries", row.cuda_libraries);
  visit("variant", row.variant);
  visit("cuda_source", row.cuda_source);
  visit("cuda_unknown", row.cuda_unknown);
  visit("installer", row.installer);
  visit("source", row.source);
  visit("version_unknown_reason", row.version_unknown_reason);
  visit("version_assumed", row.version_assumed);
  visit("replaceable", row.replaceable);
  visit("arch_list", row.arch_list);
  visit("arch_list_source", row.arch_list_source);
  visit("arch_list_unconfirmed", row.arch_list_unconfirmed);
}

template <class V, Is<Stage> S>
void Visit(V& visit, S& row) {
  visit("name", row.name);
  visit("base", row.base);
  visit("dockerfile_line", row.dockerfile_line);
  visit("target", row.target);
}

template <class V, Is<UnknownFact> S>
void Visit(V& visit, S& row) {
  visit("fact", row.fact);
  visit("dockerfile", row.dockerfile);
  visit("dockerfile_line", row.dockerfile_line);
  visit("reason", row.reason);
  visit("decide", row.decide);
}

template <class V, Is<DockerfileNote> S>
void Visit(V& visit, S& row) {
  visit("dockerfile_line", row.dockerfile_line);
  visit("note", row.note);
}

template <class V, Is<Suppression> S>
void Visit(V& visit, S& row) {
  visit("rules", row.rules);
  visit("reason", row.reason);
  visit("file", row.file);
  visit("line", row.line);
  visit("instruction_line", row.instruction_line);
  visit("instruction", row.instruction);
}

template <class V, Is<DockerfileInfo> S>
void Visit(V& visit, S& row) {
  visit("path", row.path);
  visit("escape", row.escape);
  visit("syntax", row.syntax);
  visit("stages", row.stages);
  visit("unknown", row.unknown);
  visit("notes", row.notes);
  visit("changes", row.changes);
  visit("suppressions", row.suppressions);
  visit("unused_build_args", row.unused_build_args);
}

template <class V, Is<GpuSignal> S>
void Visit(V& visit, S& row) {
  visit("signal", row.signal);
  visit("detail", row.detail);
  visit("path", row.path);
  visit("dockerfile_line", row.dockerfile_line);
}

template <class V, Is<Gpu> S>
void Visit(V& visit, S& row) {
  visit("workload", row.workload);  // "nvidia" | "rocm" | "none" (docs/facts-schema.json)
  visit("signals", row.signals);
  visit("caveats", row.caveats);
}

// The whole document, after its "schema" key.
template <class V, Is<Facts> S>
void Visit(V& visit, S& row) {
  visit("source", row.source);
  visit("image", row.image);
  visit("cuda", row.cuda);
  visit("binaries", row.binaries);
  visit("binaries_complete", row.binaries_complete);
  visit("frameworks", row.frameworks);
  visit("frameworks_complete", row.frameworks_complete);
  visit("gpu", row.gpu);
  visit("dockerfile", row.dockerfile);
}

}  // namespace imagelint::facts::fields

// The field lists where json_record's Write and Read look for them (by
// argument-dependent lookup, in the records' own namespace).
namespace imagelint::facts {
using fields::Visit;
}  // namespace imagelint::facts
