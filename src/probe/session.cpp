// `imagelint probe IMAGE`: the host read, imagelint's prediction for it (the
// host as a one-pool fleet), the C probe run in the image, and the two side
// by side (docs/probe.md).
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "imagelint/analysis.h"
#include "common/bytes_text.h"
#include "common/text.h"
#include "imagelint/pipeline.h"
#include "imagelint/probe.h"
#include "imagelint/source.h"

namespace imagelint::probe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kMaxRuntimes = 16;
constexpr size_t kMaxFatbins = 64;

class TempDir {
 public:
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty() && !keep_) fs::remove_all(path_, ec);
  }
  Status Create(const std::string& under) {
    std::error_code ec;
    fs::path base = under.empty() ? fs::temp_directory_path(ec) : fs::path(under) / "probe";
    fs::create_directories(base, ec);
    std::string pattern = (base / "run-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return MakeError(base.string(), "cannot create a working directory");
    path_ = pattern;
    return OkStatus();
  }
  const fs::path& path() const { return path_; }
  void Keep() { keep_ = true; }

 private:
  fs::path path_;
  bool keep_ = false;
};

Status WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return MakeError(path.string(), "cannot write");
  return OkStatus();
}

// The host's driver libraries, linked into one directory: what a container
// runtime injects, and nothing else of the host's (no host glibc).
fs::path LinkDriverLibraries(const fs::path& work, const std::vector<std::string>& dirs) {
  fs::path out = work / "host-driver";
  std::error_code ec;
  fs::create_directories(out, ec);
  size_t linked = 0;
  for (const std::string& dir : dirs) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      bool driver = name.rfind("libcuda.so", 0) == 0 || name.rfind("libnvidia-", 0) == 0 ||
                    name.rfind("libcudadebugger.so", 0) == 0;
      if (!driver || name.find(".so") == std::string::npos || fs::exists(out / name, ec) || ++linked > 512) continue;
      fs::path target = fs::canonical(entry.path(), ec);
      if (ec || !fs::is_regular_file(target, ec)) continue;
      fs::create_symlink(target, out / name, ec);
    }
  }
  return out;
}

std::vector<std::string> DefaultDriverDirs() {
  return {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64", "/usr/lib/aarch64-linux-gnu",
          "/usr/local/nvidia/lib"};
}

// The pool the host stands for. Direct mode runs no container runtime: no
// requirement check and no compat-library handling (what the runs of
// docs/VALIDATION.md modelled as runtime cdi, compat mode disabled).
json HostPool(const Pool& imported, const Host& host, const ProbeRequest& request) {
  json pool = {{"name", imported.name.empty() ? "probe-host" : imported.name}, {"gpu", imported.gpu},
               {"driver", imported.driver.empty() ? host.driver : imported.driver}};
  if (imported.gpu.empty() && imported.compute_capability) {
    pool.erase("gpu");
    pool["compute_capability"] = *imported.compute_capability;
  }
  if (host.container_toolkit) pool["container_toolkit"] = *host.container_toolkit;
  if (request.mode == "direct") {
    pool["runtime"] = "cdi";
    pool["cuda_compat_mode"] = "disabled";
    pool["disable_require"] = true;
  } else {
    pool["runtime"] = request.docker_launch == "gpus" ? "docker-gpus" : request.docker_launch;
  }
  return pool;
}

std::string PoolLines(const json& pool) {
  std::string out = pool.contains("name") ? "name: \"" + pool["name"].get<std::string>() + "\"\n" : "";
  for (const auto& [key, value] : pool.items()) {
    if (key == "name") continue;
    std::string text = value.is_string() ? "\"" + value.get<std::string>() + "\"" : value.dump();
    out += key + ": " + text + "\n";
  }
  return out;
}

struct Prediction {
  std::optional<analysis::Verdict> verdict;  // the pool's verdict; none when there is no GPU to predict for
  std::optional<analysis::Finding> deciding;  // the finding behind predicted_error, when there is one
};

Result<Prediction> Predict(const json& facts, const json& pool, const fs::path& work, const Context& context) {
  IMAGELINT_TRY(WriteText(work / "facts.json", WriteJson(facts, 2)));
  IMAGELINT_TRY(WriteText(work / "fleet.yaml", "pools:\n  - " + [&] {
    std::string lines = PoolLines(pool), out;
    bool first = true;
    for (const std::string& line : SplitOn(lines, '\n')) {
      if (line.empty()) continue;
      out += (first ? "" : "    ") + line + "\n";
      first = false;
    }
    return out;
  }()));
  ScanRequest scan;
  scan.inputs = {(work / "facts.json").string()};
  scan.fleet_file = (work / "fleet.yaml").string();
  auto result = Scan(scan, context);
  if (!result.ok()) return result.error();
  Prediction prediction;
  if (result->report.images.empty() || result->report.images[0].verdicts.empty())
    return MakeError(scan.inputs[0], "the scan gave no verdict for the host's pool");
  const analysis::ImageReport& image = result->report.images[0];
  prediction.verdict = image.verdicts[0];
  if (const auto& predicted = prediction.verdict->predicted_error)
    for (const analysis::Finding& finding : image.findings)
      if (predicted->rule && finding.rule == *predicted->rule) {
        prediction.deciding = finding;
        break;
      }
  return prediction;
}

std::vector<std::string> ImagePaths(const json& list, const char* field, size_t limit,
                                    const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    std::string path = item.is_object() ? item.value(field, "") : "";
    if (path.empty() || !keep(path) || std::find(out.begin(), out.end(), path) != out.end()) continue;
    if (out.size() < limit) out.push_back(path);
  }
  return out;
}

std::string ImageEnv(const json& facts, const std::string& name) {
  const json& env = facts.contains("image") ? facts["image"].value("env", json::object()) : json::object();
  return env.is_object() && env.contains(name) && env[name].is_string() ? env[name].get<std::string>() : "";
}

}  // namespace

std::string PoolYaml(const json& report) { return PoolLines(report.value("pool", json::object())); }

Result<json> ProbeImage(const ProbeRequest& request, const Context& context) {
  std::error_code ec;
  if (request.probe_program.empty() || !fs::is_regular_file(request.probe_program, ec))
    return MakeError("imagelint-probe", "the probe program is missing (build target imagelint-probe, or set "
                                        "IMAGELINT_PROBE)");
  if (request.mode != "direct" && request.mode != "container")
    return MakeError("--mode", "direct or container, got '" + request.mode + "'");
  const Host host = ReadHost(request.host);
  ImageReadOptions read;
  auto facts = ReadFacts(request.image, read, context);
  if (!facts.ok()) return facts.error();
  TempDir work;
  IMAGELINT_TRY(work.Create(context.cache_dir));
  if (request.keep) work.Keep();

  json report = {{"schema", "imagelint.probe/v1"}, {"mode", request.mode}, {"date", Today()},
                 {"warnings", json::array()}};
  report["host"] = {{"name", host.name}, {"has_gpu", host.has_gpu}};
  if (host.has_gpu) {
    report["host"]["gpu"] = host.gpu;
    report["host"]["driver"] = host.driver;
    if (host.container_toolkit) report["host"]["container_toolkit"] = *host.container_toolkit;
  } else {
    report["host"]["why_no_gpu"] = host.why_no_gpu;
  }
  report["image"] = {{"ref", request.image}, {"digest", (*facts)["image"].value("digest", "")}};

  Prediction prediction;
  if (host.has_gpu) {
    auto imported = ImportFleet(fleet_import::InputKind::kNvidiaSmiXml, host.nvidia_smi_xml, "nvidia-smi -q -x",
                                "probe", context);
    if (!imported.ok()) return imported.error();
    if (imported->imported.pools.empty()) return MakeError("nvidia-smi -q -x", "no GPU pool could be read from it");
    report["pool"] = HostPool(imported->imported.pools[0].pool, host, request);
    auto predicted = Predict(*facts, report["pool"], work.path(), context);
    if (!predicted.ok()) return predicted.error();
    prediction = std::move(*predicted);
    report["prediction"] = prediction.verdict ? analysis::WriteVerdict(*prediction.verdict) : json();
  }

  // What to probe: every libcudart copy, standalone fatbins and cubins.
  const json& cuda = facts->value("cuda", json::object());
  std::vector<std::string> runtimes = ImagePaths(cuda.value("runtimes", json::array()), "path", kMaxRuntimes,
                                                 [](const std::string&) { return true; });
  std::vector<std::string> fatbins = ImagePaths(facts->value("binaries", json::array()), "path", kMaxFatbins,
                                                [](const std::string& p) { return EndsWith(p, ".fatbin") || EndsWith(p, ".cubin"); });
  for (const auto& extra : request.fatbins)
    if (fatbins.size() < kMaxFatbins && std::find(fatbins.begin(), fatbins.end(), extra) == fatbins.end())
      fatbins.push_back(extra);

  std::vector<std::string> prefix;  // the command up to the probe's own options
  std::optional<std::vector<std::string>> env;
  fs::path root;
  auto in_image = [&](const std::string& path) {
    return request.mode == "direct" ? ResolveInRoot(root, path).string() : path;
  };
  if (request.mode == "direct") {
    if (request.image.rfind(kRootfsPrefix, 0) == 0) {
      root = request.image.substr(kRootfsPrefix.size());
    } else {
      root = work.path() / "rootfs";
      IMAGELINT_TRY(ExtractRootfs(request.image, root, {}));
    }
    auto loader = FindLoader(root);
    if (!loader.ok()) return loader.error();
    // The image's LD_LIBRARY_PATH, then the host's driver (where a runtime
    // injects it), then the image's ld.so.conf and default directories: the
    // loader would otherwise read the host's ld.so.cache and libraries.
    std::vector<std::string> dirs;
    for (const std::string& dir : SplitOn(ImageEnv(*facts, "LD_LIBRARY_PATH"), ':'))
      if (!dir.empty()) dirs.push_back(ResolveInRoot(root, dir).string());
    const fs::path driver = LinkDriverLibraries(work.path(), request.driver_dirs.empty() ? DefaultDriverDirs() : request.driver_dirs);
    dirs.push_back(driver.string());
    bool has_libcuda = false;
    for (const auto& entry : fs::directory_iterator(driver, ec))
      has_libcuda |= entry.path().filename().string().rfind("libcuda.so", 0) == 0;
    if (!has_libcuda && host.has_gpu)
      report["warnings"].push_back("no libcuda of the host's driver in the --driver-dir directories: the probe sees "
                                   "only the image's; pass --driver-dir DIR");
    for (const auto& entry : cuda.value("loader", json::object()).value("ld_so_conf", json::array()))
      if (entry.is_object() && entry.contains("dir") && entry["dir"].is_string())
        dirs.push_back(ResolveInRoot(root, entry["dir"].get<std::string>()).string());
    for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                            "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
      dirs.push_back(ResolveInRoot(root, dir).string());
    std::vector<std::string> distinct;
    for (const auto& dir : dirs)
      if (std::find(distinct.begin(), distinct.end(), dir) == distinct.end()) distinct.push_back(dir);
    dirs = std::move(distinct);
    std::string library_path;
    for (const auto& dir : dirs) library_path += (library_path.empty() ? "" : ":") + dir;
    prefix = {loader->string(), "--library-path", library_path, request.probe_program.string()};
    env = std::vector<std::string>{};
    const json& image_env = (*facts)["image"].value("env", json::object());
    if (image_env.is_object())
      for (const auto& [name, value] : image_env.items())
        if (value.is_string() && name.rfind("LD_", 0) != 0 && env->size() < 1024) env->push_back(name + "=" + value.get<std::string>());
    report["rootfs"] = root.string();
    report["library_path"] = dirs;
  } else {
    prefix = {"docker", "run", "--rm", "--network", "none"};
    if (request.docker_launch == "gpus") prefix.insert(prefix.end(), {"--gpus", "all"});
    else if (request.docker_launch == "nvidia-runtime") prefix.insert(prefix.end(), {"--runtime", "nvidia", "-e", "NVIDIA_VISIBLE_DEVICES=all"});
    else prefix.insert(prefix.end(), {"--device", "nvidia.com/gpu=all"});
    prefix.insert(prefix.end(), {"-v", request.probe_program.string() + ":/.imagelint-probe:ro", "--entrypoint",
                                 "/.imagelint-probe", request.image});
  }

  json runs = json::array();
  Outcome observed;
  bool have_observation = false;
  for (const char* loading : fatbins.empty() ? std::vector<const char*>{"lazy"} : std::vector<const char*>{"lazy", "eager"}) {
    std::vector<std::string> argv = prefix;
    for (const auto& runtime : runtimes) argv.insert(argv.end(), {"--runtime", in_image(runtime)});
    for (const auto& fatbin : fatbins) argv.insert(argv.end(), {"--fatbin", in_image(fatbin)});
    const auto probe_timeout = std::max<int64_t>(1, request.timeout.count() - 5);
    argv.insert(argv.end(), {"--module-loading", loading, "--timeout", std::to_string(probe_timeout)});
    auto run = RunProcess(argv, env, request.timeout);
    if (!run.ok()) return run.error();
    json entry = {{"mode", loading}, {"exit_code", run->exit_code}};
    auto record = ParseRecord(run->output, "imagelint-probe (" + std::string(loading) + ")");
    if (!record.ok()) {
      std::string said = DisplayText(run->errors.substr(0, 2000));
      if (run->timed_out) said = "did not finish within " + std::to_string(request.timeout.count()) + " s; " + said;
      return MakeError(request.image, "the probe did not run in the image (exit " + std::to_string(run->exit_code) +
                                          "): " + record.error().ToString() + (said.empty() ? "" : "; " + said));
    }
    Outcome outcome = FirstError(*record);
    json calls = json::array();
    for (const auto& call : record->calls)
      calls.push_back({{"api", call.api}, {"code", call.code}, {"name", call.name}, {"detail", call.detail}});
    json loaded = json::array();
    for (const auto& file : record->loaded) {
      std::string shown = file;
      if (!root.empty() && file.rfind(root.string() + "/", 0) == 0) shown = "<image>" + file.substr(root.string().size());
      loaded.push_back(shown);
    }
    entry["calls"] = calls;
    entry["loaded"] = loaded;
    entry["outcome"] = {{"code", outcome.code}, {"api", outcome.api}, {"name", outcome.name}, {"hung", outcome.hung}};
    if (record->crashed) entry["crashed"] = *record->crashed;
    runs.push_back(entry);
    if (!have_observation) {
      observed = outcome;
      have_observation = true;
    }
  }
  report["runs"] = runs;

  // Predicted against observed.
  json checks = json::array();
  std::string status;
  if (!host.has_gpu) {
    status = "no-gpu";
  } else if (observed.hung) {
    status = "hung";
  } else {
    const analysis::Verdict verdict = prediction.verdict.value_or(analysis::Verdict{});
    const auto& predicted = verdict.predicted_error;
    bool undecided = verdict.status == analysis::Outcome::kUndecided;
    int64_t predicted_code = predicted ? predicted->code : 0;
    bool refused = predicted && predicted->stage == rules::Stage::kContainerStart;
    json check = {{"check", "first CUDA error"},
                  {"predicted", undecided ? json("undecided") : json(predicted_code)},
                  {"observed", observed.code}, {"api", observed.api}, {"name", observed.name}};
    // Direct mode starts no container: a refusal cannot be observed there.
    if (refused && request.mode == "direct") check["match"] = "not-observable";
    else check["match"] = undecided ? "settles" : predicted_code == observed.code ? "match" : "contradiction";
    checks.push_back(check);
    status = check["match"] == "contradiction" ? "contradiction" : "match";
    // Which libcuda loads: the image's first on LD_LIBRARY_PATH, else the
    // host's (direct mode puts the host's driver right after that path).
    // Shown, not judged: the loader's cache and a runtime's injection can
    // reorder the rest.
    if (request.mode == "direct") {
      std::string expected = "the host's driver";
      for (const auto& candidate : cuda.value("loader", json::object()).value("libcuda_candidates", json::array()))
        if (candidate.is_object() && candidate.value("via", "") == "LD_LIBRARY_PATH") {
          expected = "<image>" + ResolveInRoot(root, candidate.value("path", "")).string().substr(root.string().size());
          break;
        }
      std::string loaded = "-";
      for (const auto& file : runs[0]["loaded"]) {
        const std::string path = file.get<std::string>();
        if (fs::path(path).filename().string().rfind("libcuda.so", 0) != 0) continue;
        loaded = path.rfind("<image>", 0) == 0 ? path : "the host's driver (" + path + ")";
        break;
      }
      bool same = loaded == expected || (expected == "the host's driver" && loaded.rfind(expected, 0) == 0);
      checks.push_back({{"check", "libcuda loaded"}, {"predicted", expected}, {"observed", loaded},
                        {"match", same ? "match" : "differs"}});
    }
  }
  report["checks"] = checks;
  report["status"] = status;
  if (host.has_gpu && !observed.hung) {
    std::string fact = prediction.deciding ? analysis::FactKey(*prediction.deciding) : "";
    report["observation"] = {{"image", report["image"]["digest"]}, {"fact", fact}, {"code", observed.code},
                             {"name", observed.code == 0 ? "" : observed.name}, {"api", observed.api},
                             {"host", host.name}, {"date", report["date"]}};
  }
  return report;
}

}  // namespace imagelint::probe
