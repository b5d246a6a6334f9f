// pip and uv pip: which frameworks a command installs, with which CUDA.
//
// What a package is comes from packages.yaml (python_packages: the framework a
// name installs, NVIDIA's CUDA wheels; pypi_releases: the CUDA of PyPI's
// default wheel). What stays here is the grammar each project uses to name its
// CUDA build:
//   torch      `torch==2.1.0+cu121` (local version), an index URL ending in
//              /whl/cu121 or /whl/cpu (https://pytorch.org/get-started/previous-versions/),
//              else PyPI's default wheel of that release;
//   jax        extras `jax[cuda12]`, `jaxlib==…+cuda11.cudnn86`, `jax-cuda12-plugin`
//              (https://docs.jax.dev/en/latest/installation.html);
//   cupy       `cupy-cuda117` (11.7), `cupy-cuda12x` (any 12.x) (https://docs.cupy.dev/en/stable/install.html);
//   tensorflow the CUDA a release was built with (pypi_releases).
// pip prefers the highest version, and a `+cuXXX` local version sorts above
// the plain one (PEP 440), so with `--extra-index-url` the PyTorch index wins;
// uv searches extra indexes first (https://docs.astral.sh/uv/pip/compatibility/).
// Requirements pip reads from elsewhere (-r files, -e projects, URLs) are
// listed as unknown, never guessed.
#include "dockerfile/pip.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/text.h"
#include "common/version.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/build_code.h"
#include "dockerfile/build_context.h"
#include "dockerfile/lock_files.h"
#include "dockerfile/resolve.h"
#include "dockerfile/util.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint::dockerfile {
namespace {

// Names and versions longer than these are not ones any table knows.
constexpr size_t kMaxName = 200;
constexpr size_t kMaxVersion = 128;

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// The digits at the start of `text` after `prefix` ("cuda12" -> "12"); "" when none.
std::string DigitsAfter(std::string_view text, std::string_view prefix) {
  if (!StartsWith(text, prefix)) return "";
  size_t end = prefix.size();
  while (end < text.size() && IsAsciiDigit(text[end]) && end - prefix.size() < 8) ++end;
  return std::string(text.substr(prefix.size(), end - prefix.size()));
}

// Options of pip and uv pip that take a value (the next word when not `=`-joined).
const std::set<std::string>& ValueOptions() {
  static const std::set<std::string> options = {
      "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
      "-t", "--target", "--prefix", "--root", "--src", "-e", "--editable", "--platform", "--python-version",
      "--implementation", "--abi", "--trusted-host", "--cache-dir", "--progress-bar", "--upgrade-strategy",
      "--global-option", "--install-option", "-C", "--config-settings", "--no-binary", "--only-binary", "--report",
      "--log", "--timeout", "--retries", "--proxy", "--exists-action", "--python", "-p", "--index-strategy",
      "--index", "--default-index", "--resolution", "--prerelease", "--python-platform", "--keyring-provider",
      "--extra-index", "--group", "--cert", "--client-cert", "--use-feature", "--root-user-action",
      "--torch-backend"};
  return options;
}

// The index URLs of one command.
struct Indexes {
  std::string index_url;                // -i / --index-url / --index / --default-index
  std::vector<std::string> extra_urls;  // --extra-index-url, in order
  // -f / --find-links: pages whose wheels compete with the indexes' (pip takes
  // the highest version, and torch's `+cu111` local version sorts above PyPI's
  // plain one), so a variant page such as /whl/cu111/torch_stable.html decides
  // as an extra index does (https://pip.pypa.io/en/stable/cli/pip_install/#finding-packages).
  std::vector<std::string> find_links;
  bool from_pypi = true;                // no -i: the default index is PyPI
  // uv's --torch-backend (UV_TORCH_BACKEND): PyTorch packages come from the
  // backend's index instead of the configured ones; "auto" picks it from the
  // driver of the machine that runs the build (docs.astral.sh/uv, "Using uv
  // with PyTorch").
  std::string torch_backend;
};

// The variant a command's indexes select for a package, and why.
struct Chosen {
  std::string variant;
  std::string source;
  bool only = false;  // uv found it on an extra index: only that index is searched
  bool build_host = false;  // chosen by the build machine's driver (uv --torch-backend=auto)
};
Chosen ChooseVariant(const Indexes& indexes, const std::vector<std::string>& hosts, bool uv) {
  if (uv && !indexes.torch_backend.empty() && !hosts.empty()) {  // a package PyTorch's own indexes serve
    if (indexes.torch_backend == "auto") return {"", "uv --torch-backend=auto", true, true};
    return {indexes.torch_backend, "uv --torch-backend=" + indexes.torch_backend.substr(0, 40), true};
  }
  std::string index_variant = indexes.index_url.empty() ? "" : IndexVariant(indexes.index_url, hosts);
  std::string extra_variant;
  for (const std::string& url : indexes.extra_urls)
    if (std::string v = IndexVariant(url, hosts); !v.empty()) extra_variant = v;
  std::string extra_source = "--extra-index-url";
  for (const std::string& url : indexes.find_links)
    if (std::string v = IndexVariant(url, hosts); !v.empty()) {
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
  facts::Package package;
  package.provenance = base.provenance;
  package.package = base.package;
  package.installer = base.installer;
  package.version_unknown_reason = base.version_unknown_reason;
  package.name = r.name;
  package.version = base.version;
  package.cuda_major = cu;
  package.manager = "pip";
  if (!wheel.component.empty()) {
    package.component = wheel.component;
    package.provenance.knowledge = ctx.knowledge.DescribeSource(wheel.source);
  }
  std::optional<std::string> soname = ctx.knowledge.CudartSoname(cu);
  if (wheel.component == "cudart" && !wheel.library.empty() && soname) {
    facts::Runtime runtime;
    runtime.provenance = package.provenance;
    if (!wheel.unconfirmed.empty()) runtime.provenance.unconfirmed = "wheel layout";
    runtime.installer = base.installer;
    runtime.version_unknown_reason = base.version_unknown_reason;
    runtime.path = "<site-packages>/" + FillTemplate(wheel.library, {{"soname", soname->substr(soname->rfind(".so.") + 4)}});
    runtime.version = base.version;
    runtime.soname = soname;
    runtime.source = "pip";
    runtime.package = r.name;
    image.runtimes.push_back(std::move(runtime));
  }
  image.packages.push_back(std::move(package));
}

void PipPackage(const Context& ctx, const Instruction& inst, ImageModel& image, const Requirement& r,
                const Indexes& indexes, bool uv) {
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
  const std::string& framework = known->framework;
  if (framework == "torch" || framework == "torchvision" || framework == "torchaudio")
    TorchPackage(ctx, inst, image, std::move(row), r, version, local, ChooseVariant(indexes, known->index_hosts, uv),
                 indexes.from_pypi);
  else if (framework == "jax") JaxPackage(ctx, image, std::move(row), r, local);
  else if (framework == "tensorflow") TensorflowPackage(ctx, inst, image, std::move(row), r, version);
  else if (framework == "cupy") CupyPackage(image, std::move(row), r);
  else if (!framework.empty()) {
    row.name = framework;
    row.cuda_unknown = true;
    ReplaceFramework(image, std::move(row));
  } else if (captured.count("cu")) {
    NvidiaWheel(ctx, image, row, r, *known, captured["cu"]);
  }
}

}  // namespace

std::string CudaFromVariant(std::string_view variant) {
  if (!StartsWith(variant, "cu")) return "";
  std::string_view digits = variant.substr(2);
  if (digits.size() < 2 || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), IsAsciiDigit)) return "";
  return std::string(digits.substr(0, digits.size() - 1)) + "." + std::string(digits.substr(digits.size() - 1));
}

std::string IndexVariant(std::string_view url, const std::vector<std::string>& hosts) {
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
  for (size_t at = url.find("/whl/"); at != std::string_view::npos; at = url.find("/whl/", at + 1)) {
    size_t pos = at + 5;
    for (std::string_view channel : {"nightly/", "test/"})
      if (url.substr(pos, channel.size()) == channel)
        if (std::string v = variant_at(pos + channel.size()); !v.empty()) return v.substr(0, 32);
    if (std::string v = variant_at(pos); !v.empty()) return v.substr(0, 32);
  }
  return "";
}

std::optional<Requirement> ParseRequirement(const ShellWord& word) {
  Requirement r;
  r.raw = word.value;
  r.exact = word.exact;
  std::string_view text = word.value;
  // A wheel file or URL: {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl (PEP 427).
  if (EndsWith(text, ".whl")) {
    std::string file = BaseName(text);
    size_t pos;
    while ((pos = file.find("%2B")) != std::string::npos) file.replace(pos, 3, "+");
    auto parts = SplitOn(file, '-');
    if (parts.size() < 5 || parts[0].size() > kMaxName || parts[1].size() > kMaxVersion) return std::nullopt;
    r.name = NormalizePackageName(parts[0]);
    r.version = parts[1];
    return r;
  }
  if (text.find("://") != std::string_view::npos || StartsWith(text, ".") || StartsWith(text, "/") ||
      text.find('@') != std::string_view::npos)
    return std::nullopt;
  // name [extras] spec: name = [A-Za-z0-9][A-Za-z0-9._-]* (PEP 508).
  size_t pos = 0;
  if (text.empty() || !IsAlnum(text[0])) return std::nullopt;
  while (pos < text.size() && (IsAlnum(text[pos]) || text[pos] == '.' || text[pos] == '_' || text[pos] == '-')) ++pos;
  if (pos > kMaxName) return std::nullopt;
  r.name = NormalizePackageName(text.substr(0, pos));
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  if (pos < text.size() && text[pos] == '[') {
    size_t close = text.find(']', pos);
    if (close != std::string_view::npos) {
      for (std::string extra : SplitOn(text.substr(pos + 1, close - pos - 1), ',')) {
        extra.erase(std::remove(extra.begin(), extra.end(), ' '), extra.end());
        // PEP 685: extras compare normalized, as package names do.
        if (!extra.empty()) r.extras.push_back(NormalizePackageName(extra.substr(0, kMaxName)));
      }
      pos = close + 1;
      while (pos < text.size() && IsSpace(text[pos])) ++pos;
    }
  }
  if (text.find_first_of("\n\r", pos) != std::string_view::npos) return std::nullopt;  // one line of specifiers
  std::string spec(text.substr(pos));
  spec = spec.substr(0, spec.find(';'));  // environment markers
  spec.erase(std::remove(spec.begin(), spec.end(), ' '), spec.end());
  if (StartsWith(spec, "===")) r.version = spec.substr(3);
  else if (StartsWith(spec, "==") && spec.find_first_of(",*") == std::string::npos) r.version = spec.substr(2);
  else if (StartsWith(spec, "=") && !StartsWith(spec, "==")) r.version = spec.substr(1);  // conda style
  else if (!spec.empty()) r.specifier = spec;
  if (r.version.size() > kMaxVersion || r.specifier.size() > kMaxVersion) return std::nullopt;
  return r;
}

namespace {

// The prefix above `.../bin/<exe>` ("/opt/venv/bin/pip" -> "/opt/venv"); "" when none.
std::string PrefixOfExecutable(const std::string& path) {
  size_t bin = path.rfind("/bin/");
  return bin == std::string::npos || bin == 0 ? "" : CleanPath(path.substr(0, bin));
}

// Where a pip command puts its packages: the venv its executable (or
// --python) lives in, --prefix/--target, $VIRTUAL_ENV, the first venv-like
// directory on $PATH, else the system prefix /usr/local (pip's scheme for
// Debian and the python images). Only COPY --from reads it.
std::string InstallRoot(const ImageModel& image, const ShellCommand& command, const std::string& option_root) {
  if (!option_root.empty()) return CleanPath(option_root);
  if (std::string prefix = PrefixOfExecutable(command.words[0].value); !prefix.empty()) return prefix;
  if (auto venv = image.env.find("VIRTUAL_ENV"); venv != image.env.end() && StartsWith(venv->second, "/"))
    return CleanPath(venv->second);
  if (auto path = image.env.find("PATH"); path != image.env.end())
    for (const std::string& dir : SplitOn(path->second, ':')) {
      if (dir == "/usr/local/sbin" || dir == "/usr/local/bin" || dir == "/usr/sbin" || dir == "/usr/bin" ||
          dir == "/sbin" || dir == "/bin")
        break;
      if (EndsWith(dir, "/bin") && StartsWith(dir, "/")) return CleanPath(dir.substr(0, dir.size() - 4));
    }
  return "/usr/local";
}

// Where `pip install --user` (or PIP_USER) puts packages: the user's site
// under $HOME/.local. HOME is the image's ENV when set, else /root for root
// and /home/NAME for a USER by name (useradd -m's default); "" when not known.
std::string UserSiteRoot(const ImageModel& image) {
  if (auto home = image.env.find("HOME"); home != image.env.end() && StartsWith(home->second, "/"))
    return CleanPath(home->second + "/.local");
  if (image.user.empty() || image.user == "root" || image.user == "0") return "/root/.local";
  if (image.user == "?" || std::all_of(image.user.begin(), image.user.end(), IsAsciiDigit)) return "";
  return "/home/" + image.user + "/.local";
}

// pip's boolean options from the environment (PIP_USER=1): strtobool's words.
bool PipEnvTrue(const ImageModel& image, const std::string& name) {
  auto value = image.env.find(name);
  if (value == image.env.end()) return false;
  std::string v = ToLower(value->second);
  return v == "1" || v == "true" || v == "yes" || v == "on" || v == "y" || v == "t";
}

// Packages that require torch without torch on the same line: pip installs
// the torch release each requires — exactly (torch_pins: vLLM, xFormers) or a
// series (pypi_releases pairs torchvision and torchaudio with one) — or, for an
// unpinned one, the newest; an image whose torch already satisfies it keeps it.
std::optional<Requirement> CompanionTorch(const Context& ctx, const ImageModel& image,
                                          const std::vector<Requirement>& requirements) {
  std::optional<Requirement> out;
  for (const Requirement& r : requirements) {
    if (r.name == "torch") return std::nullopt;
    const bool paired = r.name == "torchvision" || r.name == "torchaudio";
    if ((!paired && !ctx.packages.PinsTorch(r.name)) || !r.exact) continue;
    Requirement torch;
    torch.name = "torch";
    torch.raw = r.raw;
    std::string version = r.version.substr(0, r.version.find('+'));
    const TorchPin* newest = nullptr;  // an unpinned package that pins torch: its newest release the tables know
    if (version.empty() && r.specifier.empty())
      for (const TorchPin& row : ctx.packages.torch_pins)
        if (row.package == r.name && (!newest || CompareNaturalVersions(row.release, newest->release) > 0)) newest = &row;
    if (newest) {
      torch.version = newest->torch;
      torch.assumed_because = r.name + " is not pinned: assumed " + r.name + " " + newest->release +
                     ", the newest release the knowledge tables know, which requires torch==" + newest->torch +
                     (newest->unconfirmed.empty() ? "" : " (UNCONFIRMED: " + newest->unconfirmed + ")") +
                     "; pin it to make this certain";
    } else if (version.empty()) {
      torch.assumed_because = r.name + " is not pinned and brings torch";
    } else if (const TorchPin* pin = ctx.packages.FindTorchPin(r.name, version)) {
      torch.version = pin->torch;
      torch.origin = r.name + " " + version + " requires torch==" + pin->torch +
                     (pin->unconfirmed.empty() ? "" : " (UNCONFIRMED: " + pin->unconfirmed + ")");
    } else if (const PypiRelease* pair = paired ? ctx.packages.FindPypiRelease(r.name, MajorMinor(version)) : nullptr;
               pair && !pair->torch.empty()) {
      torch.specifier = "==" + pair->torch + ".*";
      torch.assumed_because = r.name + " " + version + " requires torch " + pair->torch;
    } else {
      continue;  // a release the tables do not pair: its torch stays unknown
    }
    if (!out) out = torch;
  }
  if (!out) return std::nullopt;
  for (const facts::Framework& row : image.frameworks) {
    if (row.name != "torch" || !row.version) continue;
    const std::string installed = row.version->substr(0, row.version->find('+'));
    if (!out->version.empty() ? installed == out->version
                              : out->specifier.empty() ||
                                    SeriesSatisfies(MajorMinor(installed), out->specifier).value_or(false))
      return std::nullopt;  // pip keeps an installed torch that satisfies the requirement
  }
  return out;
}

// A project directory or a file path rather than a requirement: ".", "./x",
// "/app", ".[dev]".
bool IsLocalPath(const std::string& word) {
  return word == "." || StartsWith(word, "./") || StartsWith(word, "/") || StartsWith(word, ".[") ||
         StartsWith(word, "../");
}

// What a pip command reads from files: -r, -c, and projects (`.`, `-e .`).
struct FileInputs {
  std::vector<std::string> requirement_files, constraint_files, projects;
};

// Reads the command's files from the build context (build_context.cpp) into
// its requirements and indexes: options in a requirements file apply to the
// whole install, as pip applies them. What could not be read is an unknown
// fact of this line, saying what would decide it.
void ReadInputs(const Context& ctx, const Instruction& inst, ImageModel& image, const FileInputs& inputs,
                Indexes& indexes, std::vector<Requirement>& requirements) {
  RequirementsRead read;
  for (const std::string& file : inputs.requirement_files) ReadRequirements(ctx, image, InRun(image, file), false, read);
  for (const std::string& file : inputs.constraint_files) ReadRequirements(ctx, image, InRun(image, file), true, read);
  for (const std::string& project : inputs.projects) {
    std::string dir = project, extras;
    if (size_t open = dir.find('['); open != std::string::npos && dir.back() == ']') {
      extras = dir.substr(open + 1, dir.size() - open - 2);
      dir = dir.substr(0, open);
    }
    std::vector<std::string> names;
    for (const std::string& extra : SplitOn(extras, ','))
      if (!Trim(extra).empty()) names.push_back(ToLower(Trim(extra)));
    ReadProject(ctx, image, InRun(image, dir), names, read);
  }
  if (!read.index_url.empty() && indexes.index_url.empty()) {
    indexes.index_url = read.index_url;
    indexes.from_pypi = ctx.packages.IsPypiIndex(read.index_url);
  }
  for (const std::string& url : read.extra_index_urls) indexes.extra_urls.push_back(url);
  for (const std::string& url : read.find_links) indexes.find_links.push_back(url);
  for (Requirement& r : read.requirements) requirements.push_back(std::move(r));
  // -c pins what the requirements leave open (pip applies constraints to every requirement).
  for (Requirement& r : requirements)
    if (auto pin = read.constraints.find(r.name);
        pin != read.constraints.end() && r.version.empty() && r.specifier.empty()) {
      r.version = pin->second.version;
      r.specifier = pin->second.specifier;
      r.origin = pin->second.origin;
    }
  bool no_context = ctx.options.context_dir.empty();
  for (const std::string& what : read.unread) {
    ctx.Unknown(image, inst, "frameworks", "pip: " + what.substr(0, 400),
                no_context ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                           : "make the file readable in the build context, or scan the built image");
    image.frameworks_partial = true;
  }
  if (!read.files.empty()) {
    std::string files;
    for (const std::string& file : read.files) files += (files.empty() ? "" : ", ") + file.substr(0, 200);
    ctx.AddNote(image, inst, "pip reads " + files + " from the build context");
  }
}

}  // namespace

bool ApplyLockedInstall(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  if (w.size() < 2) return false;
  std::string tool = BaseName(w[0].value), sub = w[1].value;
  // Each installer's subcommands that install a project, the lock they read
  // ("" = a format imagelint does not read) and the options that name the
  // project's directory (the tools' CLI references).
  struct LockedInstaller {
    const char* tool;
    std::set<std::string> subcommands;
    const char* lock;
    std::set<std::string> dir_options;
    bool read;
  };
  static const LockedInstaller kInstallers[] = {
      {"uv", {"sync", "run"}, "uv.lock", {"--project", "--directory"}, true},
      {"poetry", {"install", "sync"}, "poetry.lock", {"-C", "--directory", "-P", "--project"}, true},
      {"pdm", {"install", "sync"}, "pdm.lock", {"-p", "--project"}, true},
      {"pipenv", {"install", "sync"}, "Pipfile.lock", {}, false},
      {"pixi", {"install", "run", "shell-hook"}, "pixi.lock", {}, false},
  };
  const LockedInstaller* installer = nullptr;
  for (const LockedInstaller& row : kInstallers)
    if (tool == row.tool && row.subcommands.count(sub)) installer = &row;
  if (installer == nullptr) return false;
  const std::string lock = installer->lock;
  const std::set<std::string>& dir_options = installer->dir_options;
  if (!installer->read) {
    ctx.Unknown(image, inst, "frameworks", tool + " " + sub + " installs from " + lock + ", which imagelint does not read",
                "scan the built image");
    image.frameworks_partial = true;
    return true;
  }
  std::string dir = image.run_cwd;
  // UV_NO_SYNC (any value but 0/false/no/off/empty) is uv's --no-sync.
  bool no_sync = false;
  if (auto env = image.env.find("UV_NO_SYNC"); tool == "uv" && env != image.env.end()) {
    const std::string value = ToLower(env->second);
    no_sync = !(value.empty() || value == "0" || value == "false" || value == "no" || value == "off");
  }
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (tool == "uv" && sub == "run" && !StartsWith(word, "-")) break;  // the command uv runs
    if (word == "--no-sync") no_sync = true;
    std::string option = word.substr(0, word.find('='));
    if (!dir_options.count(option)) continue;
    std::string value = word.find('=') != std::string::npos ? word.substr(word.find('=') + 1)
                                                            : (i + 1 < w.size() ? w[++i].value : "");
    if (!value.empty()) dir = NormalPath(StartsWith(value, "/") ? value : image.run_cwd + "/" + value);
  }
  if (no_sync) return true;  // uv run --no-sync installs nothing
  // `uv run` / `pixi run` sync only a project they find: one the build context
  // shows absent from where the command runs is none (uv then just runs).
  if (command.runner_sync) {
    // Nothing copied from the context: no project of the repository's is there.
    if (image.context_copies.empty()) return true;
    bool absent = true;
    for (const char* name : {"pyproject.toml", lock.c_str()}) {
      ContextSource source = FindInContext(ctx, image, (dir == "/" ? "" : dir) + "/" + name);
      if (!absent || !source.path) {
        absent = false;
        continue;
      }
      auto text = ReadContextFile(ctx, *source.path);
      absent = !text.ok() && text.error().message.ends_with("does not exist");
    }
    if (absent) return true;
  }
  RequirementsRead read;
  ReadTomlLock(ctx, image, dir, lock, read);
  // Without its lock, uv sync resolves the project's dependencies as pip
  // would resolve `pip install .`; poetry and pdm would resolve their own
  // tables, which are not read.
  if (read.files.empty() && tool == "uv") {
    read.unread.clear();
    ReadProject(ctx, image, dir, {}, read);
  }
  Indexes indexes;
  for (const std::string& url : read.extra_index_urls) indexes.extra_urls.push_back(url);
  bool no_context = ctx.options.context_dir.empty();
  for (const std::string& what : read.unread) {
    ctx.Unknown(image, inst, "frameworks", tool + " " + sub + ": " + what.substr(0, 400),
                no_context ? "give the build context (imagelint --context DIR, the folder docker build gets)"
                           : "make the lock file readable in the build context, or scan the built image");
    image.frameworks_partial = true;
  }
  if (!read.files.empty()) ctx.AddNote(image, inst, tool + " reads " + read.files.front().substr(0, 200) + " from the build context");
  for (const Requirement& r : read.requirements) PipPackage(ctx, inst, image, r, indexes, tool == "uv");
  // uv and pdm install into the project's .venv; poetry into its virtualenv (or the system).
  std::string root = tool == "poetry" ? InstallRoot(image, command, "") : CleanPath(dir + "/.venv");
  if (auto env = image.env.find("UV_PROJECT_ENVIRONMENT"); tool == "uv" && env != image.env.end() && !env->second.empty())
    root = CleanPath(StartsWith(env->second, "/") ? env->second : dir + "/" + env->second);
  for (const facts::Framework& row : image.frameworks)
    if (row.provenance.dockerfile_line == inst.line) image.framework_roots[row.name] = root;
  return true;
}

// An unpinned (or range) requirement of a framework the environment already
// has in a release that satisfies it: pip and uv leave it as it is
// ("Requirement already satisfied") unless told to upgrade or reinstall.
// `root` is where this command installs; `fresh_env` says it is a new
// environment (uv's default .venv) that a base image's framework is not in.
const facts::Framework* AlreadySatisfied(const Context& ctx, const ImageModel& image, const Requirement& r,
                                         const std::string& root, bool fresh_env) {
  if (!r.exact || !r.version.empty()) return nullptr;
  const PythonPackage* known = ctx.packages.FindPythonPackage("pip", r.name);
  if (!known || known->framework.empty()) return nullptr;
  for (const facts::Framework& row : image.frameworks) {
    if (row.name != known->framework || !row.version || row.version->empty()) continue;
    auto recorded = image.framework_roots.find(row.name);
    const bool same_env =
        recorded != image.framework_roots.end() && !recorded->second.empty() ? recorded->second == root : !fresh_env;
    if (!same_env) return nullptr;
    if (!r.specifier.empty() && !SeriesSatisfies(MajorMinor(*row.version), r.specifier).value_or(false)) return nullptr;
    return &row;
  }
  return nullptr;
}

Status ApplyPip(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                size_t first, bool uv) {
  bool reinstall = false;  // -U, --force-reinstall, -I: an installed release does not satisfy
  std::string option_root;
  bool user_install = !uv && PipEnvTrue(image, "PIP_USER");
  bool uv_system = uv && (image.env.count("UV_SYSTEM_PYTHON") != 0);
  const auto& w = command.words;
  std::string subcommand;
  Indexes indexes;
  if (auto backend = image.env.find("UV_TORCH_BACKEND"); uv && backend != image.env.end())
    indexes.torch_backend = ToLower(backend->second);
  FileInputs inputs;
  std::vector<Requirement> requirements;
  for (size_t i = first; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (StartsWith(word, "-")) {
      std::string option = word, value;
      size_t eq = word.find('=');
      if (eq != std::string::npos) {
        option = word.substr(0, eq);
        value = word.substr(eq + 1);
      } else if (ValueOptions().count(option) && i + 1 < w.size()) {
        value = w[++i].value;
      } else if (option.size() > 2 && option[1] != '-' && ValueOptions().count(option.substr(0, 2))) {
        value = option.substr(2);  // -rrequirements.txt
        option = option.substr(0, 2);
      }
      if (option == "-r" || option == "--requirement") {
        inputs.requirement_files.push_back(value);
      } else if (option == "-c" || option == "--constraint") {
        inputs.constraint_files.push_back(value);
      } else if (option == "-e" || option == "--editable") {
        if (IsLocalPath(value)) {
          inputs.projects.push_back(value);
        } else {
          ctx.Unknown(image, inst, "frameworks",
                      "pip installs the project " + value.substr(0, 200) + " (its dependencies are not read)");
          image.frameworks_partial = true;
        }
      } else if (option == "-i" || option == "--index-url" || option == "--index" || option == "--default-index") {
        indexes.index_url = value;
        indexes.from_pypi = ctx.packages.IsPypiIndex(value);  // a PyPI mirror serves PyPI's wheels
      } else if (option == "--extra-index-url" || option == "--extra-index") {
        indexes.extra_urls.push_back(value);
      } else if (option == "-f" || option == "--find-links") {
        indexes.find_links.push_back(value);
      } else if (option == "--torch-backend" && uv) {
        indexes.torch_backend = ToLower(value);
      } else if (option == "--prefix" || option == "--target" || option == "-t") {
        option_root = value;
      } else if (option == "--user" && !uv) {
        user_install = true;
      } else if (option == "--system" && uv) {
        uv_system = true;
      } else if (option == "--python" || option == "-p") {
        option_root = PrefixOfExecutable(value + (EndsWith(value, "/bin/python") ? "" : "/bin/python"));
      } else if (option == "-U" || option == "--upgrade" || option == "--force-reinstall" || option == "-I" ||
                 option == "--ignore-installed" || option == "--reinstall") {
        reinstall = true;
      }
      continue;
    }
    if (subcommand.empty()) {
      subcommand = word;
      continue;
    }
    if (subcommand != "install" && subcommand != "uninstall" && subcommand != "sync") return OkStatus();
    if (subcommand == "sync") {
      ctx.Unknown(image, inst, "frameworks", "uv pip sync " + word.substr(0, 200) + " is not read");
      image.frameworks_partial = true;
      continue;
    }
    auto requirement = ParseRequirement(w[i]);
    if (!requirement && IsLocalPath(word) && w[i].exact) {
      inputs.projects.push_back(word);
      continue;
    }
    if (!requirement) {
      ctx.Unknown(image, inst, "frameworks", "pip installs \"" + word.substr(0, 120) + "\", which imagelint does not read");
      image.frameworks_partial = true;
      continue;
    }
    requirements.push_back(std::move(*requirement));
  }
  if (subcommand == "uninstall") {
    for (const Requirement& r : requirements) RemoveFramework(image, inst.line, r.name);
    return OkStatus();
  }
  if (subcommand != "install") return OkStatus();
  for (const std::string& project : inputs.projects) {
    if (EndsWith(project, ".whl"))
      ctx.Unknown(image, inst, "binaries", "pip installs the wheel " + project.substr(0, 200) + ", whose files are not read",
                  "scan the built image");
    else
      BuildsPythonProject(ctx, inst, image, command, "the project " + project.substr(0, 200));
  }
  ReadInputs(ctx, inst, image, inputs, indexes, requirements);
  if (!reinstall) {
    const bool uv_venv = uv && !uv_system && option_root.empty() && !image.env.count("VIRTUAL_ENV");
    const std::string target = InstallRoot(image, command, uv_venv ? NormalPath(image.run_cwd + "/.venv") : option_root);
    std::erase_if(requirements, [&](const Requirement& r) {
      const facts::Framework* kept = AlreadySatisfied(ctx, image, r, target, uv_venv);
      if (kept)
        ctx.AddNote(image, inst,
                    "\"" + r.raw.substr(0, 120) + "\" is already satisfied by " + kept->name + " " + *kept->version +
                        " (line " + std::to_string(kept->provenance.dockerfile_line.value_or(0)) +
                        "): pip keeps it without --upgrade");
      return kept != nullptr;
    });
  }
  for (const Requirement& r : requirements) PipPackage(ctx, inst, image, r, indexes, uv);
  if (auto torch = CompanionTorch(ctx, image, requirements)) PipPackage(ctx, inst, image, *torch, indexes, uv);
  if (user_install && option_root.empty()) option_root = UserSiteRoot(image);
  // uv pip installs into the active venv, else the `.venv` of the directory
  // it runs in (uv venv's default; https://docs.astral.sh/uv/pip/environments/),
  // unless --system / UV_SYSTEM_PYTHON.
  if (uv && !uv_system && option_root.empty() && !image.env.count("VIRTUAL_ENV"))
    option_root = NormalPath(image.run_cwd + "/.venv");
  std::string root = user_install && option_root.empty() ? "" : InstallRoot(image, command, option_root);
  for (const facts::Framework& row : image.frameworks)
    if (row.provenance.dockerfile_line == inst.line) image.framework_roots[row.name] = root;
  return OkStatus();
}

}  // namespace imagelint::dockerfile
