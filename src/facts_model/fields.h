// The field list of every record of the facts model, once: the JSON key and
// the member behind it (one name, IMAGELINT_RECORD_FIELDS in
// common/json_record.h), in the order the reader checks them. The writer
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

IMAGELINT_RECORD_FIELDS(Provenance, layer, layer_digest, dockerfile, dockerfile_line, dockerfile_origin, created_by,
    origin, knowledge, unconfirmed)

IMAGELINT_RECORD_FIELDS(Problem, offset, message)

IMAGELINT_RECORD_FIELDS(Ptx, arch, isa)

IMAGELINT_RECORD_FIELDS(Source, kind, path, target, stage, build_args)

IMAGELINT_RECORD_FIELDS(Layer, created_by, digest, diff_id, media_type, size, entries, uncompressed_size, dockerfile,
    dockerfile_line, dockerfile_origin, instruction, base_image, empty_layer)

IMAGELINT_RECORD_FIELDS(EnvProvenance, dockerfile_line, origin)

IMAGELINT_RECORD_FIELDS(BaseImage, ref, repository, tag, digest, platform, dockerfile, dockerfile_line, known, kind,
    reason, resolved_from, lookup_failure, cuda_tag_version, flavor, cudnn, distribution, cuda_version, source,
    tag_resolution, env_source, require_source, require_unconfirmed, torch, compat, compat_source)

IMAGELINT_RECORD_FIELDS(Image, ref, kind, os, architecture, digest, dockerfile, variant, env, env_provenance,
    env_complete, labels, layers, base, problems, platform_source)

IMAGELINT_RECORD_FIELDS(RuntimeEvidence, source, version, path)

IMAGELINT_RECORD_FIELDS_AFTER(Runtime, provenance, path, soname, version, source, evidence_path, evidence, conflict,
    hashed_copy, aliases, version_precision, version_source, package, installer, version_unknown_reason, version_min)

IMAGELINT_RECORD_FIELDS_AFTER(StaticRuntime, provenance, path, markers, toolkits)

IMAGELINT_RECORD_FIELDS_AFTER(Driver, provenance, path, name, kind, version, source, evidence_path, toolkit_dir, soname,
    note, aliases, problems, missing_needed, package, branch, version_source, link_target, resolves_to, hard_link,
    copied_from, copied_from_stage)

IMAGELINT_RECORD_FIELDS_AFTER(DriverLibrary, provenance, name, kind, path, version)

IMAGELINT_RECORD_FIELDS_AFTER(LdSoConfEntry, provenance, dir, file)

IMAGELINT_RECORD_FIELDS(LibcudaCandidate, dir, via, path, resolves_to, kind, version, dockerfile_line,
    via_dockerfile_line)

IMAGELINT_RECORD_FIELDS(Loader, ld_library_path, ld_library_path_provenance, ld_so_conf, ld_so_conf_missing,
    ld_so_conf_complete, libcuda_candidates)

IMAGELINT_RECORD_FIELDS_AFTER(Toolkit, provenance, path, version, components)

IMAGELINT_RECORD_FIELDS_AFTER(Package, provenance, name, version, status, architecture, evidence, package, installer,
    manager, cuda_major, component, version_unknown_reason)

IMAGELINT_RECORD_FIELDS(Cuda, runtimes, runtimes_complete, static_runtimes, drivers, drivers_complete, driver_libraries,
    requirements, loader, toolkits, packages)

IMAGELINT_RECORD_FIELDS(ArchCount, arch, count, isa, kernels)

IMAGELINT_RECORD_FIELDS(Fatbin, containers, entries, sections, section_archs, sass, ptx, ltoir, other, compression,
    debug_entries, embedded_cubins, toolkits, tkinfo)

IMAGELINT_RECORD_FIELDS(Cubin, arch, abi_version, e_flags, toolkit)

IMAGELINT_RECORD_FIELDS(CudartLookup, needed, found, via, searched, incomplete)

// The key "class" is a C++ keyword, so its member is elf_class.
template <class V, Is<Binary> S>
void Visit(V& visit, S& row) {
  Visit(visit, row.provenance);
  IMAGELINT_VISIT_FIELDS(visit, row, path, machine);
  visit("class", row.elf_class);
  IMAGELINT_VISIT_FIELDS(visit, row, type, soname, needed, runpath, rpath, cudart_lookup, sass, ptx, fatbin, toolkits,
      cubin, static_cudart, problems, reachable, reachable_via, unreachable_reason, framework, framework_version,
      source, arch_list, arch_list_source, arch_list_unconfirmed);
}

IMAGELINT_RECORD_FIELDS_AFTER(Framework, provenance, name, version, cuda, path, package, build, git_version, cudnn,
    sass, ptx, cuda_libraries, variant, cuda_source, cuda_unknown, installer, source, version_unknown_reason,
    version_assumed, replaceable, arch_list, arch_list_source, arch_list_unconfirmed)

IMAGELINT_RECORD_FIELDS(Stage, name, base, dockerfile_line, target)

IMAGELINT_RECORD_FIELDS(UnknownFact, fact, dockerfile, dockerfile_line, reason, decide)

IMAGELINT_RECORD_FIELDS(DockerfileNote, dockerfile_line, note)

IMAGELINT_RECORD_FIELDS(Suppression, rules, reason, file, line, instruction_line, instruction)

IMAGELINT_RECORD_FIELDS(DockerfileInfo, path, escape, syntax, stages, unknown, notes, changes, suppressions,
    unused_build_args)

IMAGELINT_RECORD_FIELDS(GpuSignal, signal, detail, path, dockerfile_line)

// workload: "nvidia" | "rocm" | "none" (docs/facts-schema.json).
IMAGELINT_RECORD_FIELDS(Gpu, workload, signals, caveats)

// The whole document, after its "schema" key.
IMAGELINT_RECORD_FIELDS(Facts, source, image, cuda, binaries, binaries_complete, frameworks, frameworks_complete, gpu,
    dockerfile)

}  // namespace imagelint::facts::fields

// The field lists where json_record's Write and Read look for them (by
// argument-dependent lookup, in the records' own namespace).
namespace imagelint::facts {
using fields::Visit;
}  // namespace imagelint::facts
