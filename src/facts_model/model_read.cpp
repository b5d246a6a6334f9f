// ReadFacts: the one reader of imagelint.facts/v1 (include/imagelint/facts.h).
// Every field is type-checked against the model; the first problem becomes an
// Error naming the field path ("cuda.drivers[0].version: expected a string or
// null"). Unknown fields are errors too: what the reader accepts is what the
// writer emits (docs/facts-schema.json).
#include <set>

#include "imagelint/facts.h"

namespace imagelint::facts {
namespace {

using nlohmann::json;

// The first error wins; later checks become no-ops.
struct Context {
  std::string subject;
  std::optional<Error> error;
  void Fail(const std::string& path, const std::string& message) {
    if (!error) error = MakeError(subject, (path.empty() ? std::string("document") : path) + ": " + message);
  }
};

std::string JsonType(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a fractional number";
    default: return "a number";
  }
}

void Parse(Context& ctx, const json& v, const std::string& path, std::string& out) {
  if (!v.is_string()) return ctx.Fail(path, "expected a string, got " + JsonType(v));
  out = v.get<std::string>();
}
void Parse(Context& ctx, const json& v, const std::string& path, bool& out) {
  if (!v.is_boolean()) return ctx.Fail(path, "expected true or false, got " + JsonType(v));
  out = v.get<bool>();
}
void Parse(Context& ctx, const json& v, const std::string& path, uint64_t& out) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    return ctx.Fail(path, "expected a whole number >= 0, got " + JsonType(v));
  out = v.get<uint64_t>();
}
void Parse(Context& ctx, const json& v, const std::string& path, int64_t& out) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return ctx.Fail(path, "expected a whole number, got " + JsonType(v));
  out = v.get<int64_t>();
}
// Driver::note: NVIDIA's JSON, kept as written; it must be an object.
void Parse(Context& ctx, const json& v, const std::string& path, json& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out = v;
}
void Parse(Context& ctx, const json& v, const std::string& path, Known& out) {
  if (v.is_boolean()) {
    out = v.get<bool>() ? Known::kYes : Known::kNo;
  } else if (v == "partial") {
    out = Known::kPartial;
  } else {
    ctx.Fail(path, "expected true, false or \"partial\", got " + JsonType(v));
  }
}

void Parse(Context& ctx, const json& v, const std::string& path, Problem& out);
void Parse(Context& ctx, const json& v, const std::string& path, Ptx& out);
void Parse(Context& ctx, const json& v, const std::string& path, Source& out);
void Parse(Context& ctx, const json& v, const std::string& path, Layer& out);
void Parse(Context& ctx, const json& v, const std::string& path, EnvProvenance& out);
void Parse(Context& ctx, const json& v, const std::string& path, BaseImage& out);
void Parse(Context& ctx, const json& v, const std::string& path, Image& out);
void Parse(Context& ctx, const json& v, const std::string& path, RuntimeEvidence& out);
void Parse(Context& ctx, const json& v, const std::string& path, Runtime& out);
void Parse(Context& ctx, const json& v, const std::string& path, StaticRuntime& out);
void Parse(Context& ctx, const json& v, const std::string& path, Driver& out);
void Parse(Context& ctx, const json& v, const std::string& path, DriverLibrary& out);
void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out);
void Parse(Context& ctx, const json& v, const std::string& path, LdSoConfEntry& out);
void Parse(Context& ctx, const json& v, const std::string& path, LibcudaCandidate& out);
void Parse(Context& ctx, const json& v, const std::string& path, Loader& out);
void Parse(Context& ctx, const json& v, const std::string& path, Toolkit& out);
void Parse(Context& ctx, const json& v, const std::string& path, Package& out);
void Parse(Context& ctx, const json& v, const std::string& path, Cuda& out);
void Parse(Context& ctx, const json& v, const std::string& path, ArchCount& out);
void Parse(Context& ctx, const json& v, const std::string& path, Fatbin& out);
void Parse(Context& ctx, const json& v, const std::string& path, Cubin& out);
void Parse(Context& ctx, const json& v, const std::string& path, CudartLookup& out);
void Parse(Context& ctx, const json& v, const std::string& path, Binary& out);
void Parse(Context& ctx, const json& v, const std::string& path, Framework& out);
void Parse(Context& ctx, const json& v, const std::string& path, Stage& out);
void Parse(Context& ctx, const json& v, const std::string& path, UnknownFact& out);
void Parse(Context& ctx, const json& v, const std::string& path, DockerfileNote& out);
void Parse(Context& ctx, const json& v, const std::string& path, Change& out);
void Parse(Context& ctx, const json& v, const std::string& path, Suppression& out);
void Parse(Context& ctx, const json& v, const std::string& path, DockerfileInfo& out);
void Parse(Context& ctx, const json& v, const std::string& path, GpuSignal& out);
void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out);

template <class T>
void Parse(Context& ctx, const json& v, const std::string& path, Nullable<T>& out) {
  if (v.is_null()) {
    out = std::nullopt;
    return;
  }
  T value{};
  Parse(ctx, v, path, value);
  out = std::move(value);
}
template <class T>
void Parse(Context& ctx, const json& v, const std::string& path, std::vector<T>& out) {
  if (!v.is_array()) return ctx.Fail(path, "expected a list, got " + JsonType(v));
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size() && !ctx.error; ++i) {
    T item{};
    Parse(ctx, v[i], path + "[" + std::to_string(i) + "]", item);
    out.push_back(std::move(item));
  }
}
template <class T>
void Parse(Context& ctx, const json& v, const std::string& path, std::map<std::string, T>& out) {
  if (!v.is_object()) return ctx.Fail(path, "expected an object, got " + JsonType(v));
  out.clear();
  for (auto it = v.begin(); it != v.end() && !ctx.error; ++it) {
    T item{};
    Parse(ctx, it.value(), path + "." + it.key(), item);
    out.emplace(it.key(), std::move(item));
  }
}

// The fields of one JSON object: each Req/Opt reads one key; Done reports
// the first key nobody asked for.
class Fields {
 public:
  Fields(Context& ctx, const json& value, std::string path) : ctx_(ctx), value_(value), path_(std::move(path)) {
    if (!value_.is_object()) ctx_.Fail(path_, "expected an object, got " + JsonType(value_));
  }
  bool ok() const { return !ctx_.error && value_.is_object(); }

  template <class T>
  void Req(const char* key, T& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return ctx_.Fail(Path(key), "missing");
    Parse(ctx_, *it, Path(key), out);
  }
  template <class T>
  void Opt(const char* key, std::optional<T>& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return;
    T value{};
    Parse(ctx_, *it, Path(key), value);
    out = std::move(value);
  }
  // A Nullable field: a missing key reads as null (older documents).
  template <class T>
  void Null(const char* key, Nullable<T>& out) {
    if (!ok()) return;
    seen_.insert(key);
    auto it = value_.find(key);
    if (it == value_.end()) return;
    Parse(ctx_, *it, Path(key), out);
  }
  void Skip(const std::string& key) { seen_.insert(key); }
  const json* Find(const char* key) const {
    if (!value_.is_object()) return nullptr;
    auto it = value_.find(key);
    return it == value_.end() ? nullptr : &*it;
  }
  std::string Path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  void Done() {
    if (!ok()) return;
    for (auto it = value_.begin(); it != value_.end(); ++it)
      if (!seen_.count(it.key())) return ctx_.Fail(Path(it.key()), "unknown field");
  }

 private:
  Context& ctx_;
  const json& value_;
  std::string path_;
  std::set<std::string> seen_;
};

void ReadProvenance(Fields& f, Provenance& out) {
  f.Opt("layer", out.layer);
  f.Opt("layer_digest", out.layer_digest);
  f.Opt("dockerfile", out.dockerfile);
  f.Opt("dockerfile_line", out.dockerfile_line);
  f.Opt("dockerfile_origin", out.dockerfile_origin);
  f.Opt("created_by", out.created_by);
  f.Opt("origin", out.origin);
  f.Opt("knowledge", out.knowledge);
  f.Opt("unconfirmed", out.unconfirmed);
}

void Parse(Context& ctx, const json& v, const std::string& path, Problem& out) {
  Fields f(ctx, v, path);
  f.Req("offset", out.offset);
  f.Req("message", out.message);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Ptx& out) {
  Fields f(ctx, v, path);
  f.Req("arch", out.arch);
  f.Opt("isa", out.isa);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Source& out) {
  Fields f(ctx, v, path);
  f.Req("kind", out.kind);
  f.Opt("path", out.path);
  f.Opt("target", out.target);
  f.Opt("stage", out.stage);
  f.Opt("build_args", out.build_args);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Layer& out) {
  Fields f(ctx, v, path);
  f.Req("created_by", out.created_by);
  f.Opt("digest", out.digest);
  f.Opt("diff_id", out.diff_id);
  f.Opt("media_type", out.media_type);
  f.Opt("size", out.size);
  f.Opt("entries", out.entries);
  f.Opt("uncompressed_size", out.uncompressed_size);
  f.Opt("dockerfile", out.dockerfile);
  f.Opt("dockerfile_line", out.dockerfile_line);
  f.Opt("dockerfile_origin", out.dockerfile_origin);
  f.Opt("instruction", out.instruction);
  f.Opt("base_image", out.base_image);
  f.Opt("empty_layer", out.empty_layer);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, EnvProvenance& out) {
  Fields f(ctx, v, path);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Req("origin", out.origin);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, BaseImage& out) {
  Fields f(ctx, v, path);
  f.Req("ref", out.ref);
  f.Opt("repository", out.repository);
  f.Opt("tag", out.tag);
  f.Opt("digest", out.digest);
  f.Opt("platform", out.platform);
  f.Opt("dockerfile", out.dockerfile);
  f.Opt("dockerfile_line", out.dockerfile_line);
  f.Opt("known", out.known);
  f.Opt("kind", out.kind);
  f.Opt("reason", out.reason);
  f.Opt("resolved_from", out.resolved_from);
  f.Opt("cuda_tag_version", out.cuda_tag_version);
  f.Opt("flavor", out.flavor);
  f.Opt("cudnn", out.cudnn);
  f.Opt("distribution", out.distribution);
  f.Opt("cuda_version", out.cuda_version);
  f.Opt("source", out.source);
  f.Opt("tag_resolution", out.tag_resolution);
  f.Opt("env_source", out.env_source);
  f.Opt("require_source", out.require_source);
  f.Opt("require_unconfirmed", out.require_unconfirmed);
  f.Opt("torch", out.torch);
  f.Opt("compat", out.compat);
  f.Opt("compat_source", out.compat_source);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Image& out) {
  Fields f(ctx, v, path);
  f.Req("ref", out.ref);
  f.Req("kind", out.kind);
  f.Req("os", out.os);
  f.Req("architecture", out.architecture);
  f.Opt("digest", out.digest);
  f.Opt("dockerfile", out.dockerfile);
  f.Opt("variant", out.variant);
  f.Req("env", out.env);
  f.Opt("env_provenance", out.env_provenance);
  f.Opt("env_complete", out.env_complete);
  f.Req("labels", out.labels);
  f.Req("layers", out.layers);
  f.Opt("base", out.base);
  f.Opt("problems", out.problems);
  f.Opt("platform_source", out.platform_source);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, RuntimeEvidence& out) {
  Fields f(ctx, v, path);
  f.Req("source", out.source);
  f.Req("version", out.version);
  f.Req("path", out.path);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Runtime& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Null("path", out.path);
  f.Opt("soname", out.soname);
  f.Null("version", out.version);
  f.Null("source", out.source);
  f.Opt("evidence_path", out.evidence_path);
  f.Opt("evidence", out.evidence);
  f.Opt("conflict", out.conflict);
  f.Opt("hashed_copy", out.hashed_copy);
  f.Opt("aliases", out.aliases);
  f.Opt("version_precision", out.version_precision);
  f.Opt("version_source", out.version_source);
  f.Opt("package", out.package);
  f.Opt("installer", out.installer);
  f.Opt("version_unknown_reason", out.version_unknown_reason);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, StaticRuntime& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("path", out.path);
  f.Req("markers", out.markers);
  f.Req("toolkits", out.toolkits);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Driver& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("path", out.path);
  f.Opt("name", out.name);
  f.Req("kind", out.kind);
  f.Null("version", out.version);
  f.Null("source", out.source);
  f.Opt("evidence_path", out.evidence_path);
  f.Opt("toolkit_dir", out.toolkit_dir);
  f.Opt("soname", out.soname);
  f.Opt("note", out.note);
  f.Opt("aliases", out.aliases);
  f.Opt("problems", out.problems);
  f.Opt("package", out.package);
  f.Opt("branch", out.branch);
  f.Opt("version_source", out.version_source);
  f.Opt("link_target", out.link_target);
  f.Opt("resolves_to", out.resolves_to);
  f.Opt("hard_link", out.hard_link);
  f.Opt("copied_from", out.copied_from);
  f.Opt("copied_from_stage", out.copied_from_stage);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, DriverLibrary& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("name", out.name);
  f.Req("kind", out.kind);
  f.Req("path", out.path);
  f.Null("version", out.version);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Requirements& out) {
  Fields f(ctx, v, path);
  f.Req("disabled", out.disabled);
  f.Opt("legacy", out.legacy);
  if (const json* version = f.Find("legacy_cuda_version")) {
    f.Skip("legacy_cuda_version");
    Nullable<std::string> value;
    Parse(ctx, *version, f.Path("legacy_cuda_version"), value);
    out.legacy_cuda_version = value;
  }
  f.Opt("legacy_cuda_version_invalid", out.legacy_cuda_version_invalid);
  f.Opt("provenance", out.provenance);
  f.Opt("complete", out.complete);
  // Every other key is an env variable the runtime reads.
  if (v.is_object())
    for (auto it = v.begin(); it != v.end() && !ctx.error; ++it) {
      static const std::set<std::string> kFixed = {"disabled", "legacy", "legacy_cuda_version",
                                                   "legacy_cuda_version_invalid", "provenance", "complete"};
      if (kFixed.count(it.key()) || !IsRequirementVariable(it.key())) continue;
      f.Skip(it.key());
      Parse(ctx, it.value(), f.Path(it.key()), out.variables[it.key()]);
    }
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, LdSoConfEntry& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("dir", out.dir);
  f.Req("file", out.file);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, LibcudaCandidate& out) {
  Fields f(ctx, v, path);
  f.Req("dir", out.dir);
  f.Req("via", out.via);
  f.Req("path", out.path);
  f.Opt("resolves_to", out.resolves_to);
  f.Opt("kind", out.kind);
  f.Opt("version", out.version);
  f.Opt("dockerfile_line", out.dockerfile_line);
  f.Opt("via_dockerfile_line", out.via_dockerfile_line);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Loader& out) {
  Fields f(ctx, v, path);
  f.Opt("ld_library_path", out.ld_library_path);
  f.Opt("ld_library_path_provenance", out.ld_library_path_provenance);
  f.Opt("ld_so_conf", out.ld_so_conf);
  f.Opt("ld_so_conf_missing", out.ld_so_conf_missing);
  f.Opt("ld_so_conf_complete", out.ld_so_conf_complete);
  f.Opt("libcuda_candidates", out.libcuda_candidates);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Toolkit& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("path", out.path);
  f.Req("version", out.version);
  f.Opt("components", out.components);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Package& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("name", out.name);
  f.Null("version", out.version);
  f.Opt("status", out.status);
  f.Opt("architecture", out.architecture);
  f.Opt("evidence", out.evidence);
  f.Opt("package", out.package);
  f.Opt("installer", out.installer);
  f.Opt("manager", out.manager);
  f.Opt("cuda_major", out.cuda_major);
  f.Opt("component", out.component);
  f.Opt("version_unknown_reason", out.version_unknown_reason);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Cuda& out) {
  Fields f(ctx, v, path);
  f.Opt("runtimes", out.runtimes);
  f.Opt("runtimes_complete", out.runtimes_complete);
  f.Opt("static_runtimes", out.static_runtimes);
  f.Opt("drivers", out.drivers);
  f.Opt("drivers_complete", out.drivers_complete);
  f.Opt("driver_libraries", out.driver_libraries);
  f.Opt("requirements", out.requirements);
  f.Opt("loader", out.loader);
  f.Opt("toolkits", out.toolkits);
  f.Opt("packages", out.packages);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, ArchCount& out) {
  Fields f(ctx, v, path);
  f.Req("arch", out.arch);
  f.Req("count", out.count);
  f.Opt("isa", out.isa);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Fatbin& out) {
  Fields f(ctx, v, path);
  f.Req("containers", out.containers);
  f.Req("entries", out.entries);
  f.Req("sections", out.sections);
  f.Req("section_archs", out.section_archs);
  f.Req("sass", out.sass);
  f.Req("ptx", out.ptx);
  f.Opt("ltoir", out.ltoir);
  f.Opt("other", out.other);
  f.Req("compression", out.compression);
  f.Req("debug_entries", out.debug_entries);
  f.Req("embedded_cubins", out.embedded_cubins);
  f.Req("toolkits", out.toolkits);
  f.Req("tkinfo", out.tkinfo);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Cubin& out) {
  Fields f(ctx, v, path);
  f.Req("arch", out.arch);
  f.Req("abi_version", out.abi_version);
  f.Req("e_flags", out.e_flags);
  f.Opt("toolkit", out.toolkit);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, CudartLookup& out) {
  Fields f(ctx, v, path);
  f.Req("needed", out.needed);
  f.Null("found", out.found);
  f.Null("via", out.via);
  f.Req("searched", out.searched);
  f.Opt("incomplete", out.incomplete);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Binary& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("path", out.path);
  f.Opt("machine", out.machine);
  f.Opt("class", out.elf_class);
  f.Opt("type", out.type);
  f.Opt("soname", out.soname);
  f.Opt("needed", out.needed);
  f.Opt("runpath", out.runpath);
  f.Opt("rpath", out.rpath);
  f.Opt("cudart_lookup", out.cudart_lookup);
  f.Opt("sass", out.sass);
  f.Opt("ptx", out.ptx);
  f.Opt("fatbin", out.fatbin);
  f.Opt("toolkits", out.toolkits);
  f.Opt("cubin", out.cubin);
  f.Opt("static_cudart", out.static_cudart);
  f.Opt("problems", out.problems);
  f.Opt("framework", out.framework);
  f.Opt("framework_version", out.framework_version);
  f.Opt("source", out.source);
  f.Opt("arch_list", out.arch_list);
  f.Opt("arch_list_source", out.arch_list_source);
  f.Opt("arch_list_unconfirmed", out.arch_list_unconfirmed);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Framework& out) {
  Fields f(ctx, v, path);
  ReadProvenance(f, out.provenance);
  f.Req("name", out.name);
  f.Null("version", out.version);
  f.Null("cuda", out.cuda);
  f.Opt("path", out.path);
  f.Opt("package", out.package);
  f.Opt("build", out.build);
  f.Opt("git_version", out.git_version);
  f.Opt("cudnn", out.cudnn);
  f.Opt("sass", out.sass);
  f.Opt("ptx", out.ptx);
  f.Opt("cuda_libraries", out.cuda_libraries);
  f.Opt("variant", out.variant);
  f.Opt("cuda_source", out.cuda_source);
  f.Opt("cuda_unknown", out.cuda_unknown);
  f.Opt("installer", out.installer);
  f.Opt("source", out.source);
  f.Opt("version_unknown_reason", out.version_unknown_reason);
  f.Opt("arch_list", out.arch_list);
  f.Opt("arch_list_source", out.arch_list_source);
  f.Opt("arch_list_unconfirmed", out.arch_list_unconfirmed);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Stage& out) {
  Fields f(ctx, v, path);
  f.Req("name", out.name);
  f.Req("base", out.base);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Req("target", out.target);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, UnknownFact& out) {
  Fields f(ctx, v, path);
  f.Req("fact", out.fact);
  f.Opt("dockerfile", out.dockerfile);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Req("reason", out.reason);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, DockerfileNote& out) {
  Fields f(ctx, v, path);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Req("note", out.note);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Change& out) {
  Fields f(ctx, v, path);
  f.Req("dockerfile_line", out.dockerfile_line);
  f.Opt("by", out.by);
  std::string fact;
  f.Req("fact", fact);
  f.Skip("removed");
  const json* removed = f.Find("removed");
  if (f.ok() && removed == nullptr) ctx.Fail(f.Path("removed"), "missing");
  if (f.ok()) {
    std::string at = f.Path("removed");
    if (fact == "cuda.runtimes") {
      Runtime row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else if (fact == "cuda.drivers") {
      Driver row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else if (fact == "frameworks") {
      Framework row;
      Parse(ctx, *removed, at, row);
      out.removed = std::move(row);
    } else {
      ctx.Fail(f.Path("fact"), "expected \"cuda.runtimes\", \"cuda.drivers\" or \"frameworks\", got \"" +
                                   fact.substr(0, 64) + "\"");
    }
  }
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Suppression& out) {
  Fields f(ctx, v, path);
  f.Req("rules", out.rules);
  f.Req("reason", out.reason);
  f.Req("file", out.file);
  f.Req("line", out.line);
  f.Req("instruction_line", out.instruction_line);
  f.Req("instruction", out.instruction);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, DockerfileInfo& out) {
  Fields f(ctx, v, path);
  f.Req("path", out.path);
  f.Opt("escape", out.escape);
  f.Opt("syntax", out.syntax);
  f.Req("stages", out.stages);
  f.Req("unknown", out.unknown);
  f.Req("notes", out.notes);
  f.Req("changes", out.changes);
  f.Req("suppressions", out.suppressions);
  f.Req("unused_build_args", out.unused_build_args);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, GpuSignal& out) {
  Fields f(ctx, v, path);
  f.Req("signal", out.signal);
  f.Req("detail", out.detail);
  f.Opt("path", out.path);
  f.Opt("dockerfile_line", out.dockerfile_line);
  f.Done();
}

void Parse(Context& ctx, const json& v, const std::string& path, Gpu& out) {
  Fields f(ctx, v, path);
  f.Req("workload", out.workload);
  f.Req("signals", out.signals);
  f.Opt("caveats", out.caveats);
  if (f.ok() && out.workload != "nvidia" && out.workload != "rocm" && out.workload != "none")
    ctx.Fail(f.Path("workload"), "expected \"nvidia\", \"rocm\" or \"none\", got \"" + out.workload.substr(0, 64) + "\"");
  f.Done();
}

template <class T>
Result<T> ReadPart(const json& value, const std::string& path) {
  Context ctx;
  T out{};
  Parse(ctx, value, path, out);
  if (ctx.error) return *ctx.error;
  return out;
}

}  // namespace

Result<Facts> ReadFacts(const json& document, const std::string& subject) {
  Context ctx{subject, std::nullopt};
  Facts out;
  Fields f(ctx, document, "");
  std::string schema;
  f.Req("schema", schema);
  if (!ctx.error && schema != kSchemaName)
    ctx.Fail("schema", "expected \"" + std::string(kSchemaName) + "\", got \"" + schema.substr(0, 64) + "\"");
  f.Opt("source", out.source);
  f.Req("image", out.image);
  f.Opt("cuda", out.cuda);
  f.Opt("binaries", out.binaries);
  f.Opt("binaries_complete", out.binaries_complete);
  f.Opt("frameworks", out.frameworks);
  f.Opt("frameworks_complete", out.frameworks_complete);
  f.Opt("gpu", out.gpu);
  f.Opt("dockerfile", out.dockerfile);
  f.Done();
  if (ctx.error) return *ctx.error;
  return out;
}

Result<Fatbin> ReadFatbin(const json& value, const std::string& path) { return ReadPart<Fatbin>(value, path); }
Result<Cubin> ReadCubin(const json& value, const std::string& path) { return ReadPart<Cubin>(value, path); }
Result<std::vector<Ptx>> ReadPtxList(const json& value, const std::string& path) {
  return ReadPart<std::vector<Ptx>>(value, path);
}
Result<std::vector<Problem>> ReadProblems(const json& value, const std::string& path) {
  return ReadPart<std::vector<Problem>>(value, path);
}

}  // namespace imagelint::facts
