// `imagelint probe IMAGE [--mode direct|container] [--record FLEET.yaml]`:
// on a GPU host, what CUDA really returns for the image next to imagelint's
// prediction for that host (docs/probe.md). Exit: 0 the observation matches
// the prediction, 1 it contradicts it (or a CUDA call hung), 2 imagelint
// could not do its job, 3 no GPU on this host: nothing to compare.
#include <iostream>

#include "cli/command.h"
#include "common/bytes_text.h"
#include "imagelint/probe.h"

namespace imagelint::cli {
namespace {

constexpr int kExitNoGpu = 3;

struct ProbeArgs {
  probe::ProbeRequest request;
  std::string record;
  std::string format = "text";
  int timeout = 60;
};

std::string CodeText(const nlohmann::json& value, const std::string& name = "") {
  if (value.is_string()) return value.get<std::string>();
  int code = value.is_number_integer() ? value.get<int>() : 0;
  if (code == 0) return "0 (runs)";
  return std::to_string(code) + (name.empty() ? "" : " " + name);
}

void PrintText(const nlohmann::json& report) {
  const auto& host = report["host"];
  std::cout << "host " << DisplayText(host.value("name", "")) << ": ";
  if (host.value("has_gpu", false))
    std::cout << DisplayText(host.value("gpu", "")) << ", driver " << DisplayText(host.value("driver", ""))
              << (host.contains("container_toolkit") ? ", container toolkit " + host["container_toolkit"].get<std::string>() : "")
              << "\n";
  else
    std::cout << "no GPU (" << DisplayText(host.value("why_no_gpu", "")) << ")\n";
  std::cout << "image " << DisplayText(report["image"].value("ref", "")) << " " << report["image"].value("digest", "")
            << " (" << report.value("mode", "") << " mode)\n";
  for (const auto& warning : report.value("warnings", nlohmann::json::array()))
    std::cout << "warning: " << DisplayText(warning.get<std::string>()) << "\n";
  for (const auto& run : report["runs"]) {
    std::cout << "  " << run.value("mode", "") << ":";
    for (const auto& call : run["calls"])
      std::cout << " " << call.value("api", "") << "=" << call.value("code", 0);
    std::cout << "\n";
    for (const auto& file : run["loaded"]) std::cout << "    loaded " << DisplayText(file.get<std::string>()) << "\n";
    const auto& outcome = run["outcome"];
    if (outcome.value("hung", false))
      std::cout << "    " << outcome.value("api", "") << " did not return: killed by the watchdog\n";
  }
  for (const auto& check : report["checks"]) {
    std::string predicted_name;
    const auto& verdict = report.value("prediction", nlohmann::json::object());
    if (verdict.contains("predicted_error") && verdict["predicted_error"].is_object())
      predicted_name = verdict["predicted_error"].value("name", "");
    std::cout << "check " << check.value("check", "") << ": predicted " << CodeText(check["predicted"], predicted_name)
              << ", observed " << CodeText(check["observed"], check.value("name", ""))
              << (check.value("api", "").empty() ? "" : " at " + check.value("api", "")) << ": "
              << check.value("match", "") << "\n";
  }
  const std::string status = report.value("status", "");
  if (status == "no-gpu")
    std::cout << "no GPU on this host: nothing to compare (the probe ran; exit 3)\n";
  else if (status == "hung")
    std::cout << "a CUDA call hung and was killed: see above\n";
  else if (status == "contradiction")
    std::cout << "the observation CONTRADICTS imagelint's prediction: a bug report for the knowledge tables "
                 "(this output and `imagelint facts` of the image)\n";
}

int RunProbe(ProbeArgs& args, const Environment& environment) {
  if (args.request.probe_program.empty()) args.request.probe_program = environment.ProbeProgram();
  args.request.timeout = std::chrono::seconds(args.timeout);
  const Context context = environment.MakeContext();
  auto report = probe::ProbeImage(args.request, context);
  if (!report.ok()) return ReportToolError(report.error());
  if (!args.record.empty()) {
    if (!report->contains("observation"))
      return ReportToolError(MakeError(args.record, "nothing observed to record (" + report->value("status", "") + ")"));
    const auto& seen = (*report)["observation"];
    Observation observation;
    observation.image = seen.value("image", "");
    observation.fact = seen.value("fact", "");
    observation.code = seen.value("code", 0);
    observation.name = seen.value("name", "");
    observation.api = seen.value("api", "");
    observation.host = seen.value("host", "");
    observation.date = seen.value("date", "");
    if (observation.image.rfind("sha256:", 0) != 0) observation.image.clear();
    if (observation.image.empty() && observation.fact.empty())
      return ReportToolError(MakeError(args.record, "nothing to key the observation by: the image has no digest (a root "
                                                    "file system) and the prediction rested on no finding"));
    auto pool = (*report)["pool"].value("name", "probe-host");
    if (auto written = probe::RecordObservation(args.record, pool, probe::PoolYaml(*report), observation); !written.ok())
      return ReportToolError(written.error());
    (*report)["recorded"] = {{"fleet", args.record}, {"pool", pool}};
  }
  if (args.format == "json") {
    std::cout << WriteJson(*report, 2) << "\n";
  } else {
    PrintText(*report);
    if (report->contains("recorded"))
      std::cout << "recorded in " << args.record << ", pool " << (*report)["recorded"]["pool"].get<std::string>() << "\n";
  }
  const std::string status = report->value("status", "");
  return status == "no-gpu" ? kExitNoGpu : status == "match" ? kExitOk : kExitFindings;
}

RunFunction SetupProbe(CLI::App& app) {
  auto args = std::make_shared<ProbeArgs>();
  app.add_option("IMAGE", args->request.image,
                 "the image: a docker-save tarball, OCI layout or archive, rootfs:DIR (direct mode), or a reference "
                 "the local Docker engine has (container mode)")
      ->required()
      ->type_name("IMAGE");
  app.add_option("--mode", args->request.mode,
                 "direct: the image's files with the host's driver libraries, run through the image's loader; "
                 "container: docker run with the NVIDIA runtime")
      ->check(CLI::IsMember({"direct", "container"}));
  app.add_option("--launch", args->request.docker_launch,
                 "container mode: how docker gets the GPU: gpus (--gpus all), nvidia-runtime, cdi")
      ->check(CLI::IsMember({"gpus", "nvidia-runtime", "cdi"}));
  app.add_option("--record", args->record,
                 "write what was observed into this fleet file, under the host's pool (`observed:`)")
      ->type_name("FLEET.yaml");
  app.add_option("--fatbin", args->request.fatbins, "also load this file of the image with cuModuleLoadData (repeatable)")
      ->type_name("PATH");
  app.add_option("--driver-dir", args->request.driver_dirs,
                 "direct mode: where the host's libcuda and libnvidia-* are (repeatable; default: the usual library "
                 "directories)")
      ->type_name("DIR");
  app.add_option("--nvidia-smi-xml", args->request.host.nvidia_smi_xml_file,
                 "read the host from this `nvidia-smi -q -x` output instead of running nvidia-smi")
      ->type_name("FILE");
  app.add_option("--timeout", args->timeout, "seconds each probe run may take; a CUDA call still running is killed")
      ->check(CLI::Range(5, 3600))
      ->type_name("SECONDS");
  app.add_option("--probe", args->request.probe_program, "the imagelint-probe program (default: beside imagelint)")
      ->type_name("FILE");
  app.add_flag("--keep", args->request.keep, "keep the working directory (the image's extracted files)");
  app.add_option("-f,--format", args->format, "text (default) or json (imagelint.probe/v1)")
      ->check(CLI::IsMember({"text", "json"}));
  app.footer("Exit codes: 0 observed = predicted, 1 a contradiction or a hung CUDA call,\n"
             "            2 imagelint could not do its job, 3 no GPU on this host (nothing to compare).");
  return [args](const Environment& environment) { return RunProbe(*args, environment); };
}

CommandRegistration probe_registration({"probe", "on a GPU host: run the image's CUDA and compare with the prediction",
                                  SetupProbe, 55});

}  // namespace
}  // namespace imagelint::cli
