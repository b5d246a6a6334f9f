// Output: the image model of the target stage as imagelint.facts/v1.
//
// The facts have the schema of a built image's facts, so the same rules read
// them; what a Dockerfile cannot show is left absent and `*_complete: false`
// says a list may be partial. Requirements are read the way the NVIDIA
// container toolkit reads an image's environment
// (github.com/NVIDIA/nvidia-container-toolkit, internal/config/image/cuda_image.go):
// every NVIDIA_REQUIRE_* variable, NVIDIA_DISABLE_REQUIRE as Go's
// strconv.ParseBool, and the legacy rule that an image with CUDA_VERSION but
// no NVIDIA_REQUIRE_CUDA requires cuda>=<major.minor of CUDA_VERSION>.
// libcuda_candidates says which libcuda each loader directory offers, in the
// loader's search order (ld.so(8): LD_LIBRARY_PATH, ld.so.conf, then the
// default directories).
#include "dockerfile/output.h"

#include "common/text.h"
#include "dockerfile/file_ops.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

using json = nlohmann::json;

constexpr const char* kFactsSchema = "imagelint.facts/v1";

json Optional(const std::optional<std::string>& value) { return value ? json(*value) : json(nullptr); }
void PutIf(json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

class Writer {
 public:
  Writer(const Context& ctx, const ImageModel& image) : ctx_(ctx), image_(image) {}

  json Where(const Provenance& where) const {
    return {{"dockerfile", ctx_.file.path},
            {"dockerfile_line", where.line},
            {"layer", where.layer},
            {"created_by", where.created_by},
            {"origin", where.origin}};
  }

  json Driver(const DriverRow& row) const {
    json out = Where(row.where);
    PutIf(out, "name", row.name);
    out["path"] = row.path;
    out["version"] = Optional(row.version);
    out["kind"] = row.kind;
    out["source"] = row.source;
    for (const auto& [key, value] : {std::pair{"toolkit_dir", &row.toolkit_dir}, {"package", &row.package},
                                     {"branch", &row.branch}, {"knowledge", &row.knowledge},
                                     {"unconfirmed", &row.unconfirmed}, {"version_source", &row.version_source},
                                     {"link_target", &row.link_target}, {"resolves_to", &row.resolves_to},
                                     {"copied_from", &row.copied_from}, {"copied_from_stage", &row.copied_from_stage}})
      PutIf(out, key, *value);
    if (!row.aliases.empty()) out["aliases"] = row.aliases;
    if (row.hard_link) out["hard_link"] = true;
    return out;
  }

  json Runtime(const RuntimeRow& row) const {
    json out = Where(row.where);
    out["path"] = Optional(row.path);
    out["version"] = Optional(row.version);
    out["source"] = row.source;
    for (const auto& [key, value] :
         {std::pair{"version_precision", &row.version_precision}, {"soname", &row.soname}, {"package", &row.package},
          {"installer", &row.installer}, {"knowledge", &row.knowledge}, {"unconfirmed", &row.unconfirmed},
          {"version_source", &row.version_source}, {"version_unknown_reason", &row.version_unknown_reason}})
      PutIf(out, key, *value);
    return out;
  }

  json Package(const PackageRow& row) const {
    json out = Where(row.where);
    out["name"] = row.name;
    out["package"] = row.package;
    out["installer"] = row.installer;
    out["version"] = Optional(row.version);
    out["cuda_major"] = row.cuda_major;
    out["manager"] = row.manager;
    for (const auto& [key, value] : {std::pair{"component", &row.component}, {"knowledge", &row.knowledge},
                                     {"version_unknown_reason", &row.version_unknown_reason}})
      PutIf(out, key, *value);
    return out;
  }

  // The GPU code fields of a torch row (also those of its synthetic binary).
  static void ArchList(json& out, const FrameworkRow& row) {
    if (!row.has_arch_list) return;
    out["sass"] = row.sass;
    json ptx = json::array();
    for (const PtxTarget& target : row.ptx) ptx.push_back({{"arch", target.arch}});
    out["ptx"] = ptx;
    out["arch_list"] = row.arch_list;
    out["arch_list_source"] = row.arch_list_source;
    PutIf(out, "arch_list_unconfirmed", row.arch_list_unconfirmed);
  }

  json Framework(const FrameworkRow& row) const {
    json out = Where(row.where);
    out["name"] = row.name;
    out["version"] = Optional(row.version);
    out["cuda"] = Optional(row.cuda);
    if (row.cuda_unknown) out["cuda_unknown"] = true;
    for (const auto& [key, value] :
         {std::pair{"package", &row.package}, {"installer", &row.installer}, {"source", &row.source},
          {"knowledge", &row.knowledge}, {"unconfirmed", &row.unconfirmed},
          {"version_unknown_reason", &row.version_unknown_reason}, {"variant", &row.variant},
          {"cuda_source", &row.cuda_source}})
      PutIf(out, key, *value);
    ArchList(out, row);
    return out;
  }

  // GPU code of frameworks whose arch list knowledge gives (torch wheels): the
  // kernel rules read binaries[], so each gets a synthetic library.
  json Binary(const FrameworkRow& row) const {
    json out = Where(row.where);
    PutIf(out, "knowledge", row.knowledge);
    PutIf(out, "unconfirmed", row.unconfirmed);
    ArchList(out, row);
    out["path"] = "<site-packages>/" + row.name + "/lib/lib" + row.name + "_cuda.so";
    out["soname"] = "lib" + row.name + "_cuda.so";
    out["needed"] = json::array();
    out["framework"] = row.name;
    out["framework_version"] = Optional(row.version);
    out["source"] = "knowledge: TORCH_CUDA_ARCH_LIST of " + row.name + " " + row.version.value_or("?") + "+" + row.variant;
    return out;
  }

  json Base() const {
    const BaseImage& base = image_.base;
    json out = {{"ref", base.ref},         {"repository", base.repository}, {"tag", base.tag},
                {"digest", base.digest},   {"platform", base.platform},     {"dockerfile", ctx_.file.path},
                {"dockerfile_line", base.line}, {"kind", base.kind}};
    out["known"] = base.partially_known ? json("partial") : json(base.known);
    if (base.has_distribution) out["distribution"] = base.distribution;
    for (const auto& [key, value] :
         {std::pair{"reason", &base.reason}, {"cuda_tag_version", &base.cuda_tag_version}, {"flavor", &base.flavor},
          {"cudnn", &base.cudnn}, {"cuda_version", &base.cuda_version}, {"source", &base.source},
          {"tag_resolution", &base.tag_resolution}, {"env_source", &base.env_source},
          {"require_source", &base.require_source}, {"torch", &base.torch}, {"compat_source", &base.compat_source}})
      PutIf(out, key, *value);
    if (base.require_unconfirmed) out["require_unconfirmed"] = true;
    if (base.compat) out["compat"] = *base.compat;
    return out;
  }

  json Change(const dockerfile::Change& change) const {
    json removed = std::visit(
        [&](const auto& row) -> json {
          using Row = std::decay_t<decltype(row)>;
          if constexpr (std::is_same_v<Row, DriverRow>) return Driver(row);
          else if constexpr (std::is_same_v<Row, RuntimeRow>) return Runtime(row);
          else return Framework(row);
        },
        change.removed);
    json out = {{"dockerfile_line", change.line}, {"removed", removed}};
    PutIf(out, "by", change.by);
    return out;
  }

  // Same shape as the image facts' cuda.requirements, plus provenance and complete.
  json Requirements() const {
    json out = json::object();
    json provenance = json::object();
    for (const std::string& key : image_.env_order) {
      if (StartsWith(key, "NVIDIA_REQUIRE_") || key == "CUDA_VERSION" || key == "NVIDIA_DISABLE_REQUIRE" ||
          key == "NVIDIA_VISIBLE_DEVICES" || key == "NVIDIA_DRIVER_CAPABILITIES" || StartsWith(key, "NV_CUDA_") ||
          key == "NVIDIA_PRODUCT_NAME" || key == "NVARCH") {
        out[key] = image_.env.at(key);
        provenance[key] = EnvOrigin(key);
      }
    }
    out["provenance"] = provenance;
    std::string disable = ToLower(Env("NVIDIA_DISABLE_REQUIRE"));
    out["disabled"] = disable == "1" || disable == "t" || disable == "true";  // Go's strconv.ParseBool
    if (!image_.env_known) {
      out["complete"] = false;  // the base image may add NVIDIA_REQUIRE_* the Dockerfile does not show
      return out;
    }
    out["complete"] = true;
    std::string cuda_version = Env("CUDA_VERSION");
    bool legacy = !cuda_version.empty() && Env("NVIDIA_REQUIRE_CUDA").empty();
    out["legacy"] = legacy;
    out["legacy_cuda_version"] = nullptr;
    if (legacy) {
      auto parts = SplitOn(cuda_version, '.');
      bool valid = parts.size() >= 2 && IsDottedNumber(parts[0]) && IsDottedNumber(parts[1]);
      if (valid) out["legacy_cuda_version"] = parts[0] + "." + parts[1];
      else out["legacy_cuda_version_invalid"] = true;
    }
    return out;
  }

  json Loader() const {
    json out = json::object();
    std::vector<std::string> ld_library_path;
    auto it = image_.env.find("LD_LIBRARY_PATH");
    if (it != image_.env.end())
      for (const std::string& dir : SplitOn(it->second, ':'))
        if (!dir.empty()) ld_library_path.push_back(dir);
    if (it != image_.env.end() || image_.env_known) out["ld_library_path"] = ld_library_path;
    bool has_provenance = image_.env_provenance.count("LD_LIBRARY_PATH") > 0;
    if (has_provenance) out["ld_library_path_provenance"] = EnvOrigin("LD_LIBRARY_PATH");
    bool conf_known = image_.ld_so_conf_known && !image_.HasUnknown("cuda.loader.ld_so_conf");
    if (conf_known || !image_.ld_so_conf.empty()) {
      json conf = json::array();
      for (const LdSoConfEntry& entry : image_.ld_so_conf) {
        json row = Where(entry.where);
        row["dir"] = entry.dir;
        row["file"] = entry.file;
        conf.push_back(row);
      }
      out["ld_so_conf"] = conf;
    }
    out["ld_so_conf_complete"] = conf_known;
    // Which libcuda each directory offers, in the loader's search order.
    json candidates = json::array();
    auto consider = [&](const std::string& dir_text, const char* via, std::optional<int> via_line) {
      std::string dir = CanonicalPath(image_, dir_text);
      for (const DriverRow& row : image_.drivers) {
        if (row.path.empty() || DirName(CanonicalPath(image_, row.path)) != dir) continue;
        json candidate = {{"dir", dir_text},  {"via", via},
                          {"path", row.path}, {"kind", row.kind},
                          {"version", Optional(row.version)}, {"dockerfile_line", row.where.line}};
        if (via_line) candidate["via_dockerfile_line"] = *via_line;
        candidates.push_back(candidate);
        break;
      }
    };
    std::optional<int> ld_line;
    if (has_provenance) ld_line = image_.env_provenance.at("LD_LIBRARY_PATH").line;
    for (const std::string& dir : ld_library_path) consider(dir, "LD_LIBRARY_PATH", ld_line);
    for (const LdSoConfEntry& entry : image_.ld_so_conf) consider(entry.dir, "ld.so.conf", entry.where.line);
    for (const std::string& dir : {"/lib/" + image_.lib_triplet, "/usr/lib/" + image_.lib_triplet, std::string("/lib64"),
                                   std::string("/usr/lib64"), std::string("/lib"), std::string("/usr/lib")})
      consider(dir, "default", std::nullopt);
    out["libcuda_candidates"] = candidates;
    return out;
  }

  json EnvOrigin(const std::string& name) const {
    const EnvProvenance& p = image_.env_provenance.at(name);
    return {{"dockerfile_line", p.line}, {"origin", p.origin}};
  }

 private:
  std::string Env(const std::string& name) const {
    auto it = image_.env.find(name);
    return it == image_.env.end() ? "" : it->second;
  }

  const Context& ctx_;
  const ImageModel& image_;
};

}  // namespace

json WriteFacts(const Context& ctx, const ImageModel& image, size_t target) {
  const Dockerfile& file = ctx.file;
  Writer writer(ctx, image);
  json facts;
  facts["schema"] = kFactsSchema;
  const Stage& stage = file.stages[target];
  facts["source"] = {{"kind", "dockerfile"}, {"path", file.path},   {"target", stage.name},
                     {"stage", target},      {"build_args", ctx.options.build_args}};

  json env = json::object(), env_provenance = json::object();
  for (const std::string& name : image.env_order) {
    env[name] = image.env.at(name);
    env_provenance[name] = writer.EnvOrigin(name);
  }
  json layers = json::array();
  for (const Layer& layer : image.layers) {
    json row = {{"created_by", layer.created_by},
                {"dockerfile", file.path},
                {"dockerfile_line", layer.line},
                {"instruction", layer.instruction}};
    if (layer.base_image) row["base_image"] = true;
    if (layer.empty_layer) row["empty_layer"] = true;
    layers.push_back(row);
  }
  facts["image"] = {
      {"ref", file.path + (stage.name.empty() || target + 1 == file.stages.size() ? "" : "#" + stage.name)},
      {"kind", "dockerfile"},
      {"dockerfile", file.path},  // reporters locate findings in this file
      {"os", image.os},
      {"architecture", image.architecture},
      {"env", env},
      {"env_provenance", env_provenance},
      {"env_complete", image.env_known},
      {"labels", image.labels},
      {"layers", layers},
      {"base", writer.Base()}};

  json cuda = json::object();
  bool drivers_known = image.drivers_known && !image.HasUnknown("cuda.drivers");
  bool runtimes_known = image.runtimes_known && !image.HasUnknown("cuda.runtimes");
  if (drivers_known || !image.drivers.empty()) {
    json rows = json::array();
    for (const DriverRow& row : image.drivers) rows.push_back(writer.Driver(row));
    cuda["drivers"] = rows;
  }
  if (runtimes_known || !image.runtimes.empty()) {
    json rows = json::array();
    for (const RuntimeRow& row : image.runtimes) rows.push_back(writer.Runtime(row));
    cuda["runtimes"] = rows;
  }
  cuda["drivers_complete"] = drivers_known;
  cuda["runtimes_complete"] = runtimes_known;
  json packages = json::array();
  for (const PackageRow& row : image.packages) packages.push_back(writer.Package(row));
  cuda["packages"] = packages;
  bool requirement_env = false;
  for (const auto& [key, value] : image.env)
    requirement_env = requirement_env || StartsWith(key, "NVIDIA_REQUIRE_") || key == "CUDA_VERSION" ||
                      key == "NVIDIA_DISABLE_REQUIRE";
  if (image.env_known || requirement_env) cuda["requirements"] = writer.Requirements();
  cuda["loader"] = writer.Loader();
  facts["cuda"] = cuda;

  bool frameworks_known = image.frameworks_known && !image.frameworks_partial;
  json frameworks = json::array(), binaries = json::array();
  for (const FrameworkRow& row : image.frameworks) {
    frameworks.push_back(writer.Framework(row));
    if (row.has_arch_list) binaries.push_back(writer.Binary(row));
  }
  if (frameworks_known || !image.frameworks.empty()) facts["frameworks"] = frameworks;
  facts["frameworks_complete"] = frameworks_known;
  if (!binaries.empty()) facts["binaries"] = binaries;
  facts["binaries_complete"] = false;

  json stages = json::array();
  for (size_t s = 0; s < file.stages.size(); ++s)
    stages.push_back({{"name", file.stages[s].name},
                      {"base", file.stages[s].base},
                      {"dockerfile_line", file.stages[s].line},
                      {"target", s == target}});
  json suppressions = json::array();
  for (const InlineSuppression& s : file.suppressions)
    suppressions.push_back({{"rules", s.rules}, {"reason", s.reason}, {"file", s.file}, {"line", s.line},
                            {"instruction_line", s.instruction_line}, {"instruction", s.instruction}});
  json unused_args = json::array();
  for (const auto& [name, value] : ctx.options.build_args)
    if (!ctx.used_build_args.count(name)) unused_args.push_back(name);
  json unknown = json::array(), notes = json::array(), changes = json::array();
  for (const UnknownFact& u : image.unknown)
    unknown.push_back({{"fact", u.fact}, {"dockerfile", file.path}, {"dockerfile_line", u.line}, {"reason", u.reason}});
  for (const Note& n : image.notes) notes.push_back({{"dockerfile_line", n.line}, {"note", n.text}});
  for (const dockerfile::Change& c : image.changes) changes.push_back(writer.Change(c));
  facts["dockerfile"] = {{"path", file.path},         {"escape", std::string(1, file.escape)},
                         {"syntax", file.syntax},     {"stages", stages},
                         {"unknown", unknown},        {"notes", notes},
                         {"changes", changes},        {"suppressions", suppressions},
                         {"unused_build_args", unused_args}};
  return facts;
}

}  // namespace imagelint::dockerfile
