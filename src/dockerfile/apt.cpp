// System packages: apt-get install cuda-compat-12-4=550.54.15-1, purge, dpkg -r.
//
// Which packages bring a libcuda or libcudart, and where they put it, is
// packages.yaml's system_packages table (the files of cuda-compat-X-Y and
// cuda-cudart-X-Y are those of the official images: cuda_image_files). A pin
// gives the version (`name=version`, its upstream part as
// nvidia::PackageUpstreamVersion reads it for images too); an
// unpinned CUDA package gets the newest release of its CUDA version in
// cuda_images, marked unconfirmed (the repository serves its newest build). A
// removal (purge, remove, dpkg -r/-P) takes the rows of that package out.
// `dpkg -i` of NVIDIA .debs is not read: unknown.
#include "dockerfile/apt.h"

#include <cctype>

#include "common/text.h"
#include "dockerfile/base_image.h"
#include "dockerfile/util.h"
#include "imagelint/image_env.h"

namespace imagelint::dockerfile {
namespace {

// The Python pip runs under after `apt-get install python3[.N][-pip|-dev...]`:
// python3.N names it, python3 and its -pip/-dev/-venv packages are the
// distribution's own (distro_pythons). A later install replaces an earlier one.
void NotePython(const Context& ctx, ImageModel& image, const std::string& spec) {
  std::string name = spec.substr(0, spec.find_first_of("=:"));
  if (!StartsWith(name, "python3")) return;
  std::string rest = name.substr(7);
  if (StartsWith(rest, ".")) {
    size_t end = 1;
    while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
    if (end > 1) image.python_version = "3" + rest.substr(0, end);
    return;
  }
  if (!rest.empty() && rest != "-pip" && rest != "-dev" && rest != "-venv" && rest != "-full") return;
  std::string distribution = image.base.distribution.value_or("");
  std::string repository = image.base.repository.value_or("");
  if (distribution.empty() && (repository == "ubuntu" || repository == "debian"))
    distribution = repository + image.base.tag.value_or("");
  if (const DistroPython* row = ctx.packages.FindDistroPython(distribution); row && image.python_version.empty())
    image.python_version = row->python;
}

void Install(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellWord& word) {
  const std::string& spec = word.value;
  std::string name = spec, pin;
  if (size_t eq = spec.find('='); eq != std::string::npos) {
    name = spec.substr(0, eq);
    pin = nvidia::PackageUpstreamVersion(spec.substr(eq + 1));
  }
  name = name.substr(0, name.find(':'));  // package:arch
  std::map<std::string, std::string> values;
  const SystemPackage* package = ctx.packages.FindSystemPackage(name, &values);
  if (!package) return;
  // A CUDA meta-package (cuda-toolkit-12-4, cuda-runtime-12-4...) installs
  // the release's cuda-cudart-X-Y; its own pin is the meta-package's version.
  SystemPackage as_cudart;
  if (package->kind == "toolkit") {
    as_cudart = *package;
    as_cudart.kind = "cudart";
    package = &as_cudart;
    pin.clear();
  }
  if (!word.exact) {
    ctx.Unknown(image, inst, "cuda.drivers", "apt package \"" + spec.substr(0, 200) + "\" uses a value that cannot be computed");
    return;
  }
  if (image.target_triplet.empty() || image.lib_triplet.empty()) {
    ctx.Unknown(image, inst, "cuda.drivers",
                "apt package " + name.substr(0, 200) + ": its library directories on " + image.architecture.substr(0, 64) +
                    " are not in cuda-targets.yaml");
    return;
  }
  values["triplet"] = image.lib_triplet;
  values["target"] = image.target_triplet;
  facts::Provenance where = ctx.Where(inst, image, "instruction");
  where.knowledge = ctx.knowledge.DescribeSource(package->source);
  std::string version = pin;
  if (package->kind == "compat" || package->kind == "cudart") {
    std::string mm = values["M"] + "." + values["m"];
    std::optional<std::string> version_source;
    const CudaImageRelease* release = ctx.images.FindCudaRelease(mm);
    if (version.empty() && release) {
      version = package->kind == "compat" ? release->compat_libcuda : release->cudart;
      version_source = "base-images.yaml (newest " + mm + " release; unpinned install)";
      where.unconfirmed = "unpinned " + name + ": the repository serves its newest build";
    } else if (!version.empty()) {
      version_source = "apt pin";
    }
    const CudaImageFile* home = ctx.images.FindFile("cuda_home", mm, "");
    const CudaImageFile* file = ctx.images.FindFile(package->kind, mm, "");
    std::string cuda_home = home ? FillTemplate(home->path, values) : "";
    values["cuda_home"] = cuda_home;
    values[package->kind == "compat" ? "compat" : "cudart"] = version.empty() ? "*" : version;
    std::string path = file ? FillTemplate(file->path, values) : "";
    if (image.cuda_home.empty() && home) {
      image.cuda_home = cuda_home;
      image.cuda_link = home->link;
    }
    if (package->kind == "compat") {
      facts::Driver row;
      row.provenance = where;
      row.package = name;
      row.version_source = version_source;
      row.path = path;
      row.name = BaseName(path);
      if (!version.empty()) row.version = version;
      row.source = "apt";
      row.kind = "compat";
      row.toolkit_dir = mm;
      // Through /usr/local/cuda only when that symlink points at this toolkit.
      bool linked = image.cuda_home == cuda_home;
      row.aliases = FileAliases(path, file ? file->links : std::vector<std::string>{}, linked ? cuda_home : "",
                                linked ? image.cuda_link : "", values);
      image.PutDriver(std::move(row));
    } else {
      facts::Runtime row;
      row.provenance = where;
      row.package = name;
      row.version_source = version_source;
      row.path = path;
      if (!version.empty()) row.version = version;
      row.source = "apt";
      row.soname = ctx.knowledge.CudartSoname(mm);
      image.runtimes.push_back(std::move(row));
    }
    return;
  }
  // A user-mode driver in the system library directory.
  std::string branch = values.count("B") ? values["B"] : "";
  if (!branch.empty() && !version.empty() && !StartsWith(version, branch + ".")) version.clear();
  values["version"] = !version.empty() ? version : branch.empty() ? "*" : branch + ".*";
  facts::Driver row;
  row.provenance = where;
  row.package = name;
  row.path = FillTemplate(package->path, values);
  row.name = BaseName(row.path);
  if (!version.empty()) row.version = version;
  if (!branch.empty()) row.branch = branch;
  row.kind = "bundled";
  row.source = "apt";
  image.PutDriver(std::move(row));
}

template <typename Row>
void RemoveRows(std::vector<Row>& rows, ImageModel& image, int line, const std::string& name, const std::string& spec) {
  std::vector<Row> kept;
  for (Row& row : rows) {
    if (row.package && GlobMatch(name, *row.package, false))
      image.changes.push_back({line, "package " + spec.substr(0, 200), row});
    else
      kept.push_back(std::move(row));
  }
  rows = std::move(kept);
}

}  // namespace

bool IsSystemPackageManager(std::string_view tool) {
  return tool == "apt-get" || tool == "apt" || tool == "aptitude" || tool == "yum" || tool == "dnf" ||
         tool == "microdnf" || tool == "zypper" || tool == "tdnf";
}

void RemovePackage(ImageModel& image, int line, const std::string& spec) {
  std::string name = spec.substr(0, spec.find('='));
  RemoveRows(image.drivers, image, line, name, spec);
  RemoveRows(image.runtimes, image, line, name, spec);
}

Status ApplyApt(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  std::string action;
  for (size_t i = 1; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (word == "-o" || word == "--option" || word == "-t" || word == "--target-release" || word == "-c") {
      ++i;
      continue;
    }
    if (StartsWith(word, "-")) continue;
    if (action.empty()) {
      action = word;
      continue;
    }
    if (action == "install" || action == "reinstall") {
      Install(ctx, inst, image, w[i]);
      if (w[i].exact) NotePython(ctx, image, word);
    }
    else if (action == "remove" || action == "purge" || action == "erase" || action == "autoremove")
      RemovePackage(image, inst.line, word);
  }
  return OkStatus();
}

Status ApplyDpkg(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  bool remove = false;
  for (size_t i = 1; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (word == "-r" || word == "-P" || word == "--remove" || word == "--purge") {
      remove = true;
      continue;
    }
    if (word == "-i" || word == "--install") {
      for (size_t j = i + 1; j < w.size(); ++j) {
        std::string file = BaseName(w[j].value);
        if (file.find("cuda") != std::string::npos || file.find("nvidia") != std::string::npos)
          ctx.Unknown(image, inst, "cuda.drivers", "dpkg -i " + w[j].value.substr(0, 200) + ": package contents not read");
      }
      return OkStatus();
    }
    if (remove && !StartsWith(word, "-")) RemovePackage(image, inst.line, word);
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
