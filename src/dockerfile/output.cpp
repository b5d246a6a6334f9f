// Output: the image model of the target stage as imagelint.facts/v1.
//
// The facts are the typed model of include/imagelint/facts.h, written by its
// one writer, so a Dockerfile's facts have the schema of a built image's
// (docs/facts-schema.json) and the same rules read them. What a Dockerfile
// cannot show is left absent and `*_complete: false` says a list may be
// partial. The requirement variables mean what they mean for images: both
// producers read them through nvidia::RequirementsFromEnv (the container
// toolkit's reading). libcuda_candidates says which libcuda each loader
// directory offers, in the loader's search order (ld.so(8): LD_LIBRARY_PATH,
// ld.so.conf, then the default directories of loader.yaml).
#include <algorithm>
#include "dockerfile/output.h"

#include "common/field_names.h"
#include "common/text.h"
#include "dockerfile/file_ops.h"
#include "imagelint/image_env.h"

namespace imagelint::dockerfile {
namespace {

facts::Requirements Requirements(const ImageModel& image) {
  facts::Requirements out = nvidia::RequirementsFromEnv(image.env);
  std::map<std::string, facts::EnvProvenance> provenance;
  for (const auto& [name, value] : out.variables) provenance[name] = image.env_provenance.at(name);
  out.provenance = std::move(provenance);
  // A base whose NVIDIA_REQUIRE_CUDA is not recorded leaves the list partial
  // too: the legacy CUDA_VERSION rule applies only where that variable is absent.
  const bool complete = image.env_known && !image.HasUnknown("cuda.requirements");
  out.complete = complete;
  if (!complete) {
    // The base image may set CUDA_VERSION or NVIDIA_REQUIRE_CUDA the Dockerfile
    // does not show: whether the image is legacy cannot be told.
    out.legacy.reset();
    out.legacy_cuda_version.reset();
    out.legacy_cuda_version_invalid.reset();
  }
  return out;
}

facts::Loader Loader(const Context& ctx, const ImageModel& image) {
  facts::Loader out;
  std::vector<std::string> ld_library_path;
  auto it = image.env.find("LD_LIBRARY_PATH");
  if (it != image.env.end())
    for (const std::string& dir : SplitOn(it->second, ':'))
      if (!dir.empty()) ld_library_path.push_back(dir);
  if (it != image.env.end() || image.env_known) out.ld_library_path = ld_library_path;
  std::optional<int64_t> ld_line;
  if (auto p = image.env_provenance.find("LD_LIBRARY_PATH"); p != image.env_provenance.end()) {
    out.ld_library_path_provenance = p->second;
    ld_line = p->second.dockerfile_line;
  }
  bool conf_known = image.ld_so_conf_known && !image.HasUnknown("cuda.loader.ld_so_conf");
  if (conf_known || !image.ld_so_conf.empty()) out.ld_so_conf = image.ld_so_conf;
  out.ld_so_conf_complete = conf_known;
  // Which libcuda each directory offers, in the loader's search order.
  std::vector<facts::LibcudaCandidate> candidates;
  auto consider = [&](const std::string& dir_text, const char* via, std::optional<int64_t> via_line) {
    std::string dir = CanonicalPath(image, dir_text);
    for (const facts::Driver& row : image.drivers) {
      if (row.path.empty() || DirName(CanonicalPath(image, row.path)) != dir) continue;
      facts::LibcudaCandidate candidate;
      candidate.dir = dir_text;
      candidate.via = via;
      candidate.path = row.path;
      candidate.kind = row.kind;
      candidate.version = row.version;
      candidate.dockerfile_line = row.provenance.dockerfile_line.value_or(0);
      candidate.via_dockerfile_line = via_line;
      candidates.push_back(std::move(candidate));
      break;
    }
  };
  for (const std::string& dir : ld_library_path) consider(dir, "LD_LIBRARY_PATH", ld_line);
  for (const facts::LdSoConfEntry& entry : image.ld_so_conf) consider(entry.dir, "ld.so.conf", entry.provenance.dockerfile_line);
  for (const std::string& dir : ctx.knowledge.LoaderDefaultDirectories(image.lib_triplet)) consider(dir, "default", std::nullopt);
  out.libcuda_candidates = std::move(candidates);
  return out;
}

// GPU code of a framework whose arch list knowledge gives (torch wheels): the
// kernel rules read binaries[], so it gets a synthetic library.
facts::Binary SyntheticBinary(const facts::Framework& row) {
  facts::Binary out;
  out.provenance = row.provenance;
  out.path = "<site-packages>/" + row.name + "/lib/lib" + row.name + "_cuda.so";
  out.soname = "lib" + row.name + "_cuda.so";
  out.needed = std::vector<std::string>{};
  out.sass = row.sass;
  out.ptx = row.ptx;
  out.framework = row.name;
  if (row.version) out.framework_version = *row.version;
  out.source = "knowledge: TORCH_CUDA_ARCH_LIST of " + row.name + " " + row.version.value_or("?") + "+" +
               row.variant.value_or("");
  out.arch_list = row.arch_list;
  out.arch_list_source = row.arch_list_source;
  out.arch_list_unconfirmed = row.arch_list_unconfirmed;
  return out;
}

// facts.gpu: the evidence every producer reads (facts::GpuFromFacts) plus
// what only the Dockerfile shows: a base image of a GPU family (`gpu: true` in
// base-images.yaml), and what it
// could not read (a requirements file might install torch).
facts::Gpu GpuSection(const facts::Facts& facts, const ImageModel& image, const GpuSignalWords& words,
                      const BaseImageKnowledge& images) {
  facts::Gpu gpu = facts::GpuFromFacts(facts, words);
  const facts::BaseImage& base = image.base;
  const facts::BaseKind kind = base.kind.value_or(facts::BaseKind::kUnknown);
  std::string ref = ToLower(base.ref);
  const bool rocm = ContainsAnyWord(ref, words.rocm_words);
  if (kind == facts::BaseKind::kCudaApplication && rocm)
    facts::AddGpuSignal(gpu, {"rocm", base.ref.substr(0, 200), std::nullopt, base.dockerfile_line});
  else if (images.IsGpuFamily(facts::BaseKindName(kind)) || ContainsAnyWord(ref, words.base_image_words) ||
           StartsWithAny(ref, words.base_image_prefixes))
    facts::AddGpuSignal(gpu, {"base-image", base.ref.substr(0, 200), std::nullopt, base.dockerfile_line});
  else if (ref.empty() || ref.find('$') != std::string::npos)  // not resolved: checked as a GPU image
    facts::AddGpuSignal(gpu, {"base-image", "base image not resolved: " + base.reason.value_or("").substr(0, 200),
                              std::nullopt, base.dockerfile_line});
  else if (rocm)
    facts::AddGpuSignal(gpu, {"rocm", base.ref.substr(0, 200), std::nullopt, base.dockerfile_line});
  for (const facts::GpuSignal& signal : image.gpu_signals) facts::AddGpuSignal(gpu, signal);
  gpu.workload = facts::GpuWorkload(gpu);
  std::vector<std::string> caveats;
  for (const facts::UnknownFact& unknown : image.unknown)
    if (unknown.fact == "frameworks" && caveats.size() < 4)
      caveats.push_back(unknown.reason.substr(0, 200) + " (line " + std::to_string(unknown.dockerfile_line) + ")");
  if (!caveats.empty()) gpu.caveats = std::move(caveats);
  return gpu;
}

facts::DockerfileInfo DockerfileSection(const Context& ctx, const ImageModel& image, size_t target) {
  const Dockerfile& file = ctx.file;
  facts::DockerfileInfo out;
  out.path = file.path;
  out.escape = std::string(1, file.escape);
  out.syntax = file.syntax;
  for (size_t s = 0; s < file.stages.size(); ++s)
    out.stages.push_back({file.stages[s].name, file.stages[s].base, file.stages[s].line, s == target});
  out.unknown = image.unknown;
  out.notes = image.notes;
  out.changes = image.changes;
  for (const InlineSuppression& s : file.suppressions)
    out.suppressions.push_back({s.rules, s.reason, s.file, s.line, s.instruction_line, s.instruction});
  for (const auto& [name, value] : ctx.options.build_args)
    if (!ctx.used_build_args.count(name)) out.unused_build_args.push_back(name);
  return out;
}

}  // namespace

facts::Facts DockerfileFacts(const Context& ctx, const ImageModel& image, size_t target) {
  const Dockerfile& file = ctx.file;
  const Stage& stage = file.stages[target];
  facts::Facts out;
  out.source = facts::Source{"dockerfile", file.path, stage.name, target, ctx.options.build_args};

  facts::Image& img = out.image;
  img.ref = file.path + (stage.name.empty() || target + 1 == file.stages.size() ? "" : "#" + stage.name);
  img.kind = "dockerfile";
  img.dockerfile = file.path;  // reporters locate findings in this file
  IMAGELINT_COPY_FIELDS(img, image, os, architecture, env, env_provenance, labels, layers, base, platform_source);
  img.env_complete = image.env_known;

  facts::Cuda& cuda = out.cuda.emplace();
  bool drivers_known = image.drivers_known && !image.HasUnknown("cuda.drivers");
  // An install the reader could not follow (pip -r, a project, an unread RUN)
  // may bring a framework, and a framework brings its CUDA runtime.
  bool runtimes_known = image.runtimes_known && !image.HasUnknown("cuda.runtimes") && !image.frameworks_partial;
  if (drivers_known || !image.drivers.empty()) cuda.drivers = image.drivers;
  if (runtimes_known || !image.runtimes.empty()) cuda.runtimes = image.runtimes;
  cuda.drivers_complete = drivers_known;
  cuda.runtimes_complete = runtimes_known;
  cuda.packages = image.packages;
  bool requirement_env = false;
  for (const auto& [key, value] : image.env)
    requirement_env = requirement_env || StartsWith(key, "NVIDIA_REQUIRE_") || key == "CUDA_VERSION" ||
                      key == "NVIDIA_DISABLE_REQUIRE";
  if (image.env_known || requirement_env) cuda.requirements = Requirements(image);
  cuda.loader = Loader(ctx, image);

  bool frameworks_known = image.frameworks_known && !image.frameworks_partial;
  if (frameworks_known || !image.frameworks.empty()) out.frameworks = image.frameworks;
  out.frameworks_complete = frameworks_known;
  cuda.static_runtimes = image.base_static_runtimes;
  cuda.driver_libraries = image.base_driver_libraries;
  cuda.toolkits = image.base_toolkits;
  std::vector<facts::Binary> binaries = image.base_binaries;
  for (const facts::Binary& row : image.built_binaries) binaries.push_back(row);
  for (const facts::Framework& row : image.frameworks)
    if (row.sass) binaries.push_back(SyntheticBinary(row));
  // The list is complete when the base's GPU code is known, every framework
  // is, and no instruction may have added GPU code unseen (compiled without
  // an arch list, an installer or script not read, binaries copied in from
  // where they were not read): then an empty list is a decided "none".
  // A GPU build of a framework whose kernels the tables do not give (xformers,
  // a conda torch of unknown variant, tensorflow) has GPU code nobody listed.
  // A base read from its image listed its frameworks' code as binaries.
  bool frameworks_code_known = std::all_of(image.frameworks.begin(), image.frameworks.end(), [&](const facts::Framework& row) {
    if (image.base_read && row.provenance.origin.value_or("") == "base-image") return true;
    const bool cpu = row.variant.value_or("") == "cpu" || row.version.value_or("").find("+cpu") != std::string::npos;
    const bool gpu_build = row.cuda.has_value() || row.cuda_unknown.value_or(false);
    return cpu || !gpu_build || row.sass.has_value();
  });
  bool binaries_known =
      image.binaries_known && frameworks_known && frameworks_code_known && !image.HasUnknown("binaries");
  if (!binaries.empty() || binaries_known) out.binaries = std::move(binaries);
  out.binaries_complete = binaries_known;
  out.dockerfile = DockerfileSection(ctx, image, target);
  out.gpu = GpuSection(out, image, ctx.knowledge.GpuSignals(), ctx.images);
  return out;
}

nlohmann::json WriteFacts(const Context& ctx, const ImageModel& image, size_t target) {
  return facts::WriteFacts(DockerfileFacts(ctx, image, target));
}

}  // namespace imagelint::dockerfile
