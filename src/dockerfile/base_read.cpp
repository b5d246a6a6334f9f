// FROM an image read from the Docker engine, a registry or a --base-image
// archive: instead of what base-images.yaml says of a tag, the facts of the
// image itself (the same reader as `imagelint facts IMAGE`). Each row keeps
// what it says and gets the FROM line's provenance (layer 0 of the model,
// origin "base-image"); runtime rows keep who installed them (system, pip,
// torch, conda), which the rules read.
#include "dockerfile/base_read.h"

#include "dockerfile/frameworks.h"

namespace imagelint::dockerfile {
namespace {

// The FROM line's provenance, keeping the row's installer origin when it has one.
facts::Provenance FromLine(const Context& ctx, const Instruction& from, const ImageModel& image,
                           const facts::Provenance& read) {
  facts::Provenance where = ctx.Where(from, image, "base-image");
  if (read.origin && *read.origin != "base-image" && *read.origin != "instruction") where.origin = read.origin;
  if (read.layer_digest) where.layer_digest = read.layer_digest;
  return where;
}

template <class Row>
void Restamp(const Context& ctx, const Instruction& from, const ImageModel& image, std::vector<Row>& rows) {
  for (Row& row : rows) row.provenance = FromLine(ctx, from, image, row.provenance);
}

}  // namespace

void SetPlatformTriplets(const Context& ctx, ImageModel& image) {
  image.target_triplet.clear();
  image.lib_triplet.clear();
  image.nvarch.clear();
  // The CUDA toolkit's targets/ directory and Debian's multiarch library
  // directory of the platform (cuda-targets.yaml).
  if (const nlohmann::json* target = ctx.knowledge.FindCudaTarget(image.architecture)) {
    image.target_triplet = (*target)["cuda_target"].get<std::string>();
    image.lib_triplet = (*target)["lib_triplet"].get<std::string>();
    if (target->contains("nvarch") && (*target)["nvarch"].is_string()) image.nvarch = (*target)["nvarch"].get<std::string>();
  }
}

void SeedFromReadImage(const Context& ctx, const Instruction& from, const ResolvedBase& read, ImageModel& image) {
  const facts::Facts& facts = read.facts;
  image.os = facts.image.os;
  image.architecture = facts.image.architecture;
  SetPlatformTriplets(ctx, image);
  for (const auto& [name, value] : facts.image.env) image.SetEnv(name, value, from.line, "base-image");
  image.labels = facts.image.labels;
  image.env_known = true;
  if (facts.cuda) {
    const facts::Cuda& cuda = *facts.cuda;
    if (cuda.runtimes) image.runtimes = *cuda.runtimes;
    if (cuda.drivers) image.drivers = *cuda.drivers;
    if (cuda.packages) image.packages = *cuda.packages;
    if (cuda.loader && cuda.loader->ld_so_conf) image.ld_so_conf = *cuda.loader->ld_so_conf;
    image.base_static_runtimes = cuda.static_runtimes;
    image.base_driver_libraries = cuda.driver_libraries;
    image.base_toolkits = cuda.toolkits;
  }
  Restamp(ctx, from, image, image.runtimes);
  Restamp(ctx, from, image, image.drivers);
  Restamp(ctx, from, image, image.packages);
  Restamp(ctx, from, image, image.ld_so_conf);
  if (image.base_static_runtimes) Restamp(ctx, from, image, *image.base_static_runtimes);
  if (image.base_driver_libraries) Restamp(ctx, from, image, *image.base_driver_libraries);
  if (image.base_toolkits) Restamp(ctx, from, image, *image.base_toolkits);
  if (facts.frameworks) image.frameworks = *facts.frameworks;
  Restamp(ctx, from, image, image.frameworks);
  // Each framework's Python prefix ("/opt/venv" of .../lib/python3.11/site-packages/torch/...),
  // so that COPY --from of that prefix brings the row along (copy.cpp).
  for (const facts::Framework& row : image.frameworks) {
    if (!row.path) continue;
    size_t lib = row.path->find("/lib/python");
    if (lib != std::string::npos && lib > 0) image.framework_roots[row.name] = row.path->substr(0, lib);
  }
  if (facts.binaries) image.base_binaries = *facts.binaries;
  Restamp(ctx, from, image, image.base_binaries);
  image.drivers_known = image.runtimes_known = image.frameworks_known = true;
  image.ld_so_conf_known = image.binaries_known = true;
  image.base_read = true;

  facts::BaseImage& base = image.base;
  base.known = facts::Known::kYes;
  base.resolved_from = read.resolved_from;
  if (!read.digest.empty()) base.digest = read.digest;
  base.platform = read.platform;
  base.env_source = "the image's config (" + std::string(BaseSourceName(read.resolved_from)) + ")";
}

}  // namespace imagelint::dockerfile
