// imagelint::Scan: inputs -> facts -> rules x fleet -> suppressions -> the
// finalised report and the gate. Everything the `scan` command does except
// parsing its flags and writing its reports.
#include <algorithm>
#include <filesystem>
#include <optional>

#include "common/file_text.h"
#include "common/json.h"
#include "imagelint/analysis.h"
#include "imagelint/config.h"
#include "imagelint/evaluator.h"
#include "imagelint/source.h"
#include "pipeline/read.h"

namespace imagelint {
namespace {

using nlohmann::json;

constexpr size_t kMaxBaselineBytes = 256u << 20;

// An image that could not be read is an entry of its own, in input order:
// status "error", the reason, no verdicts; the summary counts them.
void AddUnreadableImages(analysis::Report& report, const std::vector<std::pair<size_t, Error>>& unreadable,
                         const std::vector<std::string>& inputs) {
  for (const auto& [index, error] : unreadable) {
    analysis::ImageReport entry;
    entry.ref = inputs[index];
    entry.status = analysis::Outcome::kError;
    entry.error = error.ToString();
    const size_t at = std::min<size_t>(index, report.images.size());
    report.images.insert(report.images.begin() + static_cast<std::ptrdiff_t>(at), std::move(entry));
  }
  analysis::Summary& summary = report.summary ? *report.summary : report.summary.emplace();
  summary.images = static_cast<int64_t>(report.images.size());
  summary.unreadable = static_cast<int64_t>(unreadable.size());
}

}  // namespace

Result<ScanRequest> ScanRequestFromConfig(const config::Config& config) {
  ScanRequest request;
  std::string where = config.file.empty() ? "" : " (" + config.file + ")";
  request.fleet_file = config.fleet.value_or("");
  request.rule_files = config.rule_files;
  request.overrides = config.overrides;
  request.ignores = config.ignores;
  request.inline_ignores = config.inline_ignores.value_or(true);
  if (config.fail_on) {
    auto threshold = analysis::ParseThreshold(*config.fail_on);
    if (!threshold.ok()) return MakeError("--fail-on" + where, threshold.error().message);
    request.fail_on = *threshold;
  }
  request.fail_on_undecided = config.fail_on_undecided.value_or(false);
  if (config.min_severity) {
    auto severity = rules::ParseSeverity(*config.min_severity);
    if (!severity)
      return MakeError("--min-severity" + where, "'" + *config.min_severity + "' is not one of error, warning, note");
    request.min_severity = *severity;
  }
  request.read.platform = config.platform.value_or("");
  request.dockerfile = config.dockerfile.value_or("");
  return request;
}

Result<ScanResult> Scan(const ScanRequest& request, const Context& context) {
  // A missing local input (`imagelint app.tar` with a typo) is "no such file"
  // before the knowledge and rules are loaded (most of a scan's start-up),
  // and never a registry lookup (IsRegistryInput).
  IMAGELINT_TRY(CheckLocalInputs(request));
  if (request.fail_on_new && request.baseline_file.empty())
    return MakeError("--fail-on-new", "goes with --baseline REPORT.json");
  std::optional<analysis::Report> baseline;
  if (!request.baseline_file.empty()) {  // read first: a wrong file is exit 2 before any image is read
    auto text = ReadBoundedFile(request.baseline_file, kMaxBaselineBytes, "--baseline report");
    if (!text.ok()) return text.error();
    auto parsed = ParseJson(*text, request.baseline_file);
    if (!parsed.ok()) return parsed.error();
    auto read = analysis::ReadBaseline(*parsed, request.baseline_file);
    if (!read.ok()) return read.error();
    baseline = std::move(*read);
  }
  auto evaluator = Evaluator::Create(request, context);
  if (!evaluator.ok()) return evaluator.error();
  ScanResult result;
  if (!request.fleet_file.empty()) {
    // A fleet YAML, or `kubectl get nodes -o json`, `nvidia-smi -q -x`, `nvidia-container-cli info --csv`.
    auto loaded = (*evaluator)->LoadFleet(request.fleet_file);
    if (!loaded.ok()) return loaded.error();
    result.fleet = std::move(*loaded);
  }
  // The pools by platform, once: what Dockerfiles are built for and judged on.
  const PoolsByPlatform by_platform = GroupPoolsByPlatform(result.fleet);
  std::vector<Result<ImageFacts>> read = (*evaluator)->ReadAll(request.inputs, by_platform.Platforms());
  // Failed base lookups: one line for the scan, however many bases.
  if (context.warn)
    if (std::string summary = (*evaluator)->ResolverSummary(); !summary.empty()) context.warn(summary);
  std::vector<const ImageFacts*> images;
  std::vector<std::pair<size_t, Error>> unreadable;  // input index, why
  for (size_t i = 0; i < read.size(); ++i) {
    if (!read[i].ok()) {
      if (!request.keep_going) return read[i].error();
      unreadable.emplace_back(i, read[i].error());
      continue;
    }
    images.push_back(&*read[i]);
  }
  auto report = (*evaluator)->Evaluate(images, result.fleet, by_platform);
  if (!report.ok()) return report.error();
  result.report = std::move(*report);
  result.exit_code = analysis::GateFailed(result.report) ? 1 : 0;
  if (baseline) {
    analysis::ApplyBaseline(result.report, *baseline, request.baseline_file);
    if (request.fail_on_new)
      result.exit_code =
          analysis::NewFindingsFailGate(result.report, {request.fail_on, request.fail_on_undecided}) ? 1 : 0;
  }
  if (!unreadable.empty()) {
    AddUnreadableImages(result.report, unreadable, request.inputs);
    result.exit_code = 2;
  }
  return result;
}

}  // namespace imagelint
