// FROM: what the base image already holds.
//
// The official nvidia/cuda images are defined in the open
// (gitlab.com/nvidia/container-images/cuda: dist/<version>/<os>/<flavor>/Dockerfile),
// so a tag is enough to know their environment, their libcudart, whether they
// carry the compat libcuda (cuda-compat-X-Y) and the devel stub. All of it comes
// from base-images.yaml (cuda_images, cuda_image_env, cuda_image_files,
// cuda_image_architectures); this file only reads the tag grammar and puts the
// rows together. pytorch/pytorch tags name their torch release and CUDA
// variant; the rest of those images is known only where pytorch_images says.
// NGC framework containers name their monthly release, which gives the CUDA
// release (ngc_releases). Any other base (python:3.11, a tag or release not in
// the tables) is an unknown base: its CUDA facts stay absent and the reason is
// listed, never guessed.
#include "dockerfile/base_image.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/text.h"
#include "common/version.h"
#include "dockerfile/base_read.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/util.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint::dockerfile {
namespace {

// Longest version text a tag grammar accepts ("12.4.1"); longer is not a tag of ours.
constexpr size_t kMaxTagVersion = 32;

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

// Moves `pos` past the characters `keep` accepts; returns the run passed over.
std::string_view TakeWhile(std::string_view text, size_t& pos, bool (*keep)(char)) {
  size_t start = pos;
  while (pos < text.size() && keep(text[pos])) ++pos;
  return text.substr(start, pos - start);
}

// Reads "D+.D+" or "D+.D+.D+" (`components` 2..max_components) from `text` at `pos`.
std::optional<std::string> ReadVersion(std::string_view text, size_t& pos, int max_components) {
  size_t start = pos;
  int components = 0;
  while (true) {
    if (TakeWhile(text, pos, IsAsciiDigit).empty()) return std::nullopt;
    ++components;
    if (components == max_components || pos + 1 >= text.size() || text[pos] != '.' || !IsAsciiDigit(text[pos + 1])) break;
    ++pos;  // '.'
  }
  if (components < 2 || pos - start > kMaxTagVersion) return std::nullopt;
  return std::string(text.substr(start, pos - start));
}

bool Consume(std::string_view text, size_t& pos, std::string_view literal) {
  if (text.substr(pos, literal.size()) != literal) return false;
  pos += literal.size();
  return true;
}

// A version of at most `max_components` numbers at `pos`, then `literal`.
std::optional<std::string> ReadVersionThen(std::string_view tag, size_t& pos, int max_components,
                                           std::string_view literal) {
  auto version = ReadVersion(tag, pos, max_components);
  if (!version || !Consume(tag, pos, literal)) return std::nullopt;
  return version;
}

bool Has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Both tag grammars end in a flavor from the family's row (base-images.yaml):
// a tag whose flavor the row does not list is not one of the family's tags.
template <class Tag>
std::optional<Tag> WithListedFlavor(Tag tag, const std::vector<std::string>& flavors) {
  if (!Has(flavors, tag.flavor)) return std::nullopt;
  return tag;
}

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// The values cuda_image_env and cuda_image_files templates use.
std::map<std::string, std::string> TemplateValues(const CudaImageRelease& release, const std::string& nvarch,
                                                  const std::string& target) {
  std::string mm = MajorMinor(release.cuda);
  size_t dot = mm.find('.');
  return {{"cuda", release.cuda},          {"cudart", release.cudart},    {"require", release.require},
          {"nvarch", nvarch},              {"target", target},            {"compat", release.compat_libcuda},
          {"M", mm.substr(0, dot)},        {"m", dot == std::string::npos ? "" : mm.substr(dot + 1)}};
}

// One cuda_image_env row applies to this image?
bool EnvApplies(const CudaImageEnv& row, const std::string& cuda, const std::string& flavor,
                const std::string& architecture, const std::string& distribution, bool with_compat) {
  if (!row.flavors.empty() && !Has(row.flavors, flavor)) return false;
  if (!row.architectures.empty() && !Has(row.architectures, architecture)) return false;
  if (!row.distributions.empty() &&
      std::none_of(row.distributions.begin(), row.distributions.end(),
                   [&](const std::string& d) { return StartsWith(distribution, d); }))
    return false;
  if (row.with_compat && !with_compat) return false;
  return row.cuda.Contains(cuda);
}

void CudaBase(const Context& ctx, const Instruction& from, const ImageRef& ref, const BaseImageFamily& family,
              ImageModel& image) {
  facts::BaseImage& base = image.base;
  auto tag = ParseCudaTag(ref.tag, family.flavors);
  if (!tag) {
    base.reason = "nvidia/cuda tag \"" + ref.tag.substr(0, 200) + "\" does not follow X.Y[.Z]-[cudnnN-]{" +
                  Join(family.flavors, ",") + "}-<os>";
    return;
  }
  const CudaImageRelease* release = ctx.images.FindCudaRelease(tag->version);
  base.cuda_tag_version = tag->version;
  base.flavor = tag->flavor;
  if (!tag->cudnn.empty()) base.cudnn = tag->cudnn;
  base.distribution = tag->os;
  if (!release) {
    std::vector<std::string> known;
    for (const auto& row : ctx.images.cuda_releases) known.push_back(row.cuda);
    const std::string newest = NewestVersion(known);
    base.reason = !newest.empty() && CompareNaturalVersions(tag->version, newest) > 0
                      ? TablesBehind(ctx.knowledge, "nvidia/cuda " + tag->version, newest)
                      : "nvidia/cuda " + tag->version + " is not in base-images.yaml";
    // The tag names the CUDA release its user space is of, whatever else
    // the image holds: enough to decide a driver below that major's floor
    // where no compat library can help (IL002), as for cuda_min families.
    if (const std::string mm = MajorMinor(tag->version); IsDottedNumber(mm) && mm.find('.') != std::string::npos) {
      facts::Runtime runtime;
      runtime.provenance = ctx.Where(from, image, "base-image");
      runtime.version_min = mm;
      runtime.source = "base-image";
      runtime.version_unknown_reason = "nvidia/cuda " + tag->version.substr(0, 64) +
                                       " is not in base-images.yaml; its tag names CUDA " + mm;
      image.runtimes.push_back(std::move(runtime));
    }
    return;
  }
  const CudaImageArchitecture* arch = ctx.images.FindArchitecture(image.architecture);
  if (!arch || image.target_triplet.empty()) {
    base.reason = "nvidia/cuda publishes no " + image.os.substr(0, 64) + "/" + image.architecture.substr(0, 64) +
                  " images (cuda_image_architectures in base-images.yaml)";
    return;
  }
  base.known = facts::Known::kYes;
  base.cuda_version = release->cuda;
  base.source = ctx.knowledge.DescribeSource(release->source);
  if (std::count(tag->version.begin(), tag->version.end(), '.') == 1) {
    base.tag_resolution = "minor-only tag " + tag->version + " taken as the newest known release " + release->cuda +
                          " — UNCONFIRMED";
    ctx.AddNote(image, from, *base.tag_resolution);
  }
  if (!arch->images_from.empty() && CompareNaturalVersions(release->cuda, arch->images_from) < 0)
    ctx.AddNote(image, from,
                image.architecture + " images of CUDA " + release->cuda + " are not recorded (the first recorded is " +
                    arch->images_from + ")");
  std::string distribution = tag->os.empty() ? family.default_distribution : tag->os;
  bool ubuntu = StartsWith(distribution, "ubuntu");
  bool has_compat = !release->compat_libcuda.empty();
  bool compat_arch_skip = has_compat && ubuntu && !arch->ubuntu_compat_from.empty() &&
                          CompareNaturalVersions(release->cuda, arch->ubuntu_compat_from) < 0;
  bool with_compat = has_compat && !compat_arch_skip;

  std::map<std::string, std::string> values = TemplateValues(*release, image.nvarch, image.target_triplet);
  std::string mm = MajorMinor(release->cuda);
  if (const CudaImageFile* home = ctx.images.FindFile("cuda_home", release->cuda, tag->flavor)) {
    image.cuda_home = FillTemplate(home->path, values);
    image.cuda_link = home->link;
  }
  values["cuda_home"] = image.cuda_home;
  image.env_known = image.drivers_known = image.runtimes_known = image.frameworks_known = true;
  // Its GPU code is the toolkit's own libraries, which the facts of a
  // Dockerfile do not list (a built image's scan does).
  image.ld_so_conf_known = image.binaries_known = true;

  std::set<std::string> set_here;  // the first applicable row of a variable wins
  if (!release->require_unread.empty()) {
    set_here.insert("NVIDIA_REQUIRE_CUDA");
    ctx.Unknown(image, from, "cuda.requirements",
                "nvidia/cuda " + release->cuda + ": NVIDIA_REQUIRE_CUDA is not recorded (" + release->require_unread + ")");
  }
  for (const CudaImageEnv& row : ctx.images.cuda_env) {
    if (set_here.count(row.name) ||
        !EnvApplies(row, release->cuda, tag->flavor, image.architecture, distribution, with_compat))
      continue;
    set_here.insert(row.name);
    image.SetEnv(row.name, FillTemplate(row.value, values), from.line, "base-image");
  }
  base.env_source = ctx.knowledge.DescribeSource(family.source);

  facts::Provenance where = ctx.Where(from, image, "base-image");
  if (const CudaImageFile* cudart = ctx.images.FindFile("cudart", release->cuda, tag->flavor)) {
    facts::Runtime runtime;
    runtime.provenance = where;
    runtime.provenance.knowledge = ctx.knowledge.DescribeSource(release->source);
    runtime.path = FillTemplate(cudart->path, values);
    runtime.version = release->cudart;
    runtime.soname = ctx.knowledge.CudartSoname(release->cuda);
    runtime.source = "base-image";
    image.runtimes.push_back(std::move(runtime));
  }
  const CudaImageFile* compat = with_compat ? ctx.images.FindFile("compat", release->cuda, tag->flavor) : nullptr;
  if (compat) {
    facts::Driver driver;
    driver.provenance = where;
    driver.provenance.knowledge = ctx.knowledge.DescribeSource(release->compat_source);
    if (release->compat_unconfirmed) driver.provenance.unconfirmed = "compat libcuda version: " + release->compat_source;
    driver.path = FillTemplate(compat->path, values);
    driver.name = BaseName(driver.path);
    driver.version = release->compat_libcuda;
    driver.kind = "compat";
    driver.toolkit_dir = mm;
    for (const SystemPackage& package : ctx.packages.system_packages)
      if (package.kind == "compat") {
        driver.package = FillTemplate(package.name, values);
        break;
      }
    driver.source = "base-image";
    driver.aliases = FileAliases(driver.path, compat->links, image.cuda_home, image.cuda_link, values);
    image.drivers.push_back(std::move(driver));
  } else if (compat_arch_skip) {
    ctx.AddNote(image, from,
                "Ubuntu " + image.architecture + " images of CUDA " + release->cuda +
                    " carry no compat package (before " + arch->ubuntu_compat_from + ")");
  }
  if (const CudaImageFile* stub = ctx.images.FindFile("stub", release->cuda, tag->flavor)) {
    facts::Driver driver;
    driver.provenance = where;
    driver.provenance.knowledge = ctx.knowledge.DescribeSource(stub->source) + " (devel images: LIBRARY_PATH stubs)";
    driver.path = FillTemplate(stub->path, values);
    driver.name = BaseName(driver.path);
    driver.kind = "stub";
    driver.toolkit_dir = mm;
    driver.source = "base-image";
    driver.aliases = FileAliases(driver.path, stub->links, image.cuda_home, image.cuda_link, values);
    image.drivers.push_back(std::move(driver));
  }
  for (const CudaImageFile* conf : ctx.images.LdSoConf(release->cuda, tag->flavor))
    for (const std::string& dir : conf->dirs) image.ld_so_conf.push_back({where, dir, conf->path});
  base.require_source = ctx.knowledge.DescribeSource(release->require_source);
  if (release->require_unconfirmed) base.require_unconfirmed = true;
}

void TorchBase(const Context& ctx, const Instruction& from, const ImageRef& ref, const BaseImageFamily& family,
               ImageModel& image) {
  facts::BaseImage& base = image.base;
  std::string torch_version, cuda;
  const PytorchImageTag* row = ctx.images.FindPytorchTag(ref.tag);
  if (row) {
    cuda = row->cuda;
    torch_version = row->torch;
  }
  std::string flavor;
  if (auto tag = ParseTorchTag(ref.tag, family.flavors)) {
    torch_version = tag->torch;
    cuda = tag->cuda;
    flavor = tag->flavor;
  }
  if (torch_version.empty() && row) torch_version = SplitOn(ref.tag, '-')[0];
  if (torch_version.empty()) {
    base.reason = "pytorch/pytorch tag \"" + ref.tag.substr(0, 200) + "\" names no torch release and CUDA variant";
    ctx.Unknown(image, from, "base-image", *base.reason);
    return;
  }
  base.known = facts::Known::kPartial;
  base.torch = torch_version;
  base.cuda_version = cuda;
  image.frameworks_known = true;
  facts::Provenance where = ctx.Where(from, image, "base-image");
  where.knowledge = ctx.knowledge.DescribeSource(family.source);
  facts::Framework torch;
  torch.provenance = where;
  torch.name = "torch";
  torch.version = torch_version;
  torch.cuda = cuda;
  if (cuda.find('.') != std::string::npos) torch.variant = "cu" + std::string(cuda).erase(cuda.find('.'), 1);
  torch.cuda_source = "base-image tag";
  torch.source = "base-image";
  AddArchList(ctx, torch);
  image.frameworks.push_back(std::move(torch));
  facts::Runtime runtime;
  runtime.provenance = where;
  runtime.version = cuda;
  runtime.version_precision = "major.minor";
  runtime.source = "base-image";
  runtime.package = "torch";  // the CUDA runtime torch brings: replaced with it (MayReplaceFrameworks)
  image.runtimes.push_back(std::move(runtime));
  image.runtimes_known = true;
  // A flavor built on an operating-system image: the Dockerfile of the
  // images says what else is there (nothing of NVIDIA's but the torch install).
  const PytorchImageFlavor* recipe = flavor.empty() ? nullptr : ctx.images.FindPytorchFlavor(flavor, torch_version);
  const bool recipe_here = recipe && (recipe->architectures.empty() || Has(recipe->architectures, image.architecture));
  if (recipe_here && recipe->base == "nvidia-cuda-devel" && !row) {
    // FROM nvidia/cuda:<the tag's CUDA>-cudnn<N>-devel-<distribution>: the
    // tag names no patch release, so the newest of that minor stands for it
    // (CudaBase says so, UNCONFIRMED); the image's own ENV comes on top.
    const BaseImageFamily* cuda_family = ctx.images.FamilyOf("nvidia/cuda");
    auto tag = ParseTorchTag(ref.tag, family.flavors);
    if (cuda_family && tag) {
      ImageRef devel{"nvidia/cuda", cuda + "-cudnn" + tag->cudnn + "-devel-" + recipe->distribution, ""};
      const facts::BaseImage before = base;
      CudaBase(ctx, from, devel, *cuda_family, image);
      if (base.known == facts::Known::kYes) {
        base.known = facts::Known::kPartial;  // the patch release is assumed
        base.torch = before.torch;
        base.cuda_version = before.cuda_version;  // what the tag says; the patch is the tag_resolution's
        base.compat_source = recipe->source;
        base.env_source = ctx.knowledge.DescribeSource(recipe->source);
        for (const auto& [name, value] : recipe->env) image.SetEnv(name, value, from.line, "base-image");
        return;
      }
      const facts::BaseImage failed = base;
      base = before;
      if (failed.reason) ctx.AddNote(image, from, "its nvidia/cuda devel base: " + *failed.reason);
    }
  }
  if (recipe_here && recipe->base == "os" && !(row && row->compat.value_or(false))) {
    base.flavor = flavor;
    base.compat = false;
    base.compat_source = recipe->source;
    base.env_source = ctx.knowledge.DescribeSource(recipe->source);
    image.drivers_known = image.env_known = image.ld_so_conf_known = true;
    for (const auto& [name, value] : recipe->env) image.SetEnv(name, value, from.line, "base-image");
    return;
  }
  if (row && row->compat.has_value()) {
    image.drivers_known = true;
    base.compat = row->compat;
    base.compat_source = row->source;
  } else {
    ctx.Unknown(image, from, "cuda.drivers",
                "pytorch/pytorch:" + ref.tag + ": whether it ships a compat package is not in base-images.yaml");
  }
  ctx.Unknown(image, from, "cuda.requirements",
              "pytorch/pytorch:" + ref.tag + ": its NVIDIA_REQUIRE_* environment is not in base-images.yaml");
}

// The recorded releases nearest to `release` (not recorded itself) on each
// side; null where there is none.
struct NgcNeighbours {
  const NgcRelease* before = nullptr;
  const NgcRelease* after = nullptr;
};
NgcNeighbours NearestNgcReleases(const Context& ctx, const std::string& release) {
  NgcNeighbours out;
  for (const NgcRelease& one : ctx.images.ngc_releases) {
    int order = CompareNaturalVersions(one.release, release);
    if (order < 0 && (!out.before || CompareNaturalVersions(one.release, out.before->release) > 0)) out.before = &one;
    if (order > 0 && (!out.after || CompareNaturalVersions(one.release, out.after->release) < 0)) out.after = &one;
  }
  return out;
}

// The CUDA major of an NGC release missing from ngc_releases that lies
// between two recorded releases of the same major: NGC's monthly releases
// move to newer CUDA releases and never back (the framework support matrix,
// S30), so its CUDA is that major, minor unknown. A missing release at either
// end, or between two majors, stays unknown.
bool NgcMajorBetween(const Context& ctx, const Instruction& from, const std::string& name, const std::string& release,
                     ImageModel& image) {
  const auto [before, after] = NearestNgcReleases(ctx, release);
  if (!before || !after) return false;
  const std::string major = before->cuda.substr(0, before->cuda.find('.'));
  if (major.empty() || after->cuda.substr(0, after->cuda.find('.')) != major) return false;
  facts::BaseImage& base = image.base;
  base.known = facts::Known::kPartial;
  base.cuda_tag_version = release;
  base.cuda_version = major;
  base.source = ctx.knowledge.DescribeSource(before->source);
  base.tag_resolution = name + ": NGC release " + release + " is not in base-images.yaml (ngc_releases); it lies between " +
                        before->release + " (CUDA " + before->cuda + ") and " + after->release + " (CUDA " + after->cuda +
                        "), so its CUDA is " + major + ".x, the minor release unknown";
  ctx.AddNote(image, from, *base.tag_resolution);
  facts::Runtime runtime;
  runtime.provenance = ctx.Where(from, image, "base-image");
  runtime.provenance.knowledge = *base.source;
  // As sure as the rows it rests on.
  for (const NgcRelease* row : {before, after})
    if (!row->unconfirmed.empty() && !runtime.provenance.unconfirmed)
      runtime.provenance.unconfirmed = "NGC release " + row->release + ": " + row->unconfirmed;
  runtime.version = major;
  runtime.version_precision = "major";
  runtime.source = "base-image";
  image.runtimes.push_back(std::move(runtime));
  image.runtimes_known = true;
  ctx.Unknown(image, from, "cuda.drivers", name + ": its compat library is not in base-images.yaml");
  ctx.Unknown(image, from, "cuda.requirements", name + ": its NVIDIA_REQUIRE_* environment is not in base-images.yaml");
  return true;
}

// nvcr.io/nvidia/<framework>:<YY.MM>[-<suffix>]: the release gives the CUDA
// release (ngc_releases); the image's requirement and compat library are not
// recorded, so those facts stay unknown.
void NgcBase(const Context& ctx, const Instruction& from, const ImageRef& ref, const BaseImageFamily& family,
             ImageModel& image) {
  facts::BaseImage& base = image.base;
  std::string framework = ref.repository.substr(std::min(family.repository_prefix.size(), ref.repository.size()));
  std::string_view tag = ref.tag;
  bool yy_mm = tag.size() >= 5 && IsAsciiDigit(tag[0]) && IsAsciiDigit(tag[1]) && tag[2] == '.' && IsAsciiDigit(tag[3]) &&
               IsAsciiDigit(tag[4]) && (tag.size() == 5 || tag[5] == '-');
  std::string name = "NGC container " + ref.repository.substr(0, 200) + ":" + ref.tag.substr(0, 200);
  if (!yy_mm) {
    base.reason = name + ": the tag does not start with a YY.MM release";
    return;
  }
  std::string release(tag.substr(0, 5));
  const NgcRelease* row = ctx.images.FindNgcRelease(release);
  if (!row && NgcMajorBetween(ctx, from, name, release, image)) return;
  if (!row) {
    std::vector<std::string> known;
    for (const auto& one : ctx.images.ngc_releases) known.push_back(one.release);
    const std::string newest = NewestVersion(known);
    base.reason = !newest.empty() && CompareNaturalVersions(release, newest) > 0
                      ? TablesBehind(ctx.knowledge, name + ": NGC release " + release, newest)
                      : name + ": NGC release " + release + " is not in base-images.yaml (ngc_releases)";
    // Monthly releases move to newer CUDA releases and never back, so the
    // nearest earlier recorded release bounds its CUDA below: enough to
    // decide a driver below that release's floor (IL002), as for nvidia/cuda
    // tags that are not recorded.
    const NgcRelease* before = NearestNgcReleases(ctx, release).before;
    if (before && IsDottedNumber(before->cuda)) {
      facts::Runtime runtime;
      runtime.provenance = ctx.Where(from, image, "base-image");
      runtime.provenance.knowledge = ctx.knowledge.DescribeSource(before->source);
      if (!before->unconfirmed.empty())
        runtime.provenance.unconfirmed = "NGC release " + before->release + ": " + before->unconfirmed;
      runtime.version_min = before->cuda;
      runtime.source = "base-image";
      runtime.version_unknown_reason = "NGC release " + release + " is not in base-images.yaml; it comes after " +
                                       before->release + ", which is CUDA " + before->cuda +
                                       ", and NGC releases never move to an older CUDA";
      image.runtimes.push_back(std::move(runtime));
    }
    return;
  }
  base.known = facts::Known::kPartial;
  base.cuda_tag_version = release;
  base.cuda_version = row->cuda;
  base.source = ctx.knowledge.DescribeSource(row->source);
  std::string unconfirmed = row->unconfirmed;
  if (!Has(row->frameworks, framework) && !Has(row->frameworks, "all")) {
    unconfirmed = "CUDA " + row->cuda + " read from the " + Join(row->frameworks, ", ") + " notes of NGC release " +
                  release + ", not from " + framework.substr(0, 100) + "'s";
    base.tag_resolution = "NGC release " + release + " taken as CUDA " + row->cuda + " — UNCONFIRMED (" + unconfirmed + ")";
    ctx.AddNote(image, from, *base.tag_resolution);
  }
  facts::Runtime runtime;
  runtime.provenance = ctx.Where(from, image, "base-image");
  runtime.provenance.knowledge = *base.source;
  if (!unconfirmed.empty()) runtime.provenance.unconfirmed = unconfirmed;
  runtime.version = row->cuda;
  runtime.source = "base-image";
  image.runtimes.push_back(std::move(runtime));
  image.runtimes_known = true;
  ctx.Unknown(image, from, "cuda.drivers", name + ": its compat library is not in base-images.yaml");
  ctx.Unknown(image, from, "cuda.requirements", name + ": its NVIDIA_REQUIRE_* environment is not in base-images.yaml");
}

}  // namespace

ImageRef ParseImageRef(std::string_view ref) {
  ImageRef out;
  std::string_view rest = ref;
  size_t at = rest.find('@');
  if (at != std::string_view::npos) {
    out.digest = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
  }
  size_t slash = rest.rfind('/');
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    out.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
  }
  out.repository = ToLower(rest);
  // Docker Hub's names for the same repository (the reference grammar of
  // github.com/distribution/reference, normalize.go: docker.io/library/ is the default).
  for (std::string_view prefix : {"docker.io/library/", "docker.io/", "index.docker.io/", "registry.hub.docker.com/"})
    if (StartsWith(out.repository, prefix)) out.repository = out.repository.substr(prefix.size());
  return out;
}

std::optional<CudaTag> ParseCudaTag(std::string_view tag, const std::vector<std::string>& flavors) {
  CudaTag out;
  size_t pos = 0;
  auto version = ReadVersionThen(tag, pos, 3, "-");
  if (!version) return std::nullopt;
  out.version = *version;
  // Optional "cudnn[N]-"; a word that only starts like it is the flavor.
  if (size_t end = pos; Consume(tag, end, "cudnn")) {
    std::string_view number = TakeWhile(tag, end, IsAsciiDigit);
    if (number.size() <= 11 && Consume(tag, end, "-")) {
      out.cudnn = "cudnn" + std::string(number);
      pos = end;
    }
  }
  std::string_view flavor = TakeWhile(tag, pos, IsLower);
  if (flavor.empty()) return std::nullopt;
  out.flavor = std::string(flavor);
  if (pos < tag.size()) {
    if (tag[pos] != '-' || pos + 1 == tag.size()) return std::nullopt;
    out.os = std::string(tag.substr(pos + 1));
  }
  return WithListedFlavor(std::move(out), flavors);
}

std::optional<TorchTag> ParseTorchTag(std::string_view tag, const std::vector<std::string>& flavors) {
  TorchTag out;
  size_t pos = 0;
  auto torch = ReadVersionThen(tag, pos, 3, "-cuda");
  if (!torch) return std::nullopt;
  auto cuda = ReadVersionThen(tag, pos, 2, "-cudnn");
  if (!cuda) return std::nullopt;
  std::string_view cudnn = TakeWhile(tag, pos, IsAsciiDigit);
  if (cudnn.empty() || cudnn.size() > 8 || !Consume(tag, pos, "-")) return std::nullopt;
  out.torch = *torch;
  out.cuda = *cuda;
  out.cudnn = std::string(cudnn);
  out.flavor = std::string(tag.substr(pos));
  return WithListedFlavor(std::move(out), flavors);
}

std::vector<std::string> FileAliases(const std::string& path, const std::vector<std::string>& link_templates,
                                     const std::string& cuda_home, const std::string& cuda_link,
                                     const std::map<std::string, std::string>& values) {
  std::map<std::string, std::string> with_dir = values;
  with_dir["dir"] = DirName(path);
  with_dir["cuda_home"] = cuda_home;
  std::vector<std::string> names = {path};
  for (const std::string& link : link_templates) names.push_back(FillTemplate(link, with_dir));
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (name != path && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const std::string& name : names) {
    add(name);
    if (!cuda_home.empty() && !cuda_link.empty() && StartsWith(name, cuda_home + "/"))
      add(cuda_link + name.substr(cuda_home.size()));
  }
  return out;
}

std::string BaseLookupNote(std::string_view ref, std::string_view failure) {
  return "base image " + std::string(ref.substr(0, 200)) + " not read (" + std::string(failure) +
         "): the knowledge tables answer";
}

Status ApplyBaseImage(const Context& ctx, const Instruction& from, const std::string& ref_text,
                      const std::string& platform, ImageModel& image) {
  image.layers.push_back(ctx.MakeLayer(from, true));
  // The platform as containerd reads it; one that names none (an ARG left
  // empty) is the default linux/amd64, as before a build picks one.
  auto parsed = Platform::Parse(platform);
  const Platform of = parsed.ok() ? *parsed : Platform{};
  image.os = of.os;
  image.architecture = of.architecture;
  SetPlatformTriplets(ctx, image);
  ImageRef ref = ParseImageRef(ref_text);
  facts::BaseImage& base = image.base;
  base.ref = ref_text;
  base.repository = ref.repository;
  base.tag = ref.tag;
  base.digest = ref.digest;
  base.platform = platform;
  base.dockerfile = ctx.file.path;
  base.dockerfile_line = from.line;
  base.known = facts::Known::kNo;
  using facts::BaseKind;
  auto finish = [&](BaseKind kind, const std::string& reason) {
    base.kind = kind;
    base.resolved_from = base.known == facts::Known::kNo ? BaseSource::kNone : BaseSource::kKnowledge;
    if (!reason.empty()) {
      base.reason = reason;
      ctx.Unknown(image, from, "base-image", reason);
    }
  };
  const BaseImageFamily* family = ctx.images.FamilyOf(ref.repository);
  // A family of some tags only (TensorFlow's `-gpu` tags): the other tags
  // (and no tag, which is `latest`) are not in it.
  if (family && !family->tag_word.empty() && ToLower(ref.tag).find(family->tag_word) == std::string::npos)
    family = nullptr;
  // ...or all tags but some (pixi's `-cuda-12.9.1-` tags are built on nvidia/cuda).
  if (family && !family->except_tag_word.empty() && ToLower(ref.tag).find(family->except_tag_word) != std::string::npos)
    family = nullptr;
  // The table's loader accepts only BaseKind's names as `family` (knowledge/tables.cpp).
  const BaseKind kind =
      family ? facts::ParseBaseKind(family->family).value_or(BaseKind::kUnknown) : BaseKind::kUnknown;
  auto nothing_cuda = [&] {
    image.drivers_known = image.runtimes_known = image.frameworks_known = image.env_known = true;
    image.ld_so_conf_known = image.binaries_known = true;
    base.known = facts::Known::kYes;
  };
  if (ref_text == "scratch") {
    nothing_cuda();
    finish(BaseKind::kScratch, "");
    return OkStatus();
  }
  // The image itself, where the resolver can read it (docs/dockerfile.md "Base images").
  if (ctx.options.base_resolver && ref_text.find('$') == std::string::npos) {
    auto lookup = ctx.options.base_resolver->Resolve(ref_text, platform);
    if (!lookup.ok()) return ctx.ErrorAt(from, lookup.error().ToString());
    if (lookup->base) {
      SeedFromReadImage(ctx, from, *lookup->base, image);
      base.kind = kind;
      return OkStatus();
    }
    if (!lookup->note.empty()) {
      base.lookup_failure = lookup->note.substr(0, 600);
      ctx.AddNote(image, from, BaseLookupNote(ref_text, *base.lookup_failure));
    }
  }
  // The no-cuda family (operating-system, language and conda images, any tag).
  if (kind == BaseKind::kNoCuda) {
    nothing_cuda();
    base.source = ctx.knowledge.DescribeSource(family->source);
    // python:3.11-slim: pip runs under that Python (which torch releases it can install).
    if (ref.repository == "python" && ref.tag.size() >= 3 && ref.tag[0] == '3' && ref.tag[1] == '.') {
      size_t end = 2;
      if (!TakeWhile(ref.tag, end, IsAsciiDigit).empty()) image.python_version = ref.tag.substr(0, end);
    }
    finish(kind, "");
    return OkStatus();
  }
  if ((kind == BaseKind::kNvidiaCuda || kind == BaseKind::kPytorch) && ref.tag.empty()) {
    finish(kind, ref.digest.empty() ? "no tag: the release cannot be told"
                                    : "digest-pinned without a tag: the release behind " + ref.digest +
                                          " cannot be told; write FROM repo:tag@digest");
    return OkStatus();
  }
  if (kind == BaseKind::kNvidiaCuda) {
    CudaBase(ctx, from, ref, *family, image);
    bool known = base.known == facts::Known::kYes;
    finish(kind, known ? "" : base.reason.value_or("unknown nvidia/cuda tag"));
    return OkStatus();
  }
  if (kind == BaseKind::kPytorch) {
    TorchBase(ctx, from, ref, *family, image);
    finish(kind, "");
    return OkStatus();
  }
  if (kind == BaseKind::kNgc) {
    NgcBase(ctx, from, ref, *family, image);
    // Known or not, the image's environment is not: the base stays (partly) unknown.
    finish(kind, base.known == facts::Known::kPartial
                     ? "NGC container " + ref.repository.substr(0, 200) + ":" + ref.tag.substr(0, 200) +
                           ": only its CUDA release is recorded (ngc_releases); its environment, requirement and "
                           "compat library are unknown"
                     : base.reason.value_or("unknown NGC release"));
    return OkStatus();
  }
  if (kind == BaseKind::kCudaApplication) {
    // A GPU image whose CUDA facts are not recorded: GpuSection says it is a
    // GPU image, so the GPU rules run and stay undecided.
    base.source = ctx.knowledge.DescribeSource(family->source);
    if (!family->cuda_min.empty() && ref.repository.find("rocm") == std::string::npos &&
        ref.tag.find("rocm") == std::string::npos) {
      // Its release is not known, only the lowest it can be: enough to decide
      // a driver below that major's floor (IL002), nothing else.
      facts::Runtime runtime;
      runtime.provenance = ctx.Where(from, image, "base-image");
      runtime.provenance.knowledge = *base.source;
      runtime.version_min = family->cuda_min;
      runtime.source = "base-image";
      runtime.version_unknown_reason = "the CUDA release of " + ref_text.substr(0, 200) +
                                       " is not recorded; every tag of the image ships CUDA " + family->cuda_min +
                                       " or later";
      image.runtimes.push_back(std::move(runtime));
    }
    finish(kind, "base image " + ref_text.substr(0, 200) +
                     " is a GPU image (cuda-application in base-images.yaml): its CUDA facts are not recorded");
    return OkStatus();
  }
  if (kind == BaseKind::kL4t) {
    // Jetson user space: what it holds is for Tegra GPUs; IL018 reads the kind.
    base.source = ctx.knowledge.DescribeSource(family->source);
    finish(kind, "base image " + ref_text.substr(0, 200) +
                     " is an L4T (Jetson) image: arm64 Tegra user space, whose CUDA facts are not recorded");
    return OkStatus();
  }
  finish(BaseKind::kUnknown, "base image " + ref_text + " is not in base-images.yaml: its CUDA facts are unknown");
  return OkStatus();
}

}  // namespace imagelint::dockerfile
