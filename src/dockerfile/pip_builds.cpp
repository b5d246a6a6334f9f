// pip and uv pip: what one requirement installs, the framework and its CUDA build.
//
// What a package is comes from packages.yaml (python_packages: the framework a
// name installs and, in cuda_naming, which grammar below names its CUDA build;
// NVIDIA's CUDA wheels; pypi_releases: the CUDA of PyPI's default wheel). What
// stays here is the grammar each project uses to name its CUDA build:
//   torch      `torch==2.1.0+cu121` (local version), an index URL ending in
//              /whl/cu121 or /whl/cpu (https://pytorch.org/get-started/previous-versions/),
//              else PyPI's default wheel of that release;
//   jax        extras `jax[cuda12]`, `jaxlib==…+cuda11.cudnn86`, `jax-cuda12-plugin`
//              (https://docs.jax.dev/en/latest/installation.html);
//   cupy       `cupy-cuda117` (11.7), `cupy-cuda12x` (any 12.x) (https://docs.cupy.dev/en/stable/install.html);
//   tensorflow the CUDA a release was built with (pypi_releases);
//   paddle     an index path ending in /packages/stable/cu126/ (3.x), a
//              `2.6.1.post120` version (2.x) (https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html).
// Which index hosts and paths name a variant is the row's index_hosts and
// index_paths.
// pip prefers the highest version, and a `+cuXXX` local version sorts above
// the plain one (PEP 440), so with `--extra-index-url` the PyTorch index wins;
// uv searches extra indexes first (https://docs.astral.sh/uv/pip/compatibility/).
//
// pip.cpp reads the command line (options, requirement specifiers, files) and
// calls PipPackage here once per requirement: the split keeps what a name
// and a version mean apart from how a command spells them.
#include "dockerfile/pip_builds.h"

#include <algorithm>
#include <set>

#include "common/field_names.h"
#include "common/text.h"
#include "common/version.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/resolve.h"
#include "dockerfile/util.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint::dockerfile {
namespace {

// The digits at the start of `text` after `prefix` ("cuda12" -> "12"); "" when none.
std::string DigitsAfter(std::string_view text, std::string_view prefix) {
  if (!StartsWith(text, prefix)) return "";
  size_t end = prefix.size();
  while (end < text.size() && IsAsciiDigit(text[end]) && end - prefix.size() < 8) ++end;
  return std::string(text.substr(prefix.size(), end - prefix.size()));
}

// The variant a command's indexes select for a package, and why.
struct Chosen {
  std::string variant;
  std::string source;
  bool only = false;  // uv found it on an extra index: only that index is searched
  bool build_host = false;  // chosen by the build machine's driver (uv --torch-backend=auto)
};
Chosen ChooseVariant(const Indexes& indexes, const PythonPackage& package, bool uv) {
  const std::vector<std::string>& hosts = package.index_hosts;
  const std::vector<std::string>& paths = package.index_paths;
  // uv's --torch-backend picks the index of PyTorch's own packages only.
  if (uv && !indexes.torch_backend.empty() && package.cuda_naming == "torch") {
    if (indexes.torch_backend == "auto") return {"", "uv --torch-backend=auto", true, true};
    return {indexes.torch_backend, "uv --torch-backend=" + indexes.torch_backend.substr(0, 40), true};
  }
  std::string index_variant = indexes.index_url.empty() ? "" : IndexVariant(indexes.index_url, hosts, paths);
  std::string extra_variant;
  for (const std::string& url : indexes.extra_urls)
    if (std::string v = IndexVariant(url, hosts, paths); !v.empty()) extra_variant = v;
  std::string extra_source = "--extra-index-url";
  for (const std::string& url : indexes.find_links)
    if (std::string v = IndexVariant(url, hosts, paths); !v.empty()) {
      extra_variant = v;
      extra_source = "--find-links " + url.substr(0, 200);
    }
  Chosen out{index_variant, index_variant.empty() ? "" : "--index-url " + indexes.index_url};
  if (!extra_variant.empty() && (uv || index_variant.empty())) out = {extra_variant, extra_source, uv};
  return out;
}

facts::Framework NewFramework(const facts::Provenance& where, const Requirement& r, bool uv) {
  facts::Framework row;
  row.provenance = where;
  row.package = r.name;
  row.installer = uv ? "uv pip" : "pip";
  if (!r.exact) row.version_unknown_reason = "unresolved variable";
  return row;
}

// The torch series an unpinned (or range-pinned) torch resolves to, and for
// a companion the torch it would pull in; nullopt when the indexes or the
// specifier are not ones the tables answer.
std::optional<ResolvedTorch> ResolveUnpinned(const Context& ctx, const ImageModel& image, const Requirement& r,
                                             const Chosen& index, bool from_pypi) {
  // The companion's own specifier says nothing about torch's series.
  std::string specifier = r.name == "torch" ? r.specifier : "";
  bool from_index = StartsWith(index.source, "--index-url");
  if (from_index || index.only)
    return NewestTorch(ctx.knowledge, ctx.packages, index.variant, "", false, specifier, image.python_version);
  return NewestTorch(ctx.knowledge, ctx.packages, "", index.variant, from_pypi, specifier, image.python_version);
}

std::string AssumptionText(const Context& ctx, const ImageModel& image, const Requirement& r,
                           const ResolvedTorch& resolved) {
  std::string why = !r.assumed_because.empty() ? r.assumed_because
                    : r.specifier.empty()      ? "torch is not pinned"
                                               : "torch is pinned only to " + r.specifier.substr(0, 80);
  if (!r.origin.empty()) why += " (" + r.origin.substr(0, 200) + ")";
  std::string python = image.python_version.empty() ? "" : " for Python " + image.python_version;
  return why + ": assumed torch " + resolved.release + " (" + resolved.variant +
         "), the newest release the knowledge tables know" + python + " from " + resolved.source + " as of " +
         TorchTablesDate(ctx.knowledge) + "; pin it (torch==X.Y.Z) to make this certain";
}

// torch, torchvision, torchaudio.
void TorchPackage(const Context& ctx, const Instruction& inst, ImageModel& image, facts::Framework row,
                  const Requirement& r, std::string version, const std::string& local, const Chosen& index,
                  bool from_pypi) {
  row.name = r.name;
  std::string chosen = !local.empty() ? local : index.variant;
  std::string source = !local.empty() ? "local version +" + local : index.source;
  if (index.build_host) {
    // The build machine's driver picks the variant: nothing in the Dockerfile tells it.
    row.name = r.name;
    row.cuda_unknown = true;
    row.cuda_source = index.source;
    ctx.Unknown(image, inst, "frameworks",
                r.name + " comes from the PyTorch index uv --torch-backend=auto picks for the build machine's driver",
                "give --torch-backend a variant (cu126, cpu) or pin an index URL");
    ReplaceFramework(image, std::move(row));
    return;
  }
  if (version.empty() && r.exact) {
    // Not pinned, or pinned by a range: the series pip would pick among those
    // the tables know, stated as an assumption (a finding on this line).
    if (auto resolved = ResolveUnpinned(ctx, image, r, index, from_pypi)) {
      chosen = resolved->variant;
      source = resolved->source;
      if (r.name == "torch") {
        version = resolved->release;
        row.version = version;
        row.provenance.knowledge = ctx.knowledge.DescribeSource(resolved->knowledge);
        if (!resolved->unconfirmed.empty()) row.provenance.unconfirmed = resolved->unconfirmed;
        row.version_assumed = AssumptionText(ctx, image, r, *resolved);
      }
    }
  }
  // A torch pinned by an assumption (an unpinned package's newest release pins it).
  if (!version.empty() && !r.assumed_because.empty()) row.version_assumed = r.assumed_because;
  if (chosen.empty() && from_pypi && !version.empty() && r.exact) {
    std::string torch_mm = MajorMinor(version);
    bool companion_unconfirmed = false;
    if (r.name != "torch") {
      const PypiRelease* pair = ctx.packages.FindPypiRelease(r.name, torch_mm);
      torch_mm = pair ? pair->torch : "";
      companion_unconfirmed = pair && !pair->unconfirmed.empty();
    }
    const PypiRelease* release = torch_mm.empty() ? nullptr : ctx.packages.FindPypiRelease("torch", torch_mm);
    if (release && release->cuda.find('.') != std::string::npos) {
      chosen = "cu" + std::string(release->cuda).erase(release->cuda.find('.'), 1);
      source = "PyPI default of torch " + torch_mm;
      row.provenance.knowledge = ctx.knowledge.DescribeSource(release->source);
      if (!release->unconfirmed.empty() || companion_unconfirmed)
        row.provenance.unconfirmed = "PyPI default CUDA of torch " + torch_mm;
    }
    if (chosen.empty()) {
      // A release newer than every row of its package: the tables are behind.
      std::vector<std::string> known;
      for (const auto& one : ctx.packages.pypi_releases)
        if (one.package == r.name) known.push_back(one.release);
      const std::string newest = NewestVersion(known);
      ctx.Unknown(image, inst, "frameworks",
                  !newest.empty() && CompareNaturalVersions(MajorMinor(version), newest) > 0
                      ? TablesBehind(ctx.knowledge, r.name + " " + version, newest)
                      : r.name + " " + version + ": its PyPI CUDA variant is not in packages.yaml");
    }
  } else if (chosen.empty()) {
    ctx.Unknown(image, inst, "frameworks", r.name + " without a pinned version: its CUDA variant cannot be told");
  }
  if (!chosen.empty()) {
    row.variant = chosen;
    if (StartsWith(chosen, "cu")) row.cuda = CudaFromVariant(chosen);  // cpu, rocm...: no CUDA
    row.cuda_source = source + (r.origin.empty() ? "" : "; " + r.name + " from " + r.origin);
  } else {
    row.cuda_unknown = true;
  }
  if (r.name == "torch") {
    AddArchList(ctx, row);
    // pip replaces torch but leaves the CUDA runtime wheel the old one
    // brought (nvidia-cuda-runtime-cu13 when the new torch needs -cu12): the
    // file stays, and nothing loads it. The runtime that counts is the new one.
    const size_t before = image.runtimes.size();
    std::erase_if(image.runtimes, [&](const facts::Runtime& old) {
      return old.package == "torch" && old.provenance.dockerfile_line.value_or(0) < inst.line;
    });
    if (image.runtimes.size() != before)
      ctx.AddNote(image, inst,
                  "torch replaced: the CUDA runtime the earlier torch brought is no longer what torch loads");
    AddFrameworkRuntime(ctx, image, row, "pip");
  }
  ReplaceFramework(image, std::move(row));
}

// jax, jaxlib, jax-cuda12-plugin: CUDA from an extra, a local version or the
// name. The jax[cudaNN] extras install NVIDIA's CUDA wheels, so the image has
// a runtime of that major (framework_runtimes rows name the extra); the
// cudaNN-local extras use the system's CUDA instead.
void JaxPackage(const Context& ctx, ImageModel& image, facts::Framework row, const Requirement& r,
                const std::string& local) {
  row.name = "jax";
  std::string cuda;
  for (const std::string& extra : r.extras)
    if (std::string digits = DigitsAfter(extra, "cuda"); !digits.empty()) cuda = digits;
  if (cuda.empty()) cuda = DigitsAfter(local, "cuda");
  if (cuda.empty()) cuda = DigitsAfter(r.name, "jax-cuda");
  if (r.name == "jax" && cuda.empty()) return;  // CPU jax
  if (!cuda.empty()) row.cuda = cuda;
  row.cuda_source = "package extra or name";
  if (r.name == "jax" && !cuda.empty()) AddFrameworkRuntime(ctx, image, row, "pip", r.extras);
  ReplaceFramework(image, std::move(row));
}

// tensorflow: the CUDA its release was built with; tensorflow[and-cuda]
// installs NVIDIA's CUDA wheels of that release (framework_runtimes).
void TensorflowPackage(const Context& ctx, const Instruction& inst, ImageModel& image, facts::Framework row,
                       const Requirement& r, const std::string& version) {
  row.name = "tensorflow";
  const PypiRelease* release = version.empty() ? nullptr : ctx.packages.FindPypiRelease("tensorflow", MajorMinor(version));
  if (release && !release->cuda.empty()) {
    row.cuda = release->cuda;
    row.cuda_source = "packages.yaml pypi_releases";
    row.provenance.knowledge = ctx.knowledge.DescribeSource(release->source);
    if (!release->unconfirmed.empty()) row.provenance.unconfirmed = "TensorFlow build CUDA";
    AddFrameworkRuntime(ctx, image, row, "pip", r.extras);
  } else {
    row.cuda_unknown = true;
    std::vector<std::string> known;
    for (const auto& one : ctx.packages.pypi_releases)
      if (one.package == "tensorflow") known.push_back(one.release);
    const std::string newest = NewestVersion(known);
    ctx.Unknown(image, inst, "frameworks",
                !version.empty() && !newest.empty() && CompareNaturalVersions(MajorMinor(version), newest) > 0
                    ? TablesBehind(ctx.knowledge, "tensorflow " + version, newest)
                    : "tensorflow " + (version.empty() ? std::string("(unpinned)") : version) +
                          ": its CUDA is not in packages.yaml");
  }
  ReplaceFramework(image, std::move(row));
}

// paddlepaddle-gpu: 3.x from Paddle's per-CUDA index (packages/stable/cu126/),
// whose wheels require NVIDIA's CUDA wheels (framework_runtimes); 2.x as a
// `.post120` version (CUDA 12.0) built against a system CUDA. Anything else
// (PyPI's default build) is a paddle of unknown CUDA.
void PaddlePackage(const Context& ctx, ImageModel& image, facts::Framework row, const std::string& version,
                   const Chosen& chosen) {
  row.name = "paddle";
  if (chosen.variant == "cpu") return;  // the CPU index serves no GPU build
  if (std::string cuda = CudaFromVariant(chosen.variant); !cuda.empty()) {
    row.variant = chosen.variant;
    row.cuda = cuda;
    row.cuda_source = chosen.source.substr(0, 200);
    AddFrameworkRuntime(ctx, image, row, "pip", {});
  } else if (size_t post = version.rfind(".post"); post != std::string::npos) {
    std::string digits = version.substr(post + 5);
    if (digits.size() >= 2 && digits.size() <= 4 && std::all_of(digits.begin(), digits.end(), IsAsciiDigit)) {
      row.cuda = CudaFromVariant("cu" + digits);
      row.cuda_source = "the .post" + digits + " build of the version";
    }
  }
  if (!row.cuda) row.cuda_unknown = true;
  ReplaceFramework(image, std::move(row));
}

// cupy-cuda117 -> 11.7, cupy-cuda12x -> 12.x, cupy-cuda90 -> 90 (as the image facts read them).
void CupyPackage(ImageModel& image, facts::Framework row, const Requirement& r) {
  std::string digits = DigitsAfter(r.name, "cupy-cuda");
  size_t end = std::string_view("cupy-cuda").size() + digits.size();
  bool any_minor = end < r.name.size() && r.name[end] == 'x';
  if (digits.empty() || end + (any_minor ? 1 : 0) != r.name.size()) return;
  row.name = "cupy";
  row.cuda = any_minor ? digits + ".x" : digits.size() == 3 ? digits.substr(0, 2) + "." + digits.substr(2) : digits;
  row.cuda_source = "package name";
  ReplaceFramework(image, std::move(row));
}

// NVIDIA's CUDA wheels (nvidia-cuda-runtime-cu12...): cuda.packages, and the
// libcudart of nvidia-cuda-runtime as a runtime.
void NvidiaWheel(const Context& ctx, ImageModel& image, const facts::Framework& base, const Requirement& r,
                 const PythonPackage& wheel, const std::string& cu) {
  // The wheel is installed by the same requirement as the framework row, so
  // the package and its runtime carry the row's provenance and version.
  facts::Package package;
  IMAGELINT_COPY_FIELDS(package, base, provenance, package, installer, version_unknown_reason, version);
  package.name = r.name;
  package.cuda_major = cu;
  package.manager = "pip";
  if (!wheel.component.empty()) {
    package.component = wheel.component;
    package.provenance.knowledge = ctx.knowledge.DescribeSource(wheel.source);
  }
  std::optional<std::string> soname = ctx.knowledge.CudartSoname(cu);
  if (wheel.component == "cudart" && !wheel.library.empty() && soname) {
    facts::Runtime runtime;
    IMAGELINT_COPY_FIELDS(runtime, base, installer, version_unknown_reason, version);
    runtime.provenance = package.provenance;
    if (!wheel.unconfirmed.empty()) runtime.provenance.unconfirmed = "wheel layout";
    runtime.path = "<site-packages>/" + FillTemplate(wheel.library, {{"soname", soname->substr(soname->rfind(".so.") + 4)}});
    runtime.soname = soname;
    runtime.source = "pip";
    runtime.package = r.name;
    image.runtimes.push_back(std::move(runtime));
  }
  image.packages.push_back(std::move(package));
}

}  // namespace

void PipPackage(const Context& ctx, const Instruction& inst, ImageModel& image, const Requirement& r,
                const Indexes& indexes, bool uv) {
  if (!r.index_url.empty() && (r.index_url != indexes.index_url || !indexes.extra_urls.empty())) {
    // A requirement tied to one index (Poetry's `source =`) comes from it alone.
    Indexes own;
    own.index_url = r.index_url;
    own.from_pypi = false;
    return PipPackage(ctx, inst, image, r, own, uv);
  }
  facts::Framework row = NewFramework(ctx.Where(inst, image, "instruction"), r, uv);
  std::string version = r.version, local;
  if (size_t plus = version.find('+'); plus != std::string::npos) {
    local = version.substr(plus + 1);
    version = version.substr(0, plus);
  }
  if (!r.exact)
    ctx.Unknown(image, inst, "frameworks", "pip requirement \"" + r.raw.substr(0, 200) + "\" uses a value that cannot be computed");
  if (r.exact && !version.empty()) row.version = version;
  std::map<std::string, std::string> captured;
  const PythonPackage* known = ctx.packages.FindPythonPackage("pip", r.name, &captured);
  if (!known) return;
  // The row's cuda_naming (python_packages) says which grammar names its CUDA build.
  const std::string& framework = known->framework;
  const std::string& naming = known->cuda_naming;
  if (naming == "torch")
    TorchPackage(ctx, inst, image, std::move(row), r, version, local, ChooseVariant(indexes, *known, uv),
                 indexes.from_pypi);
  else if (naming == "jax") JaxPackage(ctx, image, std::move(row), r, local);
  else if (naming == "tensorflow") TensorflowPackage(ctx, inst, image, std::move(row), r, version);
  else if (naming == "cupy") CupyPackage(image, std::move(row), r);
  else if (naming == "paddle") PaddlePackage(ctx, image, std::move(row), version, ChooseVariant(indexes, *known, uv));
  else if (!framework.empty()) {
    row.name = known->FrameworkOf(r.name);
    row.cuda_unknown = true;
    ReplaceFramework(image, std::move(row));
  } else if (captured.count("cu")) {
    NvidiaWheel(ctx, image, row, r, *known, captured["cu"]);
  }
}

std::string CudaFromVariant(std::string_view variant) {
  if (!StartsWith(variant, "cu")) return "";
  std::string_view digits = variant.substr(2);
  if (digits.size() < 2 || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), IsAsciiDigit)) return "";
  return std::string(digits.substr(0, digits.size() - 1)) + "." + std::string(digits.substr(digits.size() - 1));
}

std::string IndexVariant(std::string_view url, const std::vector<std::string>& hosts,
                         const std::vector<std::string>& paths) {
  bool known_host = std::any_of(hosts.begin(), hosts.end(), [&](const std::string& host) {
    return url.find(host) != std::string_view::npos;
  });
  if (!known_host) return "";
  // /whl/[nightly/|test/](cu<digits>|cpu|rocm<digits and dots>)
  auto variant_at = [&](size_t pos) -> std::string {
    std::string_view rest = url.substr(pos);
    if (StartsWith(rest, "cu") && rest.size() > 2 && IsAsciiDigit(rest[2])) {
      size_t end = 2;
      while (end < rest.size() && IsAsciiDigit(rest[end])) ++end;
      return std::string(rest.substr(0, end));
    }
    if (StartsWith(rest, "cpu")) return "cpu";
    if (StartsWith(rest, "rocm") && rest.size() > 4 && (IsAsciiDigit(rest[4]) || rest[4] == '.')) {
      size_t end = 4;
      while (end < rest.size() && (IsAsciiDigit(rest[end]) || rest[end] == '.')) ++end;
      return std::string(rest.substr(0, end));
    }
    return "";
  };
  // The first listed path that names a variant wins (rows list the longer
  // /whl/nightly/ before /whl/).
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    for (size_t at = url.find(path); at != std::string_view::npos; at = url.find(path, at + 1))
      if (std::string v = variant_at(at + path.size()); !v.empty()) return v.substr(0, 32);
  }
  return "";
}

}  // namespace imagelint::dockerfile
