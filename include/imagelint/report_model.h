// The report model: the C++ types of what `imagelint.report/v1` says about
// each image (findings, verdicts, the Dockerfile's base and platforms), one
// writer and one reader. Analysis builds these values (analysis.h); the JSON
// document is written from them once. docs/report-schema.json describes the
// JSON; docs/rule-language.md "Report" says what each field means.
//
// Optional fields follow the facts model's spellings (nullable.h):
// std::optional<T> is left out when empty, Nullable<T> is written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/base_source.h"
#include "imagelint/nullable.h"
#include "imagelint/platform.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint::analysis {

// Whether a rule was evaluated once for the image or once per pool: the
// rule's own scope (rules.h).
using rules::Scope;
using rules::ScopeName;

// A verdict's or an image's outcome; kError only for an image that could not
// be read (then `error` says why).
enum class Outcome { kPass, kWarn, kFail, kUndecided, kError };
std::string_view OutcomeName(Outcome status);  // "pass" | "warn" | "fail" | "undecided" | "error"
std::optional<Outcome> ParseOutcome(std::string_view text);

// Where a finding's fact sits: a path in a layer, a Dockerfile line, or a
// detail (a knowledge-table row, a NAME=VALUE).
struct Evidence {
  std::optional<std::string> path;
  std::optional<int64_t> layer;  // index into the image's layers
  std::optional<std::string> layer_digest;
  std::optional<std::string> created_by;
  std::optional<int64_t> dockerfile_line;
  std::optional<std::string> detail;
  bool operator==(const Evidence&) const = default;
};

// The CUDA error (or the runtime's refusal) a finding predicts; on a verdict
// also the rule behind it, and `observed` when a host really returned it.
struct PredictedError {
  int64_t code = 0;
  std::string name;
  std::optional<rules::Stage> stage;
  std::optional<std::string> message;
  std::optional<std::string> rule;
  std::optional<bool> observed;
  bool operator==(const PredictedError&) const = default;
};

// One fact an undecided finding needed, in user terms.
struct MissingFact {
  std::string fact;     // the facts path ("cuda.runtimes")
  std::string subject;  // "the CUDA runtime (libcudart)"
  std::string owner;    // "the base image `x:1`"
  std::string text;     // subject + " of " + owner + " is unknown"
  std::optional<int64_t> dockerfile_line;
  std::optional<std::string> reason;  // why the Dockerfile leaves it open
  std::optional<std::string> hint;    // how to decide it
  bool operator==(const MissingFact&) const = default;
};

// The ignore entry (config or inline pragma) that moved a finding to `suppressed`.
struct SuppressedBy {
  std::string rule;
  std::string reason;
  std::string origin;  // "config" | "flag" | "inline"
  std::optional<std::string> file;
  std::optional<int64_t> line;
  std::optional<std::string> expires;
  std::optional<std::string> image;
  std::optional<std::string> pool;
  std::optional<std::string> path;
  std::optional<int64_t> dockerfile_line;
  bool operator==(const SuppressedBy&) const = default;
};

struct Finding {
  std::string rule;  // "IL003"
  std::string name;  // "forward-compat-unsupported-gpu"
  std::string title;
  std::string docs;
  std::optional<int64_t> priority;  // order within a stage when several errors are predicted (absent: 100)
  std::optional<Scope> scope;
  rules::Severity severity = rules::Severity::kError;
  std::string message;
  std::optional<std::string> fix;
  std::vector<std::string> pools;  // where it holds, in fleet order
  std::vector<Evidence> evidence;
  Nullable<PredictedError> predicted_error;
  bool unknown = false;  // undecided: a fact the rule needs is unknown
  std::optional<std::vector<std::string>> missing_facts;  // undecided: the facts paths
  std::optional<std::vector<MissingFact>> missing;        // undecided: the same in user terms
  std::optional<SuppressedBy> suppressed_by;
  std::optional<std::string> baseline_state;  // --baseline: "new" | "unchanged" | "absent"
  std::optional<std::vector<std::string>> new_pools;
  bool operator==(const Finding&) const = default;
};

// What a host of the pool really returned (the fleet file's `observed:`).
struct Observed {
  int64_t code = 0;
  std::string host;
  std::string date;
  std::string key;  // "image": observed with this image; "fact": with another image of the same fact
  std::optional<int64_t> line;
  std::optional<std::string> image;
  std::optional<std::string> fact;
  std::optional<std::string> name;
  std::optional<std::string> api;
  bool operator==(const Observed&) const = default;
};

// A verdict's prediction, kept beside what was observed.
struct Prediction {
  Outcome status = Outcome::kPass;
  Nullable<PredictedError> predicted_error;
  bool operator==(const Prediction&) const = default;
};

struct Verdict {
  std::string pool;
  Outcome status = Outcome::kPass;
  Nullable<PredictedError> predicted_error;  // the error met first; its rule in `rule`
  std::vector<std::string> rules;            // decided findings on the pool
  std::vector<std::string> undetermined;     // undecided findings on the pool
  std::optional<std::string> gate;           // Finalize: "pass" | "fail"
  std::optional<Observed> observed;
  std::optional<Prediction> prediction;
  std::optional<std::string> observation;  // "agrees" | "contradicts" | "settles"
  std::optional<Platform> platform;        // a Dockerfile built per pool platform
  bool operator==(const Verdict&) const = default;
};

// A Dockerfile's FROM image: where its facts came from, or why they were not read.
struct BaseImage {
  std::optional<std::string> ref;
  std::optional<BaseSource> resolved_from;
  std::optional<std::string> digest;
  std::optional<Platform> platform;  // of the image read (or asked for)
  std::optional<std::string> note;
  bool operator==(const BaseImage&) const = default;
};

// One build of a Dockerfile that leaves its platform open, and its pools.
struct PlatformBuild {
  Platform platform;
  std::vector<std::string> pools;
  std::optional<std::string> platform_source;
  std::optional<BaseImage> base;
  bool operator==(const PlatformBuild&) const = default;
};

struct ImageReport {
  std::string ref;
  std::string digest;
  std::optional<Platform> platform;  // written "linux/amd64"
  std::optional<std::string> dockerfile;
  std::optional<BaseImage> base;
  std::optional<std::vector<PlatformBuild>> platforms;
  Outcome status = Outcome::kPass;
  std::optional<std::string> error;  // status error: why the image could not be read
  std::optional<std::string> gate;   // Finalize: "pass" | "fail"
  std::vector<Finding> findings;
  std::optional<std::vector<Finding>> suppressed;
  std::vector<Verdict> verdicts;
  std::optional<std::vector<Finding>> fixed;  // --baseline: findings gone since
  bool operator==(const ImageReport&) const = default;
};

// The one writer and the one reader. Reading is strict: a field of the
// wrong type, or one the model does not have, is an error naming `subject`
// and the field's path.
nlohmann::json WriteFinding(const Finding& finding);
nlohmann::json WriteImageReport(const ImageReport& image);
nlohmann::json WriteSuppressedBy(const SuppressedBy& entry);
nlohmann::json WriteVerdict(const Verdict& verdict);
nlohmann::json WritePredictedError(const Nullable<PredictedError>& predicted);  // null when none
nlohmann::json WriteMissingFacts(const std::vector<MissingFact>& missing);
Result<Finding> ReadFinding(const nlohmann::json& value, const std::string& subject);
Result<ImageReport> ReadImageReport(const nlohmann::json& value, const std::string& subject);

}  // namespace imagelint::analysis
