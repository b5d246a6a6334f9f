// conda / mamba / micromamba install, create, remove.
//
// A conda environment gets its CUDA from the packages that select it
// (cudatoolkit=11.3, pytorch-cuda=12.1, cuda-version=12.1: python_packages
// rows with cuda_selector in packages.yaml); the frameworks of the same
// command are built for it. Match specs follow conda's grammar
// (https://docs.conda.io/projects/conda/en/stable/user-guide/concepts/pkg-specs.html).
// Environment files (`conda env create -f`) are not read: unknown.
#include "dockerfile/conda.h"

#include <algorithm>
#include <set>

#include "common/text.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {

CondaSpec ParseCondaSpec(std::string_view word) {
  CondaSpec out;
  std::string name(word), version;
  size_t op = word.find_first_of("=<>!~ ");
  if (op != std::string_view::npos) {
    name = std::string(word.substr(0, op));
    version = std::string(word.substr(op));
    version.erase(0, version.find_first_not_of('='));
    if (version.find_first_of("<>!~,|") != std::string::npos) version.clear();  // a range pins nothing
    version = version.substr(0, version.find('='));                             // =build
  }
  size_t channel = name.find("::");
  if (channel != std::string::npos) name = name.substr(channel + 2);
  out.name = ToLower(name);
  out.version = version;
  return out;
}

Status ApplyConda(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  size_t i = 1;
  while (i < w.size() && StartsWith(w[i].value, "-")) ++i;
  if (i >= w.size()) return OkStatus();
  const std::string& sub = w[i].value;
  bool from_file = std::any_of(w.begin(), w.end(), [](const ShellWord& x) { return x.value == "-f" || x.value == "--file"; });
  if (sub == "env" || (sub == "create" && from_file)) {
    ctx.Unknown(image, inst, "frameworks", "conda environment file not read");
    image.frameworks_partial = true;
    return OkStatus();
  }
  if (sub != "install" && sub != "create" && sub != "remove" && sub != "uninstall") return OkStatus();
  bool remove = sub == "remove" || sub == "uninstall";
  struct Spec {
    std::string version;
    bool exact = true;
  };
  std::map<std::string, Spec> specs;  // by name: the last spec of a package counts
  std::string cuda, cuda_from;
  static const std::set<std::string> kValueOptions = {"-c", "--channel", "-n", "--name", "-p", "--prefix"};
  for (++i; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (StartsWith(word, "-")) {
      if (kValueOptions.count(word)) ++i;
      continue;
    }
    CondaSpec spec = ParseCondaSpec(word);
    const PythonPackage* known = ctx.packages.FindPythonPackage("conda", spec.name);
    if (known && known->cuda_selector) {
      if (!spec.version.empty() && w[i].exact) {
        cuda = MajorMinor(spec.version);
        cuda_from = spec.name + "=" + spec.version;
      }
      continue;
    }
    specs[spec.name] = {spec.version, w[i].exact};
  }
  for (const auto& [name, spec] : specs) {
    const PythonPackage* known = ctx.packages.FindPythonPackage("conda", name);
    if (!known || known->framework.empty()) continue;
    if (remove) {
      RemoveFramework(image, inst.line, known->framework);
      continue;
    }
    facts::Framework row;
    row.provenance = ctx.Where(inst, image, "instruction");
    row.name = known->framework;
    row.package = name;
    row.installer = "conda";
    if (!spec.version.empty() && spec.exact) row.version = spec.version;
    if (!cuda.empty()) {
      row.cuda = cuda;
      row.cuda_source = cuda_from;
      if (cuda.find('.') != std::string::npos) row.variant = "cu" + std::string(cuda).erase(cuda.find('.'), 1);
    } else {
      row.cuda_unknown = true;
      ctx.Unknown(image, inst, "frameworks", "conda " + name.substr(0, 200) + ": no cudatoolkit/pytorch-cuda pin, CUDA variant unknown");
    }
    if (row.name == "torch") {
      AddArchList(ctx, row);
      AddFrameworkRuntime(ctx, image, row, "conda");
    }
    ReplaceFramework(image, std::move(row));
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
