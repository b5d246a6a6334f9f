// conda / mamba / micromamba install, create, remove.
//
// A conda environment gets its CUDA from the packages that select it
// (cudatoolkit=11.3, pytorch-cuda=12.1, cuda-version=12.1: python_packages
// rows with cuda_selector in packages.yaml); the frameworks of the same
// command are built for it. Match specs follow conda's grammar
// (https://docs.conda.io/projects/conda/en/stable/user-guide/concepts/pkg-specs.html).
// Environment files (`conda env create -f`) are read from the build context
// (build_context.cpp); without one they are unknown.
#include "dockerfile/conda.h"

#include <algorithm>
#include <set>

#include "common/text.h"
#include "dockerfile/build_context.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/pip.h"
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
    if (size_t build = version.find('='); build != std::string::npos) {
      out.build = version.substr(build + 1);
      version.resize(build);
    }
  }
  size_t channel = name.find("::");
  if (channel != std::string::npos) {
    out.channel = ToLower(name.substr(0, channel));
    name = name.substr(channel + 2);
  }
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
  std::string env_file;
  bool from_file = false;
  for (size_t k = 1; k < w.size(); ++k)
    if (w[k].value == "-f" || w[k].value == "--file") {
      from_file = true;
      if (k + 1 < w.size() && w[k + 1].exact) env_file = w[k + 1].value;
    } else if (StartsWith(w[k].value, "--file=")) {
      from_file = true;
      env_file = w[k].value.substr(7);
    }
  if (sub == "env" || from_file) {
    if (sub == "env" && env_file.empty()) env_file = "environment.yml";  // conda env create's default
    bool yaml = EndsWith(env_file, ".yml") || EndsWith(env_file, ".yaml");
    EnvironmentRead env = yaml ? ReadEnvironment(ctx, image, InRun(image, env_file)) : EnvironmentRead{};
    if (!yaml || !env.unread.empty()) {
      ctx.Unknown(image, inst, "frameworks",
                  "conda environment file " + (env.unread.empty() ? env_file.substr(0, 200) + " not read" : env.unread.substr(0, 400)),
                  ctx.options.context_dir.empty() ? "give the build context (imagelint --context DIR)"
                                                  : "make the file readable in the build context, or scan the built image");
      image.frameworks_partial = true;
      return OkStatus();
    }
    // The file's specs as one `conda install`, its `pip:` entries as one `pip install`.
    ShellCommand install;
    install.words = {{"conda", true, false}, {"install", true, false}};
    for (const std::string& channel : env.channels) {
      install.words.push_back({"-c", true, false});
      install.words.push_back({channel, true, false});
    }
    for (const std::string& spec : env.conda_specs) install.words.push_back({spec, true, false});
    ctx.AddNote(image, inst, "conda reads " + env.file.substr(0, 200) + " from the build context");
    IMAGELINT_TRY(ApplyConda(ctx, inst, image, install));
    if (!env.pip_requirements.empty()) {
      ShellCommand pip;
      pip.words = {{"pip", true, false}, {"install", true, false}};
      for (const std::string& requirement : env.pip_requirements) pip.words.push_back({requirement, true, false});
      IMAGELINT_TRY(ApplyPip(ctx, inst, image, pip, 1, false));
    }
    return OkStatus();
  }
  if (sub != "install" && sub != "create" && sub != "remove" && sub != "uninstall") return OkStatus();
  bool remove = sub == "remove" || sub == "uninstall";
  struct Spec {
    std::string version;
    bool exact = true;
    std::string channel, build;
  };
  std::map<std::string, Spec> specs;  // by name: the last spec of a package counts
  std::string cuda, cuda_from;
  std::vector<std::string> channels;  // -c, in priority order
  static const std::set<std::string> kValueOptions = {"-c", "--channel", "-n", "--name", "-p", "--prefix"};
  for (++i; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (StartsWith(word, "-")) {
      if ((word == "-c" || word == "--channel") && i + 1 < w.size()) channels.push_back(ToLower(BaseName(w[i + 1].value)));
      else if (StartsWith(word, "--channel=")) channels.push_back(ToLower(BaseName(word.substr(10))));
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
    specs[spec.name] = {spec.version, w[i].exact, spec.channel, spec.build};
  }
  // The channel a framework comes from: the spec's own, else the first -c
  // channel that may publish frameworks (conda_channels: not `none`); ""
  // when the command names none (.condarc's channels are not read).
  auto channel_of = [&](const Spec& spec) {
    if (!spec.channel.empty()) return spec.channel;
    for (const std::string& channel : channels) {
      const CondaChannel* row = ctx.packages.FindCondaChannel(channel);
      if (!row || row->arch_lists != "none") return channel;
    }
    return std::string();
  };
  for (const auto& [name, spec] : specs) {
    const PythonPackage* known = ctx.packages.FindPythonPackage("conda", name);
    if (!known || known->framework.empty()) continue;
    if (remove) {
      RemoveFramework(image, inst.line, known->FrameworkOf(name));
      continue;
    }
    const std::string channel = channel_of(spec);
    if (!spec.build.empty() && spec.exact && ctx.packages.IsCpuCondaBuild(channel, spec.build)) {
      ctx.AddNote(image, inst, "conda " + name.substr(0, 200) + " build " + spec.build.substr(0, 100) + " is built for the CPU");
      continue;
    }
    facts::Framework row;
    row.provenance = ctx.Where(inst, image, "instruction");
    row.name = known->FrameworkOf(name);
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
      // A channel whose builds carry other arch lists than the wheels
      // (conda-forge's) gets none: its kernels are not claimed.
      const CondaChannel* known = channel.empty() ? nullptr : ctx.packages.FindCondaChannel(channel);
      if (channel.empty() || (known && known->arch_lists == "pypi")) AddArchList(ctx, row);
      else ctx.AddNote(image, inst, "conda " + name.substr(0, 200) + " comes from the channel " + channel.substr(0, 100) +
                                        ", whose builds' GPU architectures the knowledge tables do not hold");
      AddFrameworkRuntime(ctx, image, row, "conda");
    }
    ReplaceFramework(image, std::move(row));
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
